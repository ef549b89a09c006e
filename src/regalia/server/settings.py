"""The server's settings: bots and every limit (README, "Limits and security").

Each field is a ``regalia serve`` option of the same name (``--tables-per-address`` for
``tables_per_address``...). Rates use the ``limits`` notation (``"20/minute"``,
``"30/second"``). Nothing here can be reached from an HTTP or websocket request.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, fields
from typing import Callable

import limits

from regalia.server.tables.clocks import parse_presets
from regalia.server.storage.engine import SQLITE_SYNC


def secure_seed() -> int:
    """A table's seed, from the operating system's cryptographic source (never from a
    client: games are deterministic from config + seed)."""
    return secrets.randbits(52)


@dataclass(frozen=True)
class Settings:
    """Bots and limits of one server; see the README for what each limit protects."""

    bot_delay: float = 0.6            # seconds a bot waits before it acts
    wish_wait: float = 6.0            # seconds a bot who chooses after a Jester gives the
    # connected players to say whether they would like to go next (rules 1.10)
    bot_budget: float | None = 0.5   # seconds of search per bot decision
    bot_workers: int = max(1, (os.cpu_count() or 2) - 1)  # bot decisions at once
    bot_processes: bool = True       # bots think in worker processes (False: threads)
    max_body: int = 64 * 1024        # bytes of an HTTP request body (413 above)
    ws_message_max: int = 4096       # characters of one websocket message (error above)
    table_rate: str = "20/minute"    # tables created per client address
    message_rate: str = "30/second"  # websocket messages per client address
    talk_rate: str = "8/10 seconds"  # chat or sayings per seat
    connections_per_address: int = 32  # open websockets per client address
    spectators_per_table: int = 50   # spectator connections per table
    send_queue: int = 500            # messages waiting for a slow reader before it is closed
    idle_unload: float = 300.0       # seconds a table with nobody connected stays in memory
    abandon_after_days: float = 30.0  # an unfinished table with no move for this long expires
    write_timeout: float = 5.0       # seconds before a stalled database write is refused
    allowed_origins: tuple[str, ...] = ()  # websocket origins besides the site's own
    join_rate: str = "20/minute"     # seats taken at open tables per client address
    open_list_max: int = 50          # open tables listed in the lobby at most
    clock_presets: str = "blitz=180+10,rapid=600+15,slow=1800+30"  # NAME=BANK+INCREMENT s
    ws_compression: bool = False     # permessage-deflate on websockets (CPU for bandwidth)
    analysis_rate: str = "6/minute"  # game analyses asked per client address
    hint_rate: str = "20/minute"     # hints asked per client address (tables with hints)
    sqlite_sync: str = "full"        # SQLite's disk syncs: store.SQLITE_SYNC

    def __post_init__(self) -> None:
        parse_presets(self.clock_presets)
        for name in (f.name for f in fields(self) if f.name.endswith("_rate")):
            try:
                limits.parse(getattr(self, name))
            except ValueError:
                raise ValueError(f"{name}: a rate like '20/minute', not "
                                 f"{getattr(self, name)!r}") from None
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
                raise ValueError(f"{f.name}: must not be negative")
        if self.sqlite_sync not in SQLITE_SYNC:
            raise ValueError(f"sqlite_sync: one of {', '.join(SQLITE_SYNC)}, not "
                             f"{self.sqlite_sync!r}")
        if self.bot_workers < 1:
            raise ValueError("bot_workers: at least 1")

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


SeedSource = Callable[[], int]
