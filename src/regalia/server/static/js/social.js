// What the table page shows about the people at the table: the clocks, an open table
// waiting for its players, a proposal to stop and its answers, the rematch on offer, and
// the end dialog's reason and buttons.
import { t } from "./i18n.js";
import { el } from "./cards.js";
import { carryInvites, remember } from "./mytables.js";

let ticking = null;
let seen = null;  // the state message whose clocks are shown, and when it arrived
let seenAt = 0;

// A table's rule options in words ("Minimal discards · Yielding in solo"), or "standard
// rules"; ``o``: the options that differ from the defaults, as the server stores them.
export function optionsText(o) {
  const parts = Object.entries(o || {}).map(([k, v]) => (typeof v === "boolean"
    ? (v ? t("opt." + k) : `${t("opt." + k)}: ${t("social.off")}`) : `${t("opt." + k)}: ${t(`opt.${k}.${v}`)}`));
  return parts.length ? parts.join(" · ") : t("social.standard_rules");
}

export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// Time left of a turn-based clock: days and hours, hours and minutes, or m:ss in the
// last hour. `bank`: the table's time per move, which then chooses between days and hours
// for every seat alike (days from 2 days per move: "24 h 0 min" beside "23 h 59 min" at
// 1 day per move, not "1 d 0 h"); without it, the time left itself does.
export function turnLeft(seconds, bank = null) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 3600) return clockText(s);
  if (bank === null ? s >= 86400 : bank >= 2 * 86400) {
    return t("social.left_days", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
  }
  return t("social.left_hours", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
}

function timeText(c, seconds) {
  return c.per_move ? turnLeft(seconds, c.bank) : clockText(seconds);
}

function tick(bar, M, C) {
  const c = M.state && M.state.clock;
  if (!c) return;
  const elapsed = (performance.now() - seenAt) / 1000;
  bar.querySelectorAll(".clock:not(.bot-clock)").forEach((node) => {  // a bot's: no time
    const k = Number(node.dataset.seat);
    const left = c.remaining[k] - (c.running === k ? elapsed : 0);
    node.querySelector(".clock-time").textContent = timeText(c, left);
    node.classList.toggle("low", c.running === k && left < 20);
  });
}

// A turn-based clock's time for each move, in words ("1 day", "3 days", "12 hours").
export function perMoveText(seconds) {
  if (seconds >= 86400 && seconds % 86400 === 0) return t("social.days", { n: seconds / 86400 });
  if (seconds >= 3600) return t("social.hours", { n: Math.round(seconds / 360) / 10 });
  return t("social.minutes", { n: Math.round(seconds / 6) / 10 });
}

// The strip above the board: waiting, clocks, rematch offer (hidden when none applies).
export function renderSocialBar(bar, M, C) {
  const s = M.state;
  if (s !== seen) { seen = s; seenAt = performance.now(); }
  bar.innerHTML = "";
  const parts = [];
  if (s.waiting) {
    const free = s.seats.filter((x) => x.kind === "human" && !x.claimed).length;
    parts.push(el("span", { class: "waiting", id: "waiting" }, t("social.waiting", { n: free })));
  }
  if (s.clock) {
    const row = el("span", { class: "clocks", id: "clocks" });
    s.clock.remaining.forEach((_, k) => {
      const info = s.seats[k] || {};
      row.append(el("span", { class: "clock" + (s.clock.running === k ? " running" : "") + (info.timed_out ? " out" : "") + (info.kind === "bot" ? " bot-clock" : ""), dataset: { seat: k }, id: "clock-" + k },
        el("span", { class: "clock-name" }, C.seatName(k)), " ",
        el("span", { class: "clock-time" }, info.kind === "bot" ? "—" : timeText(s.clock, s.clock.remaining[k])),
        info.timed_out ? el("span", { class: "tag warn" }, t("social.out_of_time")) : null));
    });
    if (s.clock.per_move) row.prepend(el("span", { class: "muted small", id: "per-move" }, t("social.per_move_label", { time: perMoveText(s.clock.bank) })));
    if (!s.clock.started && !s.finished) row.append(el("span", { class: "muted small" }, t("social.clock_waits")));
    parts.push(row);
  }
  if (s.stop && !s.finished) parts.push(stopOffer(s, C));
  if (s.next_table && s.seat !== null) {
    parts.push(el("span", { class: "rematch-offer" }, t("social.rematch_ready"), " ",
      el("a", { class: "btn small primary", id: "rematch-go", href: nextLink(M) }, t("social.rematch_go"))));
  }
  bar.append(...parts);
  bar.hidden = parts.length === 0;
  clearInterval(ticking);
  if (s.clock && s.clock.running !== null && !s.finished) ticking = setInterval(() => tick(bar, M, C), 250);
}

// A proposal to stop under way (Regicide): who made it and who is yet to answer; a player
// asked gets Agree / Keep playing, the proposer a button to withdraw it.
function stopOffer(s, C) {
  const p = s.stop;
  const mine = p.by === C.me;
  const box = el("span", { class: "stop-offer", id: "stop-offer" },
    el("span", {}, mine ? t("stop.yours") : t("stop.proposed", { who: C.seatName(p.by) })));
  if (p.waiting.length) box.append(el("span", { class: "muted" }, t("stop.waiting", { who: p.waiting.map((k) => C.seatName(k)).join(", ") })));
  if (C.me !== null && p.waiting.includes(C.me)) {
    box.append(el("button", { class: "btn small primary", type: "button", id: "stop-accept", onclick: () => C.stop(true) }, t("stop.accept")),
      el("button", { class: "btn small", type: "button", id: "stop-decline", onclick: () => C.stop(false) }, t("stop.decline")));
  } else if (mine) {
    box.append(el("button", { class: "btn small", type: "button", id: "stop-withdraw", onclick: () => C.stop(false) }, t("stop.withdraw")));
  }
  return box;
}

function nextLink(M) {
  return `/t/${encodeURIComponent(M.state.next_table)}#s=${M.token}`;
}

function moveTo(M, id) {
  carryInvites(M.tableId, id);
  remember({ id, game: M.welcome.game, players: M.welcome.players, seat: M.state.seat, token: M.token, role: "player" });
  location.href = `/t/${encodeURIComponent(id)}#s=${M.token}`;
}

// The end dialog's extra parts: why the game ended (Regicide's loss, from the log), and
// "Play again" (or "Go to the new game" once a rematch exists) and "New table".
export function socialEnd(M, C, mod) {
  const s = M.state;
  const lost = [...M.log].reverse().find((e) => e.kind === "lost");
  const reason = lost ? el("p", { class: "end-reason", id: "end-reason" }, mod.describe(lost, C)) : null;
  let again = null;
  if (s.seat !== null && M.token) {
    again = s.next_table
      ? el("button", { class: "btn primary", type: "button", id: "rematch-go-end", onclick: () => moveTo(M, s.next_table) }, t("social.rematch_go"))
      : el("button", { class: "btn primary", type: "button", id: "play-again", onclick: async (ev) => {
        ev.target.disabled = true;
        const r = await fetch(`/api/tables/${encodeURIComponent(M.tableId)}/rematch`, {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: M.token }) });
        const data = await r.json().catch(() => ({}));
        if (r.ok) moveTo(M, data.id);
        else { ev.target.disabled = false; ev.target.after(el("p", { class: "error-text" }, data.error || r.statusText)); }
      } }, t("social.play_again"));
  }
  const fresh = el("a", { class: "btn", id: "new-table", href: `/?game=${encodeURIComponent(M.welcome.game)}&players=${M.welcome.players}` }, t("social.new_table"));
  return { reason, again, fresh };
}
