"""A stalled or full disk stops the writes, never the server: the event loop keeps answering
(pings, ``/healthz``) while the database thread waits for the disk; a move whose
transaction does not answer within the write timeout is refused as maybe saved and its
table is read again once the disk answers; ``/healthz`` turns 503 within seconds of failing
writes, saying why and since when, and comes back within seconds of the database, whether
or not a move is made meanwhile."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time

from sqlalchemy import event

from server_helpers import join, new_table, running_app

STALL = 4.0  # seconds the frozen disk keeps a statement at most


@contextlib.contextmanager
def on_every_statement(store, listener):
    """``listener(conn, cursor, statement, ...)`` before each statement the store sends, on
    each of its engines, until the block ends (then left in place, doing nothing: removing
    it could race with the database thread's own loop over the listeners)."""
    on = threading.Event()
    on.set()

    def maybe(*args):
        if on.is_set():
            listener(*args)
    # (nowait_engine: the second engine of the writes once made on the event loop, before
    # f1d2cb9; kept here so that this test fails on that code, as it should)
    for e in (store.engine, getattr(store, "nowait_engine", None)):
        if e is not None:
            event.listen(e, "before_cursor_execute", maybe)
    try:
        yield
    finally:
        on.clear()


def timed(call):
    t0 = time.monotonic()
    out = call()
    return out, time.monotonic() - t0


def pong_time(peer) -> float:
    t0 = time.monotonic()
    peer.send({"type": "ping"})
    peer.recv_until(lambda m: m["type"] == "pong", timeout=STALL + 2)
    return time.monotonic() - t0


def health_within(client, seconds: float, ok: bool):
    """``/healthz`` polled until its status says ``ok`` (or not) within ``seconds``; each
    answer must come in well under a second."""
    deadline = time.monotonic() + seconds
    while True:
        r, took = timed(lambda: client.get("/healthz"))
        assert took < 0.5, f"/healthz took {took:.2f} s"
        if (r.status_code == 200) == ok:
            return r
        assert time.monotonic() < deadline, r.json()
        time.sleep(0.1)


def test_a_stalled_disk_blocks_no_one_and_the_move_is_refused_at_the_write_timeout(db_url):
    with running_app(db_url, write_timeout=1.0) as c:
        store = c.app.state.manager.store
        d = new_table(c, "ribauds", ["human", "human"])
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p, other, watcher = join(c, d, cur), join(c, d, 1 - cur), join(c, d, None)
        gate, entered = threading.Event(), threading.Event()

        def frozen(_conn, _cursor, statement, *_):
            if statement.lstrip().upper().startswith("INSERT INTO MOVES"):
                entered.set()
                gate.wait(STALL)  # the disk answers again at the latest after STALL

        action = p.state["legal"][0]
        with on_every_statement(store, frozen):
            try:
                t0 = time.monotonic()
                p.act(action)
                assert entered.wait(5)
                assert pong_time(watcher) < 0.5  # the event loop goes on meanwhile
                _, took = timed(lambda: c.get("/healthz"))
                assert took < 0.5, took
                err = p.recv_until(lambda m: m["type"] == "error", timeout=STALL + 2)
                refused = time.monotonic() - t0
                assert err["code"] == "storage", err
                assert "may not have been saved: reload to see" in err["message"], err
                assert 0.9 < refused < 2.0, refused  # the write timeout holds
                r = health_within(c, 0.5, ok=False)
                assert "no answer" in r.json()["store"], r.json()
                assert pong_time(other) < 0.5 and pong_time(watcher) < 0.5
                assert entered.is_set() and not gate.is_set()  # still stalled
            finally:
                gate.set()
        # the disk answered: the move was stored, and every seat and spectator sees it
        for peer in (p, other, watcher):
            assert peer.state_at(1, timeout=5)["ply"] == 1
        assert [mv[2] for mv in store.load_table(d["id"]).moves] == [action]
        health_within(c, 3.0, ok=True)  # without another move


def test_moves_after_the_stalled_one_are_refused_in_time_and_not_stored_later(db_url):
    """Moves of other tables that wait behind a stalled transaction are refused at their own
    write timeout as never saved, and are not stored when the disk answers."""
    with running_app(db_url, write_timeout=1.0) as c:
        store = c.app.state.manager.store
        tables, movers = [], []
        for _ in range(2):
            d = new_table(c, "ribauds", ["human", "human"])
            cur = c.get(f"/api/tables/{d['id']}").json()["current"]
            tables.append(d)
            movers.append((join(c, d, cur), join(c, d, 1 - cur)))
        gate, entered = threading.Event(), threading.Event()

        def frozen(_conn, _cursor, statement, *_):
            if statement.lstrip().upper().startswith("INSERT INTO MOVES"):
                entered.set()
                gate.wait(STALL)

        first, second = movers[0][0], movers[1][0]
        with on_every_statement(store, frozen):
            try:
                first.act(first.state["legal"][0])
                assert entered.wait(5)
                t0 = time.monotonic()
                second.act(second.state["legal"][0])  # waits behind the stalled transaction
                err = second.recv_until(lambda m: m["type"] == "error", timeout=STALL + 2)
                assert err["code"] == "storage" and "nothing was applied" in err["message"], err
                assert time.monotonic() - t0 < 2.0
                err = first.recv_until(lambda m: m["type"] == "error", timeout=STALL + 2)
                assert "may not have been saved" in err["message"], err
            finally:
                gate.set()
        assert movers[0][1].state_at(1, timeout=5)["ply"] == 1
        time.sleep(0.5)  # anything still queued has landed by now
        assert store.load_table(tables[1]["id"]).moves == []
        assert second.state["ply"] == 0
        second.act(second.state["legal"][0])  # the disk answers: it goes through
        assert movers[1][1].state_at(1)["ply"] == 1


def test_healthz_fails_within_seconds_of_a_full_disk_and_recovers_within_seconds(db_url):
    with running_app(db_url) as c:
        store = c.app.state.manager.store
        d = new_table(c, "ribauds", ["human", "human"])
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p, other = join(c, d, cur), join(c, d, 1 - cur)
        full = threading.Event()

        def disk_full(_conn, _cursor, statement, *_):
            if full.is_set() and statement.lstrip().split()[0].upper() in (
                    "INSERT", "UPDATE", "DELETE"):
                raise sqlite3.OperationalError("database or disk is full")

        with on_every_statement(store, disk_full):
            assert health_within(c, 0.1, ok=True).json()["store"] == "ok"
            full.set()
            p.act(p.state["legal"][0])
            err = p.recv_until(lambda m: m["type"] == "error")
            assert err["code"] == "storage" and "nothing was applied" in err["message"], err
            r = health_within(c, 2.0, ok=False)
            said = r.json()["store"]
            assert said.startswith("failing") and "disk is full" in said and "(at 20" in said, said
            time.sleep(2.5)  # the probes fail too: still failing
            assert c.get("/healthz").status_code == 503
            full.clear()
            t0 = time.monotonic()
            assert health_within(c, 3.0, ok=True).json()["store"] == "ok"  # no move made
            assert time.monotonic() - t0 < 3.0
        p.act(p.state["legal"][0])
        assert p.state_at(1)["ply"] == 1 and other.state_at(1)["ply"] == 1
        assert c.get("/healthz").status_code == 200
