"""Limits: rates per client address and per seat, caps on connections
and spectators, idle tables unloaded and loaded again, abandoned tables expired, the request
size limit, nothing kept for unknown ids, spectators cause no seat broadcasts, and bots
served in a bounded pool in turn."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from regalia.server.tables.botpool import BotPool
from regalia.server.storage.models import GameTable, now
from regalia.server.refusal import Refusal
from server_helpers import join, new_table, running_app

BODY = {"game": "regicide", "players": 1, "seats": [{"kind": "human"}]}


def test_table_creation_is_limited_per_address(db_url):
    with running_app(db_url, table_rate="3/minute") as c:
        for bad in ({"game": "chess"}, {**BODY, "players": 9}, {**BODY, "seed": 1}):
            for _ in range(3):  # refused with their reason, and not counted
                r = c.post("/api/tables", json=bad)
                assert r.status_code == 400 and r.json()["code"] == "bad_request", r.text
        assert [c.post("/api/tables", json=BODY).status_code for _ in range(3)] == [201] * 3
        r = c.post("/api/tables", json=BODY)
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
        assert "3/minute" in r.json()["error"]
        assert c.app.state.manager.store.count_tables() == 3


def test_websocket_messages_are_limited_per_address_and_the_socket_stays(db_url):
    with running_app(db_url, message_rate="5/second") as c:
        d = new_table(c, "regicide", ["human"])
        p = join(c, d, 0)  # the hello was one message
        for _ in range(8):
            p.send({"type": "ping"})
        got = [p.recv_until(lambda m: m["type"] in ("pong", "error")) for _ in range(8)]
        assert [m["type"] for m in got].count("pong") == 4
        assert all(m["code"] == "too_fast" for m in got if m["type"] == "error")
        time.sleep(1.1)
        p.send({"type": "ping"})
        assert p.recv_until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"


def test_a_hello_over_the_message_rate_closes_the_socket_so_the_page_comes_back(db_url):
    """A refused hello would leave a page waiting for ever (its pings keep the socket open):
    the socket is closed with 1013 (try again later) and the page reconnects."""
    with running_app(db_url, message_rate="2/minute") as c:
        d = new_table(c, "regicide", ["human"])
        join(c, d, 0)  # one message
        with c.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "ping"})  # the second, before a hello
            assert ws.receive_json()["code"] == "hello_first"
            ws.send_json({"type": "hello", "token": d["seats"][0]["token"]})
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "too_fast"
            assert ws.receive()["code"] == 1013


def test_the_chat_limit_belongs_to_the_seat_not_the_connection(db_url):
    with running_app(db_url, talk_rate="3/minute") as c:
        d = new_table(c, "ribauds", ["human", "human"])
        tab1, tab2 = join(c, d, 0), join(c, d, 0)
        for k, tab in enumerate((tab1, tab2, tab1)):
            tab.send({"type": "chat", "text": f"hi {k}"})
            tab.recv_until(lambda m: m["type"] == "talk" and m["text"] == f"hi {k}")
        tab2.send({"type": "chat", "text": "one more"})
        assert tab2.recv_until(lambda m: m["type"] == "error")["code"] == "too_fast"
        assert len(c.app.state.manager.store.load_table(d["id"]).messages) == 3


def test_connections_per_address_and_spectators_per_table_are_capped(db_url):
    with running_app(db_url, connections_per_address=3, spectators_per_table=1) as c:
        d = new_table(c, "regicide", ["human", "human"])
        join(c, d, None)
        with c.websocket_connect(f"/ws/{d['id']}") as ws:  # a second spectator
            ws.send_json({"type": "hello", "token": d["spectate"].split("#s=")[1]})
            assert ws.receive_json()["code"] == "too_many_spectators"
            assert ws.receive()["type"] == "websocket.close"
        join(c, d, 0)
        join(c, d, 1)
        with c.websocket_connect(f"/ws/{d['id']}") as ws:  # a fourth connection
            m = ws.receive_json()
            assert m["code"] == "too_many_connections" and "3" in m["message"]
            assert ws.receive()["type"] == "websocket.close"


def test_spectators_coming_and_going_send_no_seat_lists(client):
    d = new_table(client, "regicide", ["human", "human"])
    p = join(client, d, 0)
    p.drain(0.2)
    before = sum(m["type"] == "seats" for m in p.messages)
    spectators = [join(client, d, None) for _ in range(10)]
    for s in spectators:
        s.close()
    p.drain(0.2)
    assert sum(m["type"] == "seats" for m in p.messages) == before


def test_idle_tables_leave_memory_and_come_back_on_demand(db_url):
    with running_app(db_url, idle_unload=0.2) as c:
        d = new_table(c, "regicide", ["human", "human"])
        p, q = join(c, d, 0), join(c, d, 1)  # (the table waits until each seat was opened)
        cur = p.state["current"]
        m = c.app.state.manager
        assert d["id"] in m.tables
        p.close()
        q.close()
        deadline = time.monotonic() + 5
        while d["id"] in m.tables and time.monotonic() < deadline:
            time.sleep(0.05)
        assert d["id"] not in m.tables
        again = join(c, d, cur)  # loaded again from the database
        again.act(again.state["legal"][0])
        assert again.state_at(1)["ply"] == 1


def test_abandoned_tables_expire_and_refuse_moves(db_url):
    with running_app(db_url) as c:
        d = new_table(c, "regicide", ["human", "heuristic"])
        store = c.app.state.manager.store
    with store.engine.begin() as conn:
        conn.execute(update(GameTable).values(updated_at=now() - timedelta(days=31)))
    with running_app(db_url, abandon_after_days=30) as c:
        assert d["id"] not in c.app.state.manager.tables  # not loaded at start
        assert c.get(f"/api/tables/{d['id']}").json()["status"] == "abandoned"
        p = join(c, d, 0)
        assert p.state["expired"] is True and p.state["legal"] == []
        p.act("yield", ply=p.state["ply"])
        assert p.recv_until(lambda m: m["type"] == "error")["code"] == "expired"


def test_request_bodies_over_the_limit_get_413(client):
    big = b'{"game": "regicide", "pad": "' + b"x" * 70_000 + b'"}'
    r = client.post("/api/tables", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "65536" in r.json()["error"]
    assert r.json()["code"] == "too_large"

    def chunks():
        for _ in range(20):
            yield b" " * 8192
    r = client.post("/api/tables", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_unknown_ids_leave_nothing_behind_and_malformed_ones_cost_no_query(client, monkeypatch):
    m = client.app.state.manager
    queries = []
    real = m.store.load_table
    monkeypatch.setattr(m.store, "load_table", lambda tid: queries.append(tid) or real(tid))
    for bad in ("nope", "x" * 40, "abc%2Fdef", "ÄÖÜäöüßé", "a b c d e"):
        assert client.get(f"/api/tables/{bad}").status_code == 404
    assert queries == []
    for k in range(200):
        assert client.get(f"/api/tables/zz{k:06d}").status_code == 404
    assert len(queries) == 200 and m._loading == {} and m.tables == {}


def one_worker_pool():
    """A one-thread bot pool, the names of its decisions in the order they were made, and
    a table's loop of ``n`` decisions named ``name``."""
    pool = BotPool(workers=1, processes=False)
    order: list[str] = []

    def think(name):
        time.sleep(0.01)
        order.append(name)

    async def table(name, n, urgent=False):
        for _ in range(n):
            await pool.run(think, name, urgent=urgent)

    return pool, order, table


def test_the_bot_pool_serves_tables_in_turn():
    async def main():
        pool, order, table = one_worker_pool()
        await asyncio.gather(table("busy", 6), table("other", 3))
        pool.close()
        return order

    order = asyncio.run(main())
    # the busy table never makes the other wait for more than one decision
    assert order[:6] == ["busy", "other"] * 3


def test_the_bot_pool_serves_a_waiting_person_before_tables_of_bots():
    """Many tables of bots alone (non-urgent) cannot slow a person's game: a decision a
    person waits for takes the next free slot; a waiter cancelled meanwhile passes it on."""
    async def main():
        pool, order, table = one_worker_pool()
        crowd = [asyncio.ensure_future(table(f"bots{k}", 3)) for k in range(8)]
        await asyncio.sleep(0.015)  # the crowd holds the slot and waits for it
        gone = asyncio.ensure_future(table("gone", 1, urgent=True))
        await asyncio.sleep(0)
        gone.cancel()
        asked = len(order)
        await table("person", 1, urgent=True)
        await asyncio.gather(*crowd)
        pool.close()
        return order, asked

    order, asked = asyncio.run(main())
    assert "gone" not in order and len(order) == 25
    assert order.index("person") <= asked + 1  # after at most the decision under way


def test_rate_limits_start_no_thread_and_forget_expired_keys(monkeypatch):
    import threading

    from regalia.server.tables import limits as ratelimits
    from regalia.server.settings import Settings

    clock = [1000.0]
    monkeypatch.setattr(ratelimits, "clock", lambda: clock[0])
    limits_ = ratelimits.RateLimits(Settings(message_rate="2/second"))
    threads = threading.active_count()
    limits_.check("message_rate", "10.0.0.1")
    limits_.check("message_rate", "10.0.0.1")
    with pytest.raises(Refusal) as e:
        limits_.check("message_rate", "10.0.0.1")
    assert e.value.code == "too_fast" and "at most 2/second" in e.value.message
    limits_.check("message_rate", "10.0.0.2")      # another address has its own window
    assert threading.active_count() == threads       # no expiry timer thread was started
    assert set(limits_.storage.events) == {"LIMITER/message_rate/10.0.0.1/2/1/second",
                                           "LIMITER/message_rate/10.0.0.2/2/1/second"}
    time.sleep(1.05)                                 # the window passes (library time)...
    clock[0] += ratelimits.SWEEP_EVERY               # ...and the next check sweeps
    limits_.check("message_rate", "10.0.0.3")
    assert set(limits_.storage.events) == {"LIMITER/message_rate/10.0.0.3/2/1/second"}
    limits_.check("message_rate", "10.0.0.1")        # its window is open again


def test_a_cancelled_wait_for_a_bot_worker_never_holds_up_the_next():
    """A table stopped while its bot waited for a worker (a cancelled wait) leaves no trace:
    once the worker is free, the next decision gets it at once."""
    async def main():
        pool = BotPool(workers=1, processes=False)
        busy = asyncio.ensure_future(pool.run(time.sleep, 0.05))
        await asyncio.sleep(0.01)
        waiting = [asyncio.ensure_future(pool.run(time.sleep, 0, urgent=u)) for u in (True, False)]
        await asyncio.sleep(0)
        for w in waiting:
            w.cancel()
        await busy
        await asyncio.wait_for(pool.run(time.sleep, 0), 2.0)  # not stuck behind them
        assert pool.slots.free == 1
        pool.close()

    asyncio.run(main())


def test_a_refusal_over_a_rate_says_how_long_to_wait(db_url):
    """Over a rate, the answer names the limit and the wait (seconds, and HTTP's
    Retry-After), so that a person or a program knows when to try again."""
    with running_app(db_url, table_rate="2/minute") as c:
        for _ in range(2):
            assert c.post("/api/tables", json={"game": "regicide", "players": 1}).status_code == 201
        r = c.post("/api/tables", json={"game": "regicide", "players": 1})
        assert r.status_code == 429
        body = r.json()
        assert body["code"] == "too_fast" and 1 <= body["retry_after"] <= 60
        assert r.headers["retry-after"] == str(body["retry_after"])
        assert "at most 2/minute" in body["error"] and f"try again in {body['retry_after']} s" in body["error"]
