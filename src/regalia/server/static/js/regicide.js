// Regicide at the table: the enemy, the Castle and the piles, the players, your hand and
// the buttons of the phase. Only actions in the server's legal list can be submitted.
import { has, t } from "./i18n.js";
import {
  SUIT_SYMBOL, cardBack, cardName, cardValue, cardsText, clearButton, el, icon, pileLabel, rankLabel, rankOf,
  regicideCard,
} from "./cards.js";
import { actorName, botLevel, waitingPrompt, waitingText } from "./names.js";

const key = (verb, args) => [verb, ...args.slice().sort()].join(" ");

function legalIndex(legal) {
  const map = new Map();
  for (const text of legal) {
    const [verb, ...args] = text.split(" ");
    map.set(key(verb, args), text);
  }
  return map;
}

function selectedCards(M) {
  const hand = M.state.view.hand || [];
  return M.sel.filter((s) => s.startsWith("h:")).map((s) => hand[Number(s.slice(2))]).filter(Boolean);
}

// ------------------------------------------------------------------ board

// What changed since the previous state, for the small motions (cards arriving on the
// table, on the discard pile and in the hand, the damage bar filling). Empty when nothing
// is to move: a render that only shows a new selection moves nothing.
function changes(M) {
  const v = M.state.view;
  const p = M.animate && M.prev ? M.prev.view : null;
  if (!p) return {};
  const sameEnemy = p.enemy === v.enemy;
  const before = (p.hand || []).slice();
  const newCards = [];
  (v.hand || []).forEach((c, i) => {
    const j = before.indexOf(c);
    if (j >= 0) before.splice(j, 1); else newCards.push(i);
  });
  return {
    play: sameEnemy && v.table.length > p.table.length,
    discard: v.discard > p.discard,
    enemy: !sameEnemy,
    barFrom: sameEnemy && v.damage !== p.damage ? barPct(p) : null,
    drawn: new Set(p.hand ? newCards : []),
  };
}

function barPct(v) {
  return Math.min(100, Math.round((100 * v.damage) / Math.max(1, v.health)));
}

export function render(root, M, C) {
  const S = M.state;
  const v = S.view;
  const moved = changes(M);
  root.innerHTML = "";
  root.append(
    players(v, S, C),
    arena(v, C, moved),
    // The dock keeps the prompt, the hand and the buttons in view (sticky at the bottom).
    // (the Jester's window: on a phone, a smaller hand and shorter words keep the row of the
    // cards played in view above it)
    el("div", { class: "dock" + (v.phase === "choose" ? " jester-window" : "") }, prompt(v, S, M, C), handZone(v, S, M, C, moved)),
  );
}

function players(v, S, C) {
  const row = el("div", { class: "players" });
  for (let k = 0; k < v.players; k++) {
    const info = (S.seats || [])[k] || {};
    const acting = !S.finished && !S.waiting && v.current === k;
    const chip = el("div", { class: "player" + (acting ? " acting" : "") + (k === C.me ? " me" : ""), dataset: { seat: k } },
      el("div", { class: "player-name" },
        icon(info.kind === "bot" || info.bot_replaces ? "bot" : "person"),
        el("span", {}, C.seatLabel(k)),
        info.kind === "human" ? connDot(C.seatOnline(k, info)) : null),
      el("div", { class: "player-facts" },
        el("span", { class: "fact", title: t("regicide.hand_size"), role: "img", "aria-label": `${v.hand_sizes[k]} ${t("regicide.hand_size")}` }, icon("deck"), String(v.hand_sizes[k])),
        info.kind === "human" ? offlineTag(C.seatOnline(k, info)) : null,
        info.kind === "bot" ? botTag("regicide", info.bot) : null,
        info.bot_replaces ? el("span", { class: "tag warn" }, t("seat.replaced")) : null,
        v.yielded[k] ? el("span", { class: "tag" }, t("regicide.yielded")) : null,
        v.preferences[k] ? el("span", { class: "tag wish-" + v.preferences[k] }, t("regicide.wish_" + v.preferences[k])) : null,
        acting ? el("span", { class: "tag turn" }, t("seat.to_act")) : null),
      seatControls(k, info, S, C));
    row.append(chip);
  }
  return row;
}

// A seat's connection: a dot, and in words when it is down (offlineTag, readable without
// hovering).
export function connDot(online) {
  const label = t(online ? "seat.online" : "seat.offline");
  return el("span", { class: "dot " + (online ? "on" : "off"), title: label, role: "img", "aria-label": label });
}

export function offlineTag(online) {
  return online ? null : el("span", { class: "tag off" }, t("seat.offline"));
}

// A bot seat's tag: how strong it plays ("bot, strong"); its kind is in its name already.
export function botTag(game, bot) {
  const level = botLevel(game, bot);
  return el("span", { class: "tag" }, level ? t("seat.bot_level", { level: t("botlevel." + level) }) : t("seat.bot_plain"));
}

export function seatControls(k, info, S, C) {
  if (S.finished || C.me === null || info.kind !== "human") return null;
  if (k === C.me) {
    return info.bot_replaces
      ? el("button", { class: "link-btn", type: "button", onclick: () => C.setBot(k, false) }, t("seat.take_back"))
      // (the daily deal: a bot's help makes the game unranked, said before it happens)
      : el("button", { class: "link-btn", type: "button", id: "hand-to-bot",
        title: C.dailyRanked ? t("seat.hand_to_bot_daily_title") : null,
        onclick: () => window.confirm(t(C.dailyRanked ? "seat.hand_to_bot_confirm_daily" : "seat.hand_to_bot_confirm")) && C.setBot(k, true) },
      t("seat.hand_to_bot"));
  }
  // (a free seat of an open table waits for a player from the lobby: no bot takes it; an
  // invitation not opened yet may be given to a bot: the game starts with it)
  if (!info.connected && !info.bot_replaces && !(S.open && !info.claimed)) {
    return el("button", { class: "link-btn", type: "button", onclick: () => C.setBot(k, true) }, t("seat.replace_by_bot"));
  }
  return null;
}

function arena(v, C, moved = {}) {
  const box = el("div", { class: "arena" });
  // The Castle
  const castle = el("div", { class: "pile castle" },
    v.castle > 0 ? cardBack({ label: icon("castle", "back-icon"), count: v.castle }) : el("div", { class: "card empty" }),
    pileLabel(t("regicide.castle"), v.castle),
    el("div", { class: "pile-sub" },
      ["J", "Q", "K"].map((r) => el("span", { class: "rank-left" }, `${rankLabel(r)}×${v.castle_ranks[r]}`))));
  // The enemy
  let enemy;
  if (v.enemy) {
    const left = Math.max(0, v.health - v.damage);
    const pct = Math.min(100, Math.round((100 * v.damage) / Math.max(1, v.health)));
    const suit = v.enemy_suit;
    enemy = el("div", { class: "enemy" },
      el("div", { class: "enemy-card" + (moved.enemy ? " enter" : "") }, regicideCard(v.enemy, { big: true })),
      el("div", { class: "enemy-stats" },
        el("div", { class: "enemy-name" }, cardName(v.enemy)),
        stat("sword", t("regicide.attack"), v.shield ? `${v.attack} − ${v.shield} = ${v.attack_after_shield}` : String(v.attack), "attack"),
        el("div", { class: "health" },
          stat("heart", t("regicide.health"), `${left} / ${v.health}`, "health"),
          el("div", { class: "bar" }, barFill(pct, moved.barFrom)),
          el("div", { class: "bar-caption" }, t("regicide.damage_dealt", { n: v.damage }))),
        stat("shield", t("regicide.shield"), String(v.shield), "shield"),
        el("div", { class: "immunity " + (v.immune ? "on" : "off") },
          v.immune ? t("regicide.immune", { suit: SUIT_SYMBOL[suit], name: t("suit." + suit) })
            : t("regicide.immunity_cancelled")),
        v.phase === "suffer" ? el("div", { class: "attack-now" }, t("regicide.attack_now", { n: v.attack_to_absorb })) : null));
  } else {
    enemy = el("div", { class: "enemy defeated" }, el("div", { class: "enemy-name" }, t("regicide.all_defeated")));
  }
  // Tavern and discard pile
  const tavern = el("div", { class: "pile tavern" },
    v.tavern > 0 ? cardBack({ label: icon("mug", "back-icon"), count: v.tavern }) : el("div", { class: "card empty" }),
    pileLabel(t("regicide.tavern"), v.tavern),
    v.tavern_top && v.tavern_top.length
      ? el("div", { class: "pile-sub" }, t("regicide.tavern_top", { cards: cardsText(v.tavern_top) })) : null);
  const discard = el("div", { class: "pile discard" },
    v.discard_top ? enter(regicideCard(v.discard_top), moved.discard) : el("div", { class: "card empty" }),
    el("div", { class: "pile-label" }, t("regicide.discard")),
    el("div", { class: "pile-sub" }, t("regicide.cards_n", { n: v.discard })));
  const piles = el("div", { class: "piles" }, tavern, discard);
  if (v.players === 1) {
    piles.append(el("div", { class: "pile jesters" },
      el("div", { class: "jester-row" },
        [0, 1].map((i) => i < v.jesters ? regicideCard("X", { small: true }) : el("div", { class: "card small empty" }))),
      el("div", { class: "pile-label" }, t("regicide.jesters_left", { n: v.jesters }))));
  }
  // the row of the cards played against the enemy: under the three on a wide screen, right
  // under the enemy on a phone (above the Castle and the piles, so above the dock)
  box.append(castle, enemy, piles, played(v, C, moved));
  return box;
}

// The damage bar; with a start width it fills from there (a CSS animation, no inline style
// attribute: the width is set through the CSS object model).
function barFill(pct, from) {
  const fill = el("div", { class: "bar-fill" + (from !== null && from !== undefined ? " grow" : "") });
  fill.style.width = `${pct}%`;
  if (from !== null && from !== undefined) fill.style.setProperty("--from", `${from}%`);
  return fill;
}

function enter(node, yes) {
  if (yes) node.classList.add("enter");
  return node;
}

function stat(iconName, label, value, cls) {
  return el("div", { class: "stat " + cls }, icon(iconName), el("span", { class: "stat-label" }, label), el("b", { class: "stat-value" }, value));
}

function played(v, C, moved = {}) {
  const row = el("div", { class: "played" });
  row.append(el("div", { class: "played-label" }, t("regicide.played")));
  const list = el("div", { class: "played-list" });
  if (!v.table.length) list.append(el("span", { class: "muted" }, t("regicide.nothing_played")));
  v.table.forEach((play, i) => {
    const fresh = moved.play && i === v.table.length - 1;
    list.append(el("div", { class: "play-group" + (fresh ? " enter" : "") }, play.map((c) => regicideCard(c, { small: true }))));
  });
  row.append(list);
  return row;
}

// Step 4 with a discard possible (a solo hand too weak for the attack has only the Jester).
const canDiscard = (S) => S.legal.some((a) => a.startsWith("discard "));

function prompt(v, S, M, C) {
  let text;
  const me = C.me;
  if (S.outcome && S.outcome.ending) text = t("regicide.prompt_stopped");  // the players stopped
  else if (S.finished) text = v.phase === "won" ? t("regicide.prompt_won") : t("regicide.prompt_lost");
  else if (S.waiting) text = waitingPrompt(S, C);  // nobody acts before every seat is taken
  else if (me === null) text = t("prompt.watching", { who: C.seatName(v.current) });
  else if (v.current !== me) {
    if (v.phase === "choose") {
      const who = C.seatName(v.current);
      text = [wideText(t("regicide.prompt_others_choose", { who })), phoneText(t("regicide.prompt_others_choose_phone", { who }))];
    } else text = waitingText(S.seats, v.current, C.seatName(v.current));
  } else if (!S.legal.length) text = t("prompt.bot_plays");
  else if (v.phase === "play" && !(v.hand || []).length) {
    // nothing to play: the solo Jester, or a yield (rules 1.11, 1.14)
    text = t(S.legal.includes("jester") ? "regicide.prompt_empty_jester" : "regicide.prompt_empty_yield");
  } else if (v.phase === "play") {
    // at 2-4 players a missing yield is the rule that someone must play (rules 1.11)
    text = t(S.legal.includes("yield") ? "regicide.prompt_play"
      : v.players > 1 ? "regicide.prompt_play_no_yield_all" : "regicide.prompt_play_no_yield");
  } else if (v.phase === "suffer" && !canDiscard(S)) {
    // solo: the hand cannot absorb the attack, and a Jester is left (rules 1.8, 1.14)
    const worth = (v.hand || []).reduce((a, c) => a + cardValue(c), 0);
    text = t("regicide.prompt_suffer_short", { n: v.attack_to_absorb, total: worth });
  } else if (v.phase === "suffer") {
    const total = selectedCards(M).reduce((a, c) => a + cardValue(c), 0);
    // (on a phone the Discard button counts the selection)
    text = [wideText(t("regicide.prompt_suffer", { n: v.attack_to_absorb, sel: total })),
      phoneText(t("regicide.prompt_suffer_phone", { n: v.attack_to_absorb }))];
  } else if (v.phase === "choose") text = t("regicide.prompt_choose");
  return el("div", { class: "prompt" + (v.current === me && !S.finished && S.legal.length ? " yours" : "") }, text);
}

function handZone(v, S, M, C, moved = {}) {
  const zone = el("div", { class: "hand-zone" });
  if (C.me === null) {
    zone.append(el("div", { class: "muted center" }, t("seat.spectator_hint")));
    return zone;
  }
  const hand = v.hand || [];
  const legal = legalIndex(S.legal);
  const usable = new Set();
  for (const text of S.legal) {
    const [verb, ...args] = text.split(" ");
    if (verb === "play" || verb === "discard") args.forEach((c) => usable.add(c));
  }
  const myTurn = S.legal.length > 0;
  const handEl = el("div", { class: "hand", role: "group", "aria-label": t("regicide.your_hand") });
  hand.forEach((c, i) => {
    const id = "h:" + i;
    const selected = M.sel.includes(id);
    const card = regicideCard(c);
    card.classList.add("in-hand");
    card.setAttribute("aria-label", cardName(c));
    if (moved.drawn && moved.drawn.has(i)) card.classList.add("enter");
    if (selected) card.classList.add("selected");
    if (myTurn && usable.has(c)) {
      card.classList.add("selectable");
      card.tabIndex = 0;
      card.dataset.focus = id;
      card.setAttribute("role", "button");
      card.setAttribute("aria-pressed", selected ? "true" : "false");
      card.addEventListener("click", () => C.toggle(id));
      card.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); C.toggle(id); } });
    } else if (myTurn) card.classList.add("unusable");
    handEl.append(card);
  });
  if (!hand.length) handEl.append(el("div", { class: "muted" }, t("regicide.empty_hand")));
  zone.append(el("div", { class: "hand-label" }, t("regicide.your_hand"), " ", el("span", { class: "muted" }, `(${hand.length})`)), handEl);
  zone.append(actions(v, S, M, C, legal));
  return zone;
}

// A text for wide screens and its shorter form for a phone (CSS shows one of them).
const wideText = (text) => el("span", { class: "wide-text" }, text);
const phoneText = (text) => el("span", { class: "phone-text" }, text);

function button(label, enabled, onclick, cls = "btn", id = null) {
  return el("button", { class: cls, type: "button", disabled: !enabled, onclick, id }, label);
}

// Why the selection cannot be played (rules 1.5), as [code, params] for why(), or null.
// The server's legal list decides; this only explains a selection that is not in it.
function playReason(sel) {
  if (!sel.length) return ["select_play", {}];
  if (sel.length > 1 && sel.includes("X")) return ["jester_alone", {}];
  const ranks = sel.map(rankOf);
  if (sel.length === 2 && ranks.includes("A")) return ["illegal", {}];
  if (ranks.includes("A") || new Set(ranks).size > 1 || "JQK".includes(ranks[0])) return ["play_shape", {}];
  const total = sel.reduce((a, c) => a + cardValue(c), 0);
  if (total > 10) return ["set_total", { total }];
  return ["illegal", {}];
}

// Why the selection does not absorb the attack (rules 1.8, option minimal_discard).
function discardReason(sel, need) {
  if (!sel.length) return ["select_discard", { n: need }];
  const total = sel.reduce((a, c) => a + cardValue(c), 0);
  if (total < need) return ["discard_short", { total, attack: need }];
  return ["discard_minimal", {}];
}

// A refusal's reason in the page's language; params as the engine gives them (cards in
// notation, seats 0-based).
export function why(code, params, C) {
  if (!has("why." + code)) return null;
  const p = { ...params };
  if (Array.isArray(p.cards)) p.cards = cardsText(p.cards);
  if (typeof p.seat === "number") p.seat = C.seatName(p.seat);
  if (p.wish) p.wish = t("regicide.wish_" + p.wish);
  return t("why." + code, p);
}

// The line under the buttons: why the selection cannot be played, else the names of the
// selected cards (no tooltip shows them on a touch screen; on a phone's narrow dock only a
// refusal is shown, the rest is for screen readers).
function whyLine(reason, sel, C) {
  const text = reason ? why(reason[0], reason[1], C) : sel.length ? sel.map(cardName).join(", ") : "";
  // a selection too small for the attack is not wrong, only unfinished: a hint (the prompt
  // and the button count it too)
  const cls = !reason ? "" : sel.length && reason[0] !== "discard_short" ? " refused" : " hint";
  return el("div", { class: "why" + cls, id: "why", role: "status", "aria-live": "polite" }, text);
}

function actions(v, S, M, C, legal) {
  const wrap = el("div", { class: "actions-wrap" });
  const bar = el("div", { class: "actions" });
  wrap.append(bar);
  const sel = selectedCards(M);
  const busy = M.pending;
  let reason = null;
  if (S.legal.length && v.phase === "play") {
    const text = sel.length ? legal.get(key("play", sel)) : null;
    const value = sel.reduce((a, c) => a + cardValue(c), 0);
    if (!text) reason = playReason(sel);
    // the value only for a selection that can be played (the line below says why not)
    const label = !sel.length ? t("regicide.play")
      // (a legal play's cards in the engine's order, as the log will write them)
      : text ? t("regicide.play_sel", { cards: cardsText(text.split(" ").slice(1)), n: value }) : t("regicide.play_cards", { cards: cardsText(sel) });
    bar.append(button(label, !!text && !busy, () => C.act(text), "btn primary", "act-play"));
    if (legal.has("yield")) bar.append(button(t("regicide.yield"), !busy, () => C.act("yield"), "btn", "act-yield"));
  }
  if (canDiscard(S)) {
    const text = sel.length ? legal.get(key("discard", sel)) : null;
    const total = sel.reduce((a, c) => a + cardValue(c), 0);
    if (!text) reason = discardReason(sel, v.attack_to_absorb);
    bar.append(button(t("regicide.discard_sel", { sel: total, n: v.attack_to_absorb }), !!text && !busy,
      () => C.act(text), "btn primary", "act-discard"));
  }
  if (S.legal.includes("jester")) {
    // the refresh cannot be undone and lowers a win's medal: asked first, unless the hand is
    // empty or the Jester is the only move (rules 1.14)
    const hand = v.hand || [];
    const sure = () => !hand.length || S.legal.length === 1 || window.confirm(t("regicide.jester_confirm", { n: hand.length }));
    bar.append(button([wideText(t("regicide.jester_refresh", { n: v.jesters })), phoneText(t("regicide.jester_refresh_phone", { n: v.jesters }))],
      !busy, () => sure() && C.act("jester"), "btn jester-btn", "act-jester"));
  }
  if (S.legal.length && v.phase === "choose") {
    for (const text of S.legal) {
      const k = Number(text.split(" ")[1]);
      const wish = v.preferences[k];
      const said = wish ? ` · ${t("regicide.wish_" + wish + "_short")}` : "";
      // on a phone the prompt says "who goes next": the seat's name is enough
      bar.append(button([wideText(t("regicide.choose_seat", { who: C.seatLabel(k) }) + said), phoneText(C.seatLabel(k) + said)],
        !busy, () => C.act(text), "btn choose-btn", "act-choose-" + k));
    }
  }
  if (S.side && S.side.length) {
    const mine = v.preferences[C.me];
    // once said, the wish is shown as said (the other button changes it)
    bar.append(el("span", { class: "wish-label" }, t(mine ? "regicide.wish_said_" + mine : "regicide.wish_prompt")));
    bar.append(button(t("regicide.wish_yes_btn"), S.side.some((x) => x.endsWith(" yes")), () => C.wish("yes"),
      "btn wish" + (mine === "yes" ? " pressed" : ""), "wish-yes"));
    bar.append(button(t("regicide.wish_no_btn"), S.side.some((x) => x.endsWith(" no")), () => C.wish("no"),
      "btn wish" + (mine === "no" ? " pressed" : ""), "wish-no"));
  }
  if (M.state.hints && S.legal.length) {
    bar.append(button(t("hints.button"), !busy && !M.hinting, () => C.hint(), "btn ghost hint-btn", "act-hint"));
  }
  if (M.sel.length) bar.append(clearButton(() => C.clear()));
  if (S.legal.length && ["play", "suffer"].includes(v.phase) && (v.hand || []).length) wrap.append(whyLine(reason, sel, C));
  return wrap;
}

// ------------------------------------------------------------------ help and end

export function help() {
  const list = el("ul", { class: "help-list" });
  for (const s of ["H", "D", "C", "S"]) {
    list.append(el("li", {}, el("span", { class: "suit-sym " + (s === "H" || s === "D" ? "red" : "black") }, SUIT_SYMBOL[s]), " ",
      el("b", {}, t("suit." + s)), ": ", t("regicide.power." + s)));
  }
  list.append(el("li", {}, el("b", {}, t("card.jester")), ": ", t("regicide.power.X")));
  list.append(el("li", {}, el("b", {}, t("rank.A")), ": ", t("regicide.power.A")));
  return el("div", {}, el("p", { class: "small" }, t("regicide.goal")), list);
}

// A move in notation, in words: as advice ("hints": "Play 5♠ A♣") or as a move named in a
// sentence ("move": "play 5♠ A♣"); a Jester-window choice names the seat.
export function moveText(action, C, style = "hints") {
  const [verb, ...args] = action.split(" ");
  if ((verb === "play" || verb === "discard") && args.length) return t(style + "." + verb, { cards: cardsText(args) });
  if (verb === "choose" && C) return t(style + ".choose", { who: C.seatName(Number(args[0])) });
  return has(style + "." + verb) ? t(style + "." + verb) : action;
}

// A hint (the server's ``hint`` message: the suggested move in notation, its reason and
// win chances): its cards are selected in the hand; returns its line in words (hintText).
export function applyHint(msg, M, C) {
  const [verb, ...cards] = msg.action.split(" ");
  if (verb === "play" || verb === "discard") {
    const hand = M.state.view.hand || [];
    M.sel = cards.map((c) => hand.indexOf(c)).filter((i) => i >= 0).map((i) => "h:" + i);
  }
  return hintText(msg, C);
}

// A hint's reason in the page's language: ``why`` is the server's {key, ...params}
// (games/regicide/hints.py: cards in notation, suits as letters, seats from 0); null for a
// key this page has no text for.
export function hintWhy(why, C) {
  if (!why || !has("hints.why." + why.key)) return null;
  const p = { ...why };
  if (typeof p.enemy === "string") p.enemy = cardName(p.enemy);
  if (typeof p.suit === "string") p.suit = t("suit." + p.suit);
  if (Array.isArray(p.suits)) p.suits = powers(p.suits);
  if (typeof p.who === "number") p.who = C.seatName(p.who);
  return t("hints.why." + why.key, p);
}

// "<move> — <reason> (wins in 62% of sampled games; next best: <move> 48%)": the parts the
// message has (no reason, no chances: the move alone).
export function hintText(msg, C) {
  const move = moveText(msg.action, C);
  const reason = hintWhy(msg.why, C);
  let s = reason ? t("hints.line", { move, why: reason }) : move;
  if (typeof msg.win === "number") {
    const p = Math.round(msg.win * 100);
    s += " " + (msg.next && typeof msg.next_win === "number"
      ? t("hints.odds_next", { p, move: moveText(msg.next, C, "move"), q: Math.round(msg.next_win * 100) })
      : t("hints.odds", { p }));
  }
  return s;
}

export function endScreen(M, C) {
  const v = M.state.view;
  const ending = (M.state.outcome || {}).ending;
  if (ending) {  // every player agreed to stop: a loss
    const box = el("div", { class: "end-body lost" });
    box.append(el("div", { class: "end-icon" }, icon("flag")));
    box.append(el("h2", {}, t("regicide.end_stopped")));
    box.append(el("p", { id: "end-stopped" }, t("regicide.end_stopped_by", { who: C.seatLabel(ending.seat) })));
    box.append(el("p", {}, t("regicide.end_defeated", { n: v.enemies_defeated })));
    return box;
  }
  const won = v.phase === "won";
  const box = el("div", { class: "end-body " + (won ? "won" : "lost") });
  box.append(el("div", { class: "end-icon" }, icon(won ? "crown" : "sword")));
  box.append(el("h2", {}, won ? t("regicide.end_won") : t("regicide.end_lost")));
  if (won && v.medal) box.append(el("div", { class: "medal medal-" + v.medal }, t("regicide.medal_" + v.medal)));
  if (won && M.state.hints) box.append(el("p", { class: "muted" }, t("hints.no_medal")));
  else if (won && M.state.bot_played) box.append(el("p", { class: "muted", id: "bot-no-medal" }, t("bot.no_medal")));
  box.append(el("p", {}, t("regicide.end_defeated", { n: v.enemies_defeated })));
  return box;
}

// ------------------------------------------------------------------ the log in words

function powers(list) {
  return Array.from(list || []).map((p) => t("suit." + p)).join(" + ");
}

export function describe(e, C) {
  const who = actorName(e, C);
  switch (e.kind) {
    case "setup":
      return t("log.r.setup", { n: e.players, who: C.seatName(e.first), enemy: cardName(e.enemy) });
    case "stopped":  // the table's, no rule's: every player agreed to stop
      return t("log.stopped", { who });
    case "play": {
      let s = t("log.r.play", { who, cards: cardsText(e.cards), value: e.value, damage: e.damage });
      if (e.powers && e.powers.length) s += " " + t("log.r.powers", { powers: powers(e.powers) });
      if (e.blocked && e.blocked.length) s += " " + t("log.r.blocked", { powers: powers(e.blocked) });
      for (const why of e.idle || []) s += " " + t("log.r.idle_" + why);  // a power with nothing to act on
      return s;
    }
    case "jester":
      return t("log.r.jester", { who });
    case "heal":
      return t("log.r.heal", { n: e.count });
    case "refresh":
    case "draw": {
      let s;
      if (e.kind === "refresh") {
        const n = Object.values(e.counts || {}).reduce((a, b) => a + b, 0);
        s = t("log.r.refresh", { who, d: (e.discarded || []).length, n, left: e.jesters });
      } else {
        const parts = Object.entries(e.counts || {}).sort((a, b) => Number(a[0]) - Number(b[0]))
          .map(([seat, n]) => (e.drawn && e.drawn[seat] && e.drawn[seat].length  // a replay
            ? t("log.r.draws_cards", { who: C.seatName(Number(seat)), n, cards: cardsText(e.drawn[seat]) })
            : t("log.r.draws", { who: C.seatName(Number(seat)), n })));
        s = t("log.r.draw", { list: parts.join(", ") || "0" });
      }
      if (e.cards && e.cards.length) s += " " + t("log.r.you_drew", { cards: cardsText(e.cards) });
      for (const [seat, cards] of Object.entries(e.known || {})) {
        s += " " + t("log.r.took_known", { who: C.seatName(Number(seat)), cards: cardsText(cards) });
      }
      return s;
    }
    case "defeat":
      return t(e.exact ? "log.r.defeat_exact" : "log.r.defeat", { enemy: cardName(e.enemy) });
    case "enemy":
      return t("log.r.enemy", { enemy: cardName(e.enemy) });
    case "yield":
      return t("log.r.yield", { who });
    case "shielded":
      return t("log.r.shielded", { who });
    case "discard":
      return t("log.r.discard", { who, cards: cardsText(e.cards), total: e.total, attack: e.attack });
    case "choose":
      return t("log.r.choose", { who, next: C.seatName(e.next) });
    case "prefer":
      return t(e.wish === "yes" ? "log.r.prefer_yes" : "log.r.prefer_no", { who });
    case "won":
      return t("log.r.won") + (e.medal ? " " + t("regicide.medal_" + e.medal) + "!" : "");
    case "lost":
      return e.reason === "attack" ? t("log.r.lost_attack", { who, n: e.attack }) : t("log.r.lost_stuck", { who });
    default:
      return `${e.kind}`;
  }
}

// Replay: the board with every hand shown.
export function renderReplay(root, step, C) {
  const v = { ...step.view };
  root.innerHTML = "";
  root.append(players_(v, C), arena(v, C));
  const hands = el("div", { class: "replay-hands" });
  step.hands.forEach((h, k) => {
    hands.append(el("div", { class: "replay-hand" + (v.current === k && !["won", "lost"].includes(v.phase) ? " acting" : "") },
      el("div", { class: "hand-label" }, C.seatName(k), " ", el("span", { class: "muted" }, `(${(h || []).length})`)),
      el("div", { class: "hand small-hand" }, (h || []).map((c) => regicideCard(c, { small: true })))));
  });
  root.append(hands);
}

function players_(v, C) {
  const row = el("div", { class: "players" });
  for (let k = 0; k < v.players; k++) {
    row.append(el("div", { class: "player" + (v.current === k && !["won", "lost"].includes(v.phase) ? " acting" : "") },
      el("div", { class: "player-name" }, el("span", {}, C.seatName(k))),
      el("div", { class: "player-facts" },
        v.yielded[k] ? el("span", { class: "tag" }, t("regicide.yielded")) : null,
        v.preferences[k] ? el("span", { class: "tag" }, t("regicide.wish_" + v.preferences[k])) : null)));
  }
  return row;
}
