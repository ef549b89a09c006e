// Today's daily deal, for the lobby and the daily page: start it (POST /api/daily/play) and
// keep its table in this browser's list (mytables.js, with its day), which is how a player
// without an account plays it once per browser; the server ranks a signed-in account's one
// play and refuses its second ("daily_played").
import { t } from "./i18n.js";
import { myTables, remember } from "./mytables.js";
import { myName } from "./names.js";

// This browser's table of the deal of `day` (YYYY-MM-DD) with its seat's token, or undefined.
export function dailyEntry(day) {
  return myTables().find((e) => e.daily === day && e.token);
}

// The seat's link of a kept entry.
export function entryLink(e) {
  return `/t/${encodeURIComponent(e.id)}#s=${e.token}`;
}

// The link that opens the asker's game of a report's day while it is played: this
// browser's kept entry (its seat's token), else the signed-in account's table, which its
// page opens by the account (the seat is linked to it); null when there is none to open.
export function openLink(you, entry) {
  if (entry) return entryLink(entry);
  if (you && you.account && you.table && you.status === "playing") return `/t/${encodeURIComponent(you.table)}`;
  return null;
}

// GET /api/daily for `day` (null: today), naming this browser's table of that day when the
// day is known (a player without an account sees their own status so). Resolves to
// {ok, status, data}.
export async function dailyReport(day = null, table = null) {
  const q = new URLSearchParams();
  if (day) q.set("date", day);
  const own = table || (day && dailyEntry(day));
  if (own) q.set("table", typeof own === "string" ? own : own.id);
  const r = await fetch("/api/daily" + (q.toString() ? "?" + q : ""));
  const data = await r.json().catch(() => ({}));
  return { ok: r.ok, status: r.status, data };
}

// Start today's deal; resolves to {ok, data} (data: the table's answer, or the refusal).
export async function startDaily() {
  const name = myName();
  const r = await fetch("/api/daily/play", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(name ? { name } : {}) });
  const data = await r.json().catch(() => ({}));
  if (r.ok) {
    remember({ id: data.id, game: "regicide", players: 1, seat: 0, token: data.token, role: "creator",
      spectate: data.spectate, daily: data.date });
  }
  return { ok: r.ok, data };
}

// A refusal of a start in the page's language.
export function dailyError(data) {
  if (data && data.code === "daily_played") return t("daily.played_already");
  return t("daily.failed") + " " + ((data && data.error) || "");
}
