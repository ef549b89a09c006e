"""Tables: one game each, one writer each (design.md, "server").

A ``Table`` holds its ``Match`` (config + seed + move log, so it is rebuilt identically from
the database), its seats and its connections. Every submission goes through
``Table.submit`` under the table's lock:

1. the seat may act (the seat to act, or a side action of its own), and the client's ply is
   current (a stale or duplicate submission is refused: two tabs, a double click);
2. the engine validates the move on a copy (``Table._try``): the table is not touched;
3. the move row (``ply = len(moves)``) is stored in a transaction; if that fails the move is
   refused and nothing changed;
4. only then is the move applied to the table, all its bookkeeping at once with no ``await``
   in between (``Table._commit``), and everyone told: each connection receives
   ``view(state, its seat)``.

So any other task (the bot loop, a joining connection) that looks at the table during the
durable write sees the position before the move, consistent in every part.

Everything a connection receives is built from ``Game.view`` for its seat (spectators:
``None``); an engine refusal, which may list the acting seat's hand, is only ever sent to
that seat. Bots are played by ``botrunner.BotLoop``.

People: a seat is *claimed* once its link was used (or it was taken from the lobby's list of
open tables, ``take_free_seat``), and carries the player's nickname. An open table waits,
with no move allowed and no bot acting, until every human seat is claimed.

Clocks (``clocks.Clock``, optional): the human seat to act runs its clock from the moment
every human seat is claimed; a move adds the increment; when a bank runs out the seat is
handed to a bot (everyone gets a ``timeout`` message) until its player takes it back.
Bot-played seats never run a clock.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import orjson

from regalia.core.errors import IllegalAction, RegaliaError
from regalia.core.records import Match
from regalia.games import get_game
from regalia.server import gamekit
from regalia.server.botrunner import BotLoop
from regalia.server.clocks import RETURN_BANK, Clock, wall
from regalia.server.store import BOT, FINISHED, HUMAN, Conflict, TableData, token_hash

if TYPE_CHECKING:  # pragma: no cover
    from regalia.server.manager import TableManager

log = logging.getLogger("regalia.server")

MAX_ACTION = 200
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
SEATS_FLUSH = 0.05  # seconds over which seat-list changes are sent as one message


class Refusal(Exception):
    """A submission that changes nothing: ``code`` for the interface, ``message`` in words
    (safe to send to the submitting connection), and for an engine refusal the engine's
    ``reason`` (``{"code", "params"}``, which the page translates)."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


@dataclass
class Seat:
    index: int
    kind: str
    bot_name: str | None
    token_hash: str | None
    bot_replaces: bool = False
    name: str | None = None
    claimed: bool = False

    @property
    def by_bot(self) -> bool:
        """The seat is played by a bot now (a bot seat, or a human seat handed to a bot)."""
        return self.kind == BOT or self.bot_replaces


@dataclass
class Move:
    """A validated move not yet applied to the table (``Table._try``)."""

    seat: int
    text: str
    side: bool
    state: Any
    rng_state: Any
    events: list[Any]
    clock: Clock | None = None  # the clocks after the move (``None``: unchanged)


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


def without_medal(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """A view, outcome or log entry with its solo medal removed (a game played with hints)."""
    return {**obj, "medal": None} if obj and obj.get("medal") else obj


def encode(msg: dict[str, Any]) -> str:
    """A message as compact JSON text (orjson; dict keys that are not strings become
    strings, as ``json.dumps`` makes them)."""
    return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()


def valid_token(token: Any) -> bool:
    """A string that may be a token (``secrets.token_urlsafe``'s alphabet, at most 100)."""
    return isinstance(token, str) and 0 < len(token) <= 100 and TOKEN_CHARS.issuperset(token)


class Table:
    """A game being played at one table (see the module docstring)."""

    def __init__(self, manager: "TableManager", data: TableData) -> None:
        self.manager = manager
        self.id = data.id
        self.game = get_game(data.game)
        self.config = dict(data.config)
        self.seed = data.seed
        self.status = data.status
        self.watch_token = data.watch_token
        self.created_at = data.created_at
        self.seats = [Seat(s.seat, s.kind, s.bot, s.token_hash, s.bot_replaces, s.name, s.claimed)
                      for s in data.seats]
        self.is_open = data.is_open
        self.hints = data.hints
        self._hinting = False  # a hint is being searched for
        self.next_table = data.next_table
        self.clock = (Clock.load(data.clock, data.clock_state, len(self.seats))
                      if data.clock else None)
        self._clock_timer: asyncio.TimerHandle | None = None
        self.match = Match(self.game, self.config, self.seed)
        self.move_seats: list[int | None] = []
        self.side_move: list[bool] = []
        self.wished: set[tuple[int, int]] = set()  # (window ply, seat) asked for a wish
        for ply, seat, action in data.moves:
            if ply != len(self.match.actions):
                raise RegaliaError(f"table {self.id}: the move log has a gap at ply {ply}")
            self._commit(self._try(seat, action))
        self.messages: list[dict[str, Any]] = list(data.messages)
        self.conns: set[Conn] = set()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.wake.set()
        self.bots = BotLoop(self)
        self.bot_rng = random.Random(secrets.randbits(64))  # the bots' own secret source
        self.closing = False
        self.broken: str | None = None
        self.last_active = time.monotonic()
        self._seats_timer: asyncio.TimerHandle | None = None
        self._legal_cache: tuple[int, list[str]] = (-1, [])

    # -- state -----------------------------------------------------------------------

    @property
    def ply(self) -> int:
        return len(self.match.actions)

    @property
    def state(self) -> Any:
        return self.match.state

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.match.state)

    @property
    def expired(self) -> bool:
        return self.status == "abandoned"

    def seat_of_token(self, token: Any) -> int | None:
        if not valid_token(token):
            return None
        h = token_hash(token)
        for s in self.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                return s.index
        return None

    def is_watch_token(self, token: Any) -> bool:
        """``token`` is this table's spectator token (from its spectator link)."""
        return (valid_token(token) and self.watch_token is not None
                and secrets.compare_digest(self.watch_token, token))

    def bot_name(self, seat: int) -> str:
        s = self.seats[seat]
        return s.bot_name if s.kind == BOT and s.bot_name else gamekit.default_bot(self.game.name)

    def seats_info(self) -> list[dict[str, Any]]:
        connected = [0] * len(self.seats)
        for c in self.conns:
            if c.seat is not None:
                connected[c.seat] += 1
        timed_out = self.clock.timed_out if self.clock else set()
        return [{"seat": s.index, "kind": s.kind, "bot": s.bot_name if s.kind == BOT
                 else (gamekit.default_bot(self.game.name) if s.bot_replaces else None),
                 "bot_replaces": s.bot_replaces, "connected": connected[s.index] > 0,
                 "name": s.name if s.kind == HUMAN else None, "claimed": s.claimed,
                 "timed_out": s.index in timed_out}
                for s in self.seats]

    @property
    def waiting(self) -> bool:
        """An open table still has a free human seat: nobody may act yet."""
        return self.is_open and any(s.kind == HUMAN and not s.claimed for s in self.seats)

    def running_seat(self) -> int | None:
        """The seat whose clock runs now: the human seat to act once the clocks started,
        never a seat a bot plays; ``None`` without clocks."""
        if self.clock is None or not self.clock.started or not self.open:
            return None
        current = self.game.current_seat(self.state)
        if current is None or self.seats[current].by_bot:
            return None
        return current

    def clock_info(self) -> dict[str, Any] | None:
        return self.clock.info(self.running_seat(), wall()) if self.clock else None

    def summary(self) -> dict[str, Any]:
        """Public facts about the table (lobby lists)."""
        return {"id": self.id, "game": self.game.name, "players": len(self.seats),
                "status": FINISHED if self.finished else self.status, "ply": self.ply,
                "current": self.game.current_seat(self.state), "seats": self.seats_info(),
                "options": {k: v for k, v in self.config.items() if k != "players"},
                "created_at": self.created_at.isoformat() if self.created_at else None,
                "outcome": gamekit.outcome(self.game, self.state), "broken": self.broken,
                "open": self.is_open, "waiting": self.waiting, "clock": self.clock_info(),
                "next_table": self.next_table, "hints": self.hints}

    def state_message(self, seat: int | None, view: dict[str, Any], log_from: int) -> dict[str, Any]:
        """The ``state`` message for a connection of ``seat``: its view (the log as a tail
        from ``log_from``), and its legal actions when it is to act."""
        g, st = self.game, self.state
        view = dict(view)
        log_all = view.pop("log", []) or []
        current = g.current_seat(st)
        legal: list[str] = []
        side: list[str] = []
        if seat is not None and self.open and not self.waiting and not self.seats[seat].by_bot:
            if current == seat:
                if self._legal_cache[0] != self.ply:
                    self._legal_cache = (self.ply, [g.action_to_text(st, a)
                                                    for a in list(g.legal_actions(st))])
                legal = self._legal_cache[1]
            side = gamekit.side_texts(g, st, seat)
        outcome, log = gamekit.outcome(g, st), log_all[log_from:]
        if self.hints:  # a game played with hints earns no medal
            view, outcome, log = without_medal(view), without_medal(outcome), [without_medal(e) for e in log]
        return {"type": "state", "table": self.id, "game": g.name, "ply": self.ply,
                "seat": seat, "current": current, "finished": self.finished,
                "outcome": outcome, "view": view, "legal": legal, "side": side,
                "log_start": log_from, "log": log, "seats": self.seats_info(),
                "broken": self.broken, "expired": self.expired, "waiting": self.waiting,
                "clock": self.clock_info(), "next_table": self.next_table, "hints": self.hints}

    async def hint(self, seat: int | None) -> dict[str, Any]:
        """A suggested move for ``seat`` at a table created with hints: the table's default
        search bot decides from that seat's view only (in the bot pool). Returns the ``hint``
        message ``{"type": "hint", "ply", "action"}`` (the action in notation, legal at that
        ply). Raises ``Refusal`` (``no_hints``, ``spectator``, ``not_your_turn``, ``busy``,
        ``finished``, ``expired``, ``table_broken``)."""
        from regalia.server.botrunner import decide

        if not self.hints:
            raise Refusal("no_hints", "this table was created without hints")
        if seat is None:
            raise Refusal("spectator", "spectators cannot ask for a hint")
        self._check_open()
        g, st, ply = self.game, self.state, self.ply
        if g.current_seat(st) != seat or self.seats[seat].by_bot:
            raise Refusal("not_your_turn", "a hint is given only when it is your turn")
        if self._hinting:
            raise Refusal("busy", "a hint is already being worked out; wait a moment")
        self._hinting = True
        try:
            legal = list(g.legal_actions(st))
            action = await self.manager.bots.run(
                decide, g.name, gamekit.default_bot(g.name), g.view(st, seat), legal,
                self.bot_rng.getrandbits(64), self.manager.settings.bot_budget)
        finally:
            self._hinting = False
        return {"type": "hint", "ply": ply, "action": g.action_to_text(st, action)}

    @property
    def open(self) -> bool:
        """Moves are accepted: not finished, not expired, not broken."""
        return not self.finished and not self.expired and self.broken is None

    # -- connections -----------------------------------------------------------------

    def join(self, conn: Conn, seat: int | None) -> None:
        conn.seat = seat
        conn.log_sent = 0
        self.conns.add(conn)
        self.last_active = time.monotonic()
        conn.put({"type": "welcome", "table": self.id, "game": self.game.name, "seat": seat,
                  "players": len(self.seats), "options": self.config,
                  "talk": "say" if self.game.name == "regicide" else "chat",
                  "sayings": list(gamekit.SAYINGS) if self.game.name == "regicide" else [],
                  "spectate": f"/t/{self.id}#s={self.watch_token}" if self.watch_token else None,
                  "open": self.is_open})
        self._send_state(conn, self.game.view(self.state, seat))
        if self.messages:
            conn.put({"type": "talk_history", "messages": self.messages[-50:]})
        if self.broken:
            conn.put(self.broken_message())
        if seat is not None:  # a spectator changes nobody's seat list
            self._seats_changed()

    def leave(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self.last_active = time.monotonic()
            if conn.seat is not None:
                self._seats_changed()

    def spectators(self) -> int:
        return sum(1 for c in self.conns if c.seat is None)

    def _send_state(self, conn: Conn, view: dict[str, Any]) -> None:
        msg = self.state_message(conn.seat, view, conn.log_sent)
        conn.log_sent = msg["log_start"] + len(msg["log"])
        conn.put(msg)

    def broadcast_state(self) -> None:
        views: dict[int | None, dict[str, Any]] = {}
        for conn in list(self.conns):
            if conn.seat not in views:
                views[conn.seat] = self.game.view(self.state, conn.seat)
            self._send_state(conn, views[conn.seat])

    def _seats_changed(self) -> None:
        """Send the seat list once for all the joins and leaves of the next moment."""
        if self._seats_timer is None:
            self._seats_timer = asyncio.get_running_loop().call_later(SEATS_FLUSH, self._flush_seats)

    def _flush_seats(self) -> None:
        self._seats_timer = None
        self.broadcast({"type": "seats", "seats": self.seats_info()})

    def broadcast(self, msg: dict[str, Any]) -> None:
        text = encode(msg)
        for conn in list(self.conns):
            conn.put_text(text)

    def broken_message(self) -> dict[str, Any]:
        return {"type": "error", "code": "table_broken", "ply": self.ply,
                "message": f"this table cannot go on: {self.broken}. The moves so far are "
                           "saved; the server's operator has been told."}

    def mark_broken(self, reason: str) -> None:
        """The table cannot go on: its players are told, ``/healthz`` reports it."""
        if self.broken is None:
            self.broken = reason
            log.error("table %s is broken: %s", self.id, reason)
            self.broadcast(self.broken_message())
            self.broadcast_state()

    # -- moves -----------------------------------------------------------------------

    def _try(self, seat: int | None, action: str) -> Move:
        """Validate ``action`` and compute the position after it, leaving the table as it
        is. Raises ``RegaliaError`` (an illegal action)."""
        m = self.match
        before, rng_before = m.state, m.rng.getstate()
        mover = self.game.current_seat(before)
        try:
            events = m.play(action)
            return Move(seat, m.actions.pop(), seat is not None and seat != mover,
                        m.state, m.rng.getstate(), events)
        finally:
            m.state = before
            m.rng.setstate(rng_before)

    def _commit(self, move: Move) -> None:
        """Apply a validated (and stored) move: every part of the table at once."""
        m = self.match
        m.state = move.state
        m.rng.setstate(move.rng_state)
        m.actions.append(move.text)
        self.move_seats.append(move.seat)
        self.side_move.append(move.side)
        if not move.side:
            self.wished.clear()
        if move.clock is not None:
            self.clock = move.clock

    async def submit(self, seat: int | None, action: Any, ply: Any = None, *,
                     by_bot: bool = False) -> list[Any]:
        """Validate, store, apply and announce ``action`` of ``seat``; returns the events.

        ``ply`` is the number of moves the submitter saw; a side action may leave it out.
        Raises ``Refusal`` (nothing changed).
        """
        if seat is None:
            raise Refusal("spectator", "spectators cannot act")
        if not isinstance(action, str) or not action.strip() or len(action) > MAX_ACTION:
            raise Refusal("bad_action", f"action: give the action as text, at most "
                                        f"{MAX_ACTION} characters, e.g. 'play 5C'")
        if ply is not None and (type(ply) is not int or ply < 0):
            raise Refusal("bad_message", "ply: must be the number of moves you saw (an integer)")
        async with self.lock:
            self._check_open()
            g, st = self.game, self.state
            if self.seats[seat].by_bot and not by_bot:
                raise Refusal("bot_seat", "a bot is playing this seat: take the seat back first")
            if self.waiting:
                free = sum(1 for s in self.seats if s.kind == HUMAN and not s.claimed)
                raise Refusal("waiting", f"waiting for players: {free} seat(s) of this open "
                                         "table are still free")
            current = g.current_seat(st)
            owner = gamekit.side_owner(action.strip())
            if owner is not None and owner != seat:
                raise Refusal("wrong_seat", f"seat {seat} may only state its own wish")
            if owner is None and current != seat:
                raise Refusal("not_your_turn",
                              f"it is not your turn: seat {current} is to act")
            if ply is None and owner is None:
                raise Refusal("bad_message", "ply: an action needs the ply you saw")
            if ply is not None and ply != self.ply:
                if ply > self.ply or not self._only_others_side_moves_since(ply, seat):
                    raise Refusal("stale", f"stale submission: you saw ply {ply} but the game "
                                           f"is at ply {self.ply}; nothing was applied")
            try:
                move = self._try(seat, action.strip())
            except RegaliaError as e:
                # The engine's reason may list the acting seat's own hand: only that seat
                # is ever told (and a side action's reason names nobody's cards).
                reason = e.reason() if isinstance(e, IllegalAction) else None
                raise Refusal("illegal", str(e), reason) from None
            move.clock = self._clock_after(seat, move.side)
            try:
                await self.manager.append_move(self.id, self.ply, seat, move.text,
                                               g.is_terminal(move.state),
                                               move.clock.to_json() if move.clock else None)
            except asyncio.CancelledError:
                # Only at shutdown: whether the move was stored is unknown here, and the
                # database is the truth the next start rebuilds from.
                self.closing = True
                raise
            except Conflict:
                raise Refusal("stale", "stale submission: another move was stored at "
                                       "this ply; nothing was applied") from None
            except Exception as e:
                log.error("table %s: storing ply %s failed: %s", self.id, self.ply, e)
                raise Refusal("storage", "the move could not be saved (the server's database "
                                         "refused it); nothing was applied: try again") from None
            self._commit(move)
            self.broadcast_state()
            self.arm_clock()
        self.last_active = time.monotonic()
        self.manager.moves_applied += 1
        self.wake.set()
        return move.events

    def _check_open(self) -> None:
        if self.finished:
            raise Refusal("finished", "the game is over: no action is allowed")
        if self.expired:
            raise Refusal("expired", "this table was abandoned (no move for a long time) and "
                                     "is closed; start a new table")
        if self.broken:
            raise Refusal("table_broken", f"this table cannot go on: {self.broken}")

    def _only_others_side_moves_since(self, ply: int, seat: int) -> bool:
        """Every move after ``ply`` is another seat's side action (a wish): the submitter's
        picture of the game is still right, so its action is not stale."""
        return all(self.side_move[i] and self.move_seats[i] != seat
                   for i in range(ply, self.ply))

    async def set_bot(self, by_seat: int | None, seat: Any, on: Any) -> None:
        """Hand a human seat to a bot (``on``) or take it back. A seat may hand itself over or
        take itself back; any seated player may hand over a human seat nobody is connected
        to."""
        if by_seat is None:
            raise Refusal("spectator", "spectators cannot change seats")
        if type(seat) is not int or not 0 <= seat < len(self.seats) or type(on) is not bool:
            raise Refusal("bad_message", "bot: give seat (a seat number) and on (true/false)")
        s = self.seats[seat]
        if s.kind != HUMAN:
            raise Refusal("wrong_seat", f"seat {seat} is a bot seat")
        if on and seat != by_seat and any(c.seat == seat for c in self.conns):
            raise Refusal("wrong_seat", f"seat {seat} is connected: only that player may "
                                        "hand it to a bot")
        if not on and seat != by_seat:
            raise Refusal("wrong_seat", "only the seat's own player may take it back")
        async with self.lock:
            self._check_open()
            if s.bot_replaces == on:
                return
            clock = None
            if self.clock is not None:
                clock = self.clock.copy()
                clock.settle(self.running_seat(), wall())
                if not on and seat in clock.timed_out:
                    clock.timed_out.discard(seat)
                    clock.banks[seat] = max(clock.banks[seat], RETURN_BANK, clock.increment)
            await self.manager.write(self.manager.store.set_bot_replaces, self.id, seat, on,
                                     clock.to_json() if clock else None)
            s.bot_replaces = on
            if clock is not None:
                self.clock = clock
            self.broadcast_state()
            self.arm_clock()
        self.wake.set()

    # -- people ----------------------------------------------------------------------

    async def claim(self, seat: int, name: Any) -> None:
        """The seat's link was used: the seat is held (and named ``name`` when it is a valid
        nickname; an invalid one leaves the name as it was). When this was the last free
        human seat, the clocks start. Raises ``Refusal("storage")``."""
        s = self.seats[seat]
        name = gamekit.clean_name(name) if name is not None else None
        async with self.lock:
            if s.claimed and (name is None or name == s.name) and not self._clock_to_start():
                return
            await self._update_seat(seat, claimed=True, name=name or s.name)

    async def rename(self, seat: int | None, name: Any) -> None:
        """A ``name`` message: the seat's player changes their nickname."""
        if seat is None:
            raise Refusal("spectator", "spectators have no name at the table")
        clean = gamekit.clean_name(name)
        if clean is None:
            raise Refusal("bad_message", f"name: 1 to {gamekit.NAME_MAX} characters of text")
        async with self.lock:
            await self._update_seat(seat, claimed=True, name=clean)

    async def take_free_seat(self, name: Any) -> tuple[int, str]:
        """Seat a newcomer from the lobby at this open table: the first free human seat gets
        a new secret token (an invitation link made for it stops working) and the name.
        Returns ``(seat, token)``. Raises ``Refusal`` (``not_open``, ``full``,
        ``bad_request``, ``storage``)."""
        clean = gamekit.clean_name(name)
        if clean is None:
            raise Refusal("bad_request", f"name: 1 to {gamekit.NAME_MAX} characters of text")
        async with self.lock:
            if not self.is_open or not self.open:
                raise Refusal("not_open", "this table is not open to join from the lobby")
            connected = {c.seat for c in self.conns}
            free = [s for s in self.seats if s.kind == HUMAN and not s.claimed
                    and s.index not in connected]
            if not free:
                raise Refusal("full", "this table has no free seat any more")
            seat = free[0]
            token = secrets.token_urlsafe(18)
            await self._update_seat(seat.index, claimed=True, name=clean,
                                    token_hash=token_hash(token))
        self.wake.set()
        return seat.index, token

    async def _update_seat(self, seat: int, **values: Any) -> None:
        """Store and apply a seat change (under the lock); starts the clocks when the last
        human seat is claimed."""
        s = self.seats[seat]
        clock = None
        if self._clock_to_start(also=seat):
            clock = self.clock.copy()
            clock.start(wall())
        await self.manager.write(partial(self.manager.store.update_seat, self.id, seat,
                                         clock.to_json() if clock else None, **values))
        for k, v in values.items():
            setattr(s, k, v)
        if clock is not None:
            self.clock = clock
        self.last_active = time.monotonic()
        if clock is not None or "token_hash" in values:
            self.broadcast_state()
        else:
            self._seats_changed()
        self.arm_clock()

    # -- clocks ----------------------------------------------------------------------

    def _clock_to_start(self, also: int | None = None) -> bool:
        """The clocks have not started and every human seat is claimed (counting ``also``):
        they start now."""
        return (self.clock is not None and not self.clock.started and self.open
                and all(o.claimed or o.kind != HUMAN or o.index == also for o in self.seats))

    def _clock_after(self, seat: int, side: bool) -> Clock | None:
        """The clocks after a move of ``seat``: the running seat is charged; a turn's
        move of a human seat that ran its clock adds the increment."""
        if self.clock is None:
            return None
        running = self.running_seat()
        clock = self.clock.copy()
        clock.settle(running, wall())
        if not side and running == seat:
            clock.banks[seat] += clock.increment
        return clock

    def arm_clock(self) -> None:
        """Set the alarm for the running seat's time running out (none without one)."""
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        running = self.running_seat()
        if running is None or self.closing:
            return
        left = self.clock.remaining(running, running, wall())
        self._clock_timer = asyncio.get_running_loop().call_later(
            left + 0.01, lambda: asyncio.ensure_future(self._time_out(running)))

    async def _time_out(self, seat: int) -> None:
        """The seat's time ran out: a bot takes it, everyone is told."""
        try:
            async with self.lock:
                if self.closing or self.running_seat() != seat:
                    return
                if self.clock.remaining(seat, seat, wall()) > 0.005:
                    self.arm_clock()
                    return
                clock = self.clock.copy()
                clock.settle(seat, wall())
                clock.timed_out.add(seat)
                await self.manager.write(self.manager.store.set_bot_replaces, self.id, seat,
                                         True, clock.to_json())
                self.seats[seat].bot_replaces = True
                self.clock = clock
                self.broadcast({"type": "timeout", "seat": seat, "ply": self.ply})
                self.broadcast_state()
                self.arm_clock()
        except Refusal:  # the database refused: try again shortly
            if not self.closing:
                self._clock_timer = asyncio.get_running_loop().call_later(
                    1.0, lambda: asyncio.ensure_future(self._time_out(seat)))
            return
        self.wake.set()

    def announce_rematch(self, table_id: str) -> None:
        """Tell every page of this finished table where the rematch is (each page moves to
        it with its own seat token, which the rematch keeps)."""
        self.next_table = table_id
        self.broadcast({"type": "rematch", "table": table_id})

    async def talk(self, conn: Conn, kind: str, payload: Any) -> None:
        """A ``say`` (Regicide's fixed public messages) or ``chat`` (Ribauds) message; at most
        ``talk_rate`` per seat, whatever its number of connections."""
        if conn.seat is None:
            raise Refusal("spectator", "spectators cannot send messages")
        if kind == "say":
            said = gamekit.say(self.game, self.state, conn.seat, payload) if isinstance(payload, str) else None
            if said is None:
                if self.game.name == "regicide":
                    raise Refusal("bad_message", "message_id: choose one of "
                                  + ", ".join(gamekit.SAYINGS))
                raise Refusal("bad_message", "this game has free chat: send type chat")
            body = {"kind": "say", "seat": conn.seat, "ply": self.ply, **said}
        else:
            if not gamekit.chat_allowed(self.game.name):
                raise Refusal("no_chat", "Regicide allows no free chat (rules 1.15): choose "
                                         "one of the allowed messages")
            text = gamekit.clean_chat(payload)
            if text is None:
                raise Refusal("bad_message", f"text: 1 to {gamekit.CHAT_MAX} characters")
            body = {"kind": "chat", "seat": conn.seat, "ply": self.ply, "text": text}
        self.manager.limits.check("talk_rate", self.id, str(conn.seat))
        await self.manager.write(self.manager.store.add_message, self.id, conn.seat, body["kind"], body)
        self.messages.append(body)
        del self.messages[:-100]
        self.last_active = time.monotonic()
        self.broadcast({"type": "talk", **body})

    # -- bots ------------------------------------------------------------------------

    def start(self) -> None:
        if not self.finished and not self.expired:
            self.bots.start()
            self.arm_clock()

    async def stop(self) -> None:
        self.closing = True
        if self._seats_timer is not None:
            self._seats_timer.cancel()
        if self._clock_timer is not None:
            self._clock_timer.cancel()
        await self.bots.stop()
        for conn in list(self.conns):
            conn.close()

    def window(self) -> int:
        """The ply that opened the current side-action window (the last non-side move)."""
        for i in range(self.ply - 1, -1, -1):
            if not self.side_move[i]:
                return i
        return -1

    def bot_job(self) -> tuple[str, int] | None:
        """The next thing a bot has to do: ``("wish", seat)`` or ``("act", seat)``."""
        if self.closing or not self.open or self.waiting:
            return None
        g, st = self.game, self.state
        if hasattr(g, "side_actions"):
            window = self.window()
            for s in self.seats:
                if s.by_bot and (window, s.index) not in self.wished \
                        and gamekit.side_texts(g, st, s.index):
                    return ("wish", s.index)
        current = g.current_seat(st)
        if current is not None and self.seats[current].by_bot:
            return ("act", current)
        return None

    def idle(self) -> bool:
        """Nobody is connected and no bot has anything to do (the table may be unloaded)."""
        return not self.conns and self.bot_job() is None and not self.lock.locked()
