// The optional account, in the lobby's top bar: sign in, create an account, sign out. No
// account is needed to play. The session is an HttpOnly cookie: this page never sees its
// token. Signed in, the page hands the server the seat tokens this browser keeps (its
// tables, mytables.js) so that the account adopts them, and the nickname becomes the
// account's name for the tables created or joined from now on.
//
// Passkeys (WebAuthn): signing in with one, creating an account with one instead of a
// password, and on one's own profile the account's passkeys (add, list, remove). The server
// begins each ceremony (its options, binary values as base64url) and checks the browser's
// answer, sent back as JSON with base64url values (the conversions are below).
import { t } from "./i18n.js";
import { el } from "./cards.js";
import { myTables } from "./mytables.js";
import { setMyName } from "./names.js";

const JSON_POST = { "Content-Type": "application/json" };
// The account's name while this browser is signed in (the cookie itself is out of the
// pages' reach): a table page adopts its seat only then, asking nothing of anonymous players.
const KEY = "regalia.account";

function noted(account) {
  if (account) localStorage.setItem(KEY, account.name);
  else localStorage.removeItem(KEY);
  return account;
}

// The account this browser is signed in to ({name, created_at, profile}) or null.
export async function whoAmI() {
  try {
    const r = await fetch("/api/account");
    return r.ok ? noted((await r.json()).account) : null;
  } catch (e) {
    return null;
  }
}

async function adopt(tables) {
  if (!tables.length) return;
  await fetch("/api/account/tables", { method: "POST", headers: JSON_POST, body: JSON.stringify({ tables }) }).catch(() => null);
}

// Link to the account the seats whose tokens this browser keeps (the server links only
// those whose token proves the seat).
export async function adoptTables() {
  await adopt(myTables().filter((e) => e.token && e.id).slice(0, 100).map((e) => ({ id: String(e.id), token: String(e.token) })));
}

// A table page's seat, opened by its link: adopted when this browser is signed in.
export async function adoptSeat(id, token) {
  if (localStorage.getItem(KEY) && id && token) await adopt([{ id: String(id), token: String(token) }]);
}

// A refusal of the account API in the page's language.
export function accountError(data) {
  const code = data && data.code;
  const said = (data && data.error) || "";
  if (code === "bad_credentials") return t("account.wrong");
  if (code === "name_taken") return t("account.taken");
  if (code === "too_fast") return t("account.too_fast", { s: data.retry_after || 60 });
  if (code === "bad_request" && said.startsWith("name:")) return t("account.bad_name");
  if (code === "bad_request" && said.startsWith("password:")) return t("account.bad_password");
  if (code === "bad_request" && said.startsWith("label:")) return t("passkey.bad_label");
  const passkey = { passkey_refused: "passkey.refused", passkey_expired: "passkey.expired",
    passkey_taken: "passkey.taken", last_passkey: "passkey.last", too_many_passkeys: "passkey.too_many",
    no_passkey: "passkey.no_passkey", passkey_unsupported: "passkey.unsupported",
    passkey_cancelled: "passkey.cancelled" }[code];
  if (passkey) return t(passkey);
  return said || t("account.failed");
}

// -- passkeys: base64url and the browser's WebAuthn calls ---------------------------------

function fromB64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function toB64url(buffer) {
  let bin = "";
  for (const b of new Uint8Array(buffer)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const withIds = (list) => (list || []).map((c) => ({ ...c, id: fromB64url(c.id) }));

// The server's options (JSON) as navigator.credentials wants them (binary values as bytes).
function creationOptions(o) {
  return { ...o, challenge: fromB64url(o.challenge), user: { ...o.user, id: fromB64url(o.user.id) },
    excludeCredentials: withIds(o.excludeCredentials) };
}

function requestOptions(o) {
  return { ...o, challenge: fromB64url(o.challenge), allowCredentials: withIds(o.allowCredentials) };
}

// The browser's answer (a PublicKeyCredential) as the JSON the server reads.
function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type,
    authenticatorAttachment: cred.authenticatorAttachment || null, response };
}

// Why this page cannot use passkeys, in one line, or "" when it can: browsers refuse
// WebAuthn at an IP address (http://127.0.0.1:8000: a passkey belongs to a domain name) and
// on a page that is not secure (plain http but on localhost).
export function passkeyBarrier() {
  const host = location.hostname;
  const local = `${location.protocol}//localhost${location.port ? `:${location.port}` : ""}`;
  const ip = /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(":");  // IPv6: [::1]
  if (ip) {
    const here = /^127\./.test(host) || host === "[::1]" || host === "::1";
    return here ? t("passkey.ip_address", { url: local }) : t("passkey.ip_address_remote");
  }
  if (!window.isSecureContext) return t("passkey.insecure");
  if (!(window.PublicKeyCredential && navigator.credentials)) return t("passkey.unsupported");
  return "";
}

export function passkeysSupported() {
  return !passkeyBarrier();
}

// One ceremony's first half: POST `path`/begin with `body`, then the browser's passkey
// dialog (`kind`: "create" or "get"). {ok: true, answer: {ceremony, credential}} to send
// to the finish, or {ok: false, data: a refusal} (the server's, or the browser's:
// unsupported, cancelled).
async function askPasskey(kind, path, body = {}) {
  if (!passkeysSupported()) return { ok: false, data: { code: "passkey_unsupported" } };
  const began = await send(`${path}/begin`, body);
  if (!began.ok) return began;
  let cred = null;
  try {
    cred = kind === "create"
      ? await navigator.credentials.create({ publicKey: creationOptions(began.data.publicKey) })
      : await navigator.credentials.get({ publicKey: requestOptions(began.data.publicKey) });
  } catch (e) {
    cred = null;
  }
  if (!cred) return { ok: false, data: { code: "passkey_cancelled" } };
  return { ok: true, answer: { ceremony: began.data.ceremony, credential: credentialJSON(cred) } };
}

const PASSKEYS = "/api/account/passkeys";

// A confirmation with one of the account's passkeys (deleting the account): the answer to
// send as DELETE /api/account's `passkey`, or a refusal.
export function confirmWithPasskey() {
  return askPasskey("get", `${PASSKEYS}/confirm`);
}

async function send(path, body, method = "POST") {
  const r = await fetch(path, { method, headers: JSON_POST, body: JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  return { ok: r.ok, data };
}

// The sign-in dialog (created once per page): sign in or create an account; `done(account)`
// is called after a sign-in or a sign-up (the browser's seats adopted, its nickname the
// account's name).
export function signInDialog(done = () => {}) {
  let dlg = document.getElementById("account-dialog");
  if (!dlg) {
    dlg = el("dialog", { class: "dialog account-dialog", id: "account-dialog", "aria-labelledby": "account-title" });
    document.body.append(dlg);
  }
  dlg.innerHTML = "";
  const name = el("input", { type: "text", id: "account-name-input", maxlength: "20", autocomplete: "username", required: true,
    "aria-describedby": "account-name-help" });
  const password = el("input", { type: "password", id: "account-password", maxlength: "128", autocomplete: "current-password", required: true,
    "aria-describedby": "account-password-help" });
  const error = el("p", { class: "error-text", id: "account-error", role: "alert" });
  const signedIn = async (data) => {
    dlg.close();
    const account = noted(data.account);
    setMyName(account.name);
    await adoptTables();
    done(account);
  };
  const submit = async (path) => {
    error.textContent = "";
    if (!form.reportValidity()) return;
    const { ok, data } = await send(path, { name: name.value, password: password.value });
    if (!ok) { error.textContent = accountError(data); return; }
    await signedIn(data);
  };
  // Without a password: sign in with any of the site's passkeys (no name asked), or
  // create an account named as the name field says, with a new passkey.
  const withPasskey = async (step) => {
    error.textContent = "";
    if (step === "sign-up" && !name.reportValidity()) return;
    const asked = step === "sign-up"
      ? await askPasskey("create", `${PASSKEYS}/sign-up`, { name: name.value })
      : await askPasskey("get", `${PASSKEYS}/sign-in`);
    if (!asked.ok) { error.textContent = accountError(asked.data); return; }
    const { ok, data } = await send(`${PASSKEYS}/${step}/finish`, asked.answer);
    if (!ok) { error.textContent = accountError(data); return; }
    await signedIn(data);
  };
  const form = el("form", { class: "account-form", onsubmit: (e) => { e.preventDefault(); submit("/api/account/sign-in"); } },
    el("h2", { id: "account-title" }, t("account.title")),
    el("p", { class: "muted small" }, t("account.explain")),
    el("label", { for: "account-name-input" }, el("b", {}, t("account.name"))), name,
    el("small", { class: "muted", id: "account-name-help" }, t("account.name_help")),
    el("label", { for: "account-password" }, el("b", {}, t("account.password"))), password,
    el("small", { class: "muted", id: "account-password-help" }, t("account.password_help")),
    error,
    el("div", { class: "end-actions" },
      el("button", { type: "submit", class: "btn primary", id: "sign-in" }, t("account.sign_in")),
      el("button", { type: "button", class: "btn", id: "sign-up", onclick: () => { password.autocomplete = "new-password"; submit("/api/account/sign-up"); } }, t("account.sign_up")),
      el("button", { type: "button", class: "btn ghost", id: "account-later", onclick: () => dlg.close() }, t("account.not_now"))),
    el("div", { class: "passkey-choices" },
      el("p", { class: "muted small", id: "passkey-help" }, passkeyBarrier() || t("passkey.explain_short")),
      el("div", { class: "end-actions" },
        el("button", { type: "button", class: "btn", id: "passkey-sign-in", disabled: !passkeysSupported(),
          onclick: () => withPasskey("sign-in") }, t("passkey.sign_in")),
        el("button", { type: "button", class: "btn", id: "passkey-sign-up", disabled: !passkeysSupported(),
          "aria-describedby": "passkey-help", onclick: () => withPasskey("sign-up") }, t("passkey.sign_up")))));
  dlg.append(form);
  dlg.showModal();
  name.focus();
}

// The account area of the top bar `box`; `changed(account)` is called after a sign-in,
// a sign-up or a sign-out (the account, or null); `extras()`: more controls shown while
// signed in (the lobby's "Notify me").
export async function accountArea(box, changed = () => {}, extras = () => []) {
  let account = await whoAmI();

  function render() {
    box.innerHTML = "";
    if (account) {
      box.append(
        el("a", { class: "btn small ghost account-name", id: "account-name", href: account.profile,
          title: t("account.signed_in_as", { name: account.name }) }, account.name),
        ...extras(),
        el("button", { class: "btn small ghost", type: "button", id: "sign-out", onclick: signOut }, t("account.sign_out")));
    } else {
      box.append(el("button", { class: "btn small ghost", type: "button", id: "sign-in-open",
        onclick: () => signInDialog(signedIn) }, t("account.sign_in")));
    }
  }

  function signedIn(acc) {
    account = acc;
    render();
    changed(account);
  }

  async function signOut() {
    await send("/api/account/sign-out", {}).catch(() => null);
    account = noted(null);
    render();
    changed(null);
  }

  render();
  if (account) adoptTables();  // tables joined since the last visit
  return { account: () => account, render };
}

// The passkeys of the signed-in account, on its profile: each with its label, when it was
// added and last used, and a Remove button; a form to add one (an optional label).
// `listing`: GET /api/account/passkeys's answer; `changed(listing)` after an addition or a
// removal (the new listing).
export function passkeysArea(listing, changed = () => {}) {
  const error = el("p", { class: "error-text", role: "alert", id: "passkey-error" });
  const label = el("input", { type: "text", id: "passkey-label", maxlength: "40", autocomplete: "off",
    placeholder: t("passkey.label_placeholder") });
  const day = (iso) => new Date(iso).toLocaleDateString(document.documentElement.lang);
  const reload = async () => {
    const r = await fetch(PASSKEYS).catch(() => null);
    if (r && r.ok) changed(await r.json());
  };
  const remove = async (p) => {
    error.textContent = "";
    const r = await fetch(`${PASSKEYS}/${p.id}`, { method: "DELETE", headers: JSON_POST, body: "{}" });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) { error.textContent = accountError(data); return; }
    changed(data);
  };
  const add = async (e) => {
    e.preventDefault();
    error.textContent = "";
    const asked = await askPasskey("create", `${PASSKEYS}/register`);
    if (!asked.ok) { error.textContent = accountError(asked.data); return; }
    const named = label.value.trim() || t("passkey.default_label", { n: listing.passkeys.length + 1 });
    const { ok, data } = await send(`${PASSKEYS}/register/finish`, { ...asked.answer, label: named.slice(0, 40) });
    if (!ok) { error.textContent = accountError(data); return; }
    await reload();
  };
  const list = listing.passkeys.length
    ? el("ul", { class: "passkey-list", id: "passkey-list" }, listing.passkeys.map((p) =>
      el("li", { class: "passkey", dataset: { id: p.id } },
        el("div", { class: "passkey-facts" }, el("b", { class: "passkey-label" }, p.label),
          el("small", { class: "muted" }, `${t("passkey.added", { date: day(p.created_at) })} · ${
            p.last_used_at ? t("passkey.used", { date: day(p.last_used_at) }) : t("passkey.never_used")}`)),
        el("button", { type: "button", class: "btn small passkey-remove", "aria-label": t("passkey.remove_label", { label: p.label }),
          onclick: () => remove(p) }, t("passkey.remove")))))
    : el("p", { class: "muted", id: "passkey-none" }, t("passkey.none"));
  return el("section", { class: "passkeys-area", id: "passkeys" },
    el("h2", {}, t("passkey.title")),
    el("p", { class: "muted small" }, t("passkey.explain")),
    list,
    el("form", { class: "account-form", onsubmit: add },
      el("label", { for: "passkey-label" }, el("b", {}, t("passkey.label"))), label, error,
      el("button", { type: "submit", class: "btn", id: "passkey-add", disabled: !passkeysSupported() }, t("passkey.add"))),
    passkeysSupported() ? null : el("p", { class: "muted small", id: "passkey-barrier" }, passkeyBarrier()));
}
