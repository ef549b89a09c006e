// Links: a labelled, read-only link with a copy button (invitations, spectator links), the
// box of a page that cannot open, with the way back to the lobby, and the game's title.
import { t } from "./i18n.js";
import { el } from "./cards.js";

export function linkRow(label, url) {
  const input = el("input", { type: "text", readonly: true, value: url, class: "link-input", "aria-label": label });
  const btn = el("button", { class: "btn small", type: "button" }, t("invite.copy"));
  btn.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
    } catch (e) {
      input.select();
      try { document.execCommand("copy"); } catch (e2) { /* the text stays selected */ }
    }
    btn.textContent = t("invite.copied");
    setTimeout(() => { btn.textContent = t("invite.copy"); }, 1500);
  });
  return el("div", { class: "link-row" }, el("label", {}, label), el("div", { class: "link-line" }, input, btn));
}

export const linkRowLobby = linkRow;

// A table or a replay that cannot open: `board` shows why (a title and a sentence) and the
// way back to the lobby instead of its controls.
export function showGone(board, title, text) {
  document.body.classList.add("gone");
  board.innerHTML = "";
  board.append(el("div", { class: "gone-box" },
    el("h1", {}, title),
    el("p", {}, text),
    el("a", { class: "btn primary big", href: "/", id: "gone-lobby" }, t("gone.lobby"))));
}

// The page's title: the game's name, its short name on a phone (the topbar leaves little
// room).
export function showGameTitle(node, game) {
  node.replaceChildren(el("span", { class: "wide-text" }, t("game." + game)),
    el("span", { class: "phone-text" }, t("game." + game + ".short")));
}
