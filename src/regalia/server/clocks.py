"""Time control of a table (issue "clocks"): a bank of seconds per player and an increment
per move, chosen at creation among the server's presets (``Settings.clock_presets``).

``Clock`` is plain data kept by the table and stored with every change of it (the
``clock_state`` column), so a restart finds every bank and the wall-clock time at which the
running clock started; the time a server was down counts like any other time (the server is
the clock). Which seat's clock runs is the table's decision (``Table.running_seat``: the
human seat to act, never a bot-played one); this module only does the arithmetic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

RETURN_BANK = 30.0  # seconds a timed-out player gets back when taking the seat back (at least)


def wall() -> float:
    """Seconds since the epoch (wall clock: it must mean the same after a restart)."""
    return time.time()


def parse_presets(text: str) -> dict[str, tuple[float, float]]:
    """``"blitz=180+10,rapid=600+15"`` -> ``{"blitz": (180.0, 10.0), ...}`` (bank and
    increment in seconds). Raises ``ValueError`` with what is wrong."""
    out: dict[str, tuple[float, float]] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, spec = part.partition("=")
        bank, _, inc = spec.partition("+")
        try:
            b, i = float(bank), float(inc or 0)
        except ValueError:
            raise ValueError(f"clock_presets: {part!r} is not NAME=BANK+INCREMENT (seconds), "
                             "e.g. rapid=600+15") from None
        if not name.strip().isidentifier() or b <= 0 or i < 0:
            raise ValueError(f"clock_presets: {part!r}: a name, a bank over 0 and an "
                             "increment of 0 or more seconds")
        out[name.strip()] = (b, i)
    return out


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
