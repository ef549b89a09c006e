"""Storage faults reach players well: a server whose database cannot be
written refuses to start with a one-line reason; a write the database refuses (here: the
database locked by another process) becomes a websocket ``error`` or a JSON 503 within 5
seconds with nothing applied; ``/healthz`` reports the store; every database call runs on
the database thread (stalls: ``test_stalled_disk``)."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from typer.testing import CliRunner

from regalia.cli.app import app as cli
from regalia.server.storage.store import Store, StoreUnavailable
from server_helpers import Timeout, join, new_table, running_app


def read_only(db_url: str) -> str:
    Store(db_url).close()  # migrated, then opened read-only
    return "sqlite:///file:" + db_url.removeprefix("sqlite:///") + "?mode=ro&uri=true"


def test_serve_refuses_a_read_only_database_with_one_line(db_url):
    r = CliRunner().invoke(cli, ["serve", "--database-url", read_only(db_url), "--port", "1"])
    assert r.exit_code != 0
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot be written" in lines[0] and "readonly" in lines[0]


def test_the_app_does_not_start_on_a_read_only_database(db_url):
    with pytest.raises(StoreUnavailable):
        with running_app(read_only(db_url)):
            pass


class Locked:
    """Another process holding the database's write lock."""

    def __init__(self, db_url: str) -> None:
        self.conn = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)

    def __enter__(self):
        self.conn.execute("BEGIN EXCLUSIVE")
        return self

    def __exit__(self, *exc):
        self.conn.execute("ROLLBACK")
        self.conn.close()


def test_refused_writes_are_reported_within_5_seconds_and_change_nothing(db_url):
    with running_app(db_url, write_timeout=1.0) as c:  # the default is 5 s
        d = new_table(c, "ribauds", ["human", "human"])
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p, other = join(c, d, cur), join(c, d, 1 - cur)
        store = c.app.state.manager.store
        assert c.get("/healthz").json()["store"] == "ok"
        with Locked(db_url):
            for who, msg in [(p, {"type": "act", "ply": 0, "action": p.state["legal"][0]}),
                             (p, {"type": "chat", "text": "hello"}),
                             (other, {"type": "bot", "seat": other.state["seat"], "on": True})]:
                t0 = time.monotonic()
                who.send(msg)
                err = who.recv_until(lambda m: m["type"] == "error", timeout=6)
                assert err["code"] == "storage" and "nothing" in err["message"], err
                assert time.monotonic() - t0 < 5
            t0 = time.monotonic()
            r = c.post("/api/tables", json={"game": "regicide", "players": 1,
                                            "seats": [{"kind": "human"}]})
            assert r.status_code == 503 and r.json()["error"] and time.monotonic() - t0 < 5
            health = c.get("/healthz")
            assert health.status_code == 503 and health.json()["store"].startswith("failing")
        stored = store.load_table(d["id"])
        assert stored.moves == [] and stored.messages == []
        assert not any(s.bot_replaces for s in stored.seats)
        assert p.state["ply"] == 0 and store.count_tables() == 1
        # the database is back: the same move goes through, and healthz is ok again
        p.act(p.state["legal"][0])
        assert p.state_at(1)["ply"] == 1
        assert c.get("/healthz").json()["store"] == "ok"


def test_every_database_call_runs_on_the_database_thread_never_on_the_event_loop(db_url):
    """A new table, a seat claimed, a move, a message, a table read and /healthz's check:
    each runs on the database thread (a stalled disk stops no one but the writes); a move
    that meets another writer's lock waits its turn there and is stored once it is free."""
    with running_app(db_url) as c:
        store = c.app.state.manager.store
        threads: dict[str, set[str]] = {}
        names = ("new_table", "update_seat", "append_moves", "add_message", "check_readable",
                 "open_tables")
        for name in names:
            real = getattr(store, name)

            def watched(*args, _real=real, _name=name, **kwargs):
                threads.setdefault(_name, set()).add(threading.current_thread().name)
                return _real(*args, **kwargs)
            setattr(store, name, watched)
        d = new_table(c, "ribauds", ["human", "human"])
        assert c.get("/api/open").status_code == 200
        p = join(c, d, 0)  # the seat is claimed
        other = join(c, d, 1)
        p.send({"type": "chat", "text": "hi"})
        other.recv_until(lambda m: m["type"] == "talk")
        cur = p if p.state["current"] == 0 else other
        cur.act(cur.state["legal"][0])
        assert cur.state_at(1)["ply"] == 1
        assert c.get("/healthz").status_code == 200
        assert set(threads) == set(names), threads
        assert all(t == {"regalia-db_0"} for t in threads.values()), threads
        p.state_at(1), other.state_at(1)
        who = p if p.state["current"] == 0 else other
        with Locked(db_url):  # another process writes for half a second
            who.act(who.state["legal"][0])
            time.sleep(0.5)
        assert who.state_at(2)["ply"] == 2  # stored once the lock was released
        assert [mv[0] for mv in store.load_table(d["id"]).moves] == [0, 1]
        assert store.load_table(d["id"]).seats[0].claimed


def test_a_write_refused_at_the_timeout_is_not_stored_later(db_url):
    """Writes waiting for another process's lock give up at the write timeout and are then
    not stored, even the one queued behind another when the lock is released soon after
    ("nothing was saved" is true)."""
    with running_app(db_url, write_timeout=1.0) as c:
        d = new_table(c, "ribauds", ["human", "human"])
        peers = [join(c, d, 0), join(c, d, 1)]
        store = c.app.state.manager.store
        taken = threading.Event()

        def hold_the_lock_a_while():
            with Locked(db_url):
                taken.set()
                time.sleep(1.3)  # after the timeout, before a queued write's usual wait ends
        holder = threading.Thread(target=hold_the_lock_a_while)
        holder.start()
        taken.wait(5)
        for k, p in enumerate(peers):  # two writes: the second waits behind the first
            p.send({"type": "chat", "text": f"hello {k}"})
        for p in peers:
            err = p.recv_until(lambda m: m["type"] == "error", timeout=5)
            assert err["code"] == "storage" and "nothing was saved" in err["message"], err
        holder.join(5)
        time.sleep(1.0)  # the lock is gone; anything still under way has landed
        assert store.load_table(d["id"]).messages == []
        peers[0].send({"type": "chat", "text": "hello again"})  # the database works again
        said = peers[1].recv_until(lambda m: m["type"] == "talk", timeout=5)
        assert said["text"] == "hello again"


class HeldAfterCommit:
    """``store.<name>`` committed, then held before its answer until ``gate`` is set (a slow
    disk sync); ``calls``: when each committed (recorded once the real call returned, so a
    test that saw a call may read what it stored)."""

    def __init__(self, store, name: str) -> None:
        self.gate, self.calls, self.real = threading.Event(), [], getattr(store, name)
        setattr(store, name, self)

    def __call__(self, *args, **kwargs):
        out = self.real(*args, **kwargs)
        self.calls.append(time.monotonic())
        assert self.gate.wait(5)
        return out


def disk_error():
    """SQLite's error when a write or a disk sync fails (SQLITE_IOERR_FSYNC)."""
    from sqlalchemy.exc import OperationalError

    orig = sqlite3.OperationalError("disk I/O error")
    orig.sqlite_errorcode = sqlite3.SQLITE_IOERR_FSYNC
    return OperationalError("COMMIT", {}, orig)


def test_a_move_is_told_only_after_its_commit_and_the_moves_meanwhile_share_the_next(db_url):
    """A move reaches no one before its transaction returned (with SQLite's full syncs the
    commit syncs the write-ahead log before it returns); the moves submitted meanwhile are
    stored together after it, in one transaction."""
    with running_app(db_url) as c:
        m = c.app.state.manager.writer
        tables = [new_table(c, "ribauds", ["human", "human"]) for _ in range(3)]
        movers = []
        for d in tables:
            cur = c.get(f"/api/tables/{d['id']}").json()["current"]
            movers.append((join(c, d, cur), join(c, d, 1 - cur)))
        held = HeldAfterCommit(m.store, "append_moves")
        first = movers[0][0]
        first.act(first.state["legal"][0])
        deadline = time.monotonic() + 5
        while not held.calls and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(held.calls) == 1  # committed, not yet answered
        assert len(m.store.load_table(tables[0]["id"]).moves) == 1
        for p, _ in movers[1:]:  # submitted while the first transaction is under way
            p.act(p.state["legal"][0])
        while len(m._pending) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(m._pending) == 2
        for p, other in movers:
            with pytest.raises(Timeout):  # nothing told yet
                other.recv_until(lambda msg: msg["type"] == "state" and msg["ply"] == 1, 0.05)
        assert [len(m.store.load_table(d["id"]).moves) for d in tables] == [1, 0, 0]
        held.gate.set()
        for p, other in movers:
            assert p.state_at(1)["ply"] == 1 and other.state_at(1)["ply"] == 1
        assert len(held.calls) == 2  # one transaction for the first move, one for the two after
        assert [len(m.store.load_table(d["id"]).moves) for d in tables] == [1, 1, 1]


def test_a_failed_disk_sync_says_the_move_may_be_lost_and_the_table_is_read_again(db_url):
    """A commit that fails on the disk (it may still be in the write-ahead log): the player
    is told the move may not have been saved (not "nothing was applied"), /healthz reports
    it, and the table is read again from the database, which holds the move: every seat
    then sees it."""
    with running_app(db_url) as c:
        m = c.app.state.manager.writer
        d = new_table(c, "ribauds", ["human", "human"])
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p, other = join(c, d, cur), join(c, d, 1 - cur)
        real = m.store.append_moves

        def failing(moves):
            m.store.append_moves = real  # fails once, after the commit
            real(moves)
            raise disk_error()
        m.store.append_moves = failing
        action = p.state["legal"][0]
        p.act(action)
        err = p.recv_until(lambda msg: msg["type"] == "error")
        assert err["code"] == "storage" and "may not have been saved" in err["message"], err
        assert c.get("/healthz").json()["store"].startswith("failing")
        assert p.state_at(1)["ply"] == 1 and other.state_at(1)["ply"] == 1
        assert [mv[2] for mv in m.store.load_table(d["id"]).moves] == [action]
        r = c.post("/api/tables", json={"game": "regicide", "players": 1,
                                        "seats": [{"kind": "human"}]})
        assert r.status_code == 201 and c.get("/healthz").json()["store"] == "ok"


def test_a_failed_disk_sync_of_a_message_says_it_may_be_lost_and_the_table_is_read_again(db_url):
    """Writes other than moves too: a chat message whose commit failed on the disk is said to
    be maybe lost, and the table is read again from the database (which holds it): the
    others get it."""
    with running_app(db_url) as c:
        m = c.app.state.manager.writer
        d = new_table(c, "ribauds", ["human", "human"])
        a, b = join(c, d, 0), join(c, d, 1)
        real = m.store.add_message

        def failing(*args):
            m.store.add_message = real  # fails once, after the commit
            real(*args)
            raise disk_error()
        m.store.add_message = failing
        a.send({"type": "chat", "text": "hello"})
        err = a.recv_until(lambda msg: msg["type"] == "error")
        assert err["code"] == "storage" and "may not have been saved" in err["message"], err
        said = b.recv_until(lambda msg: msg["type"] == "talk")
        assert said["text"] == "hello"
        assert [x["text"] for x in m.store.load_table(d["id"]).messages] == ["hello"]


def test_what_is_read_waits_for_the_write_before_it(db_url):
    """A read asked while a write is under way is answered after it (here the lobby's
    list, while a new open table's transaction is held after its commit), so nobody learns
    of a write before its submitter is told it was saved."""
    with running_app(db_url) as c:
        m = c.app.state.manager.writer
        held = HeldAfterCommit(m.store, "new_table")
        out: dict = {}
        creator = threading.Thread(target=lambda: out.update(made=c.post("/api/tables", json={
            "game": "ribauds", "players": 2, "open": True, "name": "Ann",
            "seats": [{"kind": "human"}, {"kind": "human"}]})))
        creator.start()
        deadline = time.monotonic() + 5
        while not held.calls and time.monotonic() < deadline:
            time.sleep(0.01)
        reader = threading.Thread(target=lambda: out.update(listed=c.get("/api/open").json()))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive() and "listed" not in out  # waits for the write
        held.gate.set()
        creator.join(5)
        reader.join(5)
        assert out["made"].status_code == 201
        assert [t["id"] for t in out["listed"]] == [out["made"].json()["id"]]


def test_the_servers_stop_answers_a_move_whose_transaction_is_under_way(tmp_path):
    """A move whose transaction is under way when the server stops: the stop waits for it
    (up to a second), and its submitter is answered."""
    import asyncio

    from regalia.server.storage.writer import Writer
    from regalia.server.storage.values import NewSeat

    async def main():
        store = Store(f"sqlite:///{tmp_path}/db.sqlite3")
        table_id = store.create_table("regicide", {"players": 1}, 7, [NewSeat("human")])[0]
        m = Writer(store)
        real = store.append_moves

        def slow(moves):  # a slow disk
            out = real(moves)
            time.sleep(0.3)
            return out
        store.append_moves = slow
        mover = asyncio.ensure_future(m.append_move(table_id, 0, 0, "play 5H", False))
        await asyncio.sleep(0.05)  # committed; its answer is on its way
        assert len(store.load_table(table_id).moves) == 1 and not mover.done()
        await m.stop()
        await asyncio.wait_for(mover, 1.0)  # answered: stored
        assert not [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        store.close()
    asyncio.run(main())


def test_with_sqlite_sync_normal_the_commits_do_not_sync(db_url):
    """``--sqlite-sync normal``: the database thread's commits do not sync the disk
    (SQLite's checkpoints do); moves, reads and /healthz work as with full syncs."""
    from sqlalchemy import text

    with running_app(db_url, sqlite_sync="normal") as c:
        m = c.app.state.manager.writer
        with m.store.engine.connect() as conn:
            assert conn.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL
        d = new_table(c, "ribauds", ["human", "human"])
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p = join(c, d, cur)
        join(c, d, 1 - cur)  # (the table waits until each seat was opened)
        p.act(p.state["legal"][0])
        assert p.state_at(1)["ply"] == 1
        assert c.get("/api/open").status_code == 200 and c.get("/healthz").json()["store"] == "ok"
