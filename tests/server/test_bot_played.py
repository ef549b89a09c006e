"""A game's integrity when a bot plays for a person, and when nobody may act yet.

* A game a bot played any part of for a person (a seat handed to a bot, a time-out, a player
  who left) earns no medal, as a game played with hints: in the state, the log, the table's
  summary, the replay and its record, and after a restart (the moves say it in the database).
* The log names who acted: a bot's move for a person carries ``bot`` (the page says "Bot for
  NAME"), live and in the replay.
* The time the server was down is not charged to the player to act.
* A private table waits, as an open one does, until each human seat was opened once or
  handed to a bot: nobody acts, no bot plays, no clock runs."""

from __future__ import annotations

import io
import time

from rich.console import Console
from sqlalchemy import create_engine, text

from regalia.cli.replay import ReplayScreen
from regalia.core.records import GameRecord, Match
from regalia.games import get_game
from regalia.lab.solve import solve_seed
from regalia.server.tables import botrunner
from server_helpers import join, new_table, running_app

REGICIDE = get_game("regicide")
SEED = 2227728569  # a solo deal the solver wins (test_hints)
PRESETS = "tiny=1+0.5,rapid=600+15"


def test_a_solo_game_a_bot_played_part_of_earns_no_medal_and_its_log_says_bot_for(db_url, monkeypatch):
    line = solve_seed(SEED, time_limit=30).line
    assert line
    handed = 3  # the player plays 3 moves, then lets a bot play for them
    m = Match(REGICIDE, {"players": 1}, SEED)
    codes = []
    for action in line:
        codes.append(REGICIDE.action_from_text(m.state, action))
        m.play(action)
    plays = iter(codes[handed:])

    def bot_plays_the_line(game, name, view, legal, seed, budget):
        code = next(plays)
        assert code in legal
        return code

    monkeypatch.setattr(botrunner, "decide", bot_plays_the_line)
    with running_app(db_url) as c:
        d = new_table(c, "regicide", ["human"], seed=SEED)
        me = join(c, d, 0)
        for ply in range(handed):
            me.act(line[ply], ply)
            me.state_at(ply + 1)
        me.send({"type": "bot", "seat": 0, "on": True})
        st = me.finished(timeout=30)
        assert st["outcome"]["result"] == "won"
        assert not st["view"]["medal"] and not st["outcome"]["medal"] and st["bot_played"]
        won = [e for e in me.log if e["kind"] == "won"]
        assert won and not won[-1].get("medal")
        assert not c.get(f"/api/tables/{d['id']}").json()["outcome"]["medal"]
        # the log names who acted: the player's own moves, then the bot's for them
        mine = [e.get("bot", False) for e in me.log if e["seat"] == 0]
        assert mine[0] is False and mine[-1] is True
        replay = c.get(f"/api/tables/{d['id']}/replay").json()
        assert not replay["outcome"]["medal"] and replay["bot_played"]
        assert all(not e.get("medal") for s in replay["steps"] for e in s["events"])
        assert [s["bot"] for s in replay["steps"][1:]] == [k >= handed for k in range(len(line))]
        assert all(e.get("bot") for s in replay["steps"][handed + 1:] for e in s["events"]
                   if e["seat"] == 0)
        assert not any(e.get("bot") for s in replay["steps"][:handed + 1] for e in s["events"])
        assert mine == [e.get("bot", False) for s in replay["steps"] for e in s["events"]
                        if e["seat"] == 0]
        record = GameRecord.from_json(replay["record"])
        assert record.bot_moves == list(range(handed, len(line))) and record.no_medal
        assert GameRecord.from_json(record.to_json()) == record
        out = io.StringIO()
        ReplayScreen(record, None, Console(file=out, width=120, color_system=None)).print_all()
        assert "medal!" not in out.getvalue() and "a bot played for a person" in out.getvalue()
    with running_app(db_url) as c:  # the database remembers it
        assert not c.get(f"/api/tables/{d['id']}").json()["outcome"]["medal"]
        replay = c.get(f"/api/tables/{d['id']}/replay").json()
        assert replay["bot_played"] and not replay["outcome"]["medal"]
        me = join(c, d, 0)
        assert me.state["bot_played"] and not me.state["view"]["medal"]
        assert [e.get("bot", False) for e in me.log if e["seat"] == 0] == mine


def test_a_bot_seats_own_moves_are_not_a_bot_playing_for_a_person(client):
    d = new_table(client, "regicide", ["human", "random"], seed=3)
    me = join(client, d, 0)

    def bot_acted() -> bool:  # the random bot plays, yields or discards
        return any(e["seat"] == 1 for e in me.log if e["kind"] in ("play", "yield", "discard"))

    for _ in range(30):
        st = me.state
        if st["finished"] or bot_acted():
            break
        if st["current"] == 0:
            me.act(st["legal"][0])
        me.recv_until(lambda m: m["type"] == "state" and m["ply"] > st["ply"], timeout=10)
    assert bot_acted() or me.state["finished"]
    assert not any(e.get("bot") for e in me.log) and not me.state["bot_played"]


def test_after_a_time_out_the_log_says_a_bot_played_for_the_seat(db_url):
    with running_app(db_url, clock_presets=PRESETS) as c:
        d = new_table(c, "regicide", ["human", "human"], seed=6, clock="tiny")
        a, b = join(c, d, 0), join(c, d, 1)
        st = a.recv_until(lambda m: m["type"] == "state" and m["clock"]["started"])
        late = st["current"]
        a.recv_until(lambda m: m["type"] == "timeout", timeout=5)
        a.recv_until(lambda m: m["type"] == "state" and m["ply"] >= 1, timeout=10)
        first = [e for e in a.log if e["kind"] in ("play", "yield") and e["seat"] == late][0]
        assert first.get("bot") is True
    with running_app(db_url, clock_presets=PRESETS) as c:  # and after a restart
        a = join(c, d, 0)
        first = [e for e in a.log if e["kind"] in ("play", "yield") and e["seat"] == late][0]
        assert first.get("bot") is True


def test_the_time_the_server_was_down_is_not_charged(db_url):
    with running_app(db_url, clock_presets=PRESETS) as c:
        d = new_table(c, "regicide", ["human", "human"], seed=9, clock="rapid")
        a, b = join(c, d, 0), join(c, d, 1)
        st = a.recv_until(lambda m: m["type"] == "state" and m["clock"]["started"])
        p = a if st["current"] == 0 else b
        p.state_at(0)
        p.act(p.state["legal"][0])
        before = p.recv_until(lambda m: m["type"] == "state" and m["ply"] == 1)["clock"]
    # the server is down for 20 s: the stored clock started 20 s earlier than it would have
    engine = create_engine(db_url)
    with engine.begin() as conn:
        stored = conn.execute(text("SELECT clock_state FROM game_tables WHERE id = :i"),
                              {"i": d["id"]}).scalar()
        state = stored if isinstance(stored, dict) else __import__("json").loads(stored)
        state["since"] -= 20
        conn.execute(text("UPDATE game_tables SET clock_state = :s WHERE id = :i"),
                     {"s": __import__("json").dumps(state), "i": d["id"]})
    engine.dispose()
    with running_app(db_url, clock_presets=PRESETS) as c:
        time.sleep(0.3)
        after = c.get(f"/api/tables/{d['id']}").json()["clock"]
        # stored too: a read of the table again from the database finds the resumed clock
        resumed = c.app.state.manager.store.load_table(d["id"]).clock_state
        assert resumed["since"] > state["since"] + 15, (state, resumed)
    r = after["running"]
    assert after["started"] and r == before["running"]
    assert before["remaining"][r] - 5 < after["remaining"][r] <= before["remaining"][r], \
        (before, after)  # 20 s down: not charged (it said 20 s less)


def test_a_private_table_waits_until_each_invitation_was_opened(db_url):
    with running_app(db_url, clock_presets=PRESETS) as c:
        d = new_table(c, "regicide", ["human", "human", "random"], seed=5, clock="rapid")
        a = join(c, d, 0)
        st = a.state
        assert st["waiting"] and not st["legal"] and not st["open"]
        assert not st["clock"]["started"] and st["clock"]["running"] is None
        a.act("yield", 0)
        err = a.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "waiting", err
        time.sleep(0.3)
        assert c.get(f"/api/tables/{d['id']}").json()["ply"] == 0  # the bot waits too
        b = join(c, d, 1)
        st = a.recv_until(lambda m: m["type"] == "state" and not m["waiting"])
        assert st["clock"]["started"]
        b.close()


def test_a_private_table_may_start_with_a_bot_for_an_invitation_not_opened(db_url):
    with running_app(db_url, clock_presets=PRESETS) as c:
        d = new_table(c, "regicide", ["human", "human"], seed=5, clock="rapid")
        a = join(c, d, 0)
        assert a.state["waiting"]
        a.send({"type": "bot", "seat": 1, "on": True})  # at once: nobody ever opened it
        st = a.recv_until(lambda m: m["type"] == "state" and m["seats"][1]["bot_replaces"])
        assert not st["waiting"] and st["clock"]["started"]
        if st["current"] != 0:  # the bot plays for the invitee until the player is to act
            st = a.recv_until(lambda m: m["type"] == "state" and m["current"] == 0, timeout=10)
        assert st["legal"]


def test_solo_and_bots_only_tables_do_not_wait(client):
    d = new_table(client, "regicide", ["human"], seed=1)
    me = join(client, d, 0)
    assert not me.state["waiting"] and me.state["legal"]
    d = new_table(client, "regicide", ["random", "random"], seed=1)
    watcher = join(client, d, None)
    assert not watcher.state["waiting"]
    watcher.recv_until(lambda m: m["type"] == "state" and m["ply"] >= 2, timeout=10)
