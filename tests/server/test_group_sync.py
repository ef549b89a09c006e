"""SQLite's full syncs grouped on the database thread (``Store.group_syncs``,
``threads.DatabaseThreads``'s ``sync``): commits with ``synchronous=NORMAL``, then one sync of
the write-ahead log for the calls run meanwhile, no call answered before it."""

from __future__ import annotations

import os
import threading
import time

import pytest
from sqlalchemy import text

from regalia.server.storage import database
from regalia.server.storage.store import NotSynced, Store
from regalia.server.storage.values import NewSeat
from regalia.server.storage.threads import HOLD_CALLS, DatabaseThreads
from server_helpers import join, new_table, running_app


def synchronous(store: Store) -> int:
    with store.engine.connect() as c:
        return c.execute(text("PRAGMA synchronous")).scalar()


def test_a_grouped_store_commits_without_a_sync_and_syncs_its_log_once_when_asked(
        db_url, monkeypatch):
    s = Store(db_url)
    assert synchronous(s) == 2  # FULL until the syncs are grouped
    assert s.group_syncs() and s.group_syncs()  # (a second call changes nothing)
    assert synchronous(s) == 1  # NORMAL: the commits leave the sync to sync_log
    assert s.log_path == os.path.abspath(db_url.removeprefix("sqlite:///")) + "-wal"
    synced: list[str] = []
    real = database.sync  # os.fdatasync (os.fsync where it is missing)
    monkeypatch.setattr(database, "sync", lambda fd: (
        synced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd))[1])
    table_id = s.create_table("regicide", {"players": 1}, 7, [NewSeat("human")])[0]
    s.append_moves([(table_id, 0, 0, "play 5H", False)])
    assert synced == [] and s.unsynced
    s.sync_log()
    assert synced == [s.log_path] and not s.unsynced
    s.load_table(table_id)  # a read commits nothing
    s.sync_log()
    assert synced == [s.log_path]
    s.close()
    again = Store(db_url)
    assert again.load_table(table_id).moves == [(0, 0, "play 5H")]
    again.close()


@pytest.mark.parametrize("kw", [{"sync": "normal"}, {"url": "sqlite://"}])
def test_only_full_syncs_on_a_sqlite_file_are_grouped(db_url, kw):
    s = Store(kw.get("url", db_url), sync=kw.get("sync", "full"))
    assert not s.group_syncs() and s.log_path is None
    s.sync_log()  # nothing to do
    s.close()


def test_a_failed_log_sync_says_the_commits_may_be_lost_and_is_tried_again(db_url, monkeypatch):
    s = Store(db_url)
    s.group_syncs()
    s.probe_write()

    def broken(fd):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(database, "sync", broken)
    with pytest.raises(NotSynced, match="the disk failed"):
        s.sync_log()
    assert s.unsynced  # the next sync tries again
    monkeypatch.undo()
    s.sync_log()
    assert not s.unsynced
    s.close()


def test_the_calls_run_meanwhile_share_one_sync_and_none_is_answered_before_it():
    synced = threading.Event()
    syncs: list[int] = []
    gate = threading.Event()
    threads = DatabaseThreads(1, "test-db", sync=lambda: (syncs.append(1), synced.wait(5)))
    try:
        first = threads.submit(gate.wait, 5)  # runs while the others queue behind it
        rest = [threads.submit(lambda k=k: k) for k in range(5)]
        failing = threads.submit(lambda: 1 / 0)
        gate.set()
        time.sleep(0.2)
        assert not any(f.done() for f in [first, *rest, failing])  # held for the sync
        assert syncs == [1]
        synced.set()
        assert [f.result(5) for f in rest] == [0, 1, 2, 3, 4] and first.result(5) is True
        with pytest.raises(ZeroDivisionError):
            failing.result(5)
        assert syncs == [1]  # one sync for all of them
    finally:
        threads.shutdown()


def test_a_failed_sync_is_the_answer_of_the_calls_that_succeeded_and_a_long_queue_is_cut():
    calls = iter(range(10**6))

    def sync():
        if next(calls) == 0:
            raise NotSynced("the disk failed: test")

    threads = DatabaseThreads(1, "test-db", sync=sync)
    gate = threading.Event()
    try:
        first = threads.submit(gate.wait, 5)
        failing = threads.submit(lambda: 1 / 0)
        many = [threads.submit(lambda k=k: k) for k in range(2 * HOLD_CALLS)]
        gate.set()
        with pytest.raises(NotSynced):
            first.result(5)
        with pytest.raises(ZeroDivisionError):  # its own error, not the sync's
            failing.result(5)
        answers = []
        for f in many:
            try:
                answers.append(f.result(5))
            except NotSynced:
                answers.append(None)
        # the first sync answered at most HOLD_CALLS calls: the rest waited for the next
        assert answers[HOLD_CALLS:] == list(range(HOLD_CALLS, 2 * HOLD_CALLS))
    finally:
        threads.shutdown()
    with pytest.raises(ValueError, match="one database thread"):
        DatabaseThreads(2, "test-db", sync=lambda: None)


def test_the_server_answers_a_move_and_a_new_table_only_after_the_log_is_synced(db_url):
    with running_app(db_url) as c:
        store = c.app.state.manager.writer.store
        assert store.log_path is not None and synchronous(store) == 1
        synced: list[float] = []
        real = store.sync_log

        def counted():
            if store.unsynced:
                synced.append(time.monotonic())
            real()
        store.sync_log = counted
        d = new_table(c, "ribauds", ["human", "human"])
        assert synced  # the table's creation was synced before its answer
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p, _ = join(c, d, cur), join(c, d, 1 - cur)
        before = len(synced)
        p.act(p.state["legal"][0])
        assert p.state_at(1)["ply"] == 1 and len(synced) > before


def test_a_failed_log_sync_says_the_move_may_be_lost_and_the_table_is_read_again(db_url):
    with running_app(db_url) as c:
        store = c.app.state.manager.writer.store
        d = new_table(c, "ribauds", ["human", "human"])
        cur = c.get(f"/api/tables/{d['id']}").json()["current"]
        p, other = join(c, d, cur), join(c, d, 1 - cur)
        real = store.sync_log

        def failing():
            if store.unsynced:
                store.sync_log = real  # fails once
                real()
                raise NotSynced("the disk failed: test")
            real()
        store.sync_log = failing
        action = p.state["legal"][0]
        p.act(action)
        err = p.recv_until(lambda msg: msg["type"] == "error")
        assert err["code"] == "storage" and "may not have been saved" in err["message"], err
        assert p.state_at(1)["ply"] == 1 and other.state_at(1)["ply"] == 1
        assert [mv[2] for mv in store.load_table(d["id"]).moves] == [action]
