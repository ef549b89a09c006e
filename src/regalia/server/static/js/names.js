// Players' names: this browser's nickname (kept in localStorage, no account) and the name
// shown for a seat: its player's nickname (with the seat number when another seat's reads
// the same), "Bot (search)" for a bot (numbered when two bots of one kind sit at the
// table), else "Player N".
import { has, t } from "./i18n.js";

const KEY = "regalia.name";
export const NAME_MAX = 24;

export function myName() {
  return cleanName(localStorage.getItem(KEY) || "");
}

// Store a nickname cleaned as the server cleans it (cleanName); returns it ("" if none).
export function setMyName(name) {
  const clean = cleanName(name);
  if (clean) localStorage.setItem(KEY, clean);
  return clean;
}

// Invisible formatting characters (but the two joiners) and letters drawn blank: a name of
// them alone shows nothing (the server's gamekit.clean_name drops or refuses them too).
const INVISIBLE = /(?![\u200c\u200d])\p{Cf}/gu;
const BLANK = /[\p{C}\p{Z}\p{M}\s\u115f\u1160\u3164\uffa0\u2800]/u;

// A nickname as the server keeps it: invisible characters dropped, controls made spaces,
// spaces collapsed, at most NAME_MAX characters (not UTF-16 halves), something visible
// in it; otherwise "".
export function cleanName(name) {
  const spaced = String(name || "").replace(INVISIBLE, "").replace(/[\u0000-\u001f\u007f]/g, " ");
  const chars = [...spaced.replace(/\s+/g, " ").trim()].slice(0, NAME_MAX);
  return chars.some((ch) => !BLANK.test(ch)) ? chars.join("").trim() : "";
}

// The levels people choose a bot by (regalia.bots.levels; GET /api/games gives each game's
// "levels" with "default_level"), weakest first. A bot seated by its level says it in its
// name ("Bot (medium)").
export const LEVELS = ["easy", "medium", "hard", "strongest"];

// The level a bot seated by its technical name plays at (the level that is that bot as the
// tables seat it, README "Bots and evaluation"); the other bots have none.
const BOT_LEVEL = {
  regicide: { montecarlo: "strongest", heuristic: "medium", simple: "easy" },
  ribauds: { ismcts: "strongest", heuristic: "medium", random: "easy" },
};

// The level of a bot seated by its technical name ("easy" to "strongest") or undefined.
export function botLevel(game, bot) {
  return (BOT_LEVEL[game] || {})[bot];
}

// Technical bot names, strongest first (those without a level last).
export function botsByStrength(game, bots) {
  const rank = (b) => { const i = LEVELS.indexOf(botLevel(game, b)); return i < 0 ? -1 : i; };
  return [...bots].sort((a, b) => rank(b) - rank(a));
}

// A bot's name: "Bot (search)", or with its seat number n, "Bot 3 (search)"; a level's
// bot: "Bot (medium)", in the page's language.
export function botLabel(kind, n = null) {
  const shown = has("bot." + kind) ? t("bot." + kind) : LEVELS.includes(kind) ? t("botlevel." + kind) : kind;
  return t(n === null ? "social.bot_named" : "social.bot_named_n", { kind: shown, n });
}

// The name of seat k from a seat list (the server's "seats"); never HTML: shown as text.
// A player's name that reads as another seat's (in any case or width) gets its seat
// number, so that nobody passes for another in the talk or the log. `you`: the reader's
// own seat, marked in the same brackets ("Ann (seat 2, you)", "Ann (you)").
export function seatDisplay(seats, k, you = false) {
  const shown = plainDisplay(seats, k);
  const s = (seats || [])[k];
  let twin = false;
  if (s && s.kind !== "bot" && s.name) {
    const key = sameKey(shown);
    twin = seats.some((o, j) => j !== k && o && sameKey(plainDisplay(seats, j)) === key);
  }
  if (twin) return t(you ? "seat.named_n_you" : "seat.named_n", { name: shown, n: k + 1 });
  return you ? t("seat.named_you", { name: shown }) : shown;
}

// (the joiners dropped; upper then lower case folds more than lower alone: ß, SS)
const sameKey = (name) => name.normalize("NFKC").replace(/[\u200c\u200d]/g, "").toUpperCase().toLowerCase();

function plainDisplay(seats, k) {
  if (k === null || k === undefined) return t("seat.nobody");
  const s = (seats || [])[k];
  if (s && s.kind === "bot") {
    // two bots of one kind at the table: their seat numbers tell them apart in the log
    const twin = seats.some((o, j) => j !== k && o && o.kind === "bot" && o.bot === s.bot);
    return botLabel(s.bot, twin ? k + 1 : null);
  }
  if (s && s.name) return storedName(s.name);
  return t("seat.player", { n: k + 1 });
}

// The label a deleted account's seats keep (the server's gamekit.DELETED_PLAYER, stored as
// it is: no person may take it as a name) in the page's language; any other name as it is.
export const DELETED_PLAYER = "deleted player";
export function storedName(name) {
  return name === DELETED_PLAYER ? t("seat.deleted_player") : name;
}

// Ask for a nickname in a <dialog> (once per browser, or to change it); resolves to it.
// Closed, the dialog gives the focus back to what opened it, or to `back` when it opened by
// itself (a first visit). `required`: no "Not now" (a Regicide seat needs its name before
// its hand is shown), and it stays open until a name is saved.
export function askName(dlg, el, current = "", back = null, required = false) {
  return new Promise((resolve) => {
    let saved = false;
    dlg.innerHTML = "";
    const input = el("input", { type: "text", id: "nickname-input", maxlength: String(NAME_MAX), value: current,
      placeholder: t("social.name_placeholder"), "aria-label": t("social.name_label"), required: true,
    oninput: () => input.setCustomValidity("") });
    const form = el("form", { method: "dialog", class: "name-form", onsubmit: (e) => {
      e.preventDefault();
      const name = setMyName(input.value);
      if (!name) {  // nothing visible in it
        input.setCustomValidity(t("social.name_invisible"));
        input.reportValidity();
        return;
      }
      saved = true;
      dlg.close();
      resolve(name);
    } },
    el("h2", {}, t("social.name_title")),
    // (signed in: the account's name, as account.js notes it; the nickname stays this
    // browser's, the account keeps its own name)
    el("p", { class: "muted", id: "nickname-explain" }, localStorage.getItem("regalia.account")
      ? t("social.name_explain_account", { n: NAME_MAX, account: localStorage.getItem("regalia.account") })
      : t("social.name_explain", { n: NAME_MAX })),
    required ? el("p", { class: "muted", id: "nickname-why" }, t("social.name_needed")) : null,
    input,
    el("div", { class: "end-actions" }, el("button", { type: "submit", class: "btn primary", id: "nickname-save" }, t("social.name_save")),
      // the table stays one click away: the seat keeps its number until a name is given
      required ? null : el("button", { type: "button", class: "btn", id: "nickname-later", onclick: () => dlg.close() }, t("social.name_later"))));
    dlg.append(form);
    dlg.oncancel = required ? (e) => e.preventDefault() : null;
    // (a browser closes a dialog on a second Escape whatever its cancel handler says)
    dlg.onclose = required ? () => { if (!saved) dlg.showModal(); } : null;
    const opener = document.activeElement !== document.body ? document.activeElement : back;
    dlg.addEventListener("close", () => opener && opener.focus(), { once: true });
    dlg.showModal();
    input.focus();
  });
}

// Who did a log entry: its seat's name, or "Bot for NAME" where a bot played the move for a
// person (a seat handed to a bot, a time-out, a player who left: the server's "bot" flag).
export function actorName(e, C) {
  const who = C.seatName(e.seat);
  return e.bot ? t("log.bot_for", { who }) : who;
}

// The prompt while the table waits for its players (state.waiting: a human seat never taken,
// that no bot plays): nobody acts yet. A private table names who has not opened their
// invitation, and points at the Invite button and the seats' "Let a bot play" buttons.
export function waitingPrompt(S, C) {
  const absent = (S.seats || []).filter((s) => s.kind === "human" && !s.claimed && !s.bot_replaces);
  if (S.open || !absent.length) return t("prompt.waiting_players");
  const who = absent.map((s) => C.seatName(s.seat)).join(", ");
  return t(C.me === null ? "prompt.waiting_invited_watching" : "prompt.waiting_invited", { who });
}

// The prompt while seat k (named who) is to act; a person who has not yet opened their
// invitation is pointed at the Invite button.
export function waitingText(seats, k, who) {
  const s = (seats || [])[k];
  const unjoined = s && s.kind === "human" && !s.claimed && !s.bot_replaces;
  return t(unjoined ? "prompt.waiting_unjoined" : "prompt.waiting", { who });
}
