// Friends, in the lobby, for a signed-in browser: add a player by account name, answer
// friend requests, see which friends are online (a dot), invite a friend to one of this
// browser's tables that waits for a player (the "Invite a friend" line of its My tables
// row), and answer the invitations received: Join takes the table's free seat, whose link
// this browser keeps as it keeps an invitation link's (mytables.js) before it opens the
// table.
//
// Delivery: while signed in the panel asks GET /api/friends every POLL_MS (every replica
// answers it from the database, and Redis for who is online): requests, presence and
// invitations come with it, and the ask itself keeps this account online to its friends.
import { t } from "./i18n.js";
import { el } from "./cards.js";
import { remember } from "./mytables.js";

const POLL_MS = 5000;
const SAID_MS = 10000;
const JSON_POST = { "Content-Type": "application/json" };

async function post(path, body = {}) {
  try {
    const r = await fetch(path, { method: "POST", headers: JSON_POST, body: JSON.stringify(body) });
    return { ok: r.ok, data: await r.json().catch(() => ({})) };
  } catch (e) {
    return { ok: false, data: {} };
  }
}

// A refusal of the friends' API in the page's language; `missing`: the text of a 404.
export function friendsError(data, missing = "friends.no_such_player") {
  const code = data && data.code;
  const said = (data && data.error) || "";
  if (code === "not_found") return t(missing);
  if (code === "bad_request" && said.includes("your own")) return t("friends.own_name");
  if (code === "bad_request" && said.startsWith("name:")) return t("friends.no_such_player");
  if (code === "blocked_by_you") return t("friends.you_block");
  if (code === "too_fast") return t("friends.too_fast", { s: data.retry_after || 60 });
  if (code === "not_friends") return t("friends.not_friends");
  if (code === "full") return t("friends.full");
  if (code === "already_seated") return t("friends.already_seated");
  if (code === "invitation_expired") return t("friends.expired");
  return t("friends.failed");
}

// A table of this browser's to which a friend may be invited: it waits for a player (a
// human seat nobody holds and no bot plays), and this browser holds a seat there.
function invitable(entry, summary) {
  return !!(entry && entry.token && summary && summary.status === "playing" && summary.waiting
    && summary.seats.some((s) => s.kind === "human" && !s.claimed && !s.bot_replaces));
}

// The Friends panel: `section` is shown only while signed in, its lists drawn in `box`;
// the invitations received go to the list `invited`, in the section `inbox` shown above
// the lobby's panels while there are some.
export function friendsPanel(section, box, inbox, invited) {
  let data = null; // the latest GET /api/friends
  let drawn = ""; // what the lists were drawn from (drawn again only when it changes)
  let timer = null;
  let on = false;
  let said = { key: null, params: {}, error: false }; // the status line
  const pickers = new Set(); // the "Invite a friend" lines of the My tables rows

  const status = el("p", { class: "small friends-status", id: "friends-status", role: "status" });
  const name = el("input", { type: "text", id: "friend-name", maxlength: "20", autocomplete: "off",
    autocapitalize: "off", spellcheck: "false" });
  const addLabel = el("label", { for: "friend-name" });
  const addBtn = el("button", { type: "submit", class: "btn small primary", id: "friend-add" });
  const form = el("form", { class: "friend-add", id: "friend-add-form", onsubmit: (ev) => { ev.preventDefault(); add(); } },
    addLabel, el("div", { class: "friend-add-line" }, name, addBtn));
  const lists = el("div", { class: "friend-lists", id: "friend-lists" });
  box.append(form, status, lists);

  // The status line says `key` (with `params`); a success is forgotten after SAID_MS.
  function say(key, params = {}, error = false) {
    const now = { key, params, error };
    said = now;
    status.textContent = key ? t(key, params) : "";
    status.classList.toggle("error-text", error);
    if (key && !error) setTimeout(() => { if (said === now) say(null); }, SAID_MS);
  }

  // A refusal said on the status line (in the page's language: friendsError).
  function fail(answer, missing) {
    say(null);
    status.textContent = friendsError(answer, missing);
    status.classList.add("error-text");
  }

  // A change to a friendship (`action`: an endpoint of /api/friends) with the player
  // `who`; `done`: the text said when it is made.
  async function act(action, who, done) {
    const { ok, data: answer } = await post(`/api/friends/${action}`, { name: who });
    if (!ok) fail(answer, action === "block" ? "friends.no_such_player" : "friends.gone");
    else say(done || null, { name: answer.name });
    await refresh();
  }

  async function add() {
    const who = name.value.trim();
    if (!who) { name.focus(); return; }
    const { ok, data: answer } = await post("/api/friends/requests", { name: who });
    if (!ok) fail(answer);
    else {
      name.value = "";
      say(answer.state === "friends" ? "friends.now_friends" : "friends.requested", { name: answer.name });
    }
    await refresh();
  }

  async function join(inv) {
    const { ok, data: seat } = await post(`/api/friends/invitations/${inv.id}/accept`);
    if (!ok) {
      fail(seat, "friends.gone");
      await refresh();
      return;
    }
    remember({ id: seat.id, game: seat.game, players: seat.players, seat: seat.seat, token: seat.token, role: "player" });
    location.href = seat.link;
  }

  async function declineInvitation(inv) {
    const { ok, data: answer } = await post(`/api/friends/invitations/${inv.id}/decline`);
    if (!ok) fail(answer, "friends.gone");
    else say(null);
    await refresh();
  }

  function button(label, aria, key, onclick, cls = "btn small") {
    return el("button", { type: "button", class: cls, "aria-label": aria, dataset: { key }, onclick }, label);
  }

  function heading(key, id) {
    return el("h3", { class: "friends-heading", id }, t(key));
  }

  function drawLists() {
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    lists.innerHTML = "";
    if (!data) {
      invited.innerHTML = "";
      inbox.hidden = true;
      return;
    }
    invited.innerHTML = "";
    inbox.hidden = !data.invitations.length;
    invited.append(...data.invitations.map((inv) => el("li", { class: "friend-item invitation", dataset: { id: inv.id } },
      el("div", { class: "friend-who" },
        el("b", {}, t("friends.invited", { name: inv.name, game: t("game." + inv.game) })),
        el("small", { class: "muted" }, t("friends.free_seats", { n: inv.free, players: inv.players }))),
      el("div", { class: "friend-actions" },
        button(t("friends.join"), t("friends.join_named", { name: inv.name }), "join:" + inv.id, () => join(inv), "btn small primary join-invitation"),
        button(t("friends.decline"), t("friends.decline_invitation_named", { name: inv.name }), "no:" + inv.id, () => declineInvitation(inv))))));
    if (data.incoming.length) {
      lists.append(heading("friends.requests", "friend-requests-title"),
        el("ul", { class: "friend-items", id: "friend-requests", "aria-labelledby": "friend-requests-title" },
          data.incoming.map((p) => el("li", { class: "friend-item", dataset: { name: p.name } },
            el("div", { class: "friend-who" }, el("a", { href: p.profile }, p.name), el("small", { class: "muted" }, t("friends.wants"))),
            el("div", { class: "friend-actions" },
              button(t("friends.accept"), t("friends.accept_named", { name: p.name }), "accept:" + p.name, () => act("accept", p.name, "friends.now_friends"), "btn small primary"),
              button(t("friends.decline"), t("friends.decline_named", { name: p.name }), "decline:" + p.name, () => act("decline", p.name)),
              button(t("friends.block"), t("friends.block_named", { name: p.name }), "block:" + p.name, () => act("block", p.name, "friends.blocked_done")))))));
    }
    lists.append(heading("friends.your_friends", "friend-list-title"));
    if (!data.friends.length) lists.append(el("p", { class: "muted small empty-list", id: "friend-list-empty" }, t("friends.none")));
    else {
      lists.append(el("ul", { class: "friend-items", id: "friend-list", "aria-labelledby": "friend-list-title" },
        data.friends.map((f) => el("li", { class: "friend-item friend", dataset: { name: f.name, online: f.online ? "1" : "0" } },
          el("div", { class: "friend-who" },
            el("span", { class: "dot " + (f.online ? "on" : "off"), title: t(f.online ? "friends.online" : "friends.offline") }),
            el("a", { href: f.profile }, f.name),
            el("span", { class: "sr-only" }, ", " + t(f.online ? "friends.online" : "friends.offline"))),
          el("details", { class: "friend-more" },
            el("summary", { "aria-label": t("friends.more_named", { name: f.name }) }, t("friends.more")),
            el("div", { class: "friend-actions" },
              button(t("friends.remove"), t("friends.remove_named", { name: f.name }), "remove:" + f.name, () => act("remove", f.name)),
              button(t("friends.block"), t("friends.block_named", { name: f.name }), "block:" + f.name, () => act("block", f.name, "friends.blocked_done"))))))));
    }
    if (data.outgoing.length) {
      lists.append(heading("friends.sent_title", "friend-sent-title"),
        el("ul", { class: "friend-items", id: "friend-sent", "aria-labelledby": "friend-sent-title" },
          data.outgoing.map((p) => el("li", { class: "friend-item", dataset: { name: p.name } },
            el("div", { class: "friend-who" }, el("a", { href: p.profile }, p.name), el("small", { class: "muted" }, t("friends.sent"))),
            el("div", { class: "friend-actions" },
              button(t("friends.cancel"), t("friends.cancel_named", { name: p.name }), "cancel:" + p.name, () => act("remove", p.name)))))));
    }
    if (data.blocked.length) {
      lists.append(el("details", { class: "friend-blocked", id: "friend-blocked" },
        el("summary", {}, t("friends.blocked", { n: data.blocked.length })),
        el("ul", { class: "friend-items" },
          data.blocked.map((p) => el("li", { class: "friend-item", dataset: { name: p.name } },
            el("div", { class: "friend-who" }, el("span", {}, p.name)),
            el("div", { class: "friend-actions" },
              button(t("friends.unblock"), t("friends.unblock_named", { name: p.name }), "unblock:" + p.name, () => act("unblock", p.name))))))));
    }
    if (focused) { // the focus stays on the same button, drawn anew; else on the name field
      const again = section.querySelector(`[data-key="${CSS.escape(focused)}"]`)
        || inbox.querySelector(`[data-key="${CSS.escape(focused)}"]`);
      if (again) again.focus();
      else if (document.activeElement === document.body) name.focus();
    }
  }

  // Everything that shows no list: the form's words, the status line, the invite lines.
  function render() {
    addLabel.textContent = t("friends.add_label");
    addBtn.textContent = t("friends.add");
    name.placeholder = t("friends.add_placeholder");
    if (said.key) status.textContent = t(said.key, said.params);
    drawn = "";
    update();
  }

  function update() {
    const now = JSON.stringify(data);
    if (now !== drawn) {
      drawn = now;
      drawLists();
    }
    for (const p of [...pickers]) {
      if (!p.wrap.isConnected) pickers.delete(p);
      else p.fill();
    }
  }

  async function refresh() {
    if (!on) return;
    try {
      const r = await fetch("/api/friends");
      if (r.status === 401) { signedIn(false); return; }
      if (r.ok) { data = await r.json(); update(); }
    } catch (e) { /* the next round tries again */ }
  }

  function signedIn(yes) {
    on = !!yes;
    section.hidden = !on;
    clearInterval(timer);
    timer = null;
    if (on) {
      refresh();
      timer = setInterval(refresh, POLL_MS);
    } else {
      data = null;
      say(null);
      update();
    }
  }

  // The "Invite a friend" line of a My tables row (`entry`: this browser's seat there;
  // `summary`: GET /api/tables/ID), or null when its table waits for nobody.
  function invitePicker(entry, summary) {
    if (!invitable(entry, summary)) return null;
    const id = "invite-friend-" + entry.id;
    const select = el("select", { id, class: "invite-friend" });
    const note = el("small", { class: "invite-note", role: "status" });
    const table = t("lobby.table_named", { game: t("game." + entry.game), n: entry.players, id: entry.id });
    const send = el("button", { type: "button", class: "btn small invite-friend-btn", id: "invite-btn-" + entry.id,
      onclick: async () => {
        if (!select.value) return;
        send.disabled = true;
        const { ok, data: answer } = await post("/api/friends/invite", { name: select.value, table: String(entry.id), token: String(entry.token) });
        send.disabled = false;
        note.classList.toggle("error-text", !ok);
        note.textContent = ok ? t("friends.invite_sent", { name: answer.name }) : friendsError(answer);
      } });
    const label = el("label", { for: id });
    const wrap = el("div", { class: "friend-invite", hidden: true }, label, select, send, note);
    const picker = {
      wrap,
      fill() {
        label.textContent = t("friends.invite_label");
        send.textContent = t("friends.invite");
        send.setAttribute("aria-label", t("friends.invite_named", { table }));
        const friends = on && data ? [...data.friends].sort((a, b) => b.online - a.online) : [];
        wrap.hidden = !friends.length;
        const was = select.value;
        const options = friends.map((f) => [f.name, f.online ? `● ${f.name} (${t("friends.online")})` : f.name]);
        const key = JSON.stringify(options);
        if (select.dataset.drawn === key) return;
        select.dataset.drawn = key;
        select.innerHTML = "";
        for (const [value, text] of options) select.append(el("option", { value, selected: value === was }, text));
      },
    };
    pickers.add(picker);
    picker.fill();
    return wrap;
  }

  render();
  return { signedIn, render, refresh, invitePicker };
}
