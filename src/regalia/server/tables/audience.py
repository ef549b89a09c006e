"""The broadcaster of a table: its connections (``Conn``: one websocket each, with its own
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


class Broadcaster:
    """The connections of a ``Table`` (a mixin: it uses the table's ``conns``, ``game``,
    ``state``, ``state_message``, ``_seats_timer``, ``seat_connected`` and
    ``seat_seen_at``)."""

    def join(self, conn: Conn, seat: int | None) -> None:
        conn.seat = seat
        conn.log_sent = 0
        conn.sent = None
        self.conns.add(conn)
        self.last_active = time.monotonic()
        conn.put({"type": "welcome", "table": self.id, "game": self.game.name, "seat": seat,
                  "players": len(self.seats), "options": self.options,
                  "talk": self.game.talk, "sayings": gamekit.sayings(self.game),
                  "spectate": f"/t/{self.id}#s={self.watch_token}" if self.watch_token else None,
                  "open": self.is_open})
        self._send_state(conn, self.game.view(self.state, seat, log=False))
        if self.messages:
            conn.put({"type": "talk_history", "messages": self.messages[-50:]})
        if self.broken:
            conn.put(self.broken_message())
        if seat is not None:  # a spectator changes nobody's seat list
            self.seat_seen_at[seat] = self.last_active
            self._seats_changed()

    def leave(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self.last_active = time.monotonic()
            if conn.seat is not None:
                self.seat_seen_at[conn.seat] = self.last_active
                self._seats_changed()

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

    def spectators(self) -> int:
        """Spectators connected (to any replica)."""
        return self.presence()[1]

    def _send_state(self, conn: Conn, view: dict[str, Any]) -> None:
        msg = self.state_message(conn.seat, view, conn.log_sent)
        conn.log_sent = msg["log_start"] + len(msg["log"])
        conn.put(increment(conn.sent, msg))
        conn.sent = msg

    def broadcast_state(self) -> None:
        views: dict[int | None, dict[str, Any]] = {}
        for conn in list(self.conns):
            if conn.seat not in views:
                views[conn.seat] = self.game.view(self.state, conn.seat, log=False)
            self._send_state(conn, views[conn.seat])

    def _seats_changed(self) -> None:
        """Send the seat list once for all the joins and leaves of the next moment."""
        if self._seats_timer is None:
            self._seats_timer = asyncio.get_running_loop().call_later(SEATS_FLUSH, self._flush_seats)

    def _flush_seats(self) -> None:
        self._seats_timer = None
        self.note_presence()
        texts: dict[int | None, str] = {}  # one text per seat (its own windows) and watchers
        for conn in list(self.conns):
            if conn.seat not in texts:
                texts[conn.seat] = encode({"type": "seats", "seats": self.seats_info(conn.seat)})
            conn.put_text(texts[conn.seat])
        self.presence_changed()

    def broadcast(self, msg: dict[str, Any]) -> None:
        text = encode(msg)
        for conn in list(self.conns):
            conn.put_text(text)

    def broken_message(self) -> dict[str, Any]:
        return {"type": "error", "code": "table_broken", "ply": self.ply,
                "message": f"this table cannot go on: {self.broken}. The moves so far are "
                           "saved; the server's operator has been told."}
