"""Storage faults reach players well (issue 8, fault 5): a server whose database cannot be
written refuses to start with a one-line reason; a write the database refuses (here: the
database locked by another process) becomes a websocket ``error`` or a JSON 503 within 5
seconds with nothing applied; ``/healthz`` reports the store."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from typer.testing import CliRunner

from regalia.cli.app import app as cli
from regalia.server.store import Store, StoreUnavailable
from server_helpers import join, new_table, running_app


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


def test_writes_are_done_on_the_event_loop_unless_the_database_is_busy(db_url):
    """SQLite: a write spares the trip to the database thread when no other writer holds the
    lock (``Store.at_once``), and waits its turn there when one does."""
    with running_app(db_url) as c:
        m = c.app.state.manager
        on_thread = []
        real_db = m.db

        async def watching(fn, *args):
            on_thread.append(getattr(fn, "func", fn).__name__)  # a partial: its function
            return await real_db(fn, *args)
        m.db = watching
        d = new_table(c, "regicide", ["human"])
        p = join(c, d, 0)  # the seat is claimed
        p.act(p.state["legal"][0])
        assert p.state_at(1)["ply"] == 1
        assert not {"store_and_read", "update_seat", "append_moves"} & set(on_thread), on_thread
        with Locked(db_url):  # another process writes for half a second
            p.act(p.state["legal"][0])
            time.sleep(0.5)
            assert "append_moves" in on_thread  # the move waits its turn on the thread
        assert p.state_at(2)["ply"] == 2  # stored once the lock was released
        assert [mv[0] for mv in m.store.load_table(d["id"]).moves] == [0, 1]
        assert m.store.load_table(d["id"]).seats[0].claimed


def test_a_slow_write_on_the_event_loop_sends_the_writes_to_the_thread_and_checkpoints_run_there(
        db_url, monkeypatch, caplog):
    """A write on the loop slower than SLOW_WRITE (a stalled disk) sends the next writes to
    the database thread, where the write timeout applies; the write-ahead log is copied
    back on that thread every CHECKPOINT_EVERY writes on the loop."""
    from regalia.server import manager as M

    monkeypatch.setattr(M, "CHECKPOINT_EVERY", 1)
    with running_app(db_url) as c:
        m = c.app.state.manager
        on_thread = []
        real_db = m.db

        async def watching(fn, *args):
            on_thread.append(getattr(fn, "func", fn).__name__)
            return await real_db(fn, *args)
        m.db = watching
        d = new_table(c, "regicide", ["human"])
        p = join(c, d, 0)
        time.sleep(0.2)  # the table was stored on the loop, then a checkpoint on the thread
        assert on_thread == ["checkpoint"]
        monkeypatch.setattr(M, "SLOW_WRITE", -1.0)  # every write is now "slow"
        p.act(p.state["legal"][0])
        assert p.state_at(1)["ply"] == 1 and "append_moves" not in on_thread  # on the loop...
        assert "writes go to the database thread" in caplog.text
        p.act(p.state["legal"][0])
        assert p.state_at(2)["ply"] == 2 and "append_moves" in on_thread  # ...then not


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
