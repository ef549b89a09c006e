// The leaderboard (/leaderboard): the rated Le Roy des Ribauds players, the highest rating
// first, a page at a time (GET /api/leaderboard), with the bots' fixed ratings as reference
// rows placed where their rating falls, and the signed-in player's row marked.
import { applyStatic, detectLang, langSwitch, loadLang, t } from "./i18n.js";
import { el } from "./cards.js";
import { whoAmI } from "./account.js";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
let board = null;
let me = null;
let failed = false;
let offset = Math.max(0, Number(new URLSearchParams(location.search).get("offset")) || 0);

// The players' rows of this page and the bots' rows whose rating falls within it (all of
// them on a single page), highest first; a bot sits below the players with its rating.
function rows() {
  const players = board.players.map((p) => ({ kind: "player", ...p }));
  const first = offset === 0;
  const last = offset + board.players.length >= board.total;
  const top = first ? Infinity : (players.length ? players[0].rating : -Infinity);
  const bottom = last ? -Infinity : (players.length ? players[players.length - 1].rating : Infinity);
  const bots = board.bots.filter((b) => b.rating <= top && b.rating > bottom).map((b) => ({ kind: "bot", ...b }));
  return players.concat(bots).sort((a, b) => b.rating - a.rating || (a.kind === "bot") - (b.kind === "bot"));
}

function render() {
  const box = $("board");
  box.innerHTML = "";
  if (failed || !board) {
    box.append(el("p", { class: "error-text", role: "alert" }, failed ? t("board.failed") : "…"));
    return;
  }
  if (!board.total) box.append(el("p", { class: "muted", id: "board-none" }, t("board.none")));
  box.append(el("table", { class: "counts leaderboard", id: "leaderboard" },
    el("thead", {}, el("tr", {}, ["board.rank", "board.player", "board.rating", "board.games", "board.record"]
      .map((k) => el("th", { scope: "col" }, t(k))))),
    el("tbody", {}, rows().map((r) => r.kind === "bot"
      ? el("tr", { class: "bot-row", dataset: { level: r.level } },
        el("td", {}, ""), el("td", {}, t("board.bot", { level: t("botlevel." + r.level) })),
        el("td", {}, String(r.rating)), el("td", { class: "muted" }, t("board.bot_note")), el("td", {}, ""))
      : el("tr", { class: "player-row" + (me && me.name === r.name ? " me" : ""), dataset: { name: r.name } },
        el("td", {}, String(r.rank)), el("td", {}, el("a", { href: r.profile }, r.name)),
        el("td", {}, String(r.rating)), el("td", {}, String(r.games)), el("td", {}, `${r.wins} – ${r.losses}`))))));
  if (board.total > board.limit) {
    const to = Math.min(board.total, offset + board.players.length);
    box.append(el("nav", { class: "board-pages" },
      el("button", { type: "button", class: "btn small", id: "board-prev", disabled: offset === 0, onclick: () => go(Math.max(0, offset - PAGE)) }, t("board.prev")),
      el("span", { class: "muted small" }, t("board.page", { from: offset + 1, to, total: board.total })),
      el("button", { type: "button", class: "btn small", id: "board-next", disabled: to >= board.total, onclick: () => go(offset + PAGE) }, t("board.next"))));
  }
}

async function go(to) {
  offset = to;
  history.replaceState(null, "", to ? `?offset=${to}` : location.pathname);
  await load();
}

async function load() {
  try {
    const r = await fetch(`/api/leaderboard?game=ribauds&limit=${PAGE}&offset=${offset}`);
    failed = !r.ok;
    board = r.ok ? await r.json() : null;
  } catch (e) {
    failed = true;
  }
  render();
}

async function main() {
  await loadLang(detectLang());
  applyStatic();
  langSwitch($("lang"), render);
  me = await whoAmI();
  await load();
}

main();
