"""Time control of a table: a bank of seconds per player and an increment
per move, chosen at creation among the server's presets (``Settings.clock_presets``).

``Clock`` is plain data kept by the table and stored with every change of it (the
``clock_state`` column), so a restart finds every bank and the wall-clock time at which the
running clock started. The time the server was down is not charged: a table loaded where its
clock runs (a server's start, a replica taking it over) restarts the running seat's clock
from that moment (``TableClock.resume``), which also gives back the time that turn had run
before the outage (nothing says when the server stopped serving). ``TableClock`` is the table's part that keeps them: which seat's clock runs
(the human seat to act, never a bot-played one), the clocks after a move, and the alarm
that hands a seat to a bot when its time runs out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from regalia.server.refusal import Refusal
from regalia.server.storage.models import HUMAN, Conflict
from regalia.server.storage.writer import Rereadable, Writer
from regalia.server.tables.core import TableCore

log = logging.getLogger("regalia.server")

RETURN_BANK = 30.0  # seconds a timed-out player gets back when taking the seat back (at least)


def wall() -> float:
    """Seconds since the epoch (wall clock: it must mean the same after a restart)."""
    return time.time()


def _log_failure(task: asyncio.Task) -> None:
    """A background store of the clocks that failed: logged (the next change stores them)."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("storing a table's resumed clock failed: %s", task.exception())


@dataclass
class Clock:
    """The banks of one table. ``since``: wall time from which the running seat is charged
    (``None`` until the clocks start: every human seat taken); ``timed_out``: seats whose
    time ran out and that a bot plays until their player takes them back."""

    preset: str
    bank: float
    increment: float
    banks: list[float]
    since: float | None = None
    timed_out: set[int] = field(default_factory=set)

    @classmethod
    def new(cls, preset: str, bank: float, increment: float, players: int) -> "Clock":
        return cls(preset, bank, increment, [bank] * players)

    @classmethod
    def load(cls, config: dict[str, Any], state: dict[str, Any] | None, players: int) -> "Clock":
        c = cls.new(config["preset"], float(config["bank"]), float(config["increment"]), players)
        if state:
            c.banks = [float(b) for b in state["banks"]]
            c.since = state.get("since")
            c.timed_out = set(state.get("timed_out") or [])
        return c

    def config(self) -> dict[str, Any]:
        return {"preset": self.preset, "bank": self.bank, "increment": self.increment}

    def to_json(self) -> dict[str, Any]:
        return {"banks": [round(b, 3) for b in self.banks], "since": self.since,
                "timed_out": sorted(self.timed_out)}

    def copy(self) -> "Clock":
        return Clock(self.preset, self.bank, self.increment, list(self.banks), self.since,
                     set(self.timed_out))

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
        """What every seat sees: the banks now and whose clock runs."""
        return {"preset": self.preset, "bank": self.bank, "increment": self.increment,
                "remaining": [round(self.remaining(k, running, now), 2)
                              for k in range(len(self.banks))],
                "running": running, "started": self.started, "timed_out": sorted(self.timed_out)}


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
        move of a human seat that ran its clock adds the increment."""
        if self.data is None:
            return None
        running = self.running_seat()
        clock = self.data.copy()
        clock.settle(running, wall())
        if not side and running == seat:
            clock.banks[seat] += clock.increment
        return clock

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
        seat is charged from now, not for the time no server served the table; stored soon
        (``_store_resumed``), so that a read of the table again finds it too."""
        running = self.running_seat()
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
