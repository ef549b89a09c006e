// The table page: one websocket, the seat's view, the board of the game, the log and the
// table talk. Everything shown comes from the server's messages for this seat.
import { applyStatic, detectLang, langSwitch, loadLang, t } from "./i18n.js";
import { el, icon } from "./cards.js";
import { TableSocket } from "./net.js";
import { invitesFor, remember } from "./mytables.js";
import { linkRow } from "./links.js";
import { askName, myName, seatDisplay } from "./names.js";
import { renderSocialBar, socialEnd } from "./social.js";
import * as regicide from "./regicide.js";
import * as ribauds from "./ribauds.js";

const GAMES = { regicide, ribauds };
const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
const token = new URLSearchParams(location.hash.slice(1)).get("s");

const M = {
  tableId,
  token,
  welcome: null,
  state: null,
  log: [],
  talk: [],
  sel: [],
  selPly: -1,
  pending: false,
  endDismissed: false,
  status: "connecting",
  lastError: null,
};

let socket = null;
const $ = (id) => document.getElementById(id);

function game() { return M.welcome ? GAMES[M.welcome.game] : null; }

export function seatName(k) {
  return seatDisplay(M.state ? M.state.seats : null, k);
}

function seatLabel(k) {
  const name = seatName(k);
  return M.state && M.state.seat === k ? `${name} (${t("seat.you")})` : name;
}

// ------------------------------------------------------------------ controller

const C = {
  t,
  seatName,
  seatLabel,
  get me() { return M.state ? M.state.seat : null; },
  act(action) {
    if (M.pending || !M.state) return;
    M.pending = true;
    socket.send({ type: "act", ply: M.state.ply, action });
    render();
  },
  wish(value) { socket.send({ type: "wish", value }); },
  setBot(seat, on) { socket.send({ type: "bot", seat, on }); },
  send(obj) { return socket.send(obj); },
  say(id) { socket.send({ type: "say", message_id: id }); },
  chat(text) { socket.send({ type: "chat", text }); },
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

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      M.welcome = msg;
      M.log = [];
      if (token && msg.seat !== null) {
        remember({ id: tableId, game: msg.game, players: msg.players, seat: msg.seat, token, role: "player", spectate: msg.spectate });
      }
      setupChrome();
      break;
    case "state": {
      if (msg.log_start === 0) M.log = [];
      M.log = M.log.slice(0, msg.log_start).concat(msg.log);
      if (msg.ply !== M.selPly) { M.sel = []; M.selPly = msg.ply; }
      M.state = msg;
      M.pending = false;
      render();
      break;
    }
    case "seats":
      if (M.state) { M.state.seats = msg.seats; render(); }
      break;
    case "talk":
      M.talk.push(msg);
      renderTalk();
      break;
    case "talk_history":
      M.talk = msg.messages.slice();
      renderTalk();
      break;
    case "timeout":
      toast(t("social.timeout_title", { who: seatName(msg.seat) }), t("social.timeout_detail"), "error");
      break;
    case "rematch":
      if (M.state) { M.state.next_table = msg.table; render(); }
      break;
    case "error":
      M.pending = false;
      showError(msg);
      render();
      break;
    default:
      break;
  }
}

function showError(msg) {
  const title = t("error." + msg.code) !== "error." + msg.code ? t("error." + msg.code) : t("error.generic");
  const showReason = ["illegal", "bad_action", "bad_message", "unknown_type", "too_large", "bad_json",
    "table_broken", "too_fast", "storage", "no_access", "too_many_spectators", "too_many_connections", "expired"].includes(msg.code);
  toast(title, showReason ? msg.message : null, "error");
}

export function toast(title, detail = null, kind = "info") {
  const box = $("toasts");
  const node = el("div", { class: "toast " + kind, role: "status" },
    el("strong", {}, title), detail ? el("div", { class: "toast-detail" }, detail) : null);
  box.append(node);
  setTimeout(() => node.classList.add("fade"), 4200);
  setTimeout(() => node.remove(), 5000);
}

function onStatus(status) {
  M.status = status;
  const c = $("conn");
  c.dataset.state = status;
  c.textContent = t("conn." + status);
  document.body.classList.toggle("offline", status !== "online");
}

// ------------------------------------------------------------------ rendering

function setupChrome() {
  const g = M.welcome.game;
  document.body.dataset.game = g;
  $("game-title").textContent = t("game." + g);
  document.title = `${t("game." + g)} · Regalia`;
  $("table-code").textContent = tableId;
  const invites = invitesFor(tableId);
  const seated = M.welcome.seat !== null;
  $("name-btn").hidden = !seated;
  $("name-btn").onclick = () => askName($("name-dlg"), el, myName()).then((name) => socket.send({ type: "name", name }));
  $("leave-btn").hidden = !seated;
  $("leave-btn").onclick = () => {
    if (!window.confirm(t("social.leave_confirm"))) return;
    socket.send({ type: "bot", seat: M.welcome.seat, on: true });
    setTimeout(() => { location.href = "/"; }, 300);
  };
  if (seated && !myName()) askName($("name-dlg"), el).then((name) => socket.send({ type: "name", name }));
  $("invite-btn").hidden = false;
  $("invite-btn").onclick = () => openInvite(invites);
  renderTalkControls();
  renderHelp();
}

function render() {
  if (!M.state || !M.welcome) return;
  const mod = game();
  const board = $("board");
  mod.render(board, M, C);
  renderLog();
  renderSeatBadge();
  renderSocialBar($("social-bar"), M, C);
  renderEnd();
}

function renderSeatBadge() {
  const s = M.state;
  $("seat-badge").textContent = s.seat === null ? t("seat.spectator") : seatLabel(s.seat);
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
  if (m.kind === "say") text = t("say." + m.message_id, m.params || {});
  else text = m.text;
  return el("li", { class: "talk-" + m.kind + (m.seat === C.me ? " mine" : "") },
    el("b", {}, who + ": "), el("span", {}, text));
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
  box.append(el("h2", {}, t("help.title")), game().help(C));
}

function renderEnd() {
  const s = M.state;
  const dlg = $("end");
  if (!s.finished) { if (dlg.open) dlg.close(); return; }
  const shownNext = dlg.dataset.next || "";
  if (M.endDismissed || (dlg.open && shownNext === (s.next_table || ""))) return;
  dlg.innerHTML = "";
  dlg.dataset.next = s.next_table || "";
  const body = game().endScreen(M, C);
  const social = socialEnd(M, C, game());
  dlg.append(
    body,
    ...(social.reason ? [social.reason] : []),
    el("div", { class: "end-actions" },
      social.again,
      social.fresh,
      el("a", { class: "btn", href: `/replay/${encodeURIComponent(tableId)}`, id: "replay-link" }, t("end.replay")),
      el("a", { class: "btn", href: "/" }, t("end.lobby")),
      el("button", { class: "btn ghost", type: "button", onclick: () => { M.endDismissed = true; dlg.close(); } }, t("end.close"))));
  if (!dlg.open) dlg.showModal();
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
  if (M.welcome && M.welcome.spectate) rows.push(linkRow(t("invite.spectators"), abs(M.welcome.spectate)));
  dlg.append(el("h2", {}, t("invite.title")),
    el("p", { class: "muted" }, invites ? t("invite.explain") : t("invite.no_links")),
    ...rows,
    el("div", { class: "end-actions" }, el("button", { class: "btn", type: "button", onclick: () => dlg.close() }, t("end.close"))));
  dlg.showModal();
}

// ------------------------------------------------------------------ start

async function main() {
  await loadLang(detectLang());
  applyStatic();
  langSwitch($("lang"), () => {
    if (M.welcome) setupChrome();
    $("end").open && $("end").close();
    M.endDismissed = false;
    render();
    renderTalk();
    onStatus(M.status);
  });
  onStatus("connecting");
  if (!tableId) { toast(t("error.not_found")); return; }
  socket = new TableSocket(tableId, token, { onMessage, onStatus, name: myName });
  window.regalia = { M, socket };
  socket.connect();
}

main();
