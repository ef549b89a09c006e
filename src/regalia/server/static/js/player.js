// A player's profile (/players/NAME): the Le Roy des Ribauds rating and its rated games, the
// Regicide record (win rate by player count, solo medals and streaks), games played and won
// per game and player count, the latest ended games with their replays; on one's own
// profile, its passkeys and deleting the account.
import { applyStatic, detectLang, langSwitch, loadLang, t } from "./i18n.js";
import { el } from "./cards.js";
import { accountError, confirmWithPasskey, passkeysArea, whoAmI } from "./account.js";
import { storedName } from "./names.js";

const $ = (id) => document.getElementById(id);
const NAME = decodeURIComponent(location.pathname.replace(/^\/players\//, ""));
let profile = null;
let me = null;
let mine = null;  // one's own profile: GET /api/account/passkeys ({passkeys, password})

function date(iso) {
  return iso ? new Date(iso).toLocaleDateString(document.documentElement.lang) : "";
}

function render() {
  const box = $("profile");
  box.innerHTML = "";
  if (!profile) {
    box.append(el("p", { class: "muted", id: "player-missing" }, t("player.not_found")));
    return;
  }
  document.title = `Regalia · ${profile.name}`;
  box.append(el("h1", { id: "player-name" }, profile.name),
    el("p", { class: "muted" }, t("player.since", { date: date(profile.created_at) })));
  box.append(ratingArea(), regicideArea());
  box.append(el("h2", {}, t("player.games")));
  if (!profile.games.length) box.append(el("p", { class: "muted" }, t("player.none")));
  else {
    box.append(el("table", { class: "counts", id: "player-counts" },
      el("thead", {}, el("tr", {}, ["player.game", "player.players", "player.played", "player.won"].map((k) => el("th", { scope: "col" }, t(k))))),
      el("tbody", {}, profile.games.map((g) => el("tr", { dataset: { game: g.game, players: g.players } },
        el("td", {}, t("game." + g.game)), el("td", {}, String(g.players)), el("td", {}, String(g.played)), el("td", {}, String(g.won)))))));
  }
  box.append(el("h2", {}, t("player.recent")));
  if (!profile.recent.length) box.append(el("p", { class: "muted" }, t("player.none")));
  else {
    box.append(el("ul", { class: "my-tables", id: "player-recent" }, profile.recent.map((g) => {
      const how = g.status === "abandoned" ? t("player.abandoned") : (g.won ? t("player.won") : t("player.lost"));
      return el("li", { class: "my-table", dataset: { id: g.id } },
        el("div", { class: "my-head" },
          el("div", { class: "my-title" }, el("b", {}, t("game." + g.game)),
            el("small", { class: "muted" }, `${t("player.players_n", { n: g.players })} · ${date(g.ended_at)}`)),
          el("span", { class: "status" + (g.won ? " done" : " done lost") }, how)),
        el("div", { class: "my-actions" }, el("a", { class: "btn small", href: g.replay }, t("end.replay"))));
    })));
  }
  if (mine) box.append(passkeysArea(mine, (listing) => { mine = listing; render(); }), deleteArea());
}

// The Le Roy des Ribauds rating: the number, the rank, the rated record and the latest rated
// games with the rating before and after each.
function ratingArea() {
  const r = profile.ratings && profile.ratings.ribauds;
  const box = el("section", { class: "rating-area", id: "player-rating" }, el("h2", {}, t("player.rating")));
  if (!r) box.append(el("p", { class: "muted", id: "player-no-rating" }, t("player.no_rating")));
  else {
    box.append(el("p", { class: "rating-line" },
      el("b", { class: "rating-number", id: "player-rating-value" }, String(r.rating)), " · ", t("player.rank", { rank: r.rank })),
    el("p", { class: "muted", id: "player-rated-record" }, t("player.rated_record", { games: r.games, wins: r.wins, losses: r.losses })));
    if (r.recent.length) {
      box.append(el("h3", {}, t("player.rated_recent")), el("ul", { class: "my-tables", id: "player-rated" }, r.recent.map((g) =>
        el("li", { class: "my-table", dataset: { id: g.id } },
          el("div", { class: "my-head" },
            el("div", { class: "my-title" }, el("b", {}, t("player.rated_vs", { name: g.opponent ? storedName(g.opponent) : "?" })),
              el("small", { class: "muted" }, date(g.at))),
            el("span", { class: "status" + (g.won ? " done" : " done lost") },
              `${g.won ? t("player.won") : t("player.lost")} · ${g.before} → ${g.after}`)),
          el("div", { class: "my-actions" }, el("a", { class: "btn small", href: g.replay }, t("end.replay")))))));
    }
  }
  box.append(el("p", {}, el("a", { href: "/leaderboard", id: "player-leaderboard" }, t("player.leaderboard"))));
  return box;
}

// The Regicide record: finished games and win rate by player count, solo medals, solo streaks.
function regicideArea() {
  const r = profile.regicide;
  const box = el("section", { class: "regicide-area", id: "player-regicide" }, el("h2", {}, t("player.regicide")));
  if (!r || !r.by_players.length) {
    box.append(el("p", { class: "muted" }, t("player.no_regicide")));
    return box;
  }
  const pct = (x) => (x === null ? "—" : `${Math.round(x * 100)}%`);
  box.append(el("table", { class: "counts", id: "player-regicide-counts" },
    el("thead", {}, el("tr", {}, ["player.players", "player.played", "player.won", "player.win_rate"].map((k) => el("th", { scope: "col" }, t(k))))),
    el("tbody", {}, r.by_players.map((g) => el("tr", { dataset: { players: g.players } },
      el("td", {}, String(g.players)), el("td", {}, String(g.played)), el("td", {}, String(g.won)), el("td", {}, pct(g.win_rate)))))));
  const m = r.medals;
  box.append(el("dl", { class: "record-facts" },
    el("dt", {}, t("player.medals")),
    el("dd", { id: "player-medals" }, `${t("player.medal_gold")} ${m.gold} · ${t("player.medal_silver")} ${m.silver} · ${t("player.medal_bronze")} ${m.bronze}`),
    el("dt", {}, t("player.best_streak")), el("dd", { id: "player-best-streak" }, String(r.best_streak)),
    el("dt", {}, t("player.streak")), el("dd", { id: "player-streak" }, String(r.streak))),
  el("p", { class: "muted small" }, t("player.streak_note")));
  return box;
}

// Deleting one's own account: the password again, or an answer of one of its passkeys (an
// account without a password has only that); then the account, its name, its sessions and
// its passkeys are gone; its games stay under "deleted player" (shown translated: storedName).
function deleteArea() {
  const error = el("p", { class: "error-text", role: "alert", id: "delete-error" });
  const deleted = async (body) => {
    const r = await fetch("/api/account", { method: "DELETE", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) { error.textContent = data.code === "bad_credentials" ? t("account.wrong_password") : accountError(data); return; }
    location.href = "/";
  };
  const withPasskey = mine.passkeys.length ? el("button", { type: "button", class: "btn", id: "delete-with-passkey", onclick: async () => {
    error.textContent = "";
    const asked = await confirmWithPasskey();
    if (!asked.ok) { error.textContent = accountError(asked.data); return; }
    await deleted({ passkey: asked.answer });
  } }, t("passkey.delete_with")) : null;
  const box = el("section", { class: "delete-account" },
    el("h2", {}, t("account.delete")),
    el("p", { class: "muted small" }, t(mine.password ? "account.delete_explain" : "account.delete_explain_passkey")));
  if (mine.password) {
    const password = el("input", { type: "password", id: "delete-password", autocomplete: "current-password", "aria-label": t("account.password") });
    box.append(el("form", { class: "account-form", onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      await deleted({ password: password.value });
    } }, el("label", { for: "delete-password" }, el("b", {}, t("account.password"))), password, error,
    el("button", { type: "submit", class: "btn", id: "delete-account" }, t("account.delete_confirm"))));
    if (withPasskey) box.append(el("p", { class: "muted small" }, t("passkey.or_delete")), withPasskey);
  } else {
    box.append(error, withPasskey);
  }
  return box;
}

async function main() {
  await loadLang(detectLang());
  applyStatic();
  langSwitch($("lang"), render);
  const [r, who] = await Promise.all([fetch(`/api/players/${encodeURIComponent(NAME)}`), whoAmI()]);
  profile = r.ok ? await r.json() : null;
  me = who;
  if (me && profile && me.name === profile.name) {
    const own = await fetch("/api/account/passkeys").catch(() => null);
    mine = own && own.ok ? await own.json() : { passkeys: [], password: true };
  }
  render();
}

main();
