"""Replays of ended games: built once and kept (a flood of replays costs the server one
build per game), limited per address while they must be built, readable once a table is
abandoned (its record stays readable: README, "Expiry")."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

from sqlalchemy import update

import regalia.server.web.api as api
from regalia.server.storage.models import GameTable, now
from regalia.server.web.replays import Replays
from server_helpers import join, new_table, running_app


def finished_table(c, seed: int) -> str:
    d = new_table(c, "regicide", ["heuristic"], seed=seed)
    join(c, d, None).finished()
    for _ in range(100):  # the table marks the game finished just after the last move
        if c.get(f"/api/tables/{d['id']}").json()["status"] == "finished":
            break
        time.sleep(0.05)
    return d["id"]


def test_a_replay_is_built_once_and_answered_from_memory_after(db_url, monkeypatch):
    built = []
    real = api.replay_of
    monkeypatch.setattr(api, "replay_of", lambda t: built.append(t.id) or real(t))
    with running_app(db_url) as c:
        tid = finished_table(c, 3)
        first = c.get(f"/api/tables/{tid}/replay")
        again = [c.get(f"/api/tables/{tid}/replay") for _ in range(5)]
        assert first.status_code == 200 and first.json()["id"] == tid and first.json()["steps"]
        assert all(r.status_code == 200 and r.content == first.content for r in again)
        assert built == [tid]


def test_replays_to_build_are_limited_per_address_and_kept_ones_are_free(db_url):
    with running_app(db_url, replay_rate="2/minute") as c:
        ids = [finished_table(c, s) for s in (4, 5, 6)]
        assert [c.get(f"/api/tables/{t}/replay").status_code for t in ids[:2]] == [200, 200]
        r = c.get(f"/api/tables/{ids[2]}/replay")
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
        assert "replays" in r.json()["error"] and "2/minute" in r.json()["error"]
        assert c.get(f"/api/tables/{ids[0]}/replay").status_code == 200  # kept: not counted


def test_an_abandoned_tables_replay_stays_readable(db_url):
    with running_app(db_url) as c:
        d = new_table(c, "regicide", ["human", "heuristic"])
        p = join(c, d, 0)
        if p.state["legal"]:  # the person starts (else the bot's first move comes)
            p.act(p.state["legal"][0])
        p.state_at(1)
        assert c.get(f"/api/tables/{d['id']}/replay").status_code == 409  # being played
        store = c.app.state.manager.store
    with store.engine.begin() as conn:
        conn.execute(update(GameTable).values(updated_at=now() - timedelta(days=31)))
    with running_app(db_url, abandon_after_days=30) as c:
        r = c.get(f"/api/tables/{d['id']}/replay")
        assert r.status_code == 200
        assert len(r.json()["steps"]) >= 2 and r.json()["record"]["actions"]


def test_concurrent_asks_for_one_replay_wait_for_one_build():
    calls = []

    async def build() -> bytes:
        calls.append(1)
        await asyncio.sleep(0.05)
        return b"{}"

    async def main():
        cache = Replays(size=2)
        bodies = await asyncio.gather(*(cache.body("t1", build) for _ in range(20)))
        assert bodies == [b"{}"] * 20 and len(calls) == 1
        for k in ("t2", "t3"):  # the oldest kept one leaves when a third is kept
            await cache.body(k, build)
        assert cache.cached("t1") is None and cache.cached("t3") == b"{}"

    asyncio.run(main())
