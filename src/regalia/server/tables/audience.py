"""The audience of a table (``Audience``, a part of it): its connections (``Conn``: one websocket each, with its own
outgoing queue) and what they are sent. Every connection gets ``Game.view`` for its own seat
only (spectators: ``None``), built once per seat for a move; a message for everyone is
encoded once (orjson). Seat-list changes of the same moment are sent as one message.

A connection gets one full ``state`` message when it joins, then ``update`` messages: what
changed since the state it was last sent (``increment``; ``merge_update`` is the client's
side, as the page's ``table.js`` does it). The game log goes as new events in both."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any, Callable

import orjson

from regalia.server.tables import gamekit
from regalia.server.tables.core import TableCore

SEATS_FLUSH = 0.05  # seconds over which seat-list changes are sent as one message


class Conn:
    """One websocket: its seat (``None``: spectator), its outgoing queue and how much of the
    game log it was sent. A client that leaves more than ``limit`` messages unread is
    dropped (``dropped``)."""

    def __init__(self, send: Callable[[str], Any], address: str = "", limit: int = 500) -> None:
        self.id = secrets.token_hex(4)
        self.send = send
        self.address = address
        self.limit = limit
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.log_sent = 0
        self.sent: dict[str, Any] | None = None  # the last state sent (full form)
        self.seats: list[dict[str, Any]] | None = None  # the last seat list sent
        self.closed = False
        self.dropped = False
        self.pump_task: asyncio.Task | None = None

    def put(self, obj: dict[str, Any]) -> None:
        self.put_text(encode(obj))

    def put_text(self, text: str) -> None:
        """Queue an encoded message (``encode``)."""
        if self.closed:
            return
        if self.queue.qsize() >= self.limit:  # a client that does not read: drop it
            self.dropped = True
            self.close()
            if self.pump_task is not None:  # its send may be stuck on a full socket
                self.pump_task.cancel()
            return
        self.queue.put_nowait(text)

    def start(self) -> asyncio.Task:
        """Start sending the queued messages in order (the task ends at ``close``)."""
        self.pump_task = asyncio.get_running_loop().create_task(self._pump())
        return self.pump_task

    async def _pump(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            await self.send(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


def encode(msg: dict[str, Any]) -> str:
    """A message as compact JSON text (orjson; dict keys that are not strings become
    strings, as ``json.dumps`` makes them)."""
    return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()


# Fields of a state message an update always carries (the log is new events already).
_ALWAYS = ("ply", "log_start", "log")
_MISSING = object()


def increment(sent: dict[str, Any] | None, msg: dict[str, Any]) -> dict[str, Any]:
    """What a connection that was sent the state message ``sent`` needs to know ``msg``:
    ``msg`` itself when it was sent none, else ``{"type": "update", "ply", "log_start",
    "log"}`` plus every other field that changed, the view as its changed keys only
    (``view_removed``: its keys that are gone, when there are)."""
    if sent is None:
        return msg
    out: dict[str, Any] = {"type": "update"}
    for k, v in msg.items():
        if k in _ALWAYS or (k not in ("type", "view") and sent.get(k, _MISSING) != v):
            out[k] = v
    before, view = sent["view"], msg["view"]
    changed = {k: v for k, v in view.items() if before.get(k, _MISSING) != v}
    if changed:
        out["view"] = changed
    gone = [k for k in before if k not in view]
    if gone:
        out["view_removed"] = gone
    return out


def merge_update(state: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """A client's side of ``increment``: the full state message that ``update`` (an
    ``update`` message) makes of ``state`` (the previous full one), as a new dict."""
    out = {**state, **update, "type": "state"}
    view = {**state["view"], **update.get("view", {})}
    for k in update.get("view_removed", ()):
        view.pop(k, None)
    out["view"] = view
    out.pop("view_removed", None)
    return out


class StateReader:
    """A client's side of the state messages, as the page's ``table.js`` reads them:
    ``read(msg)`` turns a ``state`` or an ``update`` into the full ``state`` message with
    every legal action written out (``gamekit.legal_texts``) and returns any other message
    as it is; ``wire`` is the latest state as the server sent it (updates merged)."""

    def __init__(self) -> None:
        self.wire: dict[str, Any] | None = None

    def read(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg.get("type") == "update":
            msg = merge_update(self.wire, msg)
        elif msg.get("type") != "state":
            return msg
        self.wire = msg
        return {**msg, "legal": gamekit.legal_texts(msg)}


class Audience:
    """The connections of a table, a part of it: who is connected here and on which seat,
    what they are sent (``broadcast``, ``broadcast_state``: each connection its own seat's
    view), when each seat was last seen, and the seat list sent once for the joins and
    leaves of a moment.

    Handed to it: the table's ``core`` and callbacks: ``state_message(seat, view,
    log_from, seats)`` (the table's ``state`` message for a seat), ``seats_info(seat)`` (the seat
    list as ``seat`` sees it), ``history()`` (the latest talk, for a newcomer),
    ``presence()`` (connections to every replica: per seat, and spectators) and
    ``presence_changed()`` (tell the other replicas this one's connections).

    What the others see of a seat's connections is held back (``shown``): its connected
    flag changes at most once per ``presence_every`` seconds, and a seat gone for less than
    that stays shown connected (a page reloaded is no leave), the last state shown when the
    time is up. Opening and closing a page cannot signal what a Regicide player holds
    (rules 1.15) faster than talk may. A connection is sent a seat list only when the one it
    would see changed."""

    def __init__(self, core: TableCore, *,
                 state_message: Callable[..., dict[str, Any]],
                 seats_info: Callable[[int | None], list[dict[str, Any]]],
                 history: Callable[[], list[dict[str, Any]]],
                 presence: Callable[[], tuple[list[int], int]],
                 presence_changed: Callable[[], None],
                 presence_every: float = 0.0) -> None:
        self.core = core
        self.presence_every = presence_every
        # per seat: the connected flag the others see, and when it last changed
        self._shown = [False] * len(core.seats)
        self._shown_at = [float("-inf")] * len(core.seats)
        self._presence_timer: asyncio.TimerHandle | None = None
        self._presence_due = float("inf")
        self.state_message = state_message
        self.seats_info = seats_info
        self.history = history
        self.presence = presence
        self.presence_changed = presence_changed
        self.conns: set[Conn] = set()
        # the connections that have the table and await their hello (``join``): the table
        # is not idle meanwhile (``Table.idle``), so it is not unloaded under them
        self.arriving: set[Conn] = set()
        self._seats_timer: asyncio.TimerHandle | None = None
        # per seat: connected at the last seat-list flush, and when it was last seen so
        # (monotonic seconds; a held seat counts as seen when the table is loaded: after a
        # restart, or on a replica that has not yet heard the others' connections, its
        # player may be on the way back; -inf: a seat nobody has held): Seating.set_bot
        self.seat_connected = [False] * len(core.seats)
        self.seat_seen_at = [core.last_active if s.claimed else float("-inf")
                             for s in core.seats]

    def join(self, conn: Conn, seat: int | None) -> None:
        core = self.core
        conn.seat = seat
        conn.log_sent = 0
        conn.sent = None
        self.arriving.discard(conn)
        self.conns.add(conn)
        core.last_active = time.monotonic()
        conn.put({"type": "welcome", "table": core.id, "game": core.game.name, "seat": seat,
                  "players": len(core.seats), "options": core.options,
                  "talk": core.game.talk, "sayings": gamekit.sayings(core.game),
                  "early_end": core.game.early_end,
                  "spectate": f"/t/{core.id}#s={core.watch_token}" if core.watch_token else None,
                  "open": core.is_open, "rated": core.rated})
        self._send_state(conn, core.game.view(core.state, seat, log=False))
        messages = self.history()
        if messages:
            conn.put({"type": "talk_history", "messages": messages[-50:]})
        if core.broken:
            conn.put(self.broken_message())
        if seat is not None:  # a spectator changes nobody's seat list
            self.seat_seen_at[seat] = core.last_active
            self.seats_changed()

    def leave(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self.core.last_active = time.monotonic()
            if conn.seat is not None:
                self.seat_seen_at[conn.seat] = self.core.last_active
                self.seats_changed()

    def local_presence(self) -> tuple[list[int], int]:
        """Connections to this replica: per seat, and spectators."""
        counts = [0] * len(self.core.seats)
        spectators = 0
        for c in self.conns:
            if c.seat is None:
                spectators += 1
            else:
                counts[c.seat] += 1
        return counts, spectators

    def note_presence(self) -> None:
        """Note which seats are connected (to any replica) and, for those that are or just
        were, that they were seen now (a seat's connections to this replica note it when
        they join and leave; those to others, as their replicas tell)."""
        now = time.monotonic()
        connected = [n > 0 for n in self.presence()[0]]
        for k, (was, is_) in enumerate(zip(self.seat_connected, connected)):
            if was or is_:
                self.seat_seen_at[k] = now
        self.seat_connected = connected

    def seen_at(self, seat: int) -> float:
        """When ``seat`` was last seen connected (monotonic seconds; ``note_presence``
        first)."""
        self.note_presence()
        return self.seat_seen_at[seat]

    def shown(self, seats: list[dict[str, Any]], for_seat: int | None) -> list[dict[str, Any]]:
        """``seats`` (a seat list as ``for_seat`` sees it) with every other seat's
        ``connected`` flag as it is shown (``shown_connected``); changed in place."""
        if self.presence_every <= 0:
            return seats
        shown = self.shown_connected()
        for entry in seats:
            if entry["seat"] != for_seat:
                entry["connected"] = shown[entry["seat"]]
        return seats

    def shown_connected(self) -> list[bool]:
        """Per seat, whether the others see it connected: a change is shown once
        ``presence_every`` seconds have passed since the last one shown, a leave only once
        the seat has been gone that long; a change held back is shown (a seat list sent)
        when its time comes."""
        self.note_presence()
        now = time.monotonic()
        due = float("inf")
        for k, is_ in enumerate(self.seat_connected):
            if is_ == self._shown[k]:
                continue
            since = self._shown_at[k] if is_ else max(self._shown_at[k], self.seat_seen_at[k])
            if now >= since + self.presence_every:
                self._shown[k], self._shown_at[k] = is_, now
            else:
                due = min(due, since + self.presence_every)
        if due < self._presence_due and not self.core.closing:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # read outside the server's loop (a test): no timer
                return list(self._shown)
            if self._presence_timer is not None:
                self._presence_timer.cancel()
            self._presence_due = due
            self._presence_timer = loop.call_later(due - now, self._presence_time)
        return list(self._shown)

    def _presence_time(self) -> None:
        self._presence_timer, self._presence_due = None, float("inf")
        self.seats_changed()

    def spectators(self) -> int:
        """Spectators connected (to any replica)."""
        return self.presence()[1]

    def _send_state(self, conn: Conn, view: dict[str, Any],
                    seats: list[dict[str, Any]] | None = None) -> None:
        msg = self.state_message(conn.seat, view, conn.log_sent, seats)
        conn.log_sent = msg["log_start"] + len(msg["log"])
        conn.seats = msg["seats"]
        conn.put(increment(conn.sent, msg))
        conn.sent = msg

    def broadcast_state(self) -> None:
        core = self.core
        # one view and one seat list per seat (and for the watchers), whatever its tabs
        shown: dict[int | None, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
        for conn in list(self.conns):
            if conn.seat not in shown:
                shown[conn.seat] = (core.game.view(core.state, conn.seat, log=False),
                                    self.seats_info(conn.seat))
            self._send_state(conn, *shown[conn.seat])

    def seats_changed(self) -> None:
        """Send the seat list once for all the joins and leaves of the next moment."""
        if self._seats_timer is None:
            self._seats_timer = asyncio.get_running_loop().call_later(SEATS_FLUSH,
                                                                      self._flush_seats)

    def _flush_seats(self) -> None:
        self._seats_timer = None
        self.note_presence()
        # one list per seat (its own windows) and watchers
        lists: dict[int | None, tuple[list[dict[str, Any]], str]] = {}
        for conn in list(self.conns):
            if conn.seat not in lists:
                info = self.seats_info(conn.seat)
                lists[conn.seat] = info, encode({"type": "seats", "seats": info})
            info, text = lists[conn.seat]
            if info != conn.seats:  # nothing it would see changed: nothing sent
                conn.seats = info
                conn.put_text(text)
        self.presence_changed()

    def broadcast(self, msg: dict[str, Any]) -> None:
        text = encode(msg)
        for conn in list(self.conns):
            conn.put_text(text)

    def broken_message(self) -> dict[str, Any]:
        return {"type": "error", "code": "table_broken", "ply": self.core.ply,
                "message": f"this table cannot go on: {self.core.broken}. The moves so far "
                           "are saved; the server's operator has been told."}

    def stop(self) -> None:
        """No more seat lists (the table is closing)."""
        if self._seats_timer is not None:
            self._seats_timer.cancel()
        if self._presence_timer is not None:
            self._presence_timer.cancel()

    def close_all(self) -> None:
        for conn in list(self.conns):
            conn.close()
