"""The same store and tables on PostgreSQL (``--database-url postgresql+psycopg://...``).

Runs only when ``REGALIA_TEST_POSTGRES_URL`` names a database it may write to and a
PostgreSQL driver is installed, e.g.::

    REGALIA_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:5432/regalia pytest tests/server
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

MIGRATIONS = Path(__file__).resolve().parents[2] / "src" / "regalia" / "server" / "storage" / "migrations" / "versions"
URL = os.environ.get("REGALIA_TEST_POSTGRES_URL")
# CI (.ci/run) starts a PostgreSQL server and sets the URL: there the test always runs.
pytestmark = pytest.mark.skipif(not URL and not os.environ.get("CI"),
                                reason="REGALIA_TEST_POSTGRES_URL is not set (CI sets it)")


def test_postgres_migrates_stores_moves_once_and_plays():
    assert URL, "REGALIA_TEST_POSTGRES_URL must name a PostgreSQL database in CI"
    from sqlalchemy import update

    from regalia.server.storage.engine import current_revision
    from regalia.server.storage.models import ABANDONED, Conflict, GameTable
    from regalia.server.storage.store import Store
    from server_helpers import join, new_table, play_randomly, running_app

    s = Store(URL)
    heads = sorted(p.stem.split("_")[0] for p in MIGRATIONS.glob("0*.py"))
    assert current_revision(s.engine) == heads[-1]
    data, _ = s.new_table("regicide", {"players": 1}, 3, [("human", None)])
    assert data == s.load_table(data.id)  # answered as it would be read back
    tid = data.id
    s.append_move(tid, 0, 0, "yield")
    with pytest.raises(Conflict):
        s.append_move(tid, 0, 0, "yield")
    assert s.append_moves([(tid, 1, 0, "a", False), (tid, 1, 0, "b", False)])[1] is not None
    with s.engine.begin() as conn:  # its moves are not a game: no server may load it
        conn.execute(update(GameTable).where(GameTable.id == tid).values(status=ABANDONED))
    s.close()
    with running_app(URL) as client:
        d = new_table(client, "regicide", ["human", "heuristic"], seed=5)
        human, spectator = join(client, d, 0), join(client, d, None)
        play_randomly({0: human}, spectator, random.Random(5), chatter=False)
        assert client.get(f"/api/tables/{d['id']}").json()["status"] == "finished"
