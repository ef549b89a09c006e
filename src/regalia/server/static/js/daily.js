// The daily deal (/daily, ?date=YYYY-MM-DD for a past day): play today's deal, your
// result and rank, the solver's verdict once your game is over (with its winning line),
// and the day's leaderboard (medal, then enemies defeated, then fewer moves).
import { applyStatic, detectLang, lang, langSwitch, loadLang, t } from "./i18n.js";
import { el } from "./cards.js";
import { accountArea } from "./account.js";
import { dailyEntry, dailyError, dailyReport, openLink, startDaily } from "./dailyplay.js";

const $ = (id) => document.getElementById(id);
const ASKED = new URLSearchParams(location.search).get("date");
let report = null;
let missing = false;
let poll = null;

const dayText = (day) => new Date(day + "T00:00:00Z").toLocaleDateString(lang(), { timeZone: "UTC", dateStyle: "full" });
const timeText = (iso) => (iso ? new Date(iso).toLocaleString(lang(), { dateStyle: "short", timeStyle: "short" }) : "");
const medalText = (m) => t("daily.medal." + m);
const resultText = (r) => (r.medal ? t("regicide.medal_" + r.medal) : t(r.won ? "lobby.status_won" : "lobby.status_lost"));

async function load() {
  let got = await dailyReport(ASKED);
  // today's deal played in this browser without an account: ask again, naming its table
  if (got.ok && !got.data.you.table && dailyEntry(got.data.date)) got = await dailyReport(got.data.date);
  missing = !got.ok;
  report = got.ok ? got.data : null;
  $("daily-error").textContent = got.ok ? "" : got.status === 404 ? t("daily.not_found") : (got.data.error || "");
  render();
  clearTimeout(poll);
  if (report && report.verdict.state === "pending") poll = setTimeout(load, 3000);
}

function render() {
  if (!report) {
    $("daily-date").textContent = missing && ASKED ? t("daily.date", { date: ASKED }) : "";
    return;
  }
  $("daily-date").textContent = t("daily.date", { date: dayText(report.date) });
  $("daily-prev").href = "/daily?date=" + report.previous;
  $("daily-next").hidden = !report.next;
  if (report.next) $("daily-next").href = report.next === report.today ? "/daily" : "/daily?date=" + report.next;
  renderYou();
  renderVerdict();
  renderBoard();
}

function renderYou() {
  const box = $("daily-you");
  box.innerHTML = "";
  const you = report.you;
  const entry = dailyEntry(report.date);
  if (you.can_play && !entry) {
    box.append(el("p", { class: "muted small", id: "daily-rank-note" },
      you.account ? t("daily.ranked_as", { name: you.account }) : t("daily.unranked")),
    el("button", { class: "btn primary big", type: "button", id: "daily-play", onclick: play }, t("daily.play")));
    return;
  }
  if (!you.table && !entry) {
    box.append(el("p", { class: "muted" }, t("daily.past_none")));
    return;
  }
  if (!you.table || you.status === "playing") {
    box.append(el("p", { id: "daily-status" }, t("daily.you_playing")));
    const link = openLink(you, entry);
    if (link) box.append(el("a", { class: "btn primary", id: "daily-open", href: link }, t("daily.open")));
    return;
  }
  if (you.status === "abandoned") {
    box.append(el("p", { id: "daily-status" }, t("daily.you_abandoned")));
    return;
  }
  const r = you.result;
  if (r) {
    box.append(el("p", { id: "daily-status" },
      t("daily.you_result", { result: resultText(r), enemies: r.enemies, moves: r.moves })));
  }
  const rank = you.rank ? t("daily.you_rank", { rank: you.rank, of: report.ranked })
    : r && r.assisted ? t("daily.you_assisted") : !you.ranked ? t("daily.you_unranked") : "";
  if (rank) box.append(el("p", { class: "muted", id: "daily-rank" }, rank));
}

function renderVerdict() {
  const box = $("daily-verdict");
  box.innerHTML = "";
  const v = report.verdict;
  if (v.state === "hidden") { box.append(el("p", { class: "muted", id: "verdict-hidden" }, t("daily.verdict_hidden"))); return; }
  if (v.state === "pending") { box.append(el("p", { class: "muted", id: "verdict-pending" }, t("daily.verdict_pending"))); return; }
  if (v.winnable === true) {
    box.append(el("p", { id: "verdict-text" }, t("daily.verdict_won", { medal: medalText(v.best_medal) }), " ",
      el("span", { class: "muted" }, t(v.medal_proven ? "daily.medal_proven" : "daily.medal_unproven"))));
    if (v.line) box.append(el("a", { class: "btn", id: "daily-line", href: v.line }, t("daily.see_line")));
  } else if (v.winnable === false) {
    box.append(el("p", { id: "verdict-text" }, t("daily.verdict_lost")));
  } else {
    box.append(el("p", { id: "verdict-text" }, t("daily.verdict_unproven", { s: Math.round(v.limit || 0) })));
  }
}

function renderBoard() {
  $("daily-counts").textContent = t("daily.counts", { played: report.played, ranked: report.ranked });
  const box = $("daily-board");
  box.innerHTML = "";
  if (!report.leaderboard.length) {
    box.append(el("p", { class: "muted", id: "daily-board-empty" }, t("daily.board_empty")));
    return;
  }
  const cols = ["daily.col_rank", "daily.col_player", "daily.col_result", "daily.col_enemies", "daily.col_moves", "daily.col_finished"];
  box.append(el("table", { class: "counts daily-board", id: "daily-board-table" },
    el("thead", {}, el("tr", {}, [...cols.map((k) => el("th", { scope: "col" }, t(k))), el("th", { scope: "col" }, "")])),
    el("tbody", {}, report.leaderboard.map((e) => el("tr", { class: e.you ? "you" : "", dataset: { name: e.name } },
      el("td", {}, String(e.rank)),
      el("td", {}, el("a", { href: e.profile }, e.you ? t("daily.you_mark", { name: e.name }) : e.name)),
      el("td", {}, resultText(e)),
      el("td", {}, String(e.enemies)),
      el("td", {}, String(e.moves)),
      el("td", {}, timeText(e.finished_at)),
      el("td", {}, e.replay ? el("a", { class: "btn small", href: e.replay }, t("end.replay")) : ""))))));
}

async function play() {
  $("daily-error").textContent = "";
  $("daily-play").disabled = true;
  const { ok, data } = await startDaily().catch(() => ({ ok: false, data: {} }));
  if (ok) { location.href = data.link; return; }
  if (data.code === "daily_played") await load();  // played elsewhere meanwhile: say where it stands
  else if ($("daily-play")) $("daily-play").disabled = false;
  $("daily-error").textContent = dailyError(data);
}

async function main() {
  await loadLang(detectLang());
  applyStatic();
  const account = await accountArea($("account"), () => load());
  langSwitch($("lang"), () => { account.render(); render(); });
  await load();
}

main();
