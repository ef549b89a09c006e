// Le Roy des Ribauds at the table: the Court of four slots, the two hands, the piles and the
// buttons of the phase. Only actions in the server's legal list can be submitted.
import { has, t } from "./i18n.js";
import { cardBack, clearButton, el, icon, pileLabel, ribName, ribaudsCard } from "./cards.js";
import { botTag, connDot, offlineTag, seatControls } from "./regicide.js";
import { actorName, waitingPrompt, waitingText } from "./names.js";

const key = (verb, args) => [verb, ...args.slice().sort()].join(" ");
const slotName = (i) => t("rib.slot", { n: Number(i) + 1 });
const LIMITS = {
  act: { s: 1, h: 1 }, knight_swap: { s: 2, h: 0 }, knight_flip: { s: 1, h: 0 },
  king: { s: 1, h: 0 }, king_discard: { s: 0, h: 2 }, assassin: { s: 2, h: 0 },
};

function sel(M, kind) {
  return M.sel.filter((x) => x.startsWith(kind + ":")).map((x) => Number(x.slice(2)));
}

// What changed since the previous state, for the small motions: Court slots whose card or
// side changed, new cards in the hand, a new top of the discard pile.
function changes(M) {
  const v = M.state.view;
  const p = M.animate && M.prev ? M.prev.view : null;
  if (!p) return {};
  const slots = new Set();
  v.court.forEach((slot, i) => {
    const old = p.court[i] || {};
    if (old.face_up !== slot.face_up || old.card !== slot.card) slots.add(i);
  });
  const before = (p.hand || []).slice();
  const drawn = new Set();
  (v.hand || []).forEach((c, i) => {
    const j = before.indexOf(c);
    if (j >= 0) before.splice(j, 1); else drawn.add(i);
  });
  const d0 = (p.discard || []).length, d1 = (v.discard || []).length;
  return { slots, drawn, discard: d1 > d0 };
}

export function render(root, M, C) {
  const S = M.state;
  const v = S.view;
  const me = C.me;
  const moved = changes(M);
  const top = me === null ? 1 : 1 - me;
  const bottom = me === null ? 0 : me;
  root.innerHTML = "";
  const legal = new Map(S.legal.map((text) => { const [verb, ...a] = text.split(" "); return [key(verb, a), text]; }));
  const usableSlots = new Set();
  const usableHand = new Set();
  for (const text of S.legal) {
    const [verb, ...a] = text.split(" ");
    if (["reveal", "replace", "swap", "flip", "peek"].includes(verb)) {
      (verb === "replace" ? [a[0]] : a).forEach((s) => usableSlots.add(Number(s)));
    }
    if (verb === "replace") usableHand.add(a[1]);
    if (verb === "discard") a.forEach((c) => usableHand.add(c));
  }
  root.append(
    el("div", { class: "opp-row" }, playerRow(top, v, S, C, true), opponentHand(top, v, me),
      me !== null && (v.opponent_hand_known || []).length
        ? el("div", { class: "legend" }, t("rib.known_opp_legend")) : null),
    el("div", { class: "rib-middle" }, court(v, S, M, C, usableSlots, moved), piles(v, moved)),
    // The dock keeps the prompt, the hand and the buttons in view (sticky at the bottom).
    el("div", { class: "dock" }, prompt(v, S, C), handZone(bottom, v, S, M, C, usableHand, legal, moved)),
  );
}

function playerRow(k, v, S, C, isTop) {
  const info = (S.seats || [])[k] || {};
  const acting = !S.finished && !S.waiting && v.current === k;
  return el("div", { class: "players rib-player " + (isTop ? "top" : "bottom") },
    el("div", { class: "player" + (acting ? " acting" : "") + (k === C.me ? " me" : ""), dataset: { seat: k } },
      el("div", { class: "player-name" },
        icon(info.kind === "bot" || info.bot_replaces ? "bot" : "person"),
        el("span", {}, C.seatLabel(k)),
        info.kind === "human" ? connDot(C.seatOnline(k, info)) : null),
      el("div", { class: "player-facts" },
        el("span", { class: "fact" }, icon("deck"), String(v.hand_sizes[k])),
        info.kind === "human" ? offlineTag(C.seatOnline(k, info)) : null,
        info.kind === "bot" ? botTag("ribauds", info.bot) : null,
        info.bot_replaces ? el("span", { class: "tag warn" }, t("seat.replaced")) : null,
        acting ? el("span", { class: "tag turn" }, t("seat.to_act")) : null),
      seatControls(k, info, S, C)));
}

function opponentHand(k, v, me) {
  const known = me === null ? [] : (v.opponent_hand_known || []).slice();
  const row = el("div", { class: "hand opponent-hand", role: "group", "aria-label": t("rib.opponent_hand") });
  for (let i = 0; i < v.hand_sizes[k]; i++) {
    if (known.length) {
      const c = known.shift();
      const card = ribaudsCard(c, { small: true, ghost: true });
      card.title = t("rib.you_know_opp", { card: ribName(c) });
      card.setAttribute("aria-label", card.title);
      row.append(card);
    } else row.append(cardBack({ small: true }));
  }
  return row;
}

function court(v, S, M, C, usable, moved = {}) {
  const box = el("div", { class: "court" });
  const chosen = sel(M, "s");
  const opp = C.me === null ? null : 1 - C.me;
  let oppKnows = false;
  v.court.forEach((slot, i) => {
    let card;
    if (slot.face_up) card = ribaudsCard(slot.card);
    else {
      card = cardBack({ label: slot.card ? null : "?" });
      if (slot.card) {
        card.classList.add("known-back");
        card.append(el("span", { class: "known-mark", title: t("rib.you_know", { card: ribName(slot.card) }) },
          icon("eye"), ribName(slot.card)));
      }
    }
    card.classList.add("court-card");
    // its slot and what this seat knows of it, in words (the eye marks are icons)
    const known = slot.face_up ? ribName(slot.card)
      : slot.card ? `${ribName(slot.card)}, ${t("rib.face_down")}` : t("rib.face_down");
    const oppKnowsIt = opp !== null && slot.known_by[opp] && !slot.face_up;
    card.setAttribute("role", "img");
    card.setAttribute("aria-label", `${slotName(i)}: ${known}` + (oppKnowsIt ? `. ${t("rib.opp_knows")}` : ""));
    if (moved.slots && moved.slots.has(i)) card.classList.add("enter");
    const selected = chosen.includes(i);
    if (oppKnowsIt) oppKnows = true;
    if (selected) card.classList.add("selected");
    const cell = el("div", { class: "court-slot" + (slot.face_up ? " up" : " down"), dataset: { slot: i } }, card,
      el("div", { class: "slot-label" }, slotName(i),
        oppKnowsIt
          ? el("span", { class: "opp-knows", title: t("rib.opp_knows") }, icon("eye")) : null));
    if (S.legal.length && usable.has(i)) {
      card.classList.add("selectable");
      card.tabIndex = 0;
      card.dataset.focus = "s:" + i;
      card.setAttribute("role", "button");
      card.setAttribute("aria-pressed", selected ? "true" : "false");
      const lim = (LIMITS[v.phase] || {}).s || 1;
      card.addEventListener("click", () => C.toggle("s:" + i, lim));
      card.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); C.toggle("s:" + i, lim); } });
    }
    box.append(cell);
  });
  const zone = el("div", { class: "court-zone" }, el("div", { class: "court-title" }, t("rib.court")), box);
  // The markers' meanings in words, for screens without hover.
  if (oppKnows) zone.append(el("div", { class: "legend" }, icon("eye"), " ", t("rib.opp_knows")));
  return zone;
}

function piles(v, moved = {}) {
  const discard = v.discard || [];
  return el("div", { class: "piles rib-piles" },
    el("div", { class: "pile" },
      v.deck > 0 ? cardBack({ small: true, count: v.deck }) : el("div", { class: "card small empty" }),
      pileLabel(t("rib.deck"), v.deck),
      v.deck_bottom_reines ? el("div", { class: "pile-sub" }, t("rib.bottom_reines", { n: v.deck_bottom_reines })) : null),
    el("div", { class: "pile" },
      discard.length ? withClass(ribaudsCard(discard[0], { small: true }), moved.discard ? "enter" : null) : el("div", { class: "card small empty" }),
      el("div", { class: "pile-label" }, t("rib.discard")),
      discard.length > 1 ? el("div", { class: "pile-sub" }, t("rib.discard_below", { cards: discard.slice(1).map(ribName).join(", ") })) : null));
}

function withClass(node, cls) {
  if (cls) node.classList.add(cls);
  return node;
}

function prompt(v, S, C) {
  let text;
  const ending = S.outcome && S.outcome.ending;  // a player conceded
  if (ending) text = t("rib.prompt_conceded", { who: C.seatName(ending.seat), winner: C.seatName(S.outcome.winner) });
  else if (S.finished) text = t("rib.prompt_over", { who: C.seatName(v.winner), c: t("rib.conspiracy." + v.conspiracy) });
  else if (S.waiting) text = waitingPrompt(S, C);  // nobody acts before every seat is taken
  else if (C.me === null) text = t("prompt.watching", { who: C.seatName(v.current) });
  else if (v.current !== C.me) text = waitingText(S.seats, v.current, C.seatName(v.current));
  else if (!S.legal.length) text = t("prompt.bot_plays");
  else text = t("rib.phase." + v.phase);
  return el("div", { class: "prompt" + (v.current === C.me && S.legal.length && !S.finished ? " yours" : "") }, text);
}

function handZone(k, v, S, M, C, usable, legal, moved = {}) {
  const zone = el("div", { class: "hand-zone" });
  if (C.me === null) {
    zone.append(playerRow(k, v, S, C, false));
    const row = el("div", { class: "hand" });
    for (let i = 0; i < v.hand_sizes[k]; i++) row.append(cardBack({ small: true }));
    zone.append(row);
    return zone;
  }
  const hand = v.hand || [];
  const chosen = sel(M, "h");
  const knownByOpp = (v.hand_known_by_opponent || []).slice();
  const handEl = el("div", { class: "hand", role: "group", "aria-label": t("rib.your_hand") });
  const lim = (LIMITS[v.phase] || {}).h || 1;
  let known = false;
  hand.forEach((c, i) => {
    const card = ribaudsCard(c);
    card.classList.add("in-hand");
    if (moved.drawn && moved.drawn.has(i)) card.classList.add("enter");
    const j = knownByOpp.indexOf(c);
    if (j >= 0) {
      knownByOpp.splice(j, 1);
      known = true;
      card.append(el("span", { class: "opp-knows in-card", title: t("rib.opp_knows_hand") }, icon("eye")));
      card.setAttribute("aria-label", `${ribName(c)}. ${t("rib.opp_knows_hand")}`);
    }
    if (chosen.includes(i)) card.classList.add("selected");
    if (S.legal.length && usable.has(c) && lim > 0) {
      card.classList.add("selectable");
      card.tabIndex = 0;
      card.dataset.focus = "h:" + i;
      card.setAttribute("role", "button");
      card.setAttribute("aria-pressed", chosen.includes(i) ? "true" : "false");
      card.addEventListener("click", () => C.toggle("h:" + i, lim));
      card.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); C.toggle("h:" + i, lim); } });
    }
    handEl.append(card);
  });
  zone.append(el("div", { class: "own-row" }, playerRow(k, v, S, C, false), handEl));
  if (known) zone.append(el("div", { class: "legend" }, icon("eye"), " ", t("rib.opp_knows_hand")));
  zone.append(actions(v, S, M, C, legal, hand));
  return zone;
}

// A move's button; its name for screen readers says what it acts on ("Swap: C1, C3"), which
// the page shows only by the cards' highlight.
function button(label, text, M, C, cls, id, targets = []) {
  const b = el("button", { class: cls, type: "button", disabled: !text || M.pending, id, onclick: () => C.act(text) }, label);
  if (text && targets.length) b.setAttribute("aria-label", `${label}: ${targets.join(", ")}`);
  return b;
}

// Why the selection cannot be done yet, as [code, params] for why(), or null (rules 2.3,
// 2.4). The server's legal list decides; this only explains.
function selectionReason(v, S, slots, cards) {
  const up = (i) => v.court[i] && v.court[i].face_up;
  switch (v.phase) {
    case "act":
      if (slots.length === 1 && !cards.length) return [up(slots[0]) ? "rib_face_up" : "rib_reveal_or_replace", { slot: slots[0] }];
      if (!slots.length && cards.length === 1) return ["rib_pick_slot", {}];
      return null;
    case "knight_swap":
      return slots.length === 1 ? ["rib_swap_second", {}] : null;
    case "king_discard":
      return cards.length === 1 ? ["rib_discard_second", {}] : null;
    case "assassin": {
      const need = Math.max(0, ...S.legal.filter((x) => x.startsWith("peek")).map((x) => x.split(" ").length - 1));
      return slots.length && slots.length !== need ? ["peek_count", { n: need }] : null;
    }
    default:
      return null;
  }
}

// A refusal's reason in the page's language; params as the engine gives them (cards as
// letters, slots 0-based).
export function why(code, params, C) {
  if (!has("why." + code)) return null;
  const p = { ...params };
  if (Array.isArray(p.cards)) p.cards = names(p.cards);
  if (typeof p.slot === "number") p.slot = slotName(p.slot);
  if (typeof p.seat === "number") p.seat = C.seatName(p.seat);
  return t("why." + code, p);
}

function actions(v, S, M, C, legal, hand) {
  const wrap = el("div", { class: "actions-wrap" });
  const bar = el("div", { class: "actions" });
  wrap.append(bar);
  if (!S.legal.length) return wrap;
  const slots = sel(M, "s");
  const cards = sel(M, "h").map((i) => hand[i]);
  const one = slots.length === 1 ? slots[0] : null;
  const named = slots.map(slotName);
  const reason = selectionReason(v, S, slots, cards);
  wrap.append(el("div", { class: "why" + (reason ? " refused" : ""), id: "why", role: "status", "aria-live": "polite" },
    reason ? why(reason[0], reason[1], C) : ""));
  switch (v.phase) {
    case "act": {
      bar.append(button(t("rib.reveal"), one !== null && !cards.length ? legal.get(key("reveal", [String(one)])) : null, M, C, "btn primary", "act-reveal", named));
      const rep = (dir) => (one !== null && cards.length === 1 ? legal.get(`replace ${one} ${cards[0]} ${dir}`) : null);
      const what = [...named, ...cards.map(ribName)];
      bar.append(button(t("rib.replace_up"), rep("up"), M, C, "btn", "act-replace-up", what));
      bar.append(button(t("rib.replace_down"), rep("down"), M, C, "btn", "act-replace-down", what));
      break;
    }
    case "knight_swap":
      bar.append(button(t("rib.swap"), slots.length === 2 ? legal.get(key("swap", slots.map(String))) : null, M, C, "btn primary", "act-swap", named));
      break;
    case "knight_flip":
      bar.append(button(t("rib.flip"), one !== null ? legal.get(`flip ${one}`) : null, M, C, "btn primary", "act-flip", named));
      break;
    case "king":
      bar.append(button(t("rib.draw"), legal.get("draw"), M, C, "btn primary", "act-draw"));
      bar.append(button(t("rib.king_reveal"), one !== null ? legal.get(`reveal ${one}`) : null, M, C, "btn", "act-king-reveal", named));
      break;
    case "king_discard":
      bar.append(button(t("rib.discard_two"), cards.length === 2 ? legal.get(key("discard", cards)) : null, M, C, "btn primary", "act-discard", cards.map(ribName)));
      break;
    case "assassin":
      bar.append(button(t("rib.peek"), slots.length ? legal.get(key("peek", slots.map(String))) : null, M, C, "btn primary", "act-peek", named));
      break;
    default:
      break;
  }
  if (M.sel.length) bar.append(clearButton(() => C.clear()));
  return wrap;
}

// ------------------------------------------------------------------ help and end

export function help() {
  const cards = el("ul", { class: "help-list" });
  for (const c of ["K", "Q", "N", "A"]) {
    cards.append(el("li", {}, icon(["crown", "tiara", "horse", "dagger"][["K", "Q", "N", "A"].indexOf(c)]), " ",
      el("b", {}, ribName(c)), ": ", t("rib.effect." + c)));
  }
  const consp = el("ul", { class: "help-list" });
  for (const c of ["coronation", "marriage", "murder"]) {
    consp.append(el("li", {}, el("b", {}, t("rib.conspiracy." + c)), ": ", t("rib.conspiracy_rule." + c)));
  }
  // what "(no effect)" in the card list means (the rules page says it the same way)
  return el("div", {}, el("p", { class: "small" }, t("rib.goal")), consp, cards,
    el("p", { class: "small muted", id: "rib-effects" }, t("rules.rib.effects")));
}

export function endScreen(M, C) {
  const v = M.state.view;
  const o = M.state.outcome || {};
  if (o.ending) {  // a player conceded: the other wins, by no conspiracy
    const won = C.me !== null && o.winner === C.me;
    const box = el("div", { class: "end-body " + (C.me === null ? "" : won ? "won" : "lost") });
    box.append(el("div", { class: "end-icon" }, icon("flag")));
    box.append(el("h2", {}, C.me === null ? t("rib.end_winner", { who: C.seatName(o.winner) }) : won ? t("rib.end_won") : t("rib.end_lost")));
    box.append(el("p", { id: "end-conceded" }, t("rib.end_conceded", { who: C.seatLabel(o.ending.seat) })));
    return box;
  }
  const won = C.me !== null && v.winner === C.me;
  const box = el("div", { class: "end-body " + (C.me === null ? "" : won ? "won" : "lost") });
  box.append(el("div", { class: "end-icon" }, icon(v.conspiracy === "murder" ? "dagger" : v.conspiracy === "marriage" ? "tiara" : "crown")));
  box.append(el("h2", {}, C.me === null ? t("rib.end_winner", { who: C.seatName(v.winner) }) : won ? t("rib.end_won") : t("rib.end_lost")));
  box.append(el("div", { class: "medal conspiracy" }, t("rib.conspiracy." + v.conspiracy)));
  box.append(el("p", {}, t("rib.end_by", { who: C.seatLabel(v.winner), c: t("rib.conspiracy." + v.conspiracy) })));
  box.append(el("p", { class: "muted small" }, t("rib.conspiracy." + v.conspiracy) + ": " + t("rib.conspiracy_won." + v.conspiracy)));
  return box;
}

// ------------------------------------------------------------------ the log in words

const names = (cards) => (cards || []).map(ribName).join(", ");

export function describe(e, C) {
  const who = actorName(e, C);
  switch (e.kind) {
    case "redeal":
      return e.case === "cancel" ? t("log.b.redeal_cancel") : t("log.b.redeal_single", { who });
    case "deal":
      return t("log.b.deal") + (e.hand ? " " + t("log.b.your_hand", { cards: names(e.hand) }) : "");
    case "start":
      return t("log.b.start", { who });
    case "conceded":  // the table's, no rule's: a player resigned
      return t("log.conceded", { who });
    case "reveal":
      return t("log.b.reveal", { who, slot: slotName(e.slot), card: ribName(e.card) });
    case "king_reveal":
      return t("log.b.king_reveal", { who, slot: slotName(e.slot), card: ribName(e.card) });
    case "replace": {
      let s = e.up ? t("log.b.replace_up", { who, slot: slotName(e.slot), card: ribName(e.card) })
        : t("log.b.replace_down", { who, slot: slotName(e.slot) });
      // the face-down card, known to its player (and to a replay, which shows everything)
      if (!e.up && e.card) s += " " + t(C.me === e.seat ? "log.b.yours" : "log.b.face_down_card", { card: ribName(e.card) });
      if (e.discarded) s += " " + t("log.b.replaced_discarded", { card: ribName(e.discarded) });
      else if (e.taken) s += " " + t("log.b.taken", { who, card: ribName(e.taken) });
      else s += " " + t("log.b.taken_hidden", { who });
      return s;
    }
    case "draw": {
      let s = t("log.b.draw", { who, n: e.count });
      if (e.cards && e.cards.length) s += " " + t("log.b.drew", { cards: names(e.cards) });
      else if (e.known && e.known.length) s += " " + t("log.b.drew_known", { cards: names(e.known) });
      return s;
    }
    case "inspect": {
      let s = t("log.b.inspect", { who, target: C.seatName(e.target), n: e.count });
      if (e.cards && e.cards.length) s += " " + t("log.b.seen", { cards: names(e.cards) });
      if (e.discarded && e.discarded.length) s += " " + t("log.b.reines_discarded", { n: e.discarded.length });
      return s;
    }
    case "swap":
      return t("log.b.swap", { who, a: slotName(e.slots[0]), b: slotName(e.slots[1]) });
    case "flip":
      return t(e.up ? "log.b.flip_up" : "log.b.flip_down", { who, slot: slotName(e.slot), card: ribName(e.card) });
    case "discard":
      return t("log.b.discard", { who, cards: names(e.cards) });
    case "peek": {
      if (!e.slots || !e.slots.length) return t("log.b.peek_none", { who });
      let s = t("log.b.peek", { who, slots: e.slots.map(slotName).join(", ") });
      if (e.cards && e.cards.length) s += " " + t("log.b.seen", { cards: names(e.cards) });
      return s;
    }
    case "reshuffle":
      return t("log.b.reshuffle", { n: e.count });
    case "win":
      return t("log.b.win", { who, c: t("rib.conspiracy." + e.conspiracy) });
    default:
      return e.kind;
  }
}

// Replay: the Court as it truly is, and both hands.
export function renderReplay(root, step, C) {
  const v = step.view;
  const pos = step.position;
  root.innerHTML = "";
  const box = el("div", { class: "court" });
  pos.court.forEach((code, i) => {
    const letter = code[0];
    const up = code[1] === "+";
    const card = ribaudsCard(letter, { ghost: !up });
    if (!up) card.append(el("span", { class: "known-mark corner" }, t("rib.face_down")));
    box.append(el("div", { class: "court-slot" }, card, el("div", { class: "slot-label" }, slotName(i))));
  });
  const hands = el("div", { class: "replay-hands" });
  step.hands.forEach((h, k) => {
    hands.append(el("div", { class: "replay-hand" + (v.current === k && v.phase !== "won" ? " acting" : "") },
      el("div", { class: "hand-label" }, C.seatName(k)),
      el("div", { class: "hand small-hand" }, (h || []).map((c) => ribaudsCard(c, { small: true })))));
  });
  root.append(el("div", { class: "court-zone" }, el("div", { class: "court-title" }, t("rib.court")), box), piles(v), hands);
}
