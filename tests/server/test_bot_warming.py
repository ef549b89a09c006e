"""The bot workers compile the bots' kernels when the server starts, not at a table's first
bot move (which would wait several seconds for numba on a fresh install)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from regalia.server.tables.botpool import BotPool


def test_the_server_starts_the_bot_workers_when_it_starts(db_url, monkeypatch):
    from server_helpers import running_app

    warmed: list[BotPool] = []
    monkeypatch.setattr(BotPool, "warm_soon", lambda self: warmed.append(self))
    with running_app(db_url) as c:
        assert c.app.state.manager.bots in warmed  # no table yet


def test_a_worker_compiles_the_medium_regicide_bot_before_any_move():
    pytest.importorskip("numba")
    code = ("from regalia.server.tables.botwork import _warm_bots\n"
            "from regalia.bots.regicide import policy as P\n"
            "_warm_bots()\n"
            "print(len(P.scored_actions.signatures))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert int(out.split()[-1]) >= 1


def test_a_pool_closed_while_its_workers_start_does_not_wait_for_them(monkeypatch, caplog):
    """Stopping the server while the bot workers still start (compiling the kernels after a
    fresh install takes 15-20 s) stops them at once; their processes end, and the start cut
    short is no warning."""
    import asyncio
    import time

    from regalia.server.tables import botpool

    monkeypatch.setattr(botpool, "_start_worker", _slow_start)

    async def scenario() -> tuple[float, list]:
        pool = BotPool(2, processes=True)
        pool.warm_soon()
        await asyncio.sleep(1.0)  # the workers are in their (slow) start
        workers = list(pool._executor._processes.values())
        t = time.monotonic()
        await asyncio.to_thread(pool.close)
        took = time.monotonic() - t
        await asyncio.wait_for(pool._warming, 10)
        return took, workers

    caplog.set_level("INFO", logger="regalia.server")
    took, workers = asyncio.run(scenario())
    assert len(workers) == 2 and took < 10  # not the 60 s the start would take
    assert all(not p.is_alive() for p in workers)
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "regalia.server"]
    assert ("INFO", "the bot workers' start was cut short: the server stops") in said
    assert not [m for level, m in said if level == "WARNING"]


def _slow_start(parent: int) -> None:
    """A worker start that takes a minute (as a first compile may)."""
    import time

    time.sleep(60)
