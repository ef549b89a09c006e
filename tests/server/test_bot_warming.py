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
