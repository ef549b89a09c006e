// The table page: one websocket, the seat's view, the board of the game, the log and the
// table talk. Everything shown comes from the server's messages for this seat.
//
// Connection truth: while the socket is down a banner says so and the seat's own dot turns
// grey; a move clicked meanwhile is kept and sent when the connection returns if it is still
// legal at the same ply, otherwise the player is told it was not sent.
//
// Ending a game before its rules do (the welcome's early_end): a Concede button (Le Roy des
// Ribauds), or a "Propose to stop" button and the proposal's answers in the bar above the
// board (Regicide: every player must agree).
//
// A tutorial (/tutorial/GAME, tutorial.js) is this page without a table: its game comes
// from the tutorial's API instead of the websocket, the coach beside the board checks each
// move before it is sent, and there is nobody to invite, talk to or hand a seat to.
import { applyStatic, detectLang, has, langSwitch, loadLang, t } from "./i18n.js";
import { el, icon } from "./cards.js";
import { legalTexts } from "./legal.js";
import { TableSocket } from "./net.js";
import { TurnAlerts } from "./alerts.js";
import { carryInvites, entryFor, invitesFor, myTables, remember } from "./mytables.js";
import { adoptSeat, signInDialog } from "./account.js";
import { linkRow, showGameTitle, showGone } from "./links.js";
import { askName, myName, seatDisplay, setMyName } from "./names.js";
import { optionsText, renderSocialBar, socialEnd } from "./social.js";
import * as regicide from "./regicide.js";
import * as ribauds from "./ribauds.js";
import { Coach, TutorialSocket } from "./tutorial.js";
import { notifyButton, notifying, pushSupported } from "./push.js";

const GAMES = { regicide, ribauds };
const HINT_SHOWN = 20000;  // ms a hint's toast stays (its reason and chances take a while to read)
const tutorialGame = location.pathname.startsWith("/tutorial/")
  ? decodeURIComponent(location.pathname.split("/")[2] || "") : null;
const tableId = tutorialGame ? "" : decodeURIComponent(location.pathname.split("/")[2] || "");
const linkToken = new URLSearchParams(location.hash.slice(1)).get("s");
// Opened without a link's token (a notification opens /t/ID): the seat this browser keeps
// at that table, if any, as if its link had been opened.
const kept = !linkToken && tableId ? myTables().find((e) => e.id === tableId && e.token) : null;
if (kept) history.replaceState(null, "", `${location.pathname}${location.search}#s=${kept.token}`);
const token = linkToken || (kept ? kept.token : null);
// Another link of a table opened in this tab (only the part after # differs, so the browser
// does not load the page again): the page starts over as that seat or as a spectator.
window.addEventListener("hashchange", () => {
  if (new URLSearchParams(location.hash.slice(1)).get("s") !== token) location.reload();
});

const M = {
  tableId,
  token,
  welcome: null,
  state: null,
  wire: null,        // the latest state as the server sent it (legal actions compact)
  log: [],
  said: null,        // how many of the log's lines were announced (null: none yet, as joined)
  talk: [],
  sel: [],
  selPly: -1,
  pending: false,
  queued: null,      // {ply, action, inflight}: a move clicked while offline
  inflight: null,    // {ply, action}: a move sent and not answered yet
  prev: null,        // the state before the latest one (what changed is animated)
  animate: false,    // true during the render that follows a new state
  everOnline: false,
  endDismissed: false,
  status: "connecting",
  lastError: null,
  coach: null,       // a tutorial's coach (tutorial.js)
};

let socket = null;
let alerts = null;
let notify = null;  // the "Notify me" button of a turn-based table (push.js)
const $ = (id) => document.getElementById(id);

function game() { return M.welcome ? GAMES[M.welcome.game] : null; }

export function seatName(k) {
  return seatDisplay(M.state ? M.state.seats : null, k);
}

function seatLabel(k) {
  return seatDisplay(M.state ? M.state.seats : null, k, Boolean(M.state) && M.state.seat === k);
}

// Whether seat k is connected, as far as this page knows: its own seat is offline whenever
// this page's connection is down, whatever the server said last.
function seatOnline(k, info) {
  if (!info || !info.connected) return false;
  return !(M.state && k === M.state.seat && M.status !== "online");
}

// This seat opened in another window too (its link opened twice, or shared): said each
// time it happens, since a move from either window counts. Not in the first seconds after
// this page reconnected: the server may still count its old connection.
function noteWindows() {
  const mine = M.state && M.state.seat !== null ? (M.state.seats || [])[M.state.seat] : null;
  const n = mine ? mine.windows || 0 : 0;
  const justBack = M.backAt && Date.now() - M.backAt < 10000;
  if (n > 1 && !(M.windows > 1) && !justBack) toast(t("seat.also_elsewhere"), t("seat.also_elsewhere_detail"));
  M.windows = n;
}

// Send a message that is not a move; said so when offline (nothing is kept).
function sendNow(msg) {
  if (!socket.send(msg)) toast(t("offline.not_sent_now"), null, "error");
}

// ------------------------------------------------------------------ controller

const C = {
  t,
  seatName,
  seatLabel,
  seatOnline,
  get me() { return M.state ? M.state.seat : null; },
  // this browser plays the daily deal here (started from the lobby or the daily page)
  // signed in: ranked, until a bot plays a move for it
  get dailyRanked() {
    return !!(token && (entryFor(tableId, token) || {}).daily && localStorage.getItem("regalia.account"));
  },
  act(action) {
    if (M.pending || !M.state) return;
    if (M.coach && !M.coach.allows(action)) return;  // the coach says what to try instead
    M.pending = true;
    if (socket.send({ type: "act", ply: M.state.ply, action })) M.inflight = { ply: M.state.ply, action };
    else {
      M.queued = { ply: M.state.ply, action };
      paintBanner();
    }
    render();
  },
  wish(value) { sendNow({ type: "wish", value }); },
  hint() {
    if (!socket.send({ type: "hint" })) { toast(t("offline.not_sent_now"), null, "error"); return; }
    M.hinting = true;
    render();
  },
  setBot(seat, on) { sendNow({ type: "bot", seat, on }); },
  stop(agree) { sendNow({ type: "stop", agree }); },
  send(obj) { return socket.send(obj); },
  say(id) { sendNow({ type: "say", message_id: id }); },
  chat(text) { sendNow({ type: "chat", text }); },
  toggle(item, max = 99) {
    const i = M.sel.indexOf(item);
    if (i >= 0) M.sel.splice(i, 1);
    else {
      M.sel.push(item);
      const kind = item.split(":")[0];
      const same = M.sel.filter((x) => x.split(":")[0] === kind);
      if (same.length > max) M.sel.splice(M.sel.indexOf(same[0]), 1);
    }
    render();
  },
  clear() { M.sel = []; render(); },
  rerender() { render(); },
};

// ------------------------------------------------------------------ messages

// The full state an "update" makes of the previous one: its fields replace those of `prev`,
// its view's keys those of the view (view_removed: keys gone).
function merged(prev, u) {
  const view = { ...prev.view, ...(u.view || {}) };
  for (const k of u.view_removed || []) delete view[k];
  const out = { ...prev, ...u, type: "state", view };
  delete out.view_removed;
  return out;
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      // A move sent just before the connection dropped may never have arrived: it is sent
      // again if the game is still where it was (the server refuses a repeat as stale).
      if (M.inflight) M.queued = { ...M.inflight, inflight: true };
      M.inflight = null;
      M.welcome = msg;
      M.log = [];
      M.said = null;
      if (token && msg.seat !== null) {
        remember({ id: tableId, game: msg.game, players: msg.players, seat: msg.seat, token, role: "player", spectate: msg.spectate });
        adoptSeat(tableId, token);  // signed in: the account adopts the seat
      }
      setupChrome();
      break;
    case "update":  // what changed since the last state (the server's broadcast.increment)
    case "state": {
      const wire = msg.type === "update" ? merged(M.wire, msg) : msg;
      M.wire = wire;
      msg = { ...wire, legal: legalTexts(wire) };  // the page works with every legal action as text
      if (msg.log_start === 0) M.log = [];
      M.log = M.log.slice(0, msg.log_start).concat(msg.log);
      // the log's lines since the last state are announced (none of a log just joined)
      if (M.said !== null) announce(M.log.slice(M.said).map((ev) => game().describe(ev, C)));
      M.said = M.log.length;
      if (msg.ply !== M.selPly) {
        M.sel = [];
        M.selPly = msg.ply;
        document.querySelectorAll(".toast.hint").forEach((n) => n.remove());  // a hint is for its ply
      }
      if (M.inflight && msg.ply > M.inflight.ply) M.inflight = null;
      // a proposal to stop gone without a decline: a move cancelled it
      if (M.state && M.state.stop && !msg.stop && !msg.finished && !M.stopDeclined) toast(t("stop.cancelled"));
      M.stopDeclined = false;
      M.prev = M.state;
      M.state = msg;
      M.pending = false;
      if (msg.next_table) carryInvites(tableId, msg.next_table);
      if (M.queued) sendQueued();
      if (M.needName) {
        // a browser without a nickname: the seat's own name is kept if it has one (the
        // player's link opened elsewhere), else the player is asked once
        M.needName = false;
        const mine = (msg.seats || [])[msg.seat];
        if (mine && mine.name) setMyName(mine.name);
        // (closed, the focus goes to the button that changes the name)
        else askName($("name-dlg"), el, "", $("name-btn")).then((name) => socket.send({ type: "name", name }));
      }
      M.animate = true;
      render();
      M.animate = false;
      alerts.update(askedOf(msg));
      noteWindows();
      break;
    }
    case "seats":
      if (M.state) { M.state.seats = msg.seats; render(); noteWindows(); }
      break;
    case "talk":
      M.talk.push(msg);
      renderTalk();
      announce([$("talk").lastChild.textContent]);
      if (msg.seat !== C.me && !inView($("talk").lastChild)) talkToast(msg);
      break;
    case "talk_history":
      M.talk = msg.messages.slice();
      renderTalk();
      break;
    case "stop":  // a proposal to stop made, accepted or declined (the next state shows it)
      if (!msg.agree) {
        M.stopDeclined = true;
        if (msg.seat !== C.me) toast(t("stop.declined", { who: seatName(msg.seat) }));
      } else if (msg.seat !== C.me && M.state && !M.state.stop) {
        toast(t("stop.proposed", { who: seatName(msg.seat) }));
      }
      break;
    case "timeout":
      toast(t("social.timeout_title", { who: seatName(msg.seat) }), t("social.timeout_detail"), "error");
      break;
    case "rematch":
      carryInvites(tableId, msg.table);
      if (M.state) { M.state.next_table = msg.table; render(); }
      break;
    case "hint":
      M.hinting = false;
      // read at leisure: it stays until the next move, a click on it, or HINT_SHOWN ms
      if (M.state && msg.ply === M.state.ply && game().applyHint) {
        toast(t("hints.title"), game().applyHint(msg, M, C), "info hint", HINT_SHOWN);
        const node = $("toasts").lastChild;
        node.addEventListener("click", () => node.remove());
      }
      render();
      break;
    case "error":
      M.pending = false;
      M.inflight = null;
      M.hinting = false;
      showError(msg);
      render();
      break;
    default:
      break;
  }
}

// The move kept while offline goes out now if it is still legal at the same ply.
function sendQueued() {
  const q = M.queued;
  M.queued = null;
  paintBanner();
  if (M.state.ply === q.ply && M.state.legal.includes(q.action) && socket.send({ type: "act", ply: q.ply, action: q.action })) {
    M.pending = true;
    M.inflight = { ply: q.ply, action: q.action };
    return;
  }
  // A move that was sent may have been applied (the game moved on): nothing to say then.
  if (!q.inflight) toast(t("offline.not_sent"), t("offline.not_sent_why"), "error");
}

// What the table asks of this seat now: "turn", "wish" (the Jester window) or null.
function askedOf(S) {
  if (!S || S.finished || S.seat === null) return null;
  if (S.legal.length) return "turn";
  const prefs = S.view.preferences;
  if (S.side && S.side.length && prefs && !prefs[S.seat]) return "wish";
  return null;
}

// A refusal in the page's language: the engine's reason code is translated by the game's
// module; the English message (which may name internal phases) is never shown.
function showError(msg) {
  // the board says it, or the name dialog asks
  if (msg.code === "not_found" || msg.code === "no_access" || msg.code === "name_needed") return;
  if (msg.code.startsWith("rated_") && !M.welcome) { M.ratedRefusal = msg.code; return; }  // the board says it
  const title = msg.code === "too_fast" && msg.limit ? limitText(msg.limit)
    : has("error." + msg.code) ? t("error." + msg.code) : t("error.generic");
  const detail = msg.reason && game() ? game().why(msg.reason.code, msg.reason.params || {}, C) : null;
  toast(title, detail, "error");
}

// A rate limit in words: what, how many per how long, and the seconds to wait.
function limitText(limit) {
  const what = has("limit.what." + limit.what) ? t("limit.what." + limit.what) : limit.what;
  const rate = t("limit.rate", { n: limit.per, amount: limit.amount, unit: t("unit." + limit.unit, { n: limit.per }) });
  return t("error.too_fast_limit", { what, rate, wait: limit.retry_after });
}

// A passing message: shown for ``ms`` milliseconds, fading out over the last 800.
export function toast(title, detail = null, kind = "info", ms = 5000) {
  const box = $("toasts");
  const node = el("div", { class: "toast " + kind, role: "status" },
    el("strong", {}, title), detail ? el("div", { class: "toast-detail" }, detail) : null);
  box.append(node);
  setTimeout(() => node.classList.add("fade"), ms - 800);
  setTimeout(() => node.remove(), ms);
}

function onStatus(status) {
  if (status === "online" && M.everOnline && M.status !== "online") M.backAt = Date.now();
  M.status = status;
  if (status === "online") M.everOnline = true;
  const c = $("conn");
  c.dataset.state = status;
  c.textContent = t("conn." + status);
  document.body.classList.toggle("offline", status !== "online");
  paintBanner();
  if (status === "gone" || status === "denied") tableGone(status);
  else if (status === "rated") ratedRefused();
  else render();
  // a Regicide seat without a name yet: named before its hand is seen (rules 1.15)
  if (status === "name_needed" && !$("name-dlg").open) {
    askName($("name-dlg"), el, "", null, true).then(() => socket.connect());
  }
}

// A rated seat this browser may not take (rated_signed_out, rated_same_account,
// rated_other_account): the board says why and offers to sign in; signed in, the page opens
// the link again.
function ratedRefused() {
  const code = M.ratedRefusal || "rated_signed_out";
  const text = { rated_same_account: "rated.same_account", rated_other_account: "rated.other_account" }[code] || "rated.signed_out";
  document.body.classList.add("gone");
  const board = $("board");
  board.innerHTML = "";
  board.append(el("div", { class: "gone-box", id: "rated-refused", dataset: { code } },
    el("h1", {}, t("rated.title")),
    el("p", {}, t(text)),
    code === "rated_same_account" ? null
      : el("button", { class: "btn primary big", type: "button", id: "rated-sign-in",
        onclick: () => signInDialog(() => location.reload()) }, t("account.sign_in")),
    el("a", { class: "btn big", href: "/", id: "gone-lobby" }, t("gone.lobby"))));
  alerts.setBaseTitle(`${t("rated.title")} · Regalia`);
}

function paintBanner() {
  const b = $("banner");
  const down = M.everOnline && (M.status === "reconnecting" || M.status === "connecting");
  b.hidden = !down;
  b.textContent = down ? t(M.queued ? "offline.banner_queued" : "offline.banner") : "";
}

// An unknown table id ("gone"), or a table this link does not open ("denied": a private
// table and no seat or spectator token of it): say which, with the way back to the lobby.
function tableGone(status) {
  const key = status === "denied" ? "denied" : "gone";
  showGone($("board"), t(key + ".title"), t(key + ".text", { id: tableId || "—" }));
  alerts.setBaseTitle(`${t(key + ".title")} · Regalia`);
}

// ------------------------------------------------------------------ rendering

function setupChrome() {
  const g = M.welcome.game;
  const solo = M.welcome.players === 1;
  document.body.dataset.game = g;
  document.body.dataset.players = M.welcome.players;
  showGameTitle($("game-title"), g);
  if (M.welcome.rated) {
    $("game-title").append(el("span", { class: "rated-badge", id: "rated-badge", title: t("rated.in_game") }, t("rated.badge")));
  }
  alerts.setBaseTitle(`${t("game." + g)} · Regalia`);
  if (M.welcome.tutorial) {
    $("game-title").append(el("span", { class: "tutorial-tag" }, t("tutorial.title")));
    alerts.setBaseTitle(`${t("tutorial.title")} · ${t("game." + g)} · Regalia`);
  }
  $("table-code").textContent = tableId;
  const invites = invitesFor(tableId);
  const tutorial = Boolean(M.welcome.tutorial);
  document.body.classList.toggle("tutorial", tutorial);
  const seated = M.welcome.seat !== null && !tutorial;
  $("name-btn").hidden = !seated;
  $("name-btn").onclick = () => {
    // a name that cannot change says why on a click too (a phone shows no title)
    if ($("name-btn").classList.contains("resting")) { toast(t(M.welcome.rated ? "error.name_fixed_rated" : "error.name_fixed")); return; }
    askName($("name-dlg"), el, myName()).then((name) => socket.send({ type: "name", name }));
  };
  $("leave-btn").hidden = !seated;
  $("leave-btn").onclick = () => {
    if (!window.confirm(t("social.leave_confirm"))) return;
    socket.send({ type: "bot", seat: M.welcome.seat, on: true });
    setTimeout(() => { location.href = "/"; }, 300);
  };
  $("concede-btn").onclick = () => {
    if (window.confirm(t("social.concede_confirm"))) sendNow({ type: "concede" });
  };
  $("stop-btn").onclick = () => {
    // alone with bots the game stops at once; with other players they are asked
    const others = (M.state.seats || []).some((s) => s.seat !== C.me && s.kind === "human" && !s.bot_replaces);
    if (window.confirm(t(others ? "stop.confirm" : "stop.confirm_alone"))) C.stop(true);
  };
  M.needName = seated && !myName();  // settled at the first state, which names the seats
  // Solo: nobody to invite or talk to.
  $("invite-btn").hidden = solo || tutorial;
  $("invite-btn").onclick = () => openInvite(invites);
  $("talk-panel").hidden = solo || tutorial;
  $("alerts-btn").hidden = M.welcome.seat === null || tutorial;    // a spectator is never asked
  renderTalkControls();
  renderHelp();
}

function render() {
  if (!M.state || !M.welcome || M.status === "gone") return;
  const mod = game();
  const board = $("board");
  const focused = focusKey(board);
  mod.render(board, M, C);
  if (focused) refocus(board, focused);
  fitHand();
  renderLog();
  renderSeatBadge();
  renderEndButtons();
  renderSocialBar($("social-bar"), M, C);
  renderNotify();
  if (M.coach) M.coach.render();
  renderEnd();
}

// "Notify me": at a turn-based table, a seated player may have the browser tell them when
// it is their turn, the tab closed (Web Push; permission asked on the click only).
function renderNotify() {
  if (!notify) {
    notify = notifyButton({ id: "notify-btn", seats: () => [{ id: tableId, token }],
      on: () => notifying({ id: tableId, token }), told: (text, ok) => toast(text, null, ok ? "info" : "error"),
      withIcon: true });
  }
  // beside the time per move, in the clocks' row (drawn again at each state)
  const perMove = $("per-move");
  if (perMove) perMove.after(notify);
  const s = M.state;
  const seated = M.welcome.seat !== null && !M.welcome.tutorial && Boolean(token);
  notify.hidden = !(seated && s.clock && s.clock.per_move && !s.finished && pushSupported());
  notify.paint();
}

// Concede (a game a player may concede) or Propose to stop (a cooperative game, when no
// proposal is under way): for a seated player whose own seat no bot plays, while the game
// is on; at the foot of the game log, away from the moves (and from a phone's narrow
// topbar).
function renderEndButtons() {
  const s = M.state;
  const mine = s.seat === null ? null : (s.seats || [])[s.seat];
  const on = Boolean(mine) && !mine.bot_replaces && !s.finished && !s.expired && !s.broken && !s.waiting && !M.coach;
  const how = M.welcome.early_end;
  $("concede-btn").hidden = !(on && how === "concede");
  $("stop-btn").hidden = !(on && how === "agree" && !s.stop);
  $("end-controls").hidden = $("concede-btn").hidden && $("stop-btn").hidden;
}

// The board is drawn anew at every change: a keyboard player's focus stays on the same
// control (a card by its data-focus key, a button by its id), or, when a move took it away,
// goes to the first card or button of the dock, never to the page's body.
let boardFocused = false;  // the last focus was on the board (removing a node fires no event)
document.addEventListener("focusin", (e) => { boardFocused = $("board").contains(e.target); });

function focusKey(board) {
  const a = document.activeElement;
  if (a && a !== document.body && board.contains(a)) return a.dataset.focus ? `[data-focus="${a.dataset.focus}"]` : a.id ? "#" + a.id : "*";
  return boardFocused && (!a || a === document.body) ? "*" : null;
}

function refocus(board, key) {
  const usable = (n) => n && !n.disabled && n.offsetParent !== null;
  let target = key !== "*" ? board.querySelector(key) : null;
  if (!usable(target)) target = [...board.querySelectorAll(".dock [tabindex='0'], .dock button")].find(usable);
  if (target) target.focus({ preventScroll: true });
}

// What happens at the table is said to screen readers once, as the log's new lines and the
// talk's new messages (the board is not a live region: it is drawn anew at every change).
function announce(texts) {
  const box = $("announce");
  for (const text of texts) if (text) box.append(el("p", {}, text));
  while (box.childElementCount > 8) box.firstChild.remove();
}

// On a phone the hand stays in one row: its cards overlap only when they do not fit side by
// side (the "tight" class; see the stylesheet).
function fitHand() {
  const hand = document.querySelector(".dock .hand");
  if (!hand) return;
  hand.classList.remove("tight");
  const page = document.documentElement;  // side by side, the cards widen the whole page
  hand.classList.toggle("tight", page.scrollWidth > page.clientWidth);
}

function renderSeatBadge() {
  const s = M.state;
  $("seat-badge").textContent = s.seat === null ? t("seat.spectator") : seatLabel(s.seat);
  // the server says when a name cannot change (Regicide with other players, rules 1.15)
  const mine = s.seat === null ? null : (s.seats || [])[s.seat];
  const fixed = !!(mine && mine.name_fixed);
  $("name-btn").classList.toggle("resting", fixed);
  $("name-btn").title = fixed ? t(M.welcome && M.welcome.rated ? "error.name_fixed_rated" : "error.name_fixed") : t("social.rename");
}

function renderLog() {
  const mod = game();
  const ol = $("log");
  const atBottom = ol.scrollHeight - ol.scrollTop - ol.clientHeight < 40;
  ol.innerHTML = "";
  for (const ev of M.log) {
    const text = mod.describe(ev, C);
    if (!text) continue;
    const li = el("li", { class: "log-" + ev.kind + (ev.seat !== null && ev.seat === C.me ? " mine" : "") }, text);
    ol.append(li);
  }
  if (atBottom || M.log.length < 4) ol.scrollTop = ol.scrollHeight;
}

function talkLine(m) {
  const who = seatLabel(m.seat);
  let text;
  if (m.kind === "say") {
    // a count said ("3 cards") picks the text's singular or plural form
    const p = { ...(m.params || {}) };
    const counts = Object.values(p).filter((v) => typeof v === "number");
    if (counts.length === 1) p.n = counts[0];
    text = t("say." + m.message_id, p);
  } else text = m.text;
  return el("li", { class: "talk-" + m.kind + (m.seat === C.me ? " mine" : "") },
    el("b", {}, who + ": "), el("span", {}, text));
}

// Whether all of node is on the screen (a phone shows the talk below the board).
function inView(node) {
  const r = node.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
}

// A message said while the talk is out of view shows on the screen; a tap on it goes to the
// talk.
function talkToast(m) {
  const line = talkLine(m);
  toast(line.firstChild.textContent.replace(/: $/, ""), line.lastChild.textContent, "info talk-toast");
  const node = $("toasts").lastChild;
  node.addEventListener("click", () => $("talk-panel").scrollIntoView({ block: "nearest", behavior: "smooth" }));
}

function renderTalk() {
  const ol = $("talk");
  ol.innerHTML = "";
  for (const m of M.talk.slice(-60)) ol.append(talkLine(m));
  ol.scrollTop = ol.scrollHeight;
}

function renderTalkControls() {
  const box = $("talk-controls");
  box.innerHTML = "";
  const w = M.welcome;
  if (w.seat === null) {
    box.append(el("p", { class: "muted" }, t("talk.spectator")));
    return;
  }
  if (w.talk === "say") {
    box.append(el("p", { class: "muted small" }, t("talk.rules_regicide")));
    const row = el("div", { class: "say-buttons" });
    for (const id of w.sayings) {
      row.append(el("button", { class: "chip", type: "button", onclick: () => C.say(id), title: t("sayhint." + id) }, t("saybtn." + id)));
    }
    box.append(row);
  } else {
    const input = el("input", { type: "text", maxlength: "300", placeholder: t("talk.placeholder"), "aria-label": t("talk.placeholder"), id: "chat-input" });
    const form = el("form", { class: "chat-form", onsubmit: (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (text) { C.chat(text); input.value = ""; }
    } }, input, el("button", { type: "submit", class: "btn small" }, t("talk.send")));
    box.append(form);
  }
}

function renderHelp() {
  const box = $("help");
  box.innerHTML = "";
  box.append(el("h2", {}, t("help.title")), game().help(C),
    el("p", { class: "small table-rules", id: "table-rules" }, t("table.rules_here", { rules: optionsText(M.welcome.options) })),
    el("a", { class: "rules-link small", id: "rules-link", href: "/rules#" + M.welcome.game, target: "_blank", rel: "noopener" },
      t("rules.link_full"), el("span", { class: "sr-only" }, " " + t("rules.new_tab"))));
}

function renderEnd() {
  const s = M.state;
  const dlg = $("end");
  if (M.coach) { M.coach.renderEnd(dlg, game()); return; }
  if (!s.finished) { if (dlg.open) dlg.close(); return; }
  const shownNext = dlg.dataset.next || "";
  if (M.endDismissed || (dlg.open && shownNext === (s.next_table || ""))) return;
  dlg.innerHTML = "";
  dlg.dataset.next = s.next_table || "";
  const body = game().endScreen(M, C);
  const social = socialEnd(M, C, game());
  // a daily deal this browser played: its results and the solver's verdict, now shown
  const daily = token ? (entryFor(tableId, token) || {}).daily : null;
  dlg.append(
    body,
    ...(social.reason ? [social.reason] : []),
    el("div", { class: "end-actions" },
      daily ? el("a", { class: "btn primary", href: "/daily?date=" + encodeURIComponent(daily), id: "daily-results-link" }, t("daily.end_link")) : null,
      social.again,
      social.fresh,
      el("a", { class: "btn", href: `/replay/${encodeURIComponent(tableId)}`, id: "replay-link" }, t("end.replay")),
      el("a", { class: "btn", href: "/" }, t("end.lobby")),
      el("button", { class: "btn ghost", type: "button", onclick: () => { M.endDismissed = true; dlg.close(); } }, t("end.close"))));
  named(dlg, "end-title");
  if (!dlg.open) dlg.showModal();
}

// A dialog is named by its heading (screen readers say it on opening).
function named(dlg, id) {
  const h = dlg.querySelector("h2");
  if (h) { h.id = id; dlg.setAttribute("aria-labelledby", id); }
}

function openInvite(invites) {
  const dlg = $("invite");
  dlg.innerHTML = "";
  const rows = [];
  const abs = (p) => new URL(p, location.origin).href;
  if (invites) {
    for (const inv of invites) {
      if (inv.seat === C.me) continue;
      rows.push(linkRow(t("invite.seat", { n: inv.seat + 1 }), abs(inv.link)));
    }
  }
  // every other seat a bot: only the spectator link is left to share
  const explain = !invites ? "invite.no_links" : rows.length ? "invite.explain" : "invite.watch_only";
  if (M.welcome && M.welcome.spectate) rows.push(linkRow(t("invite.spectators"), abs(M.welcome.spectate)));
  dlg.append(el("h2", {}, t("invite.title")),
    el("p", { class: "muted", id: "invite-explain" }, t(explain)),
    ...rows,
    el("div", { class: "end-actions" }, el("button", { class: "btn", type: "button", onclick: () => dlg.close() }, t("end.close"))));
  named(dlg, "invite-title");
  dlg.showModal();
}

// ------------------------------------------------------------------ start

async function main() {
  await loadLang(detectLang());
  applyStatic();
  $("alerts-btn").prepend(icon("bell"));
  $("name-btn").prepend(icon("person"));
  $("leave-btn").prepend(icon("exit"));
  $("concede-btn").prepend(icon("flag"));
  $("stop-btn").prepend(icon("flag"));
  window.addEventListener("resize", fitHand);
  alerts = new TurnAlerts({ button: $("alerts-btn"), t, baseTitle: "Regalia" });
  langSwitch($("lang"), () => {
    alerts.paint();
    if (M.welcome) setupChrome();
    $("end").open && $("end").close();
    M.endDismissed = false;
    render();
    renderTalk();
    onStatus(M.status);
    alerts.update(askedOf(M.state));
  });
  if (tutorialGame) {
    M.coach = new Coach(tutorialGame, { box: $("coach"), M, C, rerender: render });
    socket = new TutorialSocket(tutorialGame, { onMessage, onStatus, onScript: (script, done) => M.coach.setScript(script, done) });
    onStatus("connecting");
    window.regalia = { M, socket };
    socket.connect();
    return;
  }
  if (!tableId) { onStatus("gone"); return; }
  onStatus("connecting");
  socket = new TableSocket(tableId, token, { onMessage, onStatus, name: myName });
  window.regalia = { M, socket };
  socket.connect();
}

main();
