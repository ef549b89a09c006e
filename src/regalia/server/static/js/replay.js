// The replay of a finished game: every position, every hand, move by move.
import { applyStatic, detectLang, langSwitch, loadLang, t } from "./i18n.js";
import { el } from "./cards.js";
import { seatDisplay } from "./names.js";
import * as regicide from "./regicide.js";
import * as ribauds from "./ribauds.js";

const GAMES = { regicide, ribauds };
const $ = (id) => document.getElementById(id);
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

// An event as the log shows it: with the private details of the seat that caused it.
const seen = (ev) => ({ ...ev, ...(ev.seat !== null && ev.private ? ev.private[String(ev.seat)] || {} : {}) });

function show(i) {
  if (!R) return;
  at = Math.max(0, Math.min(R.steps.length - 1, i));
  const mod = GAMES[R.game];
  const step = R.steps[at];
  mod.renderReplay($("replay-board"), step, C);
  $("slider").value = String(at);
  $("ply").textContent = t("replay.ply", { n: at, total: R.steps.length - 1 });
  // The move in the log's own translated sentences, never in notation.
  $("step-action").textContent = step.action
    ? step.events.map((ev) => mod.describe(seen(ev), C)).join(" ")
    : t("replay.start");
  const ol = $("log");
  ol.innerHTML = "";
  for (let k = 0; k <= at; k++) {
    for (const ev of R.steps[k].events) {
      ol.append(el("li", { class: "log-" + ev.kind + (k === at ? " latest" : "") }, mod.describe(seen(ev), C)));
    }
  }
  ol.scrollTop = ol.scrollHeight;
}

function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶"; return; }
  $("play").textContent = "❚❚";
  timer = setInterval(() => {
    if (at >= R.steps.length - 1) { play(); return; }
    show(at + 1);
  }, 900);
}

async function main() {
  await loadLang(detectLang());
  applyStatic();
  langSwitch($("lang"), () => { if (R) { $("game-title").textContent = t("game." + R.game); show(at); } });
  const r = await fetch(`/api/tables/${encodeURIComponent(tableId)}/replay`);
  if (!r.ok) {
    $("replay-board").append(el("div", { class: "prompt" }, r.status === 403 ? t("replay.not_over") : t("error.not_found")));
    return;
  }
  R = await r.json();
  document.body.dataset.game = R.game;
  $("game-title").textContent = t("game." + R.game);
  $("slider").max = String(R.steps.length - 1);
  $("slider").addEventListener("input", () => show(Number($("slider").value)));
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(at - 1);
  $("next").onclick = () => show(at + 1);
  $("last").onclick = () => show(R.steps.length - 1);
  $("play").onclick = play;
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") show(at + 1);
    if (e.key === "ArrowLeft") show(at - 1);
  });
  show(R.steps.length - 1);
}

main();
