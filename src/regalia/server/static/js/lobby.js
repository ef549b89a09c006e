// The lobby: create a table (game, players, seats, rule options, a live or turn-based
// clock; a rated Le Roy des Ribauds game between two signed-in people), list the tables of
// this browser, those where its seat or its account's is to act ("Your turn") and, signed
// in, its friends (friends.js) and the "Notify me" button (push.js).
import { applyStatic, detectLang, has, langSwitch, loadLang, t } from "./i18n.js";
import { el, icon } from "./cards.js";
import { forget, myTables, remember } from "./mytables.js";
import { linkRowLobby } from "./links.js";
import { botsByStrength, myName, seatDisplay, setMyName } from "./names.js";
import { clockText as bankText, optionsText, perMoveText, turnLeft } from "./social.js";
import { accountArea } from "./account.js";
import { notifyButton, notifying } from "./push.js";
import { dailyEntry, dailyError, dailyReport, openLink, startDaily } from "./dailyplay.js";
import { friendsPanel } from "./friends.js";

const $ = (id) => document.getElementById(id);
let GAMES = [];
const TURNS_EVERY = 20000;  // ms between two asks of the "Your turn" list
let friends = null; // the Friends panel (friendsPanel)
const form = { game: "regicide", players: 1, seats: [], options: {} };
let signedIn = null;  // the account this browser is signed in to, or null

function info() { return GAMES.find((g) => g.name === form.game); }

function renderGames() {
  const box = $("game-choice");
  box.querySelectorAll(".game-tile").forEach((n) => n.remove());
  for (const g of GAMES) {
    const id = "game-" + g.name;
    const input = el("input", { type: "radio", name: "game", value: g.name, id, checked: form.game === g.name,
      onchange: () => { form.game = g.name; form.players = g.name === "ribauds" ? 2 : form.players;
        if (form.players < g.min_players || form.players > g.max_players) form.players = g.min_players;
        form.options = {}; resetSeats(); renderForm(); } });
    box.append(el("label", { class: "game-tile" + (form.game === g.name ? " chosen" : ""), for: id }, input,
      el("span", { class: "game-icon" }, icon(g.name === "regicide" ? "crown" : "dagger")),
      el("span", { class: "game-text" }, el("b", {}, t("game." + g.name)), el("small", {}, t("lobby.about_" + g.name)))));
  }
}

function resetSeats() {
  const g = info();
  form.seats = Array.from({ length: form.players }, (_, i) => (i === 0 ? { kind: "human" } : (form.seats[i] || { kind: "human" })));
  const known = (b) => g.bots.includes(b) || g.levels.some((l) => l.name === b);
  form.seats = form.seats.map((s) => (s.kind === "bot" && !known(s.bot) ? { kind: "bot", bot: g.default_level || g.default_bot } : s));
}

function renderPlayers() {
  const g = info();
  const box = $("players");
  box.innerHTML = "";
  for (let n = g.min_players; n <= g.max_players; n++) {
    box.append(el("button", { type: "button", id: "players-" + n, class: "seg" + (n === form.players ? " on" : ""),
      "aria-pressed": n === form.players ? "true" : "false", dataset: { players: n },
      onclick: () => { form.players = n; resetSeats(); renderForm(); } }, String(n)));
  }
  $("players-field").classList.toggle("fixed", g.min_players === g.max_players);
}

function renderSeats() {
  const g = info();
  const box = $("seats");
  box.innerHTML = "";
  form.seats.forEach((s, i) => {
    let control;
    if (i === 0) control = el("span", { class: "seat-you" }, icon("person"), t("lobby.you"));
    else {
      const help = el("small", { class: "seat-help", id: "seat-help-" + i });
      const sel = el("select", { id: "seat-" + i, "aria-label": t("seat.player", { n: i + 1 }), "aria-describedby": help.id,
        onchange: () => { const v = sel.value; form.seats[i] = v === "human" ? { kind: "human" } : { kind: "bot", bot: v.slice(4) };
          help.textContent = levelHelp(g, form.seats[i]); renderRated(); } });
      sel.append(el("option", { value: "human", selected: s.kind === "human" }, t("lobby.seat_human")));
      sel.append(levelChoices(g, s));
      // the bots by their technical names, for those who study them; medals are solo only,
      // and the solo seat is the creator's: no "aims at medals" bots here
      const others = el("optgroup", { label: t("lobby.other_bots") });
      for (const b of botsByStrength(form.game, g.bots.filter((name) => !name.endsWith("-medal")))) {
        const name = has("bot." + b) ? t("bot." + b) : b;
        others.append(el("option", { value: "bot:" + b, selected: s.kind === "bot" && s.bot === b }, t("lobby.seat_bot", { name })));
      }
      sel.append(others);
      help.textContent = levelHelp(g, s);
      control = [sel, help];
    }
    box.append(el("div", { class: "seat-row" }, el("span", { class: "seat-num" }, t("seat.player", { n: i + 1 })), control));
  });
}

// The bot levels of game g (regalia.bots.levels), weakest first, by name; what each plays
// is the option's title and, for the chosen one, the line under the seat (levelHelp): a
// phone's menu shows short names. The game's default level (medium in Le Roy des Ribauds,
// where the bot is the opponent) says it is the one suggested. `s`: the seat's choice.
function levelChoices(g, s) {
  const group = el("optgroup", { label: t("lobby.bot_levels") });
  for (const lv of g.levels) {
    const level = t("botlevel." + lv.name);
    group.append(el("option", { value: "bot:" + lv.name, selected: s.kind === "bot" && s.bot === lv.name,
      title: levelText(g, lv) },
      t(lv.name === g.default_level ? "lobby.seat_level_suggested" : "lobby.seat_level", { level })));
  }
  return group;
}

// What level lv of game g plays, in the page's language (the server's English otherwise).
function levelText(g, lv) {
  const key = `botlevel.${g.name}.${lv.name}`;
  return has(key) ? t(key) : lv.description;
}

// The line under a seat: what its level plays ("" for a person or a bot chosen by name).
function levelHelp(g, s) {
  const lv = s.kind === "bot" && g.levels.find((l) => l.name === s.bot);
  return lv ? levelText(g, lv) : "";
}

function renderOptions() {
  const g = info();
  const box = $("options");
  box.innerHTML = "";
  let any = false;
  for (const o of g.options) {
    if (o.players && !o.players.includes(form.players)) { delete form.options[o.key]; continue; }
    any = true;
    const value = o.key in form.options ? form.options[o.key] : o.default;
    if (o.type === "bool") {
      const input = el("input", { type: "checkbox", id: "opt-" + o.key, checked: !!value,
        onchange: () => { if (input.checked === o.default) delete form.options[o.key]; else form.options[o.key] = input.checked; } });
      box.append(el("label", { class: "option", for: "opt-" + o.key }, input,
        el("span", {}, el("b", {}, t("opt." + o.key)), el("small", {}, t("opt." + o.key + ".help")))));
    } else if (o.type === "choice") {
      const sel = el("select", { id: "opt-" + o.key, onchange: () => { if (sel.value === o.default) delete form.options[o.key]; else form.options[o.key] = sel.value; } });
      for (const c of o.choices) sel.append(el("option", { value: c, selected: c === value }, t(`opt.${o.key}.${c}`)));
      box.append(el("label", { class: "option select-option", for: "opt-" + o.key },
        el("span", {}, el("b", {}, t("opt." + o.key)), el("small", {}, t("opt." + o.key + ".help"))), sel));
    }
  }
  if (!any) box.append(el("p", { class: "muted small" }, t("lobby.no_options")));
}

// The form is drawn anew on each choice: the control that had the focus (found again by its
// id) keeps it, else a keyboard's next Tab would start over from the page's top.
function renderForm() {
  const focused = document.activeElement.id;
  renderGames();
  renderPlayers();
  renderSeats();
  renderOptions();
  // hints: solo Regicide only (the server refuses them elsewhere); shown but off at 2-4
  // players, saying why
  const solo = form.game === "regicide" && form.players === 1;
  $("hints-option").hidden = form.game !== "regicide";
  $("hints-option").classList.toggle("off", !solo);
  $("opt-hints").disabled = !solo;
  if (!solo) $("opt-hints").checked = false;
  $("hints-help").textContent = t(solo ? "hints.option_help" : "hints.solo_only");
  renderRated();
  if (focused && $(focused)) $(focused).focus();
}

// Rated: Le Roy des Ribauds between two people, created by a signed-in player (the server
// refuses it otherwise); shown but off, saying why, when one of these is missing.
function renderRated() {
  const ribauds = form.game === "ribauds";
  const people = form.seats.every((s) => s.kind === "human");
  const ok = ribauds && people && !!signedIn;
  $("rated-option").hidden = !ribauds;
  $("rated-option").classList.toggle("off", !ok);
  $("opt-rated").disabled = !ok;
  if (!ok) $("opt-rated").checked = false;
  $("rated-help").textContent = t(!signedIn ? "rated.need_sign_in" : !people ? "rated.need_people" : "rated.option_help");
}

async function create(ev) {
  ev.preventDefault();
  $("create-error").textContent = "";
  const btn = $("create-btn");
  const nick = setMyName($("nickname").value) || myName();
  if ($("opt-open").checked && !nick) { $("create-error").textContent = t("social.name_first"); $("nickname").focus(); return; }
  btn.disabled = true;
  try {
    const r = await fetch("/api/tables", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ game: form.game, players: form.players, options: form.options, seats: form.seats,
        open: $("opt-open").checked, clock: $("clock").value || null, ...(nick ? { name: nick } : {}),
        ...($("opt-hints").checked ? { hints: true } : {}), ...($("opt-rated").checked ? { rated: true } : {}) }),
    });
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
    const mine = data.seats.find((s) => s.seat === data.you);
    const invites = data.seats.filter((s) => s.token).map((s) => ({ seat: s.seat, link: s.link }));
    remember({ id: data.id, game: data.game, players: data.players, seat: data.you, token: mine ? mine.token : null, role: "creator", invites, spectate: data.spectate });
    location.href = mine ? mine.link : data.spectate;
  } catch (e) {
    $("create-error").textContent = t("lobby.create_failed") + " " + e.message;
    btn.disabled = false;
  }
}

// The signed-in account's tables being played (GET /api/account/tables), shown in "My
// tables" beside this browser's: opened by the account, without a token.
let accountTables = [];

// Resolves to whether the list changed: only then is "My tables" drawn again (a redraw
// would fold an unfolded row and move the focus).
async function refreshAccountTables() {
  const before = JSON.stringify(accountTables);
  if (!signedIn) accountTables = [];
  else {
    try {
      const r = await fetch("/api/account/tables");
      accountTables = r.ok ? (await r.json()).tables : [];
    } catch (e) {
      accountTables = [];
    }
  }
  return JSON.stringify(accountTables) !== before;
}

// This browser's tables, then the account's not kept here (each seat once).
function mineAndAccounts() {
  const list = myTables();
  const kept = new Set(list.filter((e) => e.seat !== null && e.seat !== undefined).map((e) => `${e.id}:${e.seat}`));
  const extra = accountTables.filter((x) => !kept.has(`${x.id}:${x.seat}`))
    .map((x) => ({ id: x.id, game: x.game, players: x.players, seat: x.seat, account: true }));
  return list.concat(extra);
}

async function renderMine() {
  const ul = $("my-tables");
  ul.innerHTML = "";
  const list = mineAndAccounts();
  if (!list.length) {
    ul.append(el("li", { class: "muted empty-list" }, t("lobby.no_tables")));
    return;
  }
  list.forEach((e, i) => {
    const link = e.token ? `/t/${e.id}#s=${e.token}` : e.account ? `/t/${encodeURIComponent(e.id)}` : (e.spectate || `/t/${e.id}`);
    // the buttons of every row read alike: their names say which table
    const table = t("lobby.table_named", { game: t("game." + e.game), n: e.players, id: e.id });
    const status = el("span", { class: "status muted" }, "…");
    const replay = el("a", { class: "btn small", href: `/replay/${e.id}`, hidden: true,
      "aria-label": t("lobby.replay_named", { table }) }, t("end.replay"));
    const invites = e.invites && e.invites.filter((x) => x.seat !== e.seat);
    const invBox = el("div", { class: "invites", hidden: true },
      (invites || []).map((x) => linkRowLobby(t("invite.seat", { n: x.seat + 1 }), new URL(x.link, location.origin).href)),
      e.spectate ? linkRowLobby(t("invite.spectators"), new URL(e.spectate, location.origin).href) : null);
    const seated = e.seat !== null && e.seat !== undefined;
    const who = el("small", { class: "muted" }, `${t("table.code")} ${e.id} · ${seated ? t("seat.player", { n: e.seat + 1 }) : t("seat.spectator")}`);
    const li = el("li", { class: "my-table", dataset: { id: e.id } },
      el("div", { class: "my-head" },
        el("span", { class: "game-icon small" }, icon(e.game === "ribauds" ? "dagger" : "crown")),
        el("div", { class: "my-title" },
          el("b", {}, t("game." + e.game)),
          who),
        status),
      el("div", { class: "my-actions" },
        el("a", { class: "btn small primary open-link", href: link, "aria-label": t("lobby.open_named", { table }) }, t("lobby.open")),
        invites && invites.length ? el("button", { class: "btn small invite-toggle", type: "button", "aria-label": t("lobby.invite_named", { table }),
          "aria-expanded": "false", onclick: (ev) => {
            invBox.hidden = !invBox.hidden;
            ev.currentTarget.setAttribute("aria-expanded", String(!invBox.hidden));
          } }, t("table.invite")) : null,
        replay,
        // the account's tables are not this browser's to forget
        e.account ? null : el("button", { class: "btn small ghost forget-btn", type: "button", "aria-label": t("lobby.forget_named", { table }),
          onclick: () => forgetRow(e, i) }, t("lobby.forget"))),
      invBox);
    ul.append(li);
    fetch(`/api/tables/${encodeURIComponent(e.id)}`).then((r) => (r.ok ? r.json() : null)).then((s) => {
      if (!s) { status.textContent = t("lobby.status_gone"); return; }
      const picker = friends && friends.invitePicker(e, s); // a table that waits: invite a friend
      if (picker) li.append(picker);
      // the players by name, this browser's seat marked
      const names = s.seats.map((x) => seatDisplay(s.seats, x.seat, seated && x.seat === e.seat));
      who.textContent = `${t("table.code")} ${e.id} · ${names.join(", ")}`;
      if (s.status === "finished") {
        replay.hidden = false;
        const o = s.outcome || {};
        if (o.ending && o.ending.how === "stopped") status.textContent = t("lobby.status_stopped");
        else if (o.ending) status.textContent = t("lobby.status_conceded", { who: seatDisplay(s.seats, o.winner), loser: seatDisplay(s.seats, o.ending.seat) });
        else if (s.game === "regicide") status.textContent = o.result === "won" ? t("lobby.status_won") : t("lobby.status_lost");
        else status.textContent = t("lobby.status_winner", { who: seatDisplay(s.seats, o.winner ?? 0) });
        const lost = s.game === "regicide" ? o.result !== "won" : o.winner !== e.seat;
        status.className = "status done" + (lost ? " lost" : "");
      } else if (s.current === e.seat) {
        status.textContent = t("lobby.status_your_turn");
        status.className = "status yours";
      } else {
        status.textContent = t("lobby.status_playing", { n: s.ply });
        status.className = "status";
      }
    }).catch(() => { status.textContent = "?"; });
  });
}

// Forget the table of row i; the focus stays in the list: on the Forget of the row that
// takes its place (or of the new last row), else on the list's heading.
function forgetRow(e, i) {
  forget(e.id, e.seat);
  renderMine();
  const buttons = $("my-tables").querySelectorAll(".forget-btn");
  (buttons[Math.min(i, buttons.length - 1)] || $("my-tables-title")).focus();
}

// ------------------------------------------------------------------ the daily deal

// The lobby's entry to today's daily deal: play it, or open the game this browser holds,
// or say it was played (an account plays it once a day).
async function renderDaily() {
  let got = await dailyReport().catch(() => null);
  if (got && got.ok && !got.data.you.table && dailyEntry(got.data.today)) got = await dailyReport(got.data.today).catch(() => null);
  if (!got || !got.ok) return;
  const { you, today } = got.data;
  const entry = dailyEntry(today);
  const played = Boolean(you.table || entry);
  $("lobby-daily-play").hidden = played;
  const link = openLink(you, entry);  // this browser's seat, or the account's game
  $("lobby-daily-open").hidden = !(link && (!you.table || you.status === "playing"));
  if (link) $("lobby-daily-open").href = link;
  $("lobby-daily-status").textContent = !played ? (you.account ? t("daily.ranked_as", { name: you.account }) : "")
    : you.status && you.status !== "playing" ? t("daily.lobby_played") : t("daily.you_playing");
}

async function playDaily() {
  $("lobby-daily-error").textContent = "";
  $("lobby-daily-play").disabled = true;
  const { ok, data } = await startDaily().catch(() => ({ ok: false, data: {} }));
  if (ok) { location.href = data.link; return; }
  $("lobby-daily-play").disabled = false;
  $("lobby-daily-error").textContent = dailyError(data);
}

// ------------------------------------------------------------------ open tables

let CLOCKS = [];
let openList = [];

// A time control in words: a live clock ("Rapid: 10 min + 15 s per move") or a
// turn-based one ("1 day per move").
function clockText(c) {
  if (!c) return t("social.no_clock");
  if (c.per_move) return t("social.per_move_preset", { time: perMoveText(c.bank) });
  return t("social.clock_preset", { name: t("social.preset." + c.name) !== "social.preset." + c.name ? t("social.preset." + c.name) : c.name,
    min: Math.round(c.bank / 60 * 10) / 10, inc: c.increment });
}

function renderClocks() {
  const sel = $("clock");
  const was = sel.value;
  sel.innerHTML = "";
  sel.append(el("option", { value: "" }, t("social.no_clock")));
  for (const [label, turn] of [["social.live_clocks", false], ["social.turn_clocks", true]]) {
    const group = el("optgroup", { label: t(label) });
    for (const c of CLOCKS.filter((x) => Boolean(x.per_move) === turn)) {
      group.append(el("option", { value: c.name, selected: c.name === was }, clockText(c)));
    }
    if (group.children.length) sel.append(group);
  }
}

function waited(s) {
  if (s < 60) return t("social.waited_s", { n: s });
  if (s < 3600) return t("social.waited_min", { n: Math.floor(s / 60) });
  return t("social.waited_h", { n: Math.floor(s / 3600) });
}

async function join(entry) {
  if (entry.rated && !signedIn) { $("open-error").textContent = t("rated.join_sign_in"); return; }
  const name = setMyName($("nickname").value) || myName();
  if (!name) {
    $("nickname").focus();
    $("open-error").textContent = t("social.name_first");
    return;
  }
  const r = await fetch(`/api/tables/${encodeURIComponent(entry.id)}/join`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const why = data.code === "rated_signed_out" ? t("rated.join_sign_in")
      : data.code === "rated_same_account" ? t("rated.same_account") : (data.error || r.statusText);
    $("open-error").textContent = t("social.join_failed") + " " + why;
    refreshOpen();
    return;
  }
  remember({ id: data.id, game: data.game, players: data.players, seat: data.seat, token: data.token, role: "player" });
  location.href = data.link;
}

function renderOpen() {
  const ul = $("open-tables");
  ul.innerHTML = "";
  if (!openList.length) { ul.append(el("li", { class: "muted empty-list" }, t("social.no_open"))); return; }
  for (const e of openList) {
    const names = e.seats.map((s) => (s.free ? t("social.free_seat") : seatDisplay(e.seats, s.seat)));
    ul.append(el("li", { class: "my-table open-table", dataset: { id: e.id } },
      el("div", { class: "my-head" },
        el("span", { class: "game-icon small" }, icon(e.game === "ribauds" ? "dagger" : "crown")),
        el("div", { class: "my-title" },
          el("b", {}, t("game." + e.game), e.rated ? el("span", { class: "rated-badge" }, t("rated.badge")) : null),
          el("small", { class: "muted" }, t("social.open_facts", { n: e.free, players: e.players }) + " · " + waited(e.waited_s)),
          el("small", { class: "open-names" }, names.join(", ")),
          el("small", { class: "muted" }, optionsText(e.options) + " · " + clockText(e.clock ? { name: e.clock.preset, bank: e.clock.bank, increment: e.clock.increment, per_move: e.clock.per_move } : null)))),
      el("div", { class: "my-actions" },
        el("button", { class: "btn small primary", type: "button", id: "join-" + e.id, onclick: () => join(e) }, t("social.join")))));
  }
}

async function refreshOpen() {
  try {
    const r = await fetch("/api/open");
    if (r.ok) { openList = await r.json(); renderOpen(); }
  } catch (e) { /* the next round tries again */ }
}

// A passing message in the corner (how turning notifications on went).
function notice(text, ok = true) {
  const node = el("div", { class: "toast " + (ok ? "info" : "error"), role: "status" }, el("strong", {}, text));
  $("toasts").append(node);
  setTimeout(() => node.classList.add("fade"), 5200);
  setTimeout(() => node.remove(), 6000);
}

// ------------------------------------------------------------------ your turn

let turns = [];  // the seats of this browser and of its account that are to act now

// The seats to act now: this browser's (My tables, by their tokens) and, signed in, the
// account's; each once, the earliest deadline first.
async function refreshTurns() {
  const mine = myTables().filter((e) => e.id && e.token).slice(0, 100)
    .map((e) => ({ id: String(e.id), token: String(e.token) }));
  const asks = [];
  if (mine.length) {
    asks.push(fetch("/api/turns", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tables: mine }) }));
  }
  if (signedIn) asks.push(fetch("/api/turns"));
  let lists;
  try {
    lists = await Promise.all(asks.map((p) => p.then((r) => (r.ok ? r.json() : { turns: [] }))));
  } catch (e) {
    return;  // the next round tries again
  }
  const seen = new Map();
  for (const x of lists.flatMap((l) => l.turns)) seen.set(`${x.id}:${x.seat}`, x);
  turns = [...seen.values()].sort((a, b) => (a.deadline ?? Infinity) - (b.deadline ?? Infinity));
  renderTurns();
}

function renderTurns() {
  const ul = $("your-turn");
  ul.innerHTML = "";
  $("turns-panel").hidden = turns.length === 0;
  const now = Date.now() / 1000;
  for (const x of turns) {
    const entry = myTables().find((e) => e.id === x.id && e.seat === x.seat && e.token);
    const link = entry ? `/t/${x.id}#s=${entry.token}` : `/t/${x.id}`;
    const table = t("lobby.table_named", { game: t("game." + x.game), n: x.players, id: x.id });
    const left = x.deadline === null ? "" : t("turns.left", { time: x.per_move ? turnLeft(x.deadline - now) : bankText(x.deadline - now) });
    ul.append(el("li", { class: "my-table turn-row", dataset: { id: x.id } },
      el("div", { class: "my-head" },
        el("span", { class: "game-icon small" }, icon(x.game === "ribauds" ? "dagger" : "crown")),
        el("div", { class: "my-title" },
          el("b", {}, t("game." + x.game)),
          el("small", { class: "muted" }, `${t("table.code")} ${x.id} · ${t("seat.player", { n: x.seat + 1 })}`
            + (x.per_move ? ` · ${t("turns.turn_based")}` : ""))),
        el("span", { class: "status yours" }, left || t("lobby.status_your_turn"))),
      el("div", { class: "my-actions" },
        el("a", { class: "btn small primary", href: link, "aria-label": t("turns.play_named", { table }) }, t("turns.play")))));
  }
}

function prefill() {
  const q = new URLSearchParams(location.search);
  const g = GAMES.find((x) => x.name === q.get("game"));
  if (!g) return;
  form.game = g.name;
  const n = Number(q.get("players"));
  form.players = n >= g.min_players && n <= g.max_players ? n : g.min_players;
}

async function main() {
  await loadLang(detectLang());
  applyStatic();
  friends = friendsPanel($("friends-panel"), $("friends"), $("invitations-panel"), $("friend-invitations"));
  // signed in: "Notify me" asks the browser to tell of the account's turns, friend
  // requests and invitations (Web Push; permission asked on the click only)
  const notify = () => [notifyButton({ id: "notify-account", on: () => notifying(), told: notice, withIcon: true })];
  const account = await accountArea($("account"), (acc) => {
    signedIn = acc;
    if (acc) $("nickname").value = myName();
    friends.signedIn(!!acc);
    renderMine();
    refreshAccountTables().then((changed) => { if (changed) renderMine(); });
    renderDaily();
    refreshTurns();
    if (GAMES.length) renderRated();
  }, notify);
  signedIn = account.account();
  friends.signedIn(!!signedIn);
  langSwitch($("lang"), () => { account.render(); friends.render(); renderForm(); renderMine(); renderClocks(); renderOpen(); renderDaily(); renderTurns(); });
  $("lobby-daily-play").addEventListener("click", playDaily);
  renderDaily();
  $("nickname").value = myName();
  $("nickname").addEventListener("change", () => { $("nickname").value = setMyName($("nickname").value) || myName(); });
  $("open-tables").after(el("p", { id: "open-error", class: "error-text", role: "alert" }));
  [GAMES, CLOCKS] = await Promise.all([fetch("/api/games").then((r) => r.json()), fetch("/api/clocks").then((r) => r.json())]);
  form.game = GAMES[0].name;
  form.players = 1;
  prefill();
  resetSeats();
  renderForm();
  renderClocks();
  $("create-form").addEventListener("submit", create);
  renderMine();
  refreshAccountTables().then((changed) => { if (changed) renderMine(); });
  refreshOpen();
  setInterval(refreshOpen, 4000);
  refreshTurns();
  setInterval(refreshTurns, TURNS_EVERY);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refreshTurns(); });
}

main();
