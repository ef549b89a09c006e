"""The database: migrations (a newer version opens an older database), the move log's
uniqueness, SQLite durability settings."""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from regalia.server.settings import Settings
from regalia.server.storage.engine import (current_revision, head_revision, in_memory,
                                           make_engine, migrate)
from regalia.server.storage.store import Store, StoreUnavailable, TooLate
from regalia.server.storage.values import Conflict, NewSeat
from server_helpers import latest_revision


def test_a_new_database_is_migrated_to_the_latest_revision(db_url):
    s = Store(db_url)
    assert current_revision(s.engine) == head_revision()
    with s.engine.connect() as c:
        assert c.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert c.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    s.close()


def test_the_probe_write_commits_and_says_why_a_database_cannot_be_written(db_url):
    """``probe_write`` (the health probe) commits a write that changes nothing; on a
    database that cannot be written it raises ``StoreUnavailable`` with the reason."""
    s = Store(db_url)
    trips = s.round_trips
    s.probe_write()
    assert s.round_trips > trips and current_revision(s.engine) == head_revision()
    s.close()
    ro = Store("sqlite:///file:" + db_url.removeprefix("sqlite:///") + "?mode=ro&uri=true",
               upgrade=False)
    ro.check_readable()
    with pytest.raises(StoreUnavailable, match="readonly"):
        ro.probe_write()
    ro.close()


def test_sqlite_sync_normal_drops_the_disk_sync_at_commits(db_url):
    s = Store(db_url, sync="normal")
    with s.engine.connect() as c:
        assert c.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL
    table_id = s.create_table("regicide", {"players": 1}, 7, [NewSeat("human")])[0]
    s.append_moves([(table_id, 0, 0, "play 5H", False)])
    s.close()
    again = Store(db_url)  # what was committed is there for the next process
    assert again.load_table(table_id).moves == [(0, 0, "play 5H")]
    again.close()


def test_the_app_opens_its_database_with_the_settings_sqlite_sync(db_url):
    from server_helpers import running_app

    with running_app(db_url, sqlite_sync="normal") as c:
        store = c.app.state.manager.store
        with store.engine.connect() as conn:
            assert conn.execute(text("PRAGMA synchronous")).scalar() == 1


def test_a_sqlite_sync_other_than_full_or_normal_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="sync: one of full, normal, not 'off'"):
        make_engine("sqlite://", sync="off")
    with pytest.raises(ValueError, match="sqlite_sync: one of full, normal, not 'off'"):
        Settings(sqlite_sync="off")
    from typer.testing import CliRunner

    from regalia.cli.app import app as cli
    r = CliRunner().invoke(cli, ["serve", "--sqlite-sync", "off", "--port", "1"])
    assert r.exit_code != 0
    said = " ".join(r.output.replace("│", " ").split())  # the error box's lines joined
    assert "'off' is not one of 'full', 'normal'" in said


def test_an_old_database_is_upgraded_and_its_tables_still_play(db_url):
    engine = make_engine(db_url)
    migrate(engine, "0001")
    assert current_revision(engine) == "0001"
    now = datetime.now(timezone.utc)
    with engine.begin() as c:
        c.execute(text("INSERT INTO game_tables (id, game, config, seed, status, created_at) "
                       "VALUES ('old1', 'regicide', :cfg, 7, 'playing', :now)"),
                  {"cfg": json.dumps({"players": 1}), "now": now})
        c.execute(text("INSERT INTO seats (table_id, seat, kind, bot, token_hash, bot_replaces) "
                       "VALUES ('old1', 0, 'human', NULL, 'x', 0)"))
    engine.dispose()
    from regalia.core.records import Match
    from regalia.games import get_game

    m = Match(get_game("regicide"), {"players": 1}, 7)
    first = m.game.action_to_text(m.state, list(m.game.legal_actions(m.state))[0])
    s = Store(db_url)  # upgrades
    assert current_revision(s.engine) == head_revision()
    s.append_move("old1", 0, 0, first)
    t = s.load_table("old1")
    assert t.moves == [(0, 0, first)] and t.status == "playing" and t.messages == []
    s.add_message("old1", 0, "say", {"kind": "say", "message_id": "hello"})
    assert s.load_table("old1").messages[0]["message_id"] == "hello"
    s.close()


def test_a_table_without_clock_stores_sql_null_and_is_not_loaded_at_start(db_url):
    """No clock is SQL NULL (not the JSON text null, which every "has a clock" query took
    for a clock): an unfinished table of people alone is not among the tables a server loads
    at start; one with a clock or a bot is. Revision 0006 mends the rows stored before."""
    engine = make_engine(db_url)
    migrate(engine, "0005")
    with engine.begin() as c:  # as the store wrote a table without clock until 0005
        c.execute(text("INSERT INTO game_tables (id, game, config, seed, status, created_at, "
                       "clock, clock_state) VALUES ('old2', 'regicide', :cfg, 7, 'playing', "
                       ":now, 'null', 'null')"),
                  {"cfg": json.dumps({"players": 2}), "now": datetime.now(timezone.utc)})
    engine.dispose()
    s = Store(db_url)  # upgrades
    people = s.create_table("regicide", {"players": 2}, 1, [("human", None)] * 2)[0]
    clocked = s.create_table("regicide", {"players": 2}, 2, [("human", None)] * 2,
                             clock={"preset": "5+3", "bank": 300, "increment": 3})[0]
    bot = s.create_table("regicide", {"players": 2}, 3, [("human", None), ("bot", "random")])[0]
    with s.engine.connect() as c:
        nulls = dict(c.execute(text("SELECT id, clock IS NULL AND clock_state IS NULL "
                                    "FROM game_tables")).all())
    assert nulls == {"old2": 1, people: 1, clocked: 0, bot: 1}
    assert sorted(s.active_table_ids()) == sorted([clocked, bot])
    s.close()


def test_a_ply_is_stored_once(db_url):
    s = Store(db_url)
    tid, tokens, _ = s.create_table("regicide", {"players": 2}, 5, [("human", None), ("bot", "random")])
    assert tokens[0] and tokens[1] is None
    s.append_move(tid, 0, 0, "play 5C")
    with pytest.raises(Conflict):
        s.append_move(tid, 0, 0, "play 5C")
    with pytest.raises(Conflict):
        s.append_move(tid, 0, 1, "yield")
    s.append_move(tid, 1, 1, "yield", finished=True)
    t = s.load_table(tid)
    assert [m[0] for m in t.moves] == [0, 1] and t.status == "finished"
    assert s.active_table_ids() == []
    s.close()


def test_an_ending_takes_a_ply_so_a_move_and_an_ending_cannot_both_be_stored(db_url):
    """The players' ending of a game is stored as the move log's last row (``@conceded`` at
    the ply after the last move), read apart from the moves: a move at its ply is refused as
    a second move would be, and an ending at a ply a move took is refused too."""
    from regalia.core.records import CONCEDED, STOPPED, Ending
    from regalia.server.storage.models import ending_action

    s = Store(db_url)
    tid = s.create_table("ribauds", {"players": 2}, 5, [("human", None)] * 2)[0]
    s.append_move(tid, 0, 0, "reveal 1")
    with pytest.raises(Conflict):  # a move took ply 0: an ending there came too late
        s.append_move(tid, 0, 1, ending_action(Ending(CONCEDED, 1)), True)
    s.append_move(tid, 1, 1, ending_action(Ending(CONCEDED, 1)), True)
    with pytest.raises(Conflict):  # the ending took ply 1: a move there came too late
        s.append_move(tid, 1, 1, "reveal 2")
    t = s.load_table(tid)
    assert t.moves == [(0, 0, "reveal 1")] and t.ending == Ending(CONCEDED, 1)
    assert t.status == "finished" and s.active_table_ids() == []
    assert ending_action(Ending(STOPPED, 0)) == "@stopped"
    other = s.create_table("ribauds", {"players": 2}, 6, [("human", None)] * 2)[0]
    assert s.load_table(other).ending is None
    s.close()


def test_a_new_table_is_answered_as_it_would_be_read_back(db_url):
    """``new_table`` answers the table as stored without reading it back: the same values
    as ``load_table`` gives, the creation time in UTC on every database."""
    s = Store(db_url)
    data, tokens = s.new_table("regicide", {"players": 3, "jester_choose_self": True}, 9,
                               [NewSeat("human", None, "Ana", True), ("bot", "random"),
                                ("human", None)], is_open=True, hints=False,
                               clock={"preset": "5+3", "bank": 300, "increment": 3},
                               clock_state={"bank": [300, 300, 300], "running": None})
    assert tokens[0] and tokens[1] is None and tokens[2]
    assert data == s.load_table(data.id)
    assert data.created_at.utcoffset() == timedelta(0)
    s.close()


def test_tokens_are_not_stored(db_url):
    s = Store(db_url)
    tid, tokens, _ = s.create_table("regicide", {"players": 1}, 5, [("human", None)])
    with s.engine.connect() as c:
        dump = json.dumps([list(r) for r in c.execute(text("SELECT * FROM seats"))])
    assert tokens[0] not in dump
    s.close()


def test_moves_of_several_tables_share_one_transaction_and_a_duplicate_is_refused(db_url):
    s = Store(db_url)
    t1, _, _ = s.create_table("regicide", {"players": 1}, 1, [("human", None)])
    t2, _, _ = s.create_table("regicide", {"players": 1}, 2, [("human", None)])
    assert s.append_moves([(t1, 0, 0, "yield", False), (t2, 0, 0, "yield", True)]) == [None, None]
    res = s.append_moves([(t1, 1, 0, "play 5C", False), (t1, 1, 0, "play 6C", False)])
    assert res[0] is None and isinstance(res[1], Conflict)
    assert [m[2] for m in s.load_table(t1).moves] == ["yield", "play 5C"]
    assert s.load_table(t2).status == "finished"
    s.close()


def test_a_batch_writes_each_tables_row_as_its_move_says_across_runs_of_changes(db_url):
    """The rows are written in runs of the same change (one executemany each): a finished
    table, a table's clocks and plain moves mixed in one batch each land on their own row."""
    s = Store(db_url)
    ids = sorted(s.create_table("regicide", {"players": 1}, k, [("human", None)])[0]
                 for k in range(7))
    clocks = {"bank": [12.5], "running": 0}
    moves = [(ids[0], 0, 0, "yield", False), (ids[1], 0, 0, "yield", True),
             (ids[2], 0, 0, "yield", False, clocks), (ids[3], 0, 0, "yield", False),
             (ids[4], 0, 0, "yield", False), (ids[5], 0, 0, "yield", False),
             (ids[6], 0, 0, "yield", True, {"bank": [1.0], "running": None})]
    assert s.append_moves(moves[::-1]) == [None] * 7  # the batch sorts them by table
    tables = [s.load_table(t) for t in ids]
    assert [t.status for t in tables] == ["playing", "finished"] + ["playing"] * 4 + ["finished"]
    assert [t.clock_state for t in tables] == [None, None, clocks, None, None, None,
                                               {"bank": [1.0], "running": None}]
    assert all(len(t.moves) == 1 for t in tables)
    s.close()


def test_a_batch_with_a_refused_move_stores_the_others_and_writes_wait_until_a_deadline(db_url):
    s = Store(db_url)
    t1, _, _ = s.create_table("regicide", {"players": 1}, 1, [("human", None)])
    t2, _, _ = s.create_table("regicide", {"players": 1}, 2, [("human", None)])
    assert s.append_moves([(t1, 0, 0, "yield", False)]) == [None]
    assert isinstance(s.append_moves([(t1, 0, 0, "play 5C", False)])[0], Conflict)
    # a batch with a ply already taken: each move on its own, the others stored
    out = s.append_moves([(t2, 0, 0, "yield", True), (t1, 0, 0, "play 5C", False)])
    assert out[0] is None and isinstance(out[1], Conflict)
    assert s.load_table(t2).status == "finished" and [m[2] for m in s.load_table(t1).moves] == ["yield"]
    with s.engine.connect() as conn:  # the commits copy the log back themselves
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000
    # a write on a deadline: not started after it, and waiting for a lock only until it
    with pytest.raises(TooLate):
        s.before(time.monotonic() - 1, s.update_seat, t2, 0, None, None)
    other = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    t0 = time.monotonic()
    with pytest.raises(OperationalError):
        s.before(time.monotonic() + 0.3, lambda: s.update_seat(t2, 0, name="Bo"))
    assert 0.2 < time.monotonic() - t0 < 1.5  # not the usual 5 s
    t0 = time.monotonic()
    out = s.before(time.monotonic() + 0.3, s.append_moves, [(t1, 1, 0, "yield", False)])
    assert isinstance(out[0], OperationalError) and 0.2 < time.monotonic() - t0 < 1.5
    other.execute("ROLLBACK")
    other.close()
    with s.engine.connect() as conn:  # the connection waits as usual again
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
    assert s.before(time.monotonic() + 5, s.load_table, t2).seats[0].name is None
    assert [m[2] for m in s.load_table(t1).moves] == ["yield"]
    s.close()
    for url in ("sqlite://", "sqlite:///:memory:", "sqlite:///file::memory:?uri=true"):
        assert in_memory(url)  # one per connection
    assert not in_memory(db_url)


def test_a_seat_changes_only_when_it_still_holds_the_expected_values(db_url):
    s = Store(db_url)
    tid, _, _ = s.create_table("regicide", {"players": 2}, 3,
                               [("human", None), ("human", None)], clock={"bank": 60})
    s.update_seat(tid, 1, expect={"claimed": False, "name": None}, claimed=True, name="Ana")
    with pytest.raises(Conflict):  # taken meanwhile: nothing changes
        s.update_seat(tid, 1, expect={"claimed": False}, claimed=True, name="Bo")
    with pytest.raises(Conflict):
        s.update_seat(tid, 1, expect={"name": None}, name="Bo")
    s.update_seat(tid, 0, {"banks": [60, 60]}, expect={"name": None}, claimed=True, name="Cy")
    t = s.load_table(tid)
    assert [(x.name, x.claimed) for x in t.seats] == [("Cy", True), ("Ana", True)]
    assert t.clock_state == {"banks": [60, 60]} and t.clock == {"bank": 60}
    s.close()


def test_a_table_loads_its_latest_messages_oldest_first(db_url):
    s = Store(db_url)
    tid, _, _ = s.create_table("ribauds", {}, 3, [("human", None), ("bot", "random")])
    for i in range(5):
        s.add_message(tid, 0, "say", {"kind": "say", "message_id": f"m{i}"})
    assert [m["message_id"] for m in s.load_table(tid, messages=3).messages] == ["m2", "m3", "m4"]
    assert s.load_table("nothing-here") is None
    s.close()


def test_a_new_table_whose_random_id_is_taken_is_stored_under_another(db_url, monkeypatch):
    """A table's id is random and written without a check first: when it is taken, the
    whole transaction is written again with another id; the table that had it is left as
    it was."""
    import secrets

    store = Store(db_url)
    first, _ = store.new_table("regicide", {"players": 1}, 7, [("human", None)])
    ids = iter([first.id, "fresh1"])
    token_urlsafe = secrets.token_urlsafe
    monkeypatch.setattr(secrets, "token_urlsafe",
                        lambda n=None: next(ids) if n == 6 else token_urlsafe(n))
    second, tokens = store.new_table("ribauds", {"players": 2}, 8,
                                     [("human", None), ("human", None)])
    assert second.id == "fresh1" and len(tokens) == 2
    assert store.count_tables() == 2
    again = store.load_table(first.id)
    assert (again.game, again.seed, len(again.seats)) == ("regicide", 7, 1)
    assert store.load_table("fresh1").game == "ribauds"


def test_a_new_table_refused_by_the_database_for_another_reason_is_not_retried(db_url):
    """An integrity error that is no taken id (here a seat written twice) is raised, and
    nothing of the table is stored."""
    from sqlalchemy.exc import IntegrityError

    from regalia.server.storage.statements import INSERT_SEATS

    store = Store(db_url)
    calls = []

    def seat_again(conn, table_id):
        calls.append(table_id)
        conn.execute(INSERT_SEATS, [{"table_id": table_id, "seat": 0, "kind": "human",
                                     "bot": None, "token_hash": None, "bot_replaces": False,
                                     "name": None, "claimed": False, "account_id": None}])

    with pytest.raises(IntegrityError):
        store.new_table("regicide", {"players": 1}, 7, [("human", None)], also=seat_again)
    assert len(calls) == 1 and store.count_tables() == 0
