"""Turn-based tables: a time per move (e.g. a day), no bank; the deadline is kept in the
database (the ``turn_deadline`` column), real time counts across a restart, a player out of
time loses the seat to a bot as with the live clocks, and a table waiting far from its
deadline leaves memory and is loaded again before it."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from server_helpers import join, new_table, running_app

from regalia.server.settings import Settings, parse_turn_presets
from regalia.server.storage.store import Store

TURNS = "quick=600,long=3600"


def started(c, d):
    """Both seats of a two-seat table joined; the peer to act first, the other."""
    a, b = join(c, d, 0), join(c, d, 1)
    st = a.recv_until(lambda m: m["type"] == "state" and m["clock"]["started"])
    first = a if st["current"] == 0 else b
    return first, (b if first is a else a)


def stored_row(db_url, table_id):
    """The table's ``clock_state`` and ``turn_deadline`` as the database holds them."""
    store = Store(db_url)
    try:
        from sqlalchemy import select

        from regalia.server.storage.models import GameTable
        with store.engine.connect() as conn:
            row = conn.execute(select(GameTable.clock_state, GameTable.turn_deadline)
                               .where(GameTable.id == table_id)).one()
        return row.clock_state, row.turn_deadline
    finally:
        store.close()


def test_turn_presets_are_listed_checked_and_given_to_a_table(db_url):
    with running_app(db_url, turn_presets=TURNS) as c:
        listed = [x for x in c.get("/api/clocks").json() if x["per_move"]]
        assert listed == [{"name": "quick", "bank": 600.0, "increment": 0.0, "per_move": True},
                          {"name": "long", "bank": 3600.0, "increment": 0.0, "per_move": True}]
        d = new_table(c, "ribauds", ["human", "human"], clock="long")
        assert d["clock"]["per_move"] and d["clock"]["bank"] == 3600
        assert d["clock"]["deadline"] is None and not d["clock"]["started"]
        for bad in ("week", 7, ""):
            r = c.post("/api/tables", json={"game": "ribauds", "clock": bad})
            assert r.status_code == 400, bad
            said = r.json()["error"]
            assert "turn-based one, time per move (quick, long)" in said, said
        assert c.app.state.manager.store.count_tables() == 1  # refused: nothing stored
    with pytest.raises(ValidationError, match="rapid"):
        Settings(turn_presets="rapid=86400")  # a live clock's name already
    with pytest.raises(ValueError, match="NAME=SECONDS"):
        parse_turn_presets("day=one")
    with pytest.raises(ValueError, match="more than 0 seconds"):
        parse_turn_presets("day=0")


def test_each_move_has_the_whole_time_and_the_deadline_is_stored(db_url):
    with running_app(db_url, turn_presets=TURNS) as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="quick", seed=5)
        first, second = started(c, d)
        st = first.state
        mover = st["current"]
        clock = st["clock"]
        assert clock["running"] == mover and clock["per_move"]
        assert abs(clock["deadline"] - (time.time() + 600)) < 5
        _, column = stored_row(db_url, d["id"])  # the start stored the deadline
        assert abs(column.replace(tzinfo=timezone.utc).timestamp() - clock["deadline"]) < 0.01
        time.sleep(0.4)
        first.act(st["legal"][0])
        after = first.recv_until(lambda m: m["type"] == "state" and m["ply"] == 1)
        now = time.time()
        nxt = after["current"]  # a Le Roy des Ribauds turn may take more than one move
        assert after["clock"]["running"] == nxt
        # no bank: the 0.4 s spent are not carried over, and the next move has 600 s
        assert after["clock"]["remaining"][1 - nxt] == 600
        assert 599 < after["clock"]["remaining"][nxt] <= 600
        assert abs(after["clock"]["deadline"] - (now + 600)) < 2
        state, column = stored_row(db_url, d["id"])
        assert state["deadline"] == after["clock"]["deadline"]
        assert abs(column.replace(tzinfo=timezone.utc).timestamp() - state["deadline"]) < 0.01


def test_time_running_out_hands_the_seat_to_a_bot(db_url):
    with running_app(db_url, turn_presets="tiny=1") as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="tiny", seed=8)
        first, second = started(c, d)
        late = first.state["current"]
        out = second.recv_until(lambda m: m["type"] == "timeout", timeout=5)
        assert out["seat"] == late
        st = second.recv_until(lambda m: m["type"] == "state" and m["seats"][late]["timed_out"])
        assert st["seats"][late]["bot_replaces"]
        second.recv_until(lambda m: m["type"] == "state" and m["ply"] >= 1, timeout=10)
        seats = c.app.state.manager.store.load_table(d["id"]).seats
        assert seats[late].bot_replaces  # stored
        first.send({"type": "bot", "seat": late, "on": False})
        back = first.recv_until(lambda m: m["type"] == "state"
                                and not m["seats"][late]["bot_replaces"])
        assert not back["seats"][late]["timed_out"]


def test_a_restart_keeps_the_deadline_and_real_time_counts(db_url):
    with running_app(db_url, turn_presets=TURNS) as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="long", seed=3)
        first, _ = started(c, d)
        first.act(first.state["legal"][0])
        before = first.recv_until(lambda m: m["type"] == "state" and m["ply"] == 1)["clock"]
    time.sleep(0.6)
    with running_app(db_url, turn_presets=TURNS) as c:
        after = c.get(f"/api/tables/{d['id']}").json()["clock"]
    assert after["running"] == before["running"] and after["started"]
    assert after["deadline"] == before["deadline"]  # not moved by the restart
    r = after["running"]
    assert after["remaining"][r] <= before["remaining"][r] - 0.5  # the time down counted


def test_a_deadline_passed_while_no_server_ran_hands_the_seat_over_at_start(db_url):
    with running_app(db_url, turn_presets="short=1.5") as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="short", seed=4)
        first, second = started(c, d)
        late = first.state["current"]
        first.close()
        second.close()
    time.sleep(1.8)  # the deadline passes while the server is stopped
    with running_app(db_url, turn_presets="short=1.5") as c:
        deadline = time.monotonic() + 5
        while not c.app.state.manager.store.load_table(d["id"]).seats[late].bot_replaces:
            assert time.monotonic() < deadline, "the seat was not handed to a bot"
            time.sleep(0.05)
        info = c.get(f"/api/tables/{d['id']}").json()
        assert late in info["clock"]["timed_out"]


def test_a_table_far_from_its_deadline_leaves_memory_and_is_loaded_before_it(db_url,
                                                                              monkeypatch):
    from regalia.server.tables import clocks, registry

    monkeypatch.setattr(clocks, "TURN_LOAD_AHEAD", 1.0)
    monkeypatch.setattr(registry, "TURN_LOAD_AHEAD", 1.0)
    with running_app(db_url, turn_presets="short=3", idle_unload=0.1) as c:
        m = c.app.state.manager
        d = new_table(c, "ribauds", ["human", "human"], clock="short", seed=6)
        first, second = started(c, d)
        late = first.state["current"]
        first.close()
        second.close()
        deadline = time.monotonic() + 1.5
        while d["id"] in m.tables:  # idle, and its player has more than a second left
            assert time.monotonic() < deadline, "the idle turn-based table stayed loaded"
            time.sleep(0.02)
        assert not m.store.load_table(d["id"]).seats[late].bot_replaces
        deadline = time.monotonic() + 6  # loaded again a second before: the alarm rings
        while not m.store.load_table(d["id"]).seats[late].bot_replaces:
            assert time.monotonic() < deadline, "the deadline passed unnoticed"
            time.sleep(0.05)


def test_the_tables_loaded_at_start_leave_far_turn_deadlines_out(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'ids.sqlite3'}")
    try:
        far = {"banks": [3600.0, 3600.0], "since": time.time(), "timed_out": [],
               "deadline": time.time() + 3600}
        soon = {**far, "deadline": time.time() + 30}
        turn = {"preset": "long", "bank": 3600.0, "increment": 0.0, "per_move": True}
        live = {"preset": "rapid", "bank": 600.0, "increment": 15.0}
        seats = [("human", None), ("human", None)]
        ids = {name: store.create_table("ribauds", {"players": 2}, 1, seats, clock=clock,
                                        clock_state=state)[0]
               for name, clock, state in (("far", turn, far), ("soon", turn, soon),
                                          ("waiting", turn, None), ("live", live, None),
                                          ("none", None, None))}
        active = set(store.active_table_ids(120.0))
        assert active == {ids["soon"], ids["waiting"], ids["live"]}
        due = store.due_turn_ids(datetime.now(timezone.utc) + timedelta(seconds=120))
        assert due == [ids["soon"]]
        assert store.due_turn_ids(datetime.now(timezone.utc) + timedelta(hours=2)) == [
            ids["soon"], ids["far"]]
    finally:
        store.close()
