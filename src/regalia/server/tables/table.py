"""Tables: one game each, one writer each (design.md, "server").

A ``Table`` is composed of parts, each with one job and its own state, built by the table
and handed what they need (``TableServices``: the writer, the limits, the bot pool, the
settings, the peers; and callbacks into the other parts). No part reaches the registry,
and none imports a sibling part above it:

* ``core.TableCore``: the match (config + seed + move log, so it is rebuilt identically
  from the database), seats, status, lock; read by every part, its match changed only here;
* ``audience.Audience``: the connections and what each is sent (``broadcast_state``);
* ``seats.Seating``: who holds each seat, names, hand-over to bots and back;
* ``clocks.TableClock``: the clocks, written from this one part, and the time-out alarm;
* ``talk.Talk``: table talk, the rematch's address, hints;
* ``endings.Endings``: the players end the game before its rules do (a concession, a stop
  everyone agreed to);
* ``peers.Replica``: the other replicas (``peers.SOLO`` with one process: nothing to do);
* ``botrunner.BotLoop``: the task that plays the bot seats.

The web layer calls the parts (``table.seating.claim``, ``table.audience.join``,
``table.talk.say``, ``table.endings.concede``) and ``Table.submit``. Every submission goes
through ``Table.submit`` under the table's lock:

1. the seat may act (the seat to act, or a side action of its own), and the client's ply is
   current (a stale or duplicate submission is refused: two tabs, a double click):
   ``submission.check_turn``;
2. the engine validates the move on a copy (``submission.try_move``): the table is not
   touched;
3. the move row (``ply = len(moves)``) is stored in a transaction; if that fails the move is
   refused and nothing changed (``submission.store_move``);
4. only then is the move applied to the table, all its bookkeeping at once with no ``await``
   in between (``Table._commit``), and everyone told (``Audience.broadcast_state``: each
   connection receives ``view(state, its seat)``), then the other replicas
   (``Replica.tell_others``), and the clock re-armed; the bots' loop is woken.

So any other task (the bot loop, a joining connection) that looks at the table during the
durable write sees the position before the move, consistent in every part.

Everything a connection receives is built from ``Game.view`` for its seat (spectators:
``None``); an engine refusal, which may list the acting seat's hand, is only ever sent to
that seat. Bots are played by ``botrunner.BotLoop``.

A table waits until every human seat is claimed or handed to a bot (``seats``); then the
human seat to act runs its clock, if the table has one (``clocks``). At a turn-based table,
a change stored here that makes it another human seat's turn is told to
``TableServices.your_turn`` (the player's notifications: ``web.push``).
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

from regalia.core.records import without_medal
from regalia.server.settings import Settings
from regalia.server.storage.models import FINISHED, HUMAN
from regalia.server.storage.values import TableData
from regalia.server.storage.writer import Writer
from regalia.server.tables import gamekit
from regalia.server.tables.audience import Audience
from regalia.server.tables.botpool import BotPool
from regalia.server.tables.botrunner import BotLoop
from regalia.server.tables.clocks import Clock, TableClock
from regalia.server.tables.core import Move, TableCore
from regalia.server.tables.endings import Endings
from regalia.server.tables.limits import RateLimits
from regalia.server.tables.peers import Peers, Replica
from regalia.server.tables.seats import Seating
from regalia.server.tables.submission import check_form, check_turn, store_move, try_move
from regalia.server.tables.talk import Talk

__all__ = ["Move", "Table", "TableServices", "without_medal"]

log = logging.getLogger("regalia.server")


@dataclass(frozen=True)
class TableServices:
    """What a table is handed by the server (the same for all its tables): ``writer``
    stores its changes, ``limits`` counts its talk and hints, ``bot_pool`` runs its bots'
    decisions and hints, ``settings`` (``bot_budget``, ``bot_delay``, ``wish_wait``),
    ``peers`` reaches the other replicas (``peers.SOLO`` with one process),
    ``count_move(seconds)`` counts an applied move for ``/healthz``, and
    ``game_over(table_id, scores)`` is told the end of a rated game this replica stored
    (its last move or its ending; ``scores``: per seat, 1 won, 0 lost), to rate it, and
    ``your_turn(table, seat)`` that a change stored here made it a human seat's turn at a
    turn-based table (its player may be notified; it must not block: the move waits for
    nothing)."""

    writer: Writer
    limits: RateLimits
    bot_pool: BotPool
    settings: Settings
    peers: Peers
    count_move: Callable[[float], None]
    game_over: Callable[[str, list[float]], None] | None = None
    your_turn: Callable[["Table", int], None] | None = None


def _core(name: str, doc: str | None = None) -> Any:
    """A property of the table that is its core's attribute ``name`` (``TableCore``)."""
    return property(lambda self: getattr(self.core, name),
                    lambda self, value: setattr(self.core, name, value), doc=doc)


class Table:
    """A game being played at one table (see the module docstring): its match and move
    log, of which it is the only writer (``submit``), its bots' work (``bot_job``), and the
    parts it is composed of, each handed what it needs when the table is built: ``core``
    (``core.TableCore``: the match, seats and status they all read), ``replica``
    (``peers.Replica``: the other replicas), ``clock`` (``clocks.TableClock``),
    ``audience`` (``audience.Audience``: its connections), ``seating`` (``seats.Seating``),
    ``talk`` (``talk.Talk``: talk, rematch, hints) and ``endings`` (``endings.Endings``: a
    concession, a stop agreed by all)."""

    def __init__(self, data: TableData, services: TableServices) -> None:
        self.writer = services.writer
        self.limits = services.limits
        self.bot_pool = services.bot_pool
        self.settings = services.settings
        self.count_move = services.count_move
        self.on_game_over = services.game_over
        self.on_your_turn = services.your_turn
        self.core = core = TableCore(data)
        self.bot_rng = random.Random(secrets.randbits(64))  # the bots' own secret source
        self.replica = replica = Replica(
            core, services.peers, self.writer,
            local_presence=lambda: self.audience.local_presence(),
            seats_changed=lambda: self.audience.seats_changed(),
            broadcast=lambda msg: self.audience.broadcast(msg),
            commit=self._commit,
            stored_clock=lambda config, state: self.clock.stored(config, state),
            heard=lambda body: self.talk.heard(body),
            missed_talk=lambda bodies: self.talk.missed(bodies),
            rematch=lambda table_id: self.talk.announce_rematch(table_id),
            stop_heard=lambda event: self.endings.heard(event),
            show_change=self._show_change)
        self.clock = clock = TableClock(
            Clock.load(data.clock, data.clock_state, len(core.seats)) if data.clock else None,
            core, self.writer, partial(services.peers.holds, core.id), replica,
            timed_out=self._timed_out)
        self.audience = audience = Audience(
            core, state_message=self.state_message, seats_info=self.seats_info,
            history=lambda: self.talk.messages, presence=replica.presence,
            presence_changed=replica.presence_changed,
            presence_every=self.settings.presence_every)
        self.seating = Seating(
            core, clock, self.writer, self.limits, replica, presence=replica.presence,
            seen_at=audience.seen_at, broadcast_state=self._seats_moved,
            seats_changed=audience.seats_changed, tell_others=replica.tell_others)
        self.talk = Talk(core, self.writer, self.limits, self.bot_pool, self.settings,
                         self.bot_rng, replica, list(data.messages),
                         broadcast=audience.broadcast, tell_others=replica.tell_others)
        self.endings = Endings(core, clock, self.writer, self.limits, replica,
                               broadcast=audience.broadcast,
                               broadcast_state=audience.broadcast_state,
                               tell_others=replica.tell_others, game_over=self._game_over)
        self.bots = BotLoop(self)
        self._legal_cache: tuple[int, list[str], dict[str, Any] | None] = (-1, [], None)
        self._turn_seen = self.clock.running_seat()  # the human seat last known to act

    # -- the core's state, as the table's ---------------------------------------------

    id = _core("id")
    game = _core("game")
    config = _core("config")
    seed = _core("seed")
    status = _core("status")
    seats = _core("seats")
    is_open = _core("is_open")
    hints = _core("hints")
    next_table = _core("next_table")
    match = _core("match")
    move_seats = _core("move_seats")
    side_move = _core("side_move")
    wished = _core("wished")
    lock = _core("lock")
    wake = _core("wake")
    closing = _core("closing")
    broken = _core("broken")
    last_active = _core("last_active")
    ply = _core("ply")
    state = _core("state")
    finished = _core("finished")
    expired = _core("expired")
    waiting = _core("waiting", "A human seat was never taken and no bot plays it: nobody may "
                               "act.")
    open = _core("open", "Moves are accepted: not finished, not expired, not broken.")
    options = _core("options")

    def window(self) -> int:
        """The ply that opened the current side-action window (``TableCore.window``)."""
        return self.core.window()

    # -- what it shows ---------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Public facts about the table (lobby lists)."""
        core = self.core
        return {"id": core.id, "game": core.game.name, "players": len(core.seats),
                "status": FINISHED if core.finished else core.status, "ply": core.ply,
                "current": core.current_seat(), "seats": self.seats_info(),
                "options": core.options,
                "created_at": core.created_at.isoformat() if core.created_at else None,
                "outcome": self.outcome(),
                "ending": core.ending.to_json() if core.ending else None,
                "broken": core.broken,
                "open": core.is_open, "waiting": core.waiting, "clock": self.clock.info(),
                "next_table": core.next_table, "hints": core.hints,
                "bot_played": core.bot_played, "rated": core.rated}

    def seats_info(self, for_seat: int | None = None) -> list[dict[str, Any]]:
        """The seat list as ``for_seat`` sees it (``Seating.seats_info``, the others'
        connections as shown: ``Audience.shown``)."""
        return self.audience.shown(self.seating.seats_info(for_seat), for_seat)

    def outcome(self) -> dict[str, Any] | None:
        """The finished game's public result (``None`` while playing; ``gamekit.outcome``,
        which says how its players ended it, when they did); no medal for a game played with
        hints or one a bot played any part of for a person."""
        out = gamekit.outcome(self.core.game, self.core.state, self.core.ending,
                              len(self.core.seats))
        return without_medal(out) if self.core.no_medal else out

    def state_message(self, seat: int | None, view: dict[str, Any], log_from: int,
                      seats: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The ``state`` message for a connection of ``seat``: its view (``Game.view``
        without the log), its seat list (``seats``, or else ``seats_info(seat)``), the
        log's events from ``log_from`` as ``seat`` sees them, and its
        legal actions when it is to act (``legal`` and ``discards``:
        ``gamekit.legal_message``), and the proposal to stop under way (``stop``:
        ``Endings.info``)."""
        core = self.core
        g, st = core.game, core.state
        current = core.current_seat()
        legal: list[str] = []
        discards = None
        side: list[str] = []
        if seat is not None and core.open and not core.waiting and not core.seats[seat].by_bot:
            if current == seat:
                if self._legal_cache[0] != core.ply:
                    self._legal_cache = (core.ply, *gamekit.legal_message(g, st))
                _, legal, discards = self._legal_cache
            side = gamekit.side_texts(g, st, seat)
        outcome = self.outcome()
        # "bot": a bot did it for a human seat (the page says "Bot for NAME")
        log = [core.log_entry(i, seat) for i in range(log_from, len(core.events))]
        if core.no_medal:  # played with hints, or a bot played for a person: no medal
            view, log = without_medal(view), [without_medal(e) for e in log]
        return {"type": "state", "table": core.id, "game": g.name, "ply": core.ply,
                "seat": seat, "current": current, "finished": core.finished,
                "outcome": outcome, "view": view, "legal": legal, "discards": discards,
                "side": side,
                "log_start": log_from, "log": log,
                "seats": self.seats_info(seat) if seats is None else seats,
                "broken": core.broken, "expired": core.expired, "waiting": core.waiting,
                "open": core.is_open,
                "clock": self.clock.info(), "next_table": core.next_table,
                "hints": core.hints, "bot_played": core.bot_played,
                "stop": self.endings.info()}

    def mark_broken(self, reason: str) -> None:
        """The table cannot go on: its players are told, ``/healthz`` reports it."""
        if self.core.broken is None:
            self.core.broken = reason
            log.error("table %s is broken: %s", self.core.id, reason)
            self.audience.broadcast(self.audience.broken_message())
            self.audience.broadcast_state()

    # -- moves -----------------------------------------------------------------------

    def _commit(self, move: Move) -> None:
        """Apply a validated (and stored) move: every part of the table at once."""
        self.core.apply(move)
        if move.clock is not None:
            self.clock.set(move.clock)

    async def submit(self, seat: int | None, action: Any, ply: Any = None, *,
                     by_bot: bool = False) -> list[Any]:
        """Validate, store, apply and announce ``action`` of ``seat``; returns the events.

        ``ply`` is the number of moves the submitter saw; a side action may leave it out.
        Raises ``Refusal`` (nothing changed).
        """
        submitted = time.perf_counter()
        check_form(seat, action, ply)
        core = self.core
        async with core.lock:
            core.check_open()
            code, action, owner = check_turn(core, seat, action, ply, by_bot)
            move = try_move(core, seat, code, action)
            if owner is not None and not by_bot:  # a wish says something: counted as talk
                await self.limits.hit("talk_rate", core.id, str(seat))
            move.clock = self.clock.after(seat, move.side)
            move.by_bot = by_bot and core.seats[seat].kind == HUMAN  # a bot for a person
            await store_move(core, self.writer, move, seat, by_bot, self.replica.request_sync)
            self._commit(move)
            self.audience.broadcast_state()
            # only that a move was stored: the action (a face-down card's name) and the
            # clock are read from the database by the replicas that hold this table
            self.replica.tell_others("move", ply=core.ply - 1)
            self.clock.arm()
            self._note_turn(notify=True)
            if core.finished:
                self._game_over()
        core.last_active = time.monotonic()
        self.count_move(time.perf_counter() - submitted)
        core.wake.set()
        return move.events

    def _game_over(self) -> None:
        """The game ended here (this replica stored its last move or its ending): a rated
        game's result goes to be rated (``TableServices.game_over``). Another replica that
        reads the end from the database does not: the ratings are the storing one's (and,
        should it stop first, the catch-up's: ``TableRegistry.settle_ratings``)."""
        if self.core.rated and self.on_game_over is not None:
            out = self.outcome() or {}
            self.on_game_over(self.core.id, [float(r) for r in out.get("returns", [])])

    def _note_turn(self, notify: bool) -> None:
        """Whose turn it is, as the clock runs it (the human seat to act, none for a bot):
        when a change stored here (``notify``: a move, the game's start) made it another
        human seat's turn at a turn-based table, ``TableServices.your_turn`` is told (the
        seat's player may be notified); a change read from another replica, a time-out or
        a seat taken back only updates what is known (that replica, or the player there,
        knows)."""
        seat = self.clock.running_seat()
        fresh = seat is not None and seat != self._turn_seen
        self._turn_seen = seat
        if (notify and fresh and self.on_your_turn is not None and self.clock.data is not None
                and self.clock.data.per_move):
            try:
                self.on_your_turn(self, seat)
            except Exception:  # noqa: BLE001 - a notification never refuses the move made
                log.exception("table %s: telling seat %s it is its turn failed", self.core.id,
                              seat)

    def _timed_out(self, msg: dict[str, Any]) -> None:
        """A seat's time-out is stored and applied (``TableClock``): everyone is told (and
        a proposal to stop the seat's player had not answered may now be agreed)."""
        self.audience.broadcast(msg)
        self.audience.broadcast_state()
        self.replica.tell_others("sync", msg=msg)
        self.endings.recheck()
        self._note_turn(notify=False)

    def _seats_moved(self) -> None:
        """A seat changed hands (``Seating``): everyone is told, and a proposal to stop may
        now be agreed (a seat a bot plays counts as agreeing); when this was the last seat
        waited for, the game starts and its first player may be told it is their turn."""
        self.audience.broadcast_state()
        self.endings.recheck()
        self._note_turn(notify=self._turn_seen is None and self.core.ply == 0)

    def _show_change(self) -> None:
        """Another replica's change is now in this copy: tell the connections here, and
        re-arm the clock and the bots (when this replica runs them)."""
        self.core.last_active = time.monotonic()
        self.audience.broadcast_state()
        self.clock.arm()
        self.core.wake.set()
        self.endings.recheck()
        self._note_turn(notify=False)

    # -- the other replicas (``peers.Replica``; the cluster's ``LeasedTable``) ---------

    @property
    def runs_bots(self) -> bool:
        return self.replica.runs_bots

    def receive(self, event: dict[str, Any]) -> None:
        self.replica.receive(event)

    def request_sync(self, then: dict[str, Any] | None = None) -> None:
        self.replica.request_sync(then)

    def presence_beat(self) -> None:
        self.replica.presence_beat()

    def lease_gained(self) -> None:
        self.clock.arm()
        self.core.wake.set()

    def lease_lost(self) -> None:
        self.clock.arm()  # stops the alarm; the bot loop finds no job any more

    # -- life and bots ---------------------------------------------------------------

    def start(self) -> None:
        """The table was loaded: its bots and clock start (where this replica runs them; the
        time no server served it is not charged, ``TableClock.resume``)."""
        if not self.core.finished and not self.core.expired:
            self.bot_pool.warm_soon()  # a bot may play any seat (hand-over, clock)
            self.bots.start()
            if self.replica.runs_bots:
                self.clock.resume()
            self.clock.arm()

    async def stop(self) -> None:
        self.core.closing = True
        self.audience.stop()
        self.clock.stop()
        self.replica.stop()
        await self.bots.stop()
        self.audience.close_all()

    async def expire(self) -> None:
        """The table was marked abandoned in the database (no move for a long time): it
        accepts no move any more, its bots stop, its connections are told."""
        self.core.status = "abandoned"
        await self.bots.stop()
        self.audience.broadcast_state()

    def bot_job(self) -> tuple[str, int] | None:
        """The next thing a bot has to do: ``("wish", seat)`` or ``("act", seat)``; none
        where another replica runs the table's bots."""
        core = self.core
        if core.closing or not core.open or core.waiting or not self.replica.runs_bots:
            return None
        g, st = core.game, core.state
        if hasattr(g, "side_actions"):
            window = core.window()
            for s in core.seats:
                if s.by_bot and (window, s.index) not in core.wished \
                        and gamekit.side_texts(g, st, s.index):
                    return ("wish", s.index)
        current = g.current_seat(st)
        if current is not None and core.seats[current].by_bot:
            return ("act", current)
        return None

    def idle(self) -> bool:
        """Nobody is connected, no bot has anything to do and no clock runs here, or only a
        turn-based one whose deadline is far (``TableClock.keeps_loaded``: the registry
        loads the table again before it): the table may be unloaded."""
        return (not self.audience.conns and not self.audience.arriving and self.bot_job() is None
                and not self.core.lock.locked()
                and not (self.replica.runs_bots and self.clock.keeps_loaded()))

    def automated(self) -> bool:
        """A bot seat or a clock: they run on the replica that holds the table's lease."""
        return self.clock.data is not None or any(s.by_bot for s in self.core.seats)

    @property
    def wants_lease(self) -> bool:
        """Open and ``automated`` (a seat handed over to a bot: ``Leases.renew`` takes it)."""
        return self.core.open and self.automated()

    def unwatched(self) -> bool:
        """Idle and not ``automated``: another replica's change gives this one nothing to do."""
        return not self.automated() and self.idle()  # (idle asks the bots: the dearer check)
