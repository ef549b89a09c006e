// Web Push from the page's side: the browser's permission is asked only when the player
// clicks a "Notify me" button (notifyButton), then the service worker (/sw.js) is
// registered, the browser subscribed with the site's key (GET /api/push/key) and the
// subscription sent to the server (POST /api/push/subscriptions) with the seats to be
// notified for (a signed-in account is notified for all its seats without them). What this
// browser asked for is remembered (localStorage), so that the button says so.
import { lang, t } from "./i18n.js";
import { el, icon } from "./cards.js";

const KEY = "regalia.push";  // {"account": bool, "seats": ["TABLE:TOKEN", ...]}

function remembered() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "{}");
    return { account: !!v.account, seats: Array.isArray(v.seats) ? v.seats : [] };
  } catch (e) {
    return { account: false, seats: [] };
  }
}

function remember(account, seats) {
  const was = remembered();
  const all = [...new Set([...seats.map((s) => `${s.id}:${s.token}`), ...was.seats])].slice(0, 100);
  localStorage.setItem(KEY, JSON.stringify({ account: account || was.account, seats: all }));
}

export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

// Whether this browser asked to be notified for the account (`seat` null) or for a seat
// ({id, token}), and still has the permission.
export function notifying(seat = null) {
  if (!pushSupported() || Notification.permission !== "granted") return false;
  const r = remembered();
  return seat ? r.seats.includes(`${seat.id}:${seat.token}`) || r.account : r.account;
}

function keyBytes(b64) {
  const s = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

// Ask for the permission (call it from a click), subscribe and tell the server; `seats`:
// [{id, token}]. Resolves {ok: true, data} or {ok: false, why}.
export async function enablePush(seats = []) {
  if (!pushSupported()) return { ok: false, why: t("push.unsupported") };
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return { ok: false, why: t("push.denied") };
  try {
    const reg = await navigator.serviceWorker.register(`/sw.js?lang=${encodeURIComponent(lang())}`, { scope: "/" });
    await navigator.serviceWorker.ready;
    let sub = await reg.pushManager.getSubscription();
    if (!sub) {
      const { key } = await (await fetch("/api/push/key")).json();
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    }
    const json = sub.toJSON();
    const r = await fetch("/api/push/subscriptions", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ subscription: { endpoint: json.endpoint, keys: json.keys }, seats }),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) return { ok: false, why: data.error || r.statusText };
    remember(data.account, seats.filter((s) => data.seats.some((x) => x.id === s.id)));
    return { ok: true, data };
  } catch (e) {
    return { ok: false, why: e.message || String(e) };
  }
}

// A "Notify me" button: `seats()` gives the seats to ask for when clicked, `on` says
// whether this browser is notified already; `told(text, ok)` shows the outcome. With
// `withIcon` its label hides on a phone's narrow topbar, as the table's other buttons'.
export function notifyButton({ id, seats = () => [], on = () => false, told = () => {}, withIcon = false }) {
  const label = el("span", { class: "btn-label" });
  const btn = el("button", { type: "button", class: "btn small ghost notify-btn" + (withIcon ? " icon-btn" : ""), id },
    withIcon ? icon("notify") : null, label);
  const paint = () => {
    const yes = on();
    label.textContent = t(yes ? "push.on" : "push.button");
    btn.setAttribute("aria-pressed", yes ? "true" : "false");
    btn.setAttribute("aria-label", label.textContent);
    btn.title = t(yes ? "push.on_help" : "push.help");
  };
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    const got = await enablePush(seats());
    btn.disabled = false;
    paint();
    told(got.ok ? t("push.enabled") : t("push.failed", { why: got.why }), got.ok);
  });
  paint();
  btn.paint = paint;  // again after a change of language
  btn.hidden = !pushSupported();
  return btn;
}
