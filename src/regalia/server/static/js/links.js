// A labelled, read-only link with a copy button (invitations, spectator links).
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
