"""Time control of a table, chosen at creation among the server's presets: a live clock (a
bank of seconds per player and an increment per move, ``Settings.clock_presets``) or a
turn-based one (a number of seconds for each move, no bank: ``Settings.turn_presets``, e.g.
a day per move).

``Clock`` is plain data kept by the table and stored with every change of it (the
``clock_state`` column), so a restart finds every bank and the wall-clock time at which the
running clock started. For a live clock the time the server was down is not charged: a table
loaded where its clock runs (a server's start, a replica taking it over) restarts the
running seat's clock from that moment (``TableClock.resume``), which also gives back the
time that turn had run before the outage (nothing says when the server stopped serving). A
turn-based clock counts real time, a restart included: a day is a day, and a player whose
time ran out while no server ran loses the seat to a bot as soon as a server loads the
table. Its deadline is also stored in a column of its own (``turn_deadline``, from the
``deadline`` of ``Clock.to_json``), so that a turn-based table waiting days for a move need
not stay in memory: the registry unloads it when idle and loads it again
``TURN_LOAD_AHEAD`` seconds before its deadline.

``TableClock`` is the table's part that keeps them: which seat's clock runs (the human seat
to act, never a bot-played one), the clocks after a move, and the alarm that hands a seat to
a bot when its time runs out.

The human seat to act runs its clock from the moment every human seat is claimed; a move
adds the increment (a turn-based clock: fills the time for the next move again); when a
bank runs out the seat is handed to a bot (everyone gets a ``timeout`` message) until its
player takes it back. Bot-played seats never run a clock.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from regalia.server.refusal import Refusal
from regalia.server.storage.models import HUMAN
from regalia.server.storage.values import Conflict
from regalia.server.storage.writer import Rereadable, Writer
from regalia.server.tables.core import TableCore

log = logging.getLogger("regalia.server")

RETURN_BANK = 30.0  # seconds a timed-out player gets back when taking the seat back (at least)
TURN_LOAD_AHEAD = 120.0  # seconds before a turn-based deadline its table must be loaded


def wall() -> float:
    """Seconds since the epoch (wall clock: it must mean the same after a restart)."""
    return time.time()


def _log_failure(task: asyncio.Task) -> None:
    """A background store of the clocks that failed: logged (the next change stores them)."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("storing a table's resumed clock failed: %s", task.exception())


@dataclass
class Clock:
    """The banks of one table, in seconds. ``since``: wall time from which the running seat
    is charged (``None`` until the clocks start: every human seat taken); ``timed_out``:
    seats whose time ran out and that a bot plays until their player takes them back.
    ``per_move``: a turn-based clock: ``bank`` is the time for each move (every move fills
    the banks again), ``increment`` 0."""

    preset: str
    bank: float
    increment: float
    banks: list[float]
    since: float | None = None
    timed_out: set[int] = field(default_factory=set)
    per_move: bool = False

    @classmethod
    def new(cls, preset: str, bank: float, increment: float, players: int,
            per_move: bool = False) -> "Clock":
        return cls(preset, bank, increment, [bank] * players, per_move=per_move)

    @classmethod
    def load(cls, config: dict[str, Any], state: dict[str, Any] | None, players: int) -> "Clock":
        c = cls.new(config["preset"], float(config["bank"]), float(config["increment"]), players,
                    bool(config.get("per_move")))
        if state:
            c.banks = [float(b) for b in state["banks"]]
            c.since = state.get("since")
            c.timed_out = set(state.get("timed_out") or [])
        return c

    def config(self) -> dict[str, Any]:
        """What the table stores of its time control (the ``clock`` column): ``{"preset",
        "bank", "increment"}`` and, for a turn-based clock, ``"per_move": true``."""
        out: dict[str, Any] = {"preset": self.preset, "bank": self.bank,
                               "increment": self.increment}
        if self.per_move:
            out["per_move"] = True
        return out

    def to_json(self) -> dict[str, Any]:
        """The stored state (the ``clock_state`` column): ``banks`` (seconds), ``since``
        (wall seconds) and ``timed_out`` (seats); a turn-based clock adds its ``deadline``
        (``deadline()``), which the store also keeps in a column of its own."""
        out: dict[str, Any] = {"banks": [round(b, 3) for b in self.banks], "since": self.since,
                               "timed_out": sorted(self.timed_out)}
        if self.per_move:
            out["deadline"] = self.deadline()
        return out

    def deadline(self) -> float | None:
        """A turn-based clock's next deadline (wall seconds): when the first seat still
        playing for itself runs out of time if its clock runs (only the seat to act runs;
        the others' banks are full); ``None`` before the clocks start, for a live clock and
        when every seat timed out."""
        if not self.per_move or self.since is None:
            return None
        left = [b for k, b in enumerate(self.banks) if k not in self.timed_out]
        return round(self.since + min(left), 3) if left else None

    def copy(self) -> "Clock":
        return Clock(self.preset, self.bank, self.increment, list(self.banks), self.since,
                     set(self.timed_out), self.per_move)

    def give_back(self, seat: int) -> None:
        """A timed-out seat's player takes it back: the seat gets at least ``RETURN_BANK``
        seconds (a live clock) or a whole move's time (turn-based)."""
        self.timed_out.discard(seat)
        self.banks[seat] = (self.bank if self.per_move
                            else max(self.banks[seat], RETURN_BANK, self.increment))

    @property
    def started(self) -> bool:
        return self.since is not None

    def remaining(self, seat: int, running: int | None, now: float) -> float:
        """Seconds left to ``seat`` at ``now`` (``running``: the seat whose clock runs)."""
        if seat == running and self.since is not None:
            return max(0.0, self.banks[seat] - (now - self.since))
        return self.banks[seat]

    def settle(self, running: int | None, now: float) -> None:
        """Charge the running seat the time since ``since`` and restart counting at ``now``
        (call it before anything changes which seat runs). A stopped clock stays stopped."""
        if self.since is None:
            return
        if running is not None:
            self.banks[running] = self.remaining(running, running, now)
        self.since = now

    def start(self, now: float) -> None:
        if self.since is None:
            self.since = now

    def info(self, running: int | None, now: float) -> dict[str, Any]:
        """What every seat sees: the banks now (seconds) and whose clock runs; ``per_move``
        (a turn-based clock) and ``deadline``: the wall time (seconds since the epoch) at
        which the running seat's time runs out (``None`` when no clock runs)."""
        return {"preset": self.preset, "bank": self.bank, "increment": self.increment,
                "per_move": self.per_move,
                "remaining": [round(self.remaining(k, running, now), 2)
                              for k in range(len(self.banks))],
                "running": running, "started": self.started, "timed_out": sorted(self.timed_out),
                "deadline": (round(self.since + self.banks[running], 3)
                             if running is not None and self.since is not None else None)}


class TableClock:
    """The clocks of a table, a part of it: the ``Clock`` (``data``; ``None``: a table
    without clocks), the one place it changes (``set``), which seat's clock runs, the clocks
    after a move, and the alarm that hands a seat to a bot when its time runs out.

    Handed to it: the table's ``core``, the ``writer`` (a time-out is stored before it is
    applied), ``runs_bots()`` (the alarm rings on the replica that holds the table's lease),
    ``reread`` (the table's copy is read again from the database after a conflict) and
    ``timed_out(msg)``, called once a time-out is stored and applied, under the table's
    lock, to tell everyone (``msg``: the ``timeout`` message)."""

    def __init__(self, data: Clock | None, core: TableCore, writer: Writer,
                 runs_bots: Callable[[], bool], reread: Rereadable,
                 timed_out: Callable[[dict[str, Any]], None]) -> None:
        self.data = data
        self.core = core
        self.writer = writer
        self.runs_bots = runs_bots
        self.reread = reread
        self.timed_out = timed_out
        self._timer: asyncio.TimerHandle | None = None

    def set(self, clock: Clock) -> None:
        """The table's clocks are now ``clock`` (stored already): the one place they change
        after the table's load (a move, a seat change, a time-out, another replica's
        change)."""
        self.data = clock

    def running_seat(self) -> int | None:
        """The seat whose clock runs now: the human seat to act once the clocks started,
        never a seat a bot plays; ``None`` without clocks."""
        core = self.core
        if self.data is None or not self.data.started or not core.open:
            return None
        current = core.game.current_seat(core.state)
        if current is None or core.seats[current].by_bot:
            return None
        return current

    def info(self) -> dict[str, Any] | None:
        return self.data.info(self.running_seat(), wall()) if self.data else None

    def to_start(self, also: int | None = None) -> bool:
        """The clocks have not started and every human seat is claimed or played by a bot
        (counting ``also``): they start now."""
        return (self.data is not None and not self.data.started and self.core.open
                and all(o.claimed or o.kind != HUMAN or o.bot_replaces or o.index == also
                        for o in self.core.seats))

    def after(self, seat: int, side: bool) -> Clock | None:
        """The clocks after a move of ``seat``: the running seat is charged; a turn's
        move of a human seat that ran its clock adds the increment. A turn-based clock's
        banks are all full again after a turn's move (the next move has its whole time)."""
        if self.data is None:
            return None
        running = self.running_seat()
        clock = self.data.copy()
        clock.settle(running, wall())
        if not side and clock.per_move:
            clock.banks = [clock.bank] * len(clock.banks)
        elif not side and running == seat:
            clock.banks[seat] += clock.increment
        return clock

    def keeps_loaded(self) -> bool:
        """The table must stay in memory for its clock: a seat's clock runs, and it is a
        live clock or a turn-based one due within ``TURN_LOAD_AHEAD`` seconds (a later
        deadline is the registry's to watch: it loads the table again in time)."""
        running = self.running_seat()
        if running is None:
            return False
        return (not self.data.per_move
                or self.data.remaining(running, running, wall()) <= TURN_LOAD_AHEAD)

    def stored(self, config: dict[str, Any] | None, state: dict[str, Any] | None) -> bool:
        """Take the clocks as stored in the database (another replica may have changed
        them); whether they changed."""
        if not config:
            return False
        clock = Clock.load(config, state, len(self.core.seats))
        if self.data is not None and clock.to_json() == self.data.to_json():
            return False
        self.set(clock)
        return True

    def arm(self) -> None:
        """Set the alarm for the running seat's time running out (none without one)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        running = self.running_seat()
        if running is None or self.core.closing or not self.runs_bots():
            return  # another replica's alarm
        left = self.data.remaining(running, running, wall())
        self._timer = asyncio.get_running_loop().call_later(
            left + 0.01, lambda: asyncio.ensure_future(self._time_out(running)))

    def resume(self) -> None:
        """The table was just loaded where its clock runs (a server's start): the running
        seat of a live clock is charged from now, not for the time no server served the
        table (a turn-based clock counts that time: nothing changes); stored soon
        (``_store_resumed``), so that a read of the table again finds it too."""
        running = self.running_seat()
        if self.data is not None and self.data.per_move:
            return  # turn-based: real time counts, the time no server ran included
        if running is not None and self.data.since is not None and self.data.since < wall():
            clock = self.data.copy()
            clock.since = wall()
            self.set(clock)
            task = asyncio.get_running_loop().create_task(self._store_resumed(clock))
            task.add_done_callback(_log_failure)

    async def _store_resumed(self, clock: Clock) -> None:
        """Store the resumed ``clock`` unless a change stored a newer one first (the table's
        lock orders them)."""
        async with self.core.lock:
            if self.data is clock:
                await self.writer.write(self.writer.store.set_clock, self.core.id,
                                        clock.to_json())

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    async def _time_out(self, seat: int) -> None:
        """The seat's time ran out: a bot takes it, everyone is told. Nothing changes when
        another replica stored the seat's move first (the store checks the ply): this copy
        catches up instead."""
        core = self.core
        try:
            async with core.lock:
                if core.closing or self.running_seat() != seat or not self.runs_bots():
                    return
                if self.data.remaining(seat, seat, wall()) > 0.005:
                    self.arm()
                    return
                clock = self.data.copy()
                clock.settle(seat, wall())
                clock.timed_out.add(seat)
                await self.writer.write(self.writer.store.set_bot_replaces, core.id, seat,
                                        True, clock.to_json(), core.ply, table=self.reread)
                core.seats[seat].bot_replaces = True
                self.set(clock)
                self.timed_out({"type": "timeout", "seat": seat, "ply": core.ply})
                self.arm()
        except Conflict:  # another replica stored the seat's move first: catch up
            self.reread.request_sync()
            return
        except Refusal:  # the database refused: try again shortly
            if not core.closing:
                self._timer = asyncio.get_running_loop().call_later(
                    1.0, lambda: asyncio.ensure_future(self._time_out(seat)))
            return
        core.wake.set()
