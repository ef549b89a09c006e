"""A seat's time running out on one replica while its player's move is stored by another
(moves serialised across replicas; clocks). Both changes write
the table's row first, so the database orders them: the time-out is refused when the move
came first (``Conflict``: the copy catches up), the move is refused when the time-out came
first (``SeatHandedOver``). Checked on SQLite and, where ``REGALIA_TEST_POSTGRES_URL`` is
set (CI), on PostgreSQL, with the two racing in threads many times."""

from __future__ import annotations

import contextlib
import os
import threading
import time

import pytest
from sqlalchemy import update

from regalia.server.storage.models import ABANDONED, GameTable
from regalia.server.storage.store import Store
from regalia.server.storage.values import Conflict, SeatHandedOver
from server_helpers import join, running_app

PG_URL = os.environ.get("REGALIA_TEST_POSTGRES_URL")
CLOCK = {"preset": "tiny", "bank": 1.0, "increment": 0.5}


def urls(tmp_path):
    out = [f"sqlite:///{tmp_path / 'race.sqlite3'}"]
    if PG_URL or os.environ.get("CI"):
        assert PG_URL, "CI sets REGALIA_TEST_POSTGRES_URL"
        out.append(PG_URL)
    return out


def clock_state(timed_out=()):
    return {"banks": [1.0, 1.0], "since": time.time(), "timed_out": list(timed_out)}


@contextlib.contextmanager
def clock_tables(url: str):
    """A store and a maker of 2-seat clock tables; the tables made are closed at the end
    (their moves need not be legal: a server started later on the same PostgreSQL database
    must not load them)."""
    store, made = Store(url), []

    def new_clock_table() -> str:
        tid, _, _ = store.create_table("regicide", {"players": 2}, 1, [("human", None)] * 2,
                                       clock=CLOCK, clock_state=clock_state())
        made.append(tid)
        return tid

    try:
        yield store, new_clock_table
    finally:
        with store.engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id.in_(made)).values(status=ABANDONED))
        store.close()


def test_a_stored_move_refuses_the_time_out_and_a_time_out_refuses_the_move(tmp_path):
    for url in urls(tmp_path):
        with clock_tables(url) as (s, new_clock_table):
            tid = new_clock_table()
            s.append_move(tid, 0, 0, "yield", False, clock_state(), human=True)
            with pytest.raises(Conflict):
                s.set_bot_replaces(tid, 0, True, clock_state([0]), expect_ply=0)
            data = s.load_table(tid)
            assert not data.seats[0].bot_replaces and data.clock_state["timed_out"] == []
            # the other way round: seat 1 timed out at ply 1, then its player's move arrives
            s.set_bot_replaces(tid, 1, True, clock_state([1]), expect_ply=1)
            with pytest.raises(SeatHandedOver):
                s.append_move(tid, 1, 1, "yield", False, clock_state(), human=True)
            refused = s.append_moves([(tid, 1, 1, "yield", False, None, True)])[0]
            assert isinstance(refused, SeatHandedOver) and len(s.load_table(tid).moves) == 1
            s.append_move(tid, 1, 1, "yield", False, clock_state([1]))  # the bot's move
            assert len(s.load_table(tid).moves) == 2


def race(s: Store, tid: str) -> dict[str, BaseException | None]:
    """A human's move and a time-out of its seat at ply 0, started together in two
    threads; what each raised (``None``: done)."""
    go = threading.Barrier(2)
    errors: dict[str, BaseException | None] = {}

    def move():
        go.wait()
        try:
            s.append_move(tid, 0, 0, "yield", False, clock_state(), human=True)
            errors["move"] = None
        except Conflict as e:
            errors["move"] = e

    def timeout():
        go.wait()
        try:
            s.set_bot_replaces(tid, 0, True, clock_state([0]), expect_ply=0)
            errors["timeout"] = None
        except Conflict as e:
            errors["timeout"] = e

    threads = [threading.Thread(target=f) for f in (move, timeout)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return errors


def test_racing_a_move_and_a_time_out_leaves_exactly_one_of_them(tmp_path):
    for url in urls(tmp_path):
        with clock_tables(url) as (s, new_clock_table):
            for _ in range(40):
                tid = new_clock_table()
                errors = race(s, tid)
                data = s.load_table(tid)
                stored, handed = len(data.moves) == 1, data.seats[0].bot_replaces
                assert stored != handed, (url, errors)  # exactly one of the two happened
                assert (errors["move"] is None) == stored and (errors["timeout"] is None) == handed
                assert isinstance(errors["move"], (SeatHandedOver, type(None)))


def test_a_time_out_after_a_move_stored_elsewhere_catches_up_instead(db_url):
    """A replica whose copy is behind does not hand the seat over when its alarm rings:
    the move another replica stored is found, and the copy catches up."""
    with running_app(db_url, clock_presets="tiny=1+0.5") as c:
        c.seeds.next.append(6)
        r = c.post("/api/tables", json={"game": "regicide", "players": 2, "clock": "tiny",
                                        "seats": [{"kind": "human"}, {"kind": "human"}]})
        d = r.json()
        a, b = join(c, d, 0), join(c, d, 1)
        st = a.recv_until(lambda m: m["type"] == "state" and m["clock"]["started"])
        mover = st["current"]
        p = a if mover == 0 else b
        p.state_at(0)
        # another replica stores the move (this copy hears nothing of it) before the alarm
        store = c.app.state.manager.store
        store.append_move(d["id"], 0, mover, p.state["legal"][0], False,
                          {"banks": [1.0, 1.0], "since": time.time(), "timed_out": []}, human=True)
        seen = a.recv_until(lambda m: m["type"] in ("state", "timeout") and
                            (m["type"] == "timeout" or m["ply"] >= 1), timeout=5)
        assert seen["type"] == "state" and seen["ply"] == 1
        assert not seen["seats"][mover]["bot_replaces"]
        assert not any(m["type"] == "timeout" and m["seat"] == mover for m in a.messages)
        assert not store.load_table(d["id"]).seats[mover].bot_replaces
