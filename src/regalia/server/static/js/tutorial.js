// The tutorials (/tutorial/regicide, /tutorial/ribauds): the table page plays a scripted
// first game against the server's engine, and a coach beside the board says each step,
// marks the cards to play and checks the learner's move before it is sent.
//
// TutorialSocket stands in for the table's websocket (net.js): each move goes to
// POST /api/tutorials/GAME with the learner's moves so far (kept in sessionStorage: a
// reload goes on where it was); the server replays them from the script's deal, plays the
// scripted opponent and answers the table's own welcome and state messages, which the page
// shows as at a table (the opponent's moves one after the other).
import { t } from "./i18n.js";
import { cardsText, el, ribName } from "./cards.js";
import { myName } from "./names.js";

const PACE = 900;  // ms between the states of the scripted opponent's moves
const RETRY = 2000;  // ms before a request that got no answer is sent again

// A move's words compared whatever the order of its cards or slots and their case.
const key = (action) => {
  const [verb, ...args] = String(action).trim().split(/\s+/);
  return [verb.toLowerCase(), ...args.map((a) => a.toUpperCase()).sort()].join(" ");
};

function kept(game, what) {
  try { return JSON.parse(sessionStorage.getItem(`regalia.tutorial.${game}.${what}`)); } catch (e) { return null; }
}

function keep(game, what, value) {
  try { sessionStorage.setItem(`regalia.tutorial.${game}.${what}`, JSON.stringify(value)); } catch (e) { /* private mode: no resuming */ }
}

export function forget(game) {
  for (const what of ["moves", "notes", "closed"]) keep(game, what, null);
}

export class TutorialSocket {
  constructor(game, { onMessage, onStatus, onScript }) {
    this.game = game;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.onScript = onScript || (() => {});
    this.moves = kept(game, "moves") || [];
    this.welcomed = false;
    this.timers = [];
  }

  connect() { this.request(this.moves); }

  async request(moves) {
    let r;
    let body = null;
    try {
      r = await fetch(`/api/tutorials/${encodeURIComponent(this.game)}`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ moves }),
      });
      body = await r.json();
    } catch (e) {
      // no answer (the server restarts, the network is down): said by the page's banner,
      // and asked again
      this.onStatus(this.welcomed ? "reconnecting" : "connecting");
      clearTimeout(this.retry);
      this.retry = setTimeout(() => this.request(moves), RETRY);
      return;
    }
    if (r.status === 404) { this.onStatus("gone"); return; }
    if (!r.ok) {
      if (!this.welcomed && moves.length) {  // moves kept from an older script: start again
        forget(this.game);
        this.request([]);
        return;
      }
      this.onMessage({ type: "error", code: (body && body.code) || "generic", message: body && body.error });
      return;
    }
    this.moves = moves;
    keep(this.game, "moves", moves);
    this.onStatus("online");
    if (!this.welcomed) {
      this.welcomed = true;
      this.onMessage(body.welcome);
    }
    this.timers.forEach(clearTimeout);
    this.timers = [];
    const states = body.states.map((s) => this.named(s));
    states.forEach((s, i) => {
      const show = () => {
        if (i === states.length - 1) this.onScript(body.script, body.done);
        this.onMessage(s);
      };
      if (i === 0) show(); else this.timers.push(setTimeout(show, i * PACE));
    });
  }

  // The learner's seat carries this browser's nickname, as at a table.
  named(state) {
    const seats = (state.seats || []).map((s) => (s.seat === state.seat ? { ...s, name: myName() || null } : s));
    return { ...state, seats };
  }

  // Only moves go out (no talk, names or seats in a tutorial); returns true: sent or kept.
  send(msg) {
    if (msg.type === "act") this.request(this.moves.concat([msg.action]));
    return true;
  }

  close() {
    clearTimeout(this.retry);
    this.timers.forEach(clearTimeout);
  }
}

// ------------------------------------------------------------------ the coach

// A step's words' parameters in the page's language: Regicide cards as on the board
// ("3♥", "V♣"), Le Roy des Ribauds cards by name and Court slots as "C1".."C4".
function params(game, say) {
  const p = {};
  for (const [k, v] of Object.entries(say || {})) {
    if (game === "regicide") p[k] = typeof v === "number" ? v : cardsText(Array.isArray(v) ? v : [v]);
    else if (k.startsWith("slot")) p[k] = slotName(v);
    else p[k] = Array.isArray(v) ? v.map(ribName).join(", ") : ribName(v);
  }
  return p;
}

const slotName = (i) => t("rib.slot", { n: Number(i) + 1 });

// A move in words, after "this step asks you to ...".
function moveWords(game, action) {
  const [verb, ...a] = action.split(" ");
  if (game === "regicide") {
    if (verb === "play" || verb === "discard") return t("tutorial.move." + verb, { cards: cardsText(a) });
    return t("tutorial.move." + verb);
  }
  switch (verb) {
    case "replace": return t("tutorial.move.replace_" + a[2], { slot: slotName(a[0]), card: ribName(a[1]) });
    case "peek": return t("tutorial.move.peek", { slots: a.map(slotName).join(", ") });
    case "swap": return t("tutorial.move.swap", { a: slotName(a[0]), b: slotName(a[1]) });
    case "discard": return t("tutorial.move.discard", { cards: a.map(ribName).join(", ") });
    case "draw": return t("tutorial.move.draw");
    default: return t("tutorial.move." + verb, { slot: slotName(a[0]) });
  }
}

// The text as paragraphs (a line break in a text starts a new one).
const paragraphs = (text) => text.split("\n").filter(Boolean).map((line) => el("p", {}, line));

export class Coach {
  // box: the coach's panel; dialog: the end dialog; M, C: the table page's model and
  // controller; rerender: draws the page again.
  constructor(game, { box, M, C, rerender }) {
    this.game = game;
    this.box = box;
    this.M = M;
    this.C = C;
    this.rerender = rerender;
    this.script = null;
    this.done = 0;
    this.tried = null;  // the move tried at this step that is not the one it asks for
    this.read = new Set(kept(game, "notes") || []);
    this.drawn = null;  // what the panel shows (drawn again only when it changes)
  }

  setScript(script, done) {
    if (done !== this.done) this.tried = null;
    this.script = script;
    this.done = done;
  }

  // The step the learner is at ({i, step}), or null once the script is over.
  here() {
    if (!this.script) return null;
    let moves = 0;
    for (const [i, step] of this.script.steps.entries()) {
      if (step.move) {
        if (moves >= this.done && step.by === this.script.seat) return { i, step };
        moves += 1;
      } else if (moves >= this.done && !this.read.has(i)) return { i, step };
    }
    return null;
  }

  // The steps the learner sees (notes and their own moves): this one's number and the count.
  counted(i) {
    const mine = this.script.steps.map((s, j) => [s, j]).filter(([s]) => !s.move || s.by === this.script.seat);
    return { n: mine.findIndex(([, j]) => j === i) + 1, of: mine.length };
  }

  // Whether the learner's action may go to the server: the move its step asks for (or any
  // once the script is over). Otherwise the coach says what to try, and nothing is sent.
  allows(action) {
    const h = this.here();
    if (!h) return true;
    if (h.step.move && key(action) === key(h.step.move)) {
      this.tried = null;
      return true;
    }
    this.tried = h.step.move ? action : "note";
    this.rerender();
    return false;
  }

  next() {
    const h = this.here();
    if (!h || h.step.move) return;
    this.read.add(h.i);
    keep(this.game, "notes", [...this.read]);
    this.tried = null;
    this.rerender();
    // a keyboard player goes on from here: the next note's button, or the first marked card
    const to = document.getElementById("coach-next") || document.querySelector(".board .coach-pick[tabindex='0']");
    if (to) to.focus({ preventScroll: true });
  }

  restart() {
    forget(this.game);
    location.reload();
  }

  render() {
    if (!this.script) return;
    const h = this.here();
    const sig = JSON.stringify([h && h.i, this.tried, t("tutorial.coach")]);
    if (sig !== this.drawn) {
      this.drawn = sig;
      this.draw(h);
    }
    this.mark(h);
  }

  draw(h) {
    const box = this.box;
    box.hidden = false;
    box.innerHTML = "";
    const head = el("h2", {}, el("span", { id: "coach-title" }, t("tutorial.coach")));
    box.append(head);
    if (!h) {
      box.append(el("div", { id: "coach-text", class: "coach-text" }, paragraphs(t("tutorial.over"))),
        el("div", { class: "coach-actions" }, this.links()));
      return;
    }
    const { n, of } = this.counted(h.i);
    head.append(" ", el("small", { id: "coach-count", class: "muted" }, t("tutorial.step", { n, of })));
    const step = h.step;
    box.append(el("div", { id: "coach-text", class: "coach-text" }, paragraphs(t(step.coach, params(this.game, step.say)))));
    if (this.tried) {
      const text = this.tried === "note" ? t("tutorial.read_first")
        : t("tutorial.try", { move: moveWords(this.game, step.move), shows: t(step.shows) });
      box.append(el("p", { id: "coach-try", class: "coach-try", role: "alert" }, text));
    }
    const actions = el("div", { class: "coach-actions" });
    if (!step.move) actions.append(el("button", { class: "btn primary small", type: "button", id: "coach-next", onclick: () => this.next() }, t("tutorial.next")));
    actions.append(el("button", { class: "link-btn", type: "button", id: "coach-restart", onclick: () => this.restart() }, t("tutorial.restart")));
    box.append(actions);
  }

  // The way on from the tutorial: the rules page and a real game of this game.
  links() {
    const real = this.game === "regicide" ? "/?game=regicide&players=1" : "/?game=ribauds";
    return [
      el("a", { class: "btn", href: "/rules#" + this.game, id: "tutorial-rules" }, t("tutorial.read_rules")),
      el("a", { class: "btn primary", href: real, id: "tutorial-real" }, t("tutorial.real_game")),
      el("button", { class: "btn ghost", type: "button", id: "tutorial-again", onclick: () => this.restart() }, t("tutorial.again")),
    ];
  }

  // The cards, Court slots and button of the step's move are marked on the board.
  mark(h) {
    const board = document.getElementById("board");
    board.querySelectorAll(".coach-pick").forEach((n) => n.classList.remove("coach-pick"));
    if (!h || !h.step.move || !this.M.state || !this.M.state.legal.length) return;
    const pick = (node) => node && node.classList.add("coach-pick");
    const [verb, ...a] = h.step.move.split(" ");
    const handCards = (cards) => {
      const nodes = [...board.querySelectorAll(".dock .hand .card.in-hand")];
      for (const c of cards) pick(nodes.find((n) => n.dataset.card === c && !n.classList.contains("coach-pick")));
    };
    const slots = (list) => list.forEach((s) => pick(board.querySelector(`.court-slot[data-slot="${s}"] .court-card`)));
    const button = (id) => pick(board.querySelector("#" + id));
    if (this.game === "regicide") {
      if (verb === "play" || verb === "discard") handCards(a);
      button({ play: "act-play", discard: "act-discard", jester: "act-jester" }[verb]);
      return;
    }
    const phase = this.M.state.view.phase;
    if (verb === "replace") {
      slots([a[0]]);
      handCards([a[1]]);
      button("act-replace-" + a[2]);
    } else if (verb === "discard") {
      handCards(a);
      button("act-discard");
    } else {
      slots(a);
      button(verb === "reveal" ? (phase === "king" ? "act-king-reveal" : "act-reveal") : "act-" + verb);
    }
  }

  // The end dialog of a tutorial: once the script is over (its summary and the ways on) and
  // when the game ends (the game's own end screen first). "Keep playing" closes it.
  renderEnd(dlg, mod) {
    const S = this.M.state;
    const over = this.script && !this.here();
    const which = S.finished ? "end" : over ? "summary" : null;
    if (!which) { if (dlg.open) dlg.close(); return; }
    if (kept(this.game, "closed") === which || (dlg.open && dlg.dataset.coach === which)) return;
    dlg.innerHTML = "";
    dlg.dataset.coach = which;
    if (S.finished) dlg.append(mod.endScreen(this.M, this.C));
    const close = () => { keep(this.game, "closed", which); dlg.close(); };
    dlg.append(
      el("h2", { id: "tutorial-done" }, t("tutorial.done_title")),
      el("div", { class: "coach-summary", id: "tutorial-summary" }, paragraphs(t(this.script.summary))),
      el("div", { class: "end-actions" }, this.links(), S.finished
        ? [el("a", { class: "btn", href: "/" }, t("end.lobby")),
          el("button", { class: "btn ghost", type: "button", onclick: close }, t("end.close"))]
        : el("button", { class: "btn", type: "button", id: "tutorial-keep", onclick: close }, t("tutorial.keep_playing"))));
    const title = dlg.querySelector("h2");  // the dialog is named by its first heading
    if (!title.id) title.id = "end-title";
    dlg.setAttribute("aria-labelledby", title.id);
    if (!dlg.open) dlg.showModal();
  }
}
