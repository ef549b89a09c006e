// The tables this browser created or joined, kept in localStorage (no accounts).
const KEY = "regalia.tables";

export function myTables() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (e) {
    return [];
  }
}

function save(list) {
  localStorage.setItem(KEY, JSON.stringify(list.slice(0, 100)));
}

// Add or update an entry: {id, game, players, seat, token, role, invites, created}
export function remember(entry) {
  const list = myTables();
  const i = list.findIndex((e) => e.id === entry.id && (e.seat ?? null) === (entry.seat ?? null));
  if (i >= 0) list[i] = { ...list[i], ...entry };
  else list.unshift({ created: new Date().toISOString(), ...entry });
  save(list);
}

export function forget(id, seat) {
  save(myTables().filter((e) => !(e.id === id && (e.seat ?? null) === (seat ?? null))));
}

export function entryFor(id, token) {
  return myTables().find((e) => e.id === id && (token ? e.token === token : true));
}

export function invitesFor(id) {
  const e = myTables().find((x) => x.id === id && x.invites);
  return e ? e.invites : null;
}

// The rematch of a table this browser created: its seats keep their tokens, so the old
// table's invitation links, pointed at the new table, are the rematch's (kept once, as the
// lobby keeps a new table's).
export function carryInvites(oldId, newId, entry = {}) {
  const old = myTables().find((x) => x.id === oldId && x.invites);
  if (!old || !newId || invitesFor(newId)) return;
  const moved = (link) => link.replace(/^\/t\/[^#]*/, "/t/" + encodeURIComponent(newId));
  remember({
    ...entry, id: newId, game: old.game, players: old.players, seat: old.seat ?? null, token: old.token,
    role: "creator", invites: old.invites.map((x) => ({ ...x, link: moved(x.link) })),
  });
}
