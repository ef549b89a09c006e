// The optional account, in the lobby's top bar: sign in, create an account, sign out. No
// account is needed to play. The session is an HttpOnly cookie: this page never sees its
// token. Signed in, the page hands the server the seat tokens this browser keeps (its
// tables, mytables.js) so that the account adopts them, and the nickname becomes the
// account's name for the tables created or joined from now on.
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
  return said || t("account.failed");
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
  const submit = async (path) => {
    error.textContent = "";
    if (!form.reportValidity()) return;
    const { ok, data } = await send(path, { name: name.value, password: password.value });
    if (!ok) { error.textContent = accountError(data); return; }
    dlg.close();
    const account = noted(data.account);
    setMyName(account.name);
    await adoptTables();
    done(account);
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
      el("button", { type: "button", class: "btn ghost", id: "account-later", onclick: () => dlg.close() }, t("account.not_now"))));
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
