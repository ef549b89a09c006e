"""Tables: one game each, one writer each (design.md, "server").

The server's parts, each with one job: ``tables.table`` (this module: the match and its
move log, of which the table is the only writer), ``tables.audience`` (connections and what
they are sent), ``tables.seats`` (who holds each seat), ``tables.clocks`` (time controls),
``tables.talk`` (table talk, rematch, hints), ``tables.peers`` (the other replicas),
``tables.botrunner`` (the bots' loop and worker pool), ``tables.registry`` (all tables:
loading, unloading, creating), ``storage.writer`` (storing moves and every other change),
``app`` and ``web`` (HTTP and websocket endpoints), ``refusal`` (how the server says no).
A table is handed its collaborators (``TableServices``); it never reaches the registry.

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
from typing import Any, Callable

from regalia.core.errors import IllegalAction, RegaliaError
from regalia.core.game import Event, events_since
from regalia.core.records import Match, without_medal
from regalia.games import get_game
from regalia.server.tables import gamekit
from regalia.server.settings import Settings
from regalia.server.storage.writer import Writer
from regalia.server.tables.botrunner import BotLoop, BotPool
from regalia.server.tables.audience import Broadcaster, Conn
from regalia.server.tables.clocks import Clock, ClockKeeper
from regalia.server.refusal import Refusal
from regalia.server.tables.limits import RateLimits
from regalia.server.tables.peers import Peers, Replicated
from regalia.server.tables.seats import Seat, SeatKeeper
from regalia.server.storage.models import FINISHED, HUMAN, Conflict, SeatHandedOver, TableData
from regalia.server.storage.store import NotSynced
from regalia.server.tables.talk import Talk

__all__ = ["Move", "Table", "TableServices", "without_medal"]

log = logging.getLogger("regalia.server")

MAX_ACTION = 200
MAX_PLY = 1_000_000  # a ply beyond any game: larger numbers are refused as malformed


@dataclass
class Move:
    """A validated move not yet applied to the table (``Table._try``)."""

    seat: int
    text: str
    side: bool
    state: Any
    rng: Any  # the match's random generator after the move
    events: list[Any]
    clock: Clock | None = None  # the clocks after the move (``None``: unchanged)


@dataclass(frozen=True)
class TableServices:
    """What a table is handed by the server (the same for all its tables): ``writer``
    stores its changes, ``limits`` counts its talk and hints, ``bot_pool`` runs its bots'
    decisions and hints, ``settings`` (``bot_budget``, ``bot_delay``, ``wish_wait``),
    ``peers`` reaches the other replicas (``peers.SOLO`` with one process), and
    ``count_move(seconds)`` counts an applied move for ``/healthz``."""

    writer: Writer
    limits: RateLimits
    bot_pool: BotPool
    settings: Settings
    peers: Peers
    count_move: Callable[[float], None]


class Table(Broadcaster, SeatKeeper, ClockKeeper, Talk, Replicated):
    """A game being played at one table (see the module docstring): its match and move
    log, of which it is the only writer (``submit``), and its bots' work (``bot_job``). Its
    connections (``broadcast.Broadcaster``), seats (``seats.SeatKeeper``), clocks
    (``clocks.ClockKeeper``) and talk and hints (``talk.Talk``) are kept by the parts it is
    made of; with many replicas, its copies on the others are kept in step by
    ``replication.Replicated``."""

    def __init__(self, data: TableData, services: TableServices) -> None:
        self.writer = services.writer
        self.limits = services.limits
        self.bot_pool = services.bot_pool
        self.settings = services.settings
        self.peers = services.peers
        self.count_move = services.count_move
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
        # the game log, kept as the moves come (a view is built without it): all events, and
        # the state's persistent log they were read up to
        self.events: list[Event] = events_since(self.match.state.log, None)
        self._events_read = self.match.state.log
        self.move_seats: list[int | None] = []
        self.side_move: list[bool] = []
        self.wished: set[tuple[int, int]] = set()  # (window ply, seat) asked for a wish
        for ply, seat, action in data.moves:
            if ply != len(self.match.actions):
                raise RegaliaError(f"table {self.id}: the move log has a gap at ply {ply}")
            self._commit(self._try(seat, action))
        self.messages: list[dict[str, Any]] = list(data.messages)
        self.conns: set[Conn] = set()
        self.init_replication()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.wake.set()
        self.bots = BotLoop(self)
        self.bot_rng = random.Random(secrets.randbits(64))  # the bots' own secret source
        self.closing = False
        self.broken: str | None = None
        self.last_active = time.monotonic()
        self._seats_timer: asyncio.TimerHandle | None = None
        # per seat: connected at the last seat-list flush, and when it was last seen so
        # (monotonic seconds; a held seat counts as seen when the table is loaded: after a
        # restart, or on a replica that has not yet heard the others' connections, its
        # player may be on the way back; -inf: a seat nobody has held): SeatKeeper.set_bot
        self.seat_connected = [False] * len(self.seats)
        self.seat_seen_at = [self.last_active if s.claimed else float("-inf")
                             for s in self.seats]
        self._legal_cache: tuple[int, list[str], dict[str, Any] | None] = (-1, [], None)

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

    @property
    def waiting(self) -> bool:
        """An open table still has a free human seat: nobody may act yet."""
        return self.is_open and any(s.kind == HUMAN and not s.claimed for s in self.seats)

    @property
    def options(self) -> dict[str, Any]:
        """The table's rule options as it was created with them: its config without
        ``players``."""
        return {k: v for k, v in self.config.items() if k != "players"}

    def summary(self) -> dict[str, Any]:
        """Public facts about the table (lobby lists)."""
        return {"id": self.id, "game": self.game.name, "players": len(self.seats),
                "status": FINISHED if self.finished else self.status, "ply": self.ply,
                "current": self.game.current_seat(self.state), "seats": self.seats_info(),
                "options": self.options,
                "created_at": self.created_at.isoformat() if self.created_at else None,
                "outcome": self.outcome(), "broken": self.broken,
                "open": self.is_open, "waiting": self.waiting, "clock": self.clock_info(),
                "next_table": self.next_table, "hints": self.hints}

    def outcome(self) -> dict[str, Any] | None:
        """The finished game's public result (``None`` while playing); no medal for a game
        played with hints."""
        out = gamekit.outcome(self.game, self.state)
        return without_medal(out) if self.hints else out

    def state_message(self, seat: int | None, view: dict[str, Any], log_from: int) -> dict[str, Any]:
        """The ``state`` message for a connection of ``seat``: its view (``Game.view``
        without the log), the log's events from ``log_from`` as ``seat`` sees them, and its
        legal actions when it is to act (``legal`` and ``discards``:
        ``gamekit.legal_message``)."""
        g, st = self.game, self.state
        current = g.current_seat(st)
        legal: list[str] = []
        discards = None
        side: list[str] = []
        if seat is not None and self.open and not self.waiting and not self.seats[seat].by_bot:
            if current == seat:
                if self._legal_cache[0] != self.ply:
                    self._legal_cache = (self.ply, *gamekit.legal_message(g, st))
                _, legal, discards = self._legal_cache
            side = gamekit.side_texts(g, st, seat)
        outcome = self.outcome()
        log = [e.seen_by(seat) for e in self.events[log_from:]]
        if self.hints:  # a game played with hints earns no medal
            view, log = without_medal(view), [without_medal(e) for e in log]
        return {"type": "state", "table": self.id, "game": g.name, "ply": self.ply,
                "seat": seat, "current": current, "finished": self.finished,
                "outcome": outcome, "view": view, "legal": legal, "discards": discards,
                "side": side,
                "log_start": log_from, "log": log, "seats": self.seats_info(seat),
                "broken": self.broken, "expired": self.expired, "waiting": self.waiting,
                "clock": self.clock_info(), "next_table": self.next_table, "hints": self.hints}

    @property
    def open(self) -> bool:
        """Moves are accepted: not finished, not expired, not broken."""
        return not self.finished and not self.expired and self.broken is None

    def mark_broken(self, reason: str) -> None:
        """The table cannot go on: its players are told, ``/healthz`` reports it."""
        if self.broken is None:
            self.broken = reason
            log.error("table %s is broken: %s", self.id, reason)
            self.broadcast(self.broken_message())
            self.broadcast_state()

    # -- moves -----------------------------------------------------------------------

    def _try(self, seat: int | None, action: int | str, text: str | None = None) -> Move:
        """Validate ``action`` (a code or text; ``text``: a code's text, when known) and
        compute the position after it, leaving the table as it is. Raises ``RegaliaError``
        (an illegal action)."""
        m = self.match
        before, rng_before = m.state, m.rng  # Match.play replaces the generator it draws from
        mover = self.game.current_seat(before)
        try:
            events = m.play(action, text)
            return Move(seat, m.actions.pop(), seat is not None and seat != mover,
                        m.state, m.rng, events)
        finally:
            m.state, m.rng = before, rng_before

    def _commit(self, move: Move) -> None:
        """Apply a validated (and stored) move: every part of the table at once."""
        m = self.match
        m.state = move.state
        m.rng = move.rng
        m.actions.append(move.text)
        self.events += events_since(move.state.log, self._events_read)
        self._events_read = move.state.log
        self.move_seats.append(move.seat)
        self.side_move.append(move.side)
        if not move.side:
            self.wished.clear()
        if move.clock is not None:
            self.set_clock(move.clock)

    async def submit(self, seat: int | None, action: Any, ply: Any = None, *,
                     by_bot: bool = False) -> list[Any]:
        """Validate, store, apply and announce ``action`` of ``seat``; returns the events.

        ``ply`` is the number of moves the submitter saw; a side action may leave it out.
        Raises ``Refusal`` (nothing changed).
        """
        submitted = time.perf_counter()
        if seat is None:
            raise Refusal("spectator", "spectators cannot act")
        if not isinstance(action, str) or not action.strip() or len(action) > MAX_ACTION:
            raise Refusal("bad_action", f"action: give the action as text, at most "
                                        f"{MAX_ACTION} characters, e.g. 'play 5C'")
        if ply is not None and (type(ply) is not int or not 0 <= ply <= MAX_PLY):
            raise Refusal("bad_message", "ply: must be the number of moves you saw (an integer "
                                         f"from 0 to {MAX_PLY})")
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
            # whose action it is, from the engine's reading (it reads any case and spacing)
            try:
                code: int | str = g.action_from_text(st, action.strip())
                action = g.action_to_text(st, code)
            except RegaliaError:
                code = action = action.strip()  # refused below, with the engine's reason
            owner = gamekit.side_owner(action)
            if owner is not None and owner != seat:
                raise Refusal("wrong_seat", f"seat {seat} may only state its own wish")
            if owner is None and current != seat:
                raise Refusal("not_your_turn",
                              f"it is not your turn: seat {current} is to act")
            if ply is None and owner is None:
                raise Refusal("bad_message", "ply: an action needs the ply you saw")
            if ply is not None and ply != self.ply:
                if ply > self.ply:
                    raise Refusal("stale", f"ply {ply} is ahead of the game, which is at ply "
                                           f"{self.ply}: send the ply of the last state you "
                                           "received; nothing was applied")
                if not self._only_others_side_moves_since(ply, seat):
                    raise Refusal("stale", f"stale submission: you saw ply {ply} but the game "
                                           f"is at ply {self.ply}; nothing was applied")
            try:
                move = self._try(seat, code, action)
            except RegaliaError as e:
                # The engine's reason may list the acting seat's own hand: only that seat
                # is ever told (and a side action's reason names nobody's cards).
                reason = e.reason() if isinstance(e, IllegalAction) else None
                raise Refusal("illegal", str(e), reason) from None
            if owner is not None and not by_bot:  # a wish says something: counted as talk
                await self.limits.hit("talk_rate", self.id, str(seat))
            move.clock = self._clock_after(seat, move.side)
            try:
                await self.writer.append_move(self.id, self.ply, seat, move.text,
                                               g.is_terminal(move.state),
                                               move.clock.to_json() if move.clock else None,
                                               human=move.clock is not None and not by_bot)
            except asyncio.CancelledError:
                # Only at shutdown: whether the move was stored is unknown here, and the
                # database is the truth the next start rebuilds from.
                self.closing = True
                raise
            except SeatHandedOver:  # another replica's clock handed the seat to a bot first
                self.request_sync()
                raise Refusal("bot_seat", "your time ran out: a bot is playing this seat; "
                                          "take the seat back first") from None
            except Conflict:  # another replica stored this ply first: catch up
                self.request_sync()
                raise Refusal("stale", "stale submission: another move was stored at "
                                       "this ply; nothing was applied") from None
            except NotSynced:  # stored, or not: the database says which
                self.request_sync()
                raise Refusal("storage", "the server's disk failed; the move may not have "
                                         "been saved: reload to see") from None
            except Exception as e:
                log.error("table %s: storing ply %s failed: %s", self.id, self.ply, e)
                raise Refusal("storage", "the move could not be saved (the server's database "
                                         "refused it); nothing was applied: try again") from None
            self._commit(move)
            self.broadcast_state()
            self.tell_others("move", ply=self.ply - 1, seat=seat, action=move.text,
                             clock=move.clock.to_json() if move.clock else None)
            self.arm_clock()
        self.last_active = time.monotonic()
        self.count_move(time.perf_counter() - submitted)
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

    # -- bots ------------------------------------------------------------------------

    def start(self) -> None:
        if not self.finished and not self.expired:
            self.bot_pool.warm_soon()  # a bot may play any seat (hand-over, clock)
            self.bots.start()
            self.arm_clock()

    async def stop(self) -> None:
        self.closing = True
        if self._seats_timer is not None:
            self._seats_timer.cancel()
        if self._clock_timer is not None:
            self._clock_timer.cancel()
        if self._sync_task is not None:
            self._sync_task.cancel()
        await self.bots.stop()
        for conn in list(self.conns):
            conn.close()

    async def expire(self) -> None:
        """The table was marked abandoned in the database (no move for a long time): it
        accepts no move any more, its bots stop, its connections are told."""
        self.status = "abandoned"
        await self.bots.stop()
        self.broadcast_state()

    def window(self) -> int:
        """The ply that opened the current side-action window (the last non-side move)."""
        for i in range(self.ply - 1, -1, -1):
            if not self.side_move[i]:
                return i
        return -1

    def bot_job(self) -> tuple[str, int] | None:
        """The next thing a bot has to do: ``("wish", seat)`` or ``("act", seat)``; none
        where another replica runs the table's bots."""
        if self.closing or not self.open or self.waiting or not self.runs_bots:
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
        """Nobody is connected, no bot has anything to do and no clock runs here (the
        table may be unloaded)."""
        return (not self.conns and self.bot_job() is None and not self.lock.locked()
                and not (self.runs_bots and self.running_seat() is not None))
