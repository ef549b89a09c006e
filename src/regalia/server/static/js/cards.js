// Card faces and small helpers shared by the pages (no build step: plain ES module).
import { t } from "./i18n.js";

export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const RED = { D: true, H: true };
const RANKS = "A23456789TJQK";

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "html") e.innerHTML = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "style") e.style.cssText = v;  // CSSOM: allowed by the CSP (no inline style attribute)
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Small inline icons (SVG), so that every device draws them the same way.
const ICONS = {
  sword: '<path d="M12 1.5 13.6 4.5V15h-3.2V4.5z" fill="currentColor"/><path d="M6.5 15h11v2h-11z" fill="currentColor"/><path d="M11 17h2v3.6h-2z" fill="currentColor"/><circle cx="12" cy="21.6" r="1.4" fill="currentColor"/>',
  heart: '<path d="M12 21s-7.5-4.6-9.6-9.2C.9 8.3 3 4.5 6.6 4.5c2.2 0 3.6 1.2 5.4 3.2 1.8-2 3.2-3.2 5.4-3.2 3.6 0 5.7 3.8 4.2 7.3C19.5 16.4 12 21 12 21z" fill="currentColor"/>',
  shield: '<path d="M12 2 21 5.5v6c0 5.3-3.8 9.3-9 10.5C6.8 20.8 3 16.8 3 11.5v-6L12 2z" fill="currentColor"/>',
  crown: '<path d="M2.5 7.5 7 12l5-8 5 8 4.5-4.5L19.5 19h-15L2.5 7.5zM4.5 20.5h15V22h-15z" fill="currentColor"/>',
  tiara: '<path d="M3 18c0-6 4-10 9-13 5 3 9 7 9 13H3zm9-9.5a2 2 0 1 0 0 4 2 2 0 0 0 0-4zM3 19.5h18V21H3z" fill="currentColor"/>',
  horse: '<path d="M7 21h12c0-5-1.5-9.5-4.5-13L16 4l-3.5 1.5C9 5 6 7.5 5 11l2.5 1.5 3-1.5c0 3-3.5 5-3.5 10z" fill="currentColor"/><circle cx="12.3" cy="8" r=".9" fill="#fff"/>',
  dagger: '<path d="M12 1.5 14 6v9h-4V6l2-4.5zM7 15.5h10V17h-3.8v2.5a1.2 1.2 0 1 1-2.4 0V17H7z" fill="currentColor"/>',
  eye: '<path d="M12 5C6.5 5 2.7 9.2 1.5 12c1.2 2.8 5 7 10.5 7s9.3-4.2 10.5-7C21.3 9.2 17.5 5 12 5zm0 11a4 4 0 1 1 0-8 4 4 0 0 1 0 8zm0-6a2 2 0 1 0 0 4 2 2 0 0 0 0-4z" fill="currentColor"/>',
  star: '<path d="m12 2 2.9 6.9 7.1.6-5.4 4.7 1.7 7L12 17.5 5.7 21.2l1.7-7L2 9.5l7.1-.6z" fill="currentColor"/>',
  castle: '<path d="M3 21V8h3v2h2V8h3v2h2V8h3v2h2V8h3v13h-7v-5a2 2 0 1 0-4 0v5z" fill="currentColor"/>',
  mug: '<path d="M4 5h12v3h2.5A2.5 2.5 0 0 1 21 10.5v3a2.5 2.5 0 0 1-2.5 2.5H16v1a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3zm12 5v4h2.5a.5.5 0 0 0 .5-.5v-3a.5.5 0 0 0-.5-.5z" fill="currentColor"/>',
  trash: '<path d="M9 3h6l1 2h4v2H4V5h4zM6 8h12l-1 13H7z" fill="currentColor"/>',
  deck: '<path d="M7 3h11a2 2 0 0 1 2 2v13h-2V5H7zM4 7h11a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V9a2 2 0 0 1 2-2z" fill="currentColor"/>',
  bot: '<path d="M11 2h2v3h4a3 3 0 0 1 3 3v9a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V8a3 3 0 0 1 3-3h4zM9 10a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm6 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm-6 5v1.5h6V15z" fill="currentColor"/>',
  bubble: '<path d="M4 3h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 5v2h10V8zm0 4v2h7v-2z" fill="currentColor"/>',
  bell: '<path d="M12 2.5a1.5 1.5 0 0 1 1.5 1.5v.7A6.5 6.5 0 0 1 18.5 11v4.2l2 2.3V19h-17v-1.5l2-2.3V11a6.5 6.5 0 0 1 5-6.3V4A1.5 1.5 0 0 1 12 2.5zM9.5 20h5a2.5 2.5 0 0 1-5 0z" fill="currentColor"/>',
  flag: '<path d="M5 2h2v20H5zM8 3.5h11l-2.6 4 2.6 4H8z" fill="currentColor"/>',
  exit: '<path d="M4 3h10v5h-2V5H6v14h6v-3h2v5H4zM16 8l5 4-5 4v-3H9v-2h7z" fill="currentColor"/>',
  close: '<path d="m5.6 4.2 6.4 6.4 6.4-6.4 1.4 1.4-6.4 6.4 6.4 6.4-1.4 1.4-6.4-6.4-6.4 6.4-1.4-1.4 6.4-6.4-6.4-6.4z" fill="currentColor"/>',
  // a phone with a notification's dot ("Notify me": the device tells you; not "Alerts"' bell)
  notify: '<path fill-rule="evenodd" d="M6 2h8.5a2 2 0 0 1 2 2v16a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zm0 3v14h8.5V5z" fill="currentColor"/><circle cx="18" cy="6" r="3.5" fill="currentColor"/>',
  person: '<circle cx="12" cy="7.5" r="4.5" fill="currentColor"/><path d="M3 21c0-4.5 4-7.5 9-7.5s9 3 9 7.5z" fill="currentColor"/>',
};

// The button that clears a selection: an ✕ and its name (on a phone the name only in its
// title, so that it stays on the row of the phase's buttons).
export function clearButton(onclick) {
  return el("button", { class: "btn ghost icon-btn", type: "button", id: "act-clear", title: t("action.clear"), onclick },
    icon("close"), el("span", { class: "btn-label" }, t("action.clear")));
}

export function icon(name, cls = "icon") {
  const span = document.createElement("span");
  span.className = cls;
  span.setAttribute("aria-hidden", "true");
  span.innerHTML = `<svg viewBox="0 0 24 24" width="1em" height="1em">${ICONS[name] || ""}</svg>`;
  return span;
}

// ---------------------------------------------------------------- Regicide cards

export function rankOf(card) { return card === "X" ? "X" : card[0]; }
export function suitOf(card) { return card === "X" ? null : card[1]; }

// The rank on a card's corner and in short card names: the face cards by the page's
// language's letters (Portuguese: V, D, R for Valete, Dama, Rei).
export function rankLabel(r) {
  if (r === "T") return "10";
  if (r === "J" || r === "Q" || r === "K") {
    const key = "rank.letter." + r;
    const letter = t(key);
    return letter === key ? r : letter;
  }
  return r;
}

export function cardValue(card) {
  const r = rankOf(card);
  if (r === "X") return 0;
  if (r === "A") return 1;
  if (r === "T") return 10;
  if (r === "J") return 10;
  if (r === "Q") return 15;
  if (r === "K") return 20;
  return Number(r);
}

export function cardSort(a, b) {
  const ra = a === "X" ? 99 : RANKS.indexOf(a[0]);
  const rb = b === "X" ? 99 : RANKS.indexOf(b[0]);
  if (ra !== rb) return ra - rb;
  return "CDHS".indexOf(suitOf(a) || "Z") - "CDHS".indexOf(suitOf(b) || "Z");
}

// "5H" -> "5♥", "X" -> Jester symbol
export function cardShort(card) {
  if (card === "X") return "★";
  return rankLabel(card[0]) + SUIT_SYMBOL[card[1]];
}

// Full name in the page's language: "Five of Hearts", "Valete de Espadas"...
export function cardName(card) {
  if (card === "X") return t("card.jester");
  return t("card.of", { rank: t("rank." + card[0]), suit: t("suit." + card[1]) });
}

export function cardsText(cards) {
  return cards.map(cardShort).join(" ");
}

export function regicideCard(card, { small = false, big = false } = {}) {
  const cls = ["card", "face"];
  if (small) cls.push("small");
  if (big) cls.push("big");
  if (card === "X") {
    cls.push("jester");
    return el("div", { class: cls.join(" "), title: cardName(card), role: "img", "aria-label": cardName(card), dataset: { card } },
      el("span", { class: "corner tl" }, "★"),
      el("span", { class: "pip jester-pip" }, icon("star", "icon")),
      el("span", { class: "jester-label" }, t("card.jester")),
      el("span", { class: "corner br" }, "★"));
  }
  const r = card[0], s = card[1];
  cls.push(RED[s] ? "red" : "black", "suit-" + s);
  const label = rankLabel(r);
  const corner = (pos) => el("span", { class: "corner " + pos }, el("b", {}, label), el("i", {}, SUIT_SYMBOL[s]));
  let middle;
  if (r === "J" || r === "Q" || r === "K") {
    cls.push("royal");
    middle = el("span", { class: "pip royal-pip" },
      icon(r === "K" ? "crown" : r === "Q" ? "tiara" : "sword", "royal-icon"),
      el("span", { class: "royal-letter" }, label + SUIT_SYMBOL[s]));
  } else if (r === "A") {
    cls.push("ace");
    middle = el("span", { class: "pip ace-pip" }, SUIT_SYMBOL[s]);
  } else {
    middle = el("span", { class: "pip" }, SUIT_SYMBOL[s]);
  }
  return el("div", { class: cls.join(" "), title: cardName(card), role: "img", "aria-label": cardName(card), dataset: { card } },
    corner("tl"), middle, corner("br"));
}

export function cardBack({ small = false, big = false, label = null, count = null } = {}) {
  const cls = ["card", "back"];
  if (small) cls.push("small");
  if (big) cls.push("big");
  return el("div", { class: cls.join(" ") },
    label ? el("span", { class: "back-label" }, label) : null,
    count !== null ? el("span", { class: "back-count", "aria-hidden": "true" }, String(count)) : null);
}

// A pile's name with its count for screen readers, which read the name first (the count
// drawn on the card back above is hidden from them).
export function pileLabel(name, count) {
  return el("div", { class: "pile-label" }, name,
    count > 0 ? el("span", { class: "sr-only" }, ", " + t("regicide.cards_n", { n: count })) : null);
}

// ---------------------------------------------------------------- Ribauds cards

export const RIB_ICON = { K: "crown", Q: "tiara", N: "horse", A: "dagger" };

export function ribName(letter) { return t("rib.card." + letter); }

export function ribaudsCard(letter, { small = false, ghost = false } = {}) {
  const cls = ["card", "face", "rib", "rib-" + letter];
  if (small) cls.push("small");
  if (ghost) cls.push("ghost");
  return el("div", { class: cls.join(" "), title: ribName(letter) + " — " + t("rib.effect." + letter), role: "img", "aria-label": ribName(letter), dataset: { card: letter } },
    // the corner shows the card's emblem: its notation letter would read as a rank (A: Ace)
    el("span", { class: "corner tl" }, icon(RIB_ICON[letter])),
    el("span", { class: "pip rib-pip" }, icon(RIB_ICON[letter], "rib-icon")),
    el("span", { class: "rib-name" }, ribName(letter)));
}
