// Regalia's service worker (served at /sw.js, scope: the whole site): it shows the Web Push
// messages the server sends (your turn at a turn-based table, a friend request, a friend's
// acceptance, an invitation to a table) in the language the page registered it with
// (/sw.js?lang=LANG), and a click opens the table (or the lobby), focusing a tab already
// open there. A message names no card and no seat token: the table page finds the seat's
// link among the tables this browser keeps.
const LANGS = ["en", "pt-BR", "es"];
const lang = (() => {
  const asked = new URL(self.location.href).searchParams.get("lang");
  return LANGS.includes(asked) ? asked : "en";
})();
let texts = null;

async function dictionary() {
  if (texts) return texts;
  const load = async (code) => {
    const r = await fetch(`/static/i18n/${code}.json`);
    if (!r.ok) throw new Error("no dictionary " + code);
    return r.json();
  };
  const en = await load("en").catch(() => ({}));
  const mine = lang === "en" ? en : await load(lang).catch(() => en);
  texts = { mine, en };
  return texts;
}

function t(dict, key, params = {}) {
  const s = dict.mine[key] ?? dict.en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? String(params[k]) : m));
}

// The notification of message `data` ({kind, table?, game?, name?, url, tag}).
async function show(data) {
  const dict = await dictionary();
  const kind = ["turn", "friend_request", "friend_accepted", "invited"].includes(data.kind) ? data.kind : "turn";
  const params = { game: data.game ? t(dict, "game." + data.game) : "", id: data.table || "", name: data.name || "" };
  return self.registration.showNotification(t(dict, `push.${kind}_title`, params), {
    body: t(dict, `push.${kind}_body`, params),
    icon: "/static/img/favicon-turn.svg",
    tag: data.tag || "regalia",
    renotify: true,
    data: { url: typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/" },
  });
}

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  event.waitUntil(show(data));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data && event.notification.data.url || "/", self.location.origin);
  event.waitUntil((async () => {
    const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const c of open) {
      const at = new URL(c.url);
      if (at.origin === url.origin && at.pathname === url.pathname && "focus" in c) return c.focus();
    }
    return self.clients.openWindow(url.href);
  })());
});
