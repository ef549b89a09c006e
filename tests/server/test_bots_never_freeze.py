"""Tables with bots never freeze: a table's bookkeeping changes all at
once, never across the durable write of a move; a bot loop survives its own failures, and
a table that truly cannot go on tells its players and ``/healthz``; a soak of whole
Regicide games with bots and a human stating wishes while the bots think."""

from __future__ import annotations

import random

import pytest

from regalia.server.tables.table import Table
from server_helpers import join, new_table


def test_the_table_is_consistent_while_a_move_is_being_stored(client):
    d = new_table(client, "regicide", ["human", "human", "heuristic"], seed=7)
    m = client.app.state.manager
    table = m.tables[d["id"]]
    store = m.writer.append_move
    seen = []

    async def watching(table_id, ply, *rest, **options):
        # what any other task (the bot loop above all) sees during the durable write
        seen.append((table.ply, len(table.move_seats), len(table.side_move), ply))
        table.bot_job()
        table.window()
        await store(table_id, ply, *rest, **options)

    m.writer.append_move = watching
    peers = {k: join(client, d, k) for k in (0, 1)}
    spec = join(client, d, None)
    for _ in range(12):
        st = spec.state
        if st["finished"]:
            break
        if st["current"] in peers:
            p = peers[st["current"]]
            p.state_at(st["ply"])
            p.act(p.state["legal"][0])
        spec.state_at(st["ply"] + 1, timeout=10)  # a bot's move is stored the same way
    assert len(seen) >= 6
    for ply, n_seats, n_side, stored_ply in seen:
        assert ply == n_seats == n_side == stored_ply  # the table is still before the move
    assert not spec.errors()


def test_a_bot_loop_survives_a_failure_and_carries_on(client, monkeypatch):
    real = Table.bot_job
    failures = iter([True, True])

    def flaky(self):
        if next(failures, False):
            raise RuntimeError("a bot bookkeeping failure")
        return real(self)

    monkeypatch.setattr(Table, "bot_job", flaky)
    d = new_table(client, "regicide", ["random", "random"], seed=2)
    spec = join(client, d, None)
    spec.finished()
    assert client.get("/healthz").json()["broken_tables"] == []


def test_a_table_whose_bots_keep_failing_tells_its_players_and_healthz(client, monkeypatch):
    def broken(self):
        raise RuntimeError("the bots cannot decide")

    monkeypatch.setattr(Table, "bot_job", broken)
    d = new_table(client, "regicide", ["human", "random"], seed=3)
    p = join(client, d, 0)
    err = p.recv_until(lambda m: m["type"] == "error", timeout=10)
    assert err["code"] == "table_broken" and "cannot go on" in err["message"]
    health = client.get("/healthz")
    assert health.status_code == 503
    assert health.json()["broken_tables"] == [d["id"]] and health.json()["ok"] is False
    p.act("yield")
    assert p.recv_until(lambda m: m["type"] == "error")["code"] == "table_broken"


def play_with_wishes(client, seats, rng):
    """One whole game: seat 0 is a human who states its wish at once whenever it may
    (while the bots think) and plays a random legal action at its turn; returns the plies."""
    d = new_table(client, "regicide", seats)
    p = join(client, d, 0)
    m = p.state
    for _ in range(5000):
        if m["type"] == "error":
            # acting on a state already overtaken, or a wish already shown or too late
            assert m["code"] in ("stale", "illegal", "not_your_turn"), m
        elif m["type"] == "state":
            assert m["broken"] is None
            if m["finished"]:
                return m["ply"]
            if m["side"]:
                p.send({"type": "wish", "value": rng.choice(["yes", "no"])})
            if m["legal"]:
                p.act(rng.choice(m["legal"]), ply=m["ply"])
        m = p.recv(timeout=30)  # a frozen table sends nothing more: Timeout
    raise AssertionError("the game did not end")


@pytest.mark.slow
def test_soak_every_regicide_game_with_bots_reaches_its_end(db_url):
    from server_helpers import running_app

    rng = random.Random(8)
    # (the human's wishes come faster than the talk limit allows a person: raised)
    with running_app(db_url, bot_delay=0.0, talk_rate="1000/second") as c:
        for k in range(24):
            players = 3 + k % 2
            assert play_with_wishes(c, ["human"] + ["heuristic"] * (players - 1), rng) > 0
        health = c.get("/healthz").json()
        assert health["ok"] is True and health["broken_tables"] == []
