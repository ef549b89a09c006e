"""The lobby's list of open tables cannot be filled by a few addresses: each address lists at
most ``open_tables_per_address`` open tables (counted in the database, so on every replica;
the database keeps a hash of the address, never the address), and the list is a fair mix of
its creators, each one's newest first. A finding of an audit: three addresses filled the
list (50 of 50) in under a minute, hiding honest tables."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from sqlalchemy import text

from regalia.server.storage.engine import current_revision, head_revision, make_engine, migrate
from regalia.server.storage.store import Store
from server_helpers import as_address, latest_revision, running_app

OPEN = {"game": "regicide", "players": 2, "open": True, "name": "Ana",
        "seats": [{"kind": "human"}, {"kind": "human"}]}


def listed(c) -> list[str]:
    r = c.get("/api/open")
    assert r.status_code == 200, r.text
    return [t["id"] for t in r.json()]


def test_three_flooding_addresses_cannot_hide_an_honest_table(db_url):
    # a cap high enough not to stop the flood: the list's mix alone keeps the honest table
    with running_app(db_url, open_list_max=10, open_tables_per_address=20) as c:
        as_address(c, "10.9.0.1")
        honest = c.post("/api/tables", json={**OPEN, "name": "Honest"}).json()["id"]
        flood: dict[str, list[str]] = {}
        for k in range(3):
            as_address(c, f"10.6.0.{k}")
            flood[f"10.6.0.{k}"] = [c.post("/api/tables", json=OPEN).json()["id"]
                                    for _ in range(12)]
        ids = listed(c)
        assert len(ids) == 10 and honest in ids
        # the newest of each creator first (newest first), then the second newest...
        newest = [flood[f"10.6.0.{k}"][-1] for k in (2, 1, 0)]
        second = [flood[f"10.6.0.{k}"][-2] for k in (2, 1, 0)]
        assert ids[:4] == newest + [honest] and ids[4:7] == second


def test_over_its_open_tables_an_address_is_refused_and_private_tables_are_not(db_url):
    with running_app(db_url, open_list_max=50) as c:  # open_tables_per_address: 3
        honest = []
        for k in range(3):
            as_address(c, f"10.7.0.{k}")
            made = [c.post("/api/tables", json=OPEN) for _ in range(5)]
            assert [r.status_code for r in made] == [201, 201, 201, 429, 429]
            refusal = made[3].json()
            assert refusal["code"] == "too_many_open"
            assert "at most 3 open tables per address" in refusal["error"]
            private = c.post("/api/tables", json={**OPEN, "open": False})
            assert private.status_code == 201  # a private table is still allowed
        as_address(c, "10.9.0.2")
        honest.append(c.post("/api/tables", json={**OPEN, "name": "Honest"}).json()["id"])
        ids = listed(c)
        assert len(ids) == 10 and honest[0] in ids
        # a table taken by a player leaves the list, and its creator may open another
        as_address(c, "10.7.0.0")
        mine = [i for i in ids if i != honest[0]]
        joined = 0
        for table_id in mine:
            as_address(c, "10.8.0.1")
            c.post(f"/api/tables/{table_id}/join", json={"name": "Bea"})
            as_address(c, "10.7.0.0")
            r = c.post("/api/tables", json=OPEN)
            if r.status_code == 201:
                joined += 1
                break
        assert joined == 1
        # the database keeps a hash of the address, never the address
        store = c.app.state.manager.store
        with store.engine.connect() as conn:
            keys = {r[0] for r in conn.execute(text("SELECT creator FROM game_tables"))}
        assert None in keys and len(keys - {None}) == 4  # private tables keep none
        assert not any("10." in k for k in keys - {None})


def test_an_older_database_upgrades_and_its_open_tables_stay_listed(db_url):
    engine = make_engine(db_url)
    migrate(engine, "0006")
    now = datetime.now(timezone.utc)
    with engine.begin() as c:
        for k in range(2):
            c.execute(text("INSERT INTO game_tables (id, game, config, seed, status, created_at, "
                           "updated_at, is_open, hints) VALUES (:id, 'regicide', :cfg, 7, "
                           "'playing', :now, :now, 1, 0)"),
                      {"id": f"old{k}", "cfg": json.dumps({"players": 2}), "now": now})
            for seat in range(2):
                c.execute(text("INSERT INTO seats (table_id, seat, kind, token_hash, bot_replaces, "
                               "claimed) VALUES (:id, :seat, 'human', 'x', 0, :claimed)"),
                          {"id": f"old{k}", "seat": seat, "claimed": seat == 0})
    engine.dispose()
    s = Store(db_url)  # upgrades
    assert current_revision(s.engine) == head_revision()
    with s.engine.connect() as c:
        assert [r[0] for r in c.execute(text("SELECT creator FROM game_tables"))] == [None, None]
    # each table stored without a creator counts as its own
    assert sorted(t["id"] for t in s.open_tables(10, 3)) == ["old0", "old1"]
    assert s.open_tables_of("anyone") == 0
    s.close()
