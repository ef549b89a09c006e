// The replay of a finished game: every position, every hand, move by move; at
// /daily/DAY/line, the daily deal's solver's winning line (?table=ID: the asker's own game
// of that day, when played without an account).
import { applyStatic, detectLang, has, langSwitch, loadLang, t } from "./i18n.js";
import { el } from "./cards.js";
import { showGameTitle, showGone } from "./links.js";
import { seatDisplay } from "./names.js";
import * as regicide from "./regicide.js";
import * as ribauds from "./ribauds.js";

const GAMES = { regicide, ribauds };
const $ = (id) => document.getElementById(id);
const LINE = location.pathname.startsWith("/daily/");  // the solver's line of a daily deal
const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
let R = null;
let at = 0;
let timer = null;

const C = {
  t,
  me: null,
  seatName: (k) => seatDisplay(R ? R.seats : null, k),
};
C.seatLabel = C.seatName;

// An event as the log shows it: with the private details of the seat that caused it, and
// for an event of no seat (cards drawn by several seats) what each seat drew ("drawn").
const seen = (ev) => {
  if (!ev.private) return ev;
  if (ev.seat !== null) return { ...ev, ...(ev.private[String(ev.seat)] || {}) };
  const drawn = Object.fromEntries(Object.entries(ev.private).map(([k, p]) => [k, p.cards || []]));
  return { ...ev, drawn };
};

function show(i) {
  if (!R) return;
  at = Math.max(0, Math.min(R.steps.length - 1, i));
  const mod = GAMES[R.game];
  const step = R.steps[at];
  mod.renderReplay($("replay-board"), step, C);
  $("slider").value = String(at);
  $("slider").setAttribute("aria-valuetext", t("replay.move_of", { n: at, total: R.steps.length - 1 }));
  $("ply").textContent = t("replay.ply", { n: at, total: R.steps.length - 1 });
  // The move in the log's own translated sentences, never in notation.
  // (a game its players ended: the last step's events end with the ending, the deal's too)
  const ending = R.ending && at === R.steps.length - 1 ? step.events[step.events.length - 1] : null;
  $("step-action").textContent = step.action
    ? step.events.map((ev) => mod.describe(seen(ev), C)).join(" ")
    : t("replay.start") + (ending ? " " + mod.describe(seen(ending), C) : "");
  const ol = $("log");
  ol.innerHTML = "";
  for (let k = 0; k <= at; k++) {
    for (const ev of R.steps[k].events) {
      ol.append(el("li", { class: "log-" + ev.kind + (k === at ? " latest" : "") }, mod.describe(seen(ev), C)));
    }
  }
  ol.scrollTop = ol.scrollHeight;
}

// The analysis panel (Regicide): each decision of the chosen player, the win chance of the
// move played and of the best move; the three costliest mistakes marked. A row is named by its move
// as the replay names its steps ("Move 20" is step "move 20 / 41", whose caption is that
// move's sentence): a click shows that step, the choice made and its outcome; the position
// where it was chosen is one step back (the left arrow).
let analysis = null;
let status = null;  // {key[, seat]} or {text}: the panel's status line

function seatOptions() {
  const sel = $("analysis-seat");
  const chosen = sel.value;
  sel.innerHTML = "";
  for (let k = 0; k < R.players; k++) sel.append(el("option", { value: String(k), selected: String(k) === chosen }, C.seatName(k)));
}

function renderAnalysis() {
  if (!R || R.game !== "regicide") return;
  seatOptions();
  $("analysis-status").textContent = !status ? ""
    : status.key ? t(status.key, status.seat === undefined ? {} : { who: C.seatName(status.seat) }) : status.text;
  const ol = $("analysis");
  ol.innerHTML = "";
  if (!analysis) return;
  const pct = (p) => Math.round(p * 100);
  // a chance's 95% interval (sampling leaves each estimate a few points either way)
  const range = (r) => (r ? { lo: pct(r[0]), hi: pct(r[1]) } : { lo: "?", hi: "?" });
  if (!analysis.decisions.length) ol.append(el("li", { class: "muted" }, t("analysis.none")));
  for (const d of analysis.decisions) {
    const same = d.best === d.played;
    ol.append(el("li", {}, el("button", { type: "button", class: "analysis-item" + (d.marked ? " marked" : ""),
      id: "decision-" + d.index, onclick: () => show(d.index + 1) },
    el("b", {}, (d.marked ? "! " : "") + t("analysis.move", { n: d.index + 1 })), " ",
    t("analysis.played", { move: regicide.moveText(d.played, C, "move"), p: pct(d.played_win), ...range(d.played_range) }),
    same ? el("span", { class: "muted" }, " · " + t("analysis.same"))
      : el("span", {}, " · " + t("analysis.best", { move: regicide.moveText(d.best, C, "move"), p: pct(d.best_win), ...range(d.best_range) })))));
  }
}

async function runAnalysis() {
  const seat = Number($("analysis-seat").value);
  $("analyse-btn").disabled = true;
  status = { key: "analysis.working" };
  renderAnalysis();
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(tableId)}/analysis?seat=${seat}`);
    const body = await r.json();
    if (!r.ok) {
      analysis = null;
      status = has("error." + body.code) ? { key: "error." + body.code } : { text: body.error };
    } else {
      analysis = body;
      status = { key: "analysis.done", seat };
    }
  } catch (e) {
    status = { key: "error.generic" };
  }
  $("analyse-btn").disabled = false;
  renderAnalysis();
  // the button was disabled while working, which dropped the focus: it goes to the first
  // decision, or back to the button when there is none (the status line says why)
  if (document.activeElement === document.body) ($("analysis").querySelector("button") || $("analyse-btn")).focus();
}

function setupAnalysis() {
  if (R.game !== "regicide" || LINE) return;
  $("analysis-panel").hidden = false;
  $("analyse-btn").onclick = runAnalysis;
  renderAnalysis();
}

// The controls' names in the page's language (their glyphs say nothing to a screen reader);
// Play's says what it does now: play, or pause while playing.
function labelControls() {
  const name = (id, text) => { $(id).setAttribute("aria-label", text); $(id).title = text; };
  name("first", t("replay.first"));
  name("prev", t("replay.prev"));
  name("play", timer ? t("replay.pause") : t("replay.play"));
  name("next", t("replay.next"));
  name("last", t("replay.last"));
  $("play").textContent = timer ? "❚❚" : "▶";
  $("slider").setAttribute("aria-label", t("replay.slider"));
}

function play() {
  if (timer) { clearInterval(timer); timer = null; labelControls(); return; }
  if (at >= R.steps.length - 1) show(0);  // at the end (where a replay opens): from the start
  timer = setInterval(() => {
    if (at >= R.steps.length - 1) { play(); return; }
    show(at + 1);
  }, 900);
  labelControls();
}

// The heading beside the game's title: "Replay", or the solver's line.
function titleKind() {
  const kind = document.querySelector('[data-i18n="replay.title"]');
  if (LINE && kind) kind.textContent = t("daily.line_title");
}

// Where the replay comes from: a table's, or the solver's line of a daily deal.
function source() {
  if (!LINE) return `/api/tables/${encodeURIComponent(tableId)}/replay`;
  const q = new URLSearchParams({ date: tableId });
  const table = new URLSearchParams(location.search).get("table");
  if (table) q.set("table", table);
  return "/api/daily/line?" + q;
}

async function main() {
  await loadLang(detectLang());
  applyStatic();
  titleKind();
  langSwitch($("lang"), () => { titleKind(); if (R) { showGameTitle($("game-title"), R.game); labelControls(); show(at); renderAnalysis(); } });
  const r = await fetch(source());
  if (!r.ok && LINE) {  // the player's game not over, or no line to show
    showGone(document.querySelector(".board"), t("daily.line_title"),
      r.status === 409 ? t("daily.line_not_over") : t("daily.line_none"));
    return;
  }
  if (!r.ok) {  // no such table, or a game not over: say which, with the way to the lobby
    const over = r.status === 409;
    showGone(document.querySelector(".board"), over ? t("replay.title") : t("gone.title"),
      over ? t("replay.not_over") : t("gone.text", { id: tableId || "—" }));
    return;
  }
  R = await r.json();
  document.body.dataset.game = R.game;
  showGameTitle($("game-title"), R.game);
  $("slider").max = String(R.steps.length - 1);
  $("slider").addEventListener("input", () => show(Number($("slider").value)));
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(at - 1);
  $("next").onclick = () => show(at + 1);
  $("last").onclick = () => show(R.steps.length - 1);
  $("play").onclick = play;
  labelControls();
  // the arrow keys step through the moves, but not in a control that takes them itself (the
  // slider steps on its own, a select changes its choice) nor when a handler took them
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") show(at + 1);
    if (e.key === "ArrowLeft") show(at - 1);
  });
  setupAnalysis();
  show(R.steps.length - 1);
}

main();
