"""Solo tables "with hints": the Hint button's server side. A hint is the
default search bot's move from the seat's view, legal at the ply it names, with the reason for
it and its win chance against the next best move's, from that view only; only solo Regicide
tables created with hints give them, and their games earn no medal (state, log, replay)."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from regalia.cli.replay import ReplayScreen
from regalia.core.errors import InvalidPosition
from regalia.core.records import RECORD_FORMAT, GameRecord
from regalia.games import get_game
from regalia.games.regicide import actions as ACTIONS
from regalia.games.regicide.hints import REASONS
from regalia.lab.analyse import HINT_WORLDS
from regalia.lab.solve import solve_seed
from regalia.server.tables import botwork
from server_helpers import join, new_table, running_app

REGICIDE = get_game("regicide")
SOLO = {"game": "regicide", "players": 1, "seats": [{"kind": "human"}], "hints": True}


def hint_table(client, seed: int | None = None) -> dict:
    return new_table(client, "regicide", ["human"], seed=seed, hints=True)


def test_a_hint_is_a_legal_move_at_its_ply(client):
    d = hint_table(client)
    me = join(client, d, 0)
    assert me.state["hints"] is True
    for _ in range(3):
        if me.state["finished"]:
            break
        me.send({"type": "hint"})
        hint = me.recv_until(lambda m: m["type"] in ("hint", "error"))
        assert hint["type"] == "hint" and hint["ply"] == me.state["ply"]
        assert hint["action"] in me.state["legal"]
        me.act(hint["action"])
        me.state_at(hint["ply"] + 1)
    assert not me.errors()


def test_a_hint_says_why_and_how_often_it_wins_against_the_next_best(client):
    """The hint message: the reason (a kind with its parameters, the one the seat's own view
    gives for that move) and the two win chances measured on the same sampled positions:
    the next best is another legal move, and the hint's move is not worse beyond the
    sampling noise (the 95% interval of its lead holds the difference and reaches zero)."""
    me = join(client, hint_table(client, seed=5), 0)
    for _ in range(3):
        me.send({"type": "hint"})
        hint = me.recv_until(lambda m: m["type"] in ("hint", "error"), timeout=30)
        assert hint["type"] == "hint", hint
        state = me.state_at(hint["ply"])
        legal = state["legal"]
        assert hint["action"] in legal
        why = hint["why"]
        assert set(why) - {"key"} == set(REASONS[why["key"]]), why
        code = ACTIONS.from_text(hint["action"], lambda _seat: 0)
        assert why == REGICIDE.hint_reason(state["view"], code)
        assert 0.0 <= hint["win"] <= 1.0 and hint["worlds"] == HINT_WORLDS - HINT_WORLDS // 2
        if len(legal) > 1:
            assert hint["next"] in legal and hint["next"] != hint["action"]
            assert 0.0 <= hint["next_win"] <= 1.0
            low, high = hint["lead_range"]
            assert low - 1e-3 <= hint["win"] - hint["next_win"] <= high + 1e-3
            assert high >= 0.0
        else:
            assert hint["next"] is None and hint["next_win"] is None
        me.act(hint["action"])
        me.state_at(hint["ply"] + 1)
        if me.state["finished"]:
            break
    assert not me.errors()


def test_the_same_view_gives_the_same_hint_at_the_same_seed(monkeypatch):
    """rules 1.15: the hint's move, reason and chances come from the seat's view alone: two
    positions that differ in hidden cards only (the Tavern order) give the same hint fields
    at the same random seed (the search bot with a fixed number of sampled positions, so
    that the clock does not decide)."""
    import random

    from regalia.bots.regicide.montecarlo import MonteCarloBot
    from regalia.core.records import Match

    monkeypatch.setitem(botwork._BOTS, ("regicide", "montecarlo"), MonteCarloBot(iterations=32))
    m = Match(REGICIDE, {"players": 1}, 21)
    for _ in range(4):
        m.play(REGICIDE.legal_actions(m.state)[0])
    s = m.state
    other = s.copy()
    random.Random(3).shuffle(other.tavern)
    assert other.tavern != s.tavern and REGICIDE.view(other, 0) == REGICIDE.view(s, 0)
    legal = list(REGICIDE.legal_actions(s))
    a = botwork.hint_of("regicide", "montecarlo", REGICIDE.view(s, 0), legal, 77, None)
    b = botwork.hint_of("regicide", "montecarlo", REGICIDE.view(other, 0), legal, 77, None)
    assert a == b and a["why"] is not None and a["win"] is not None and a["next"] in legal


def test_a_hint_is_worked_out_aside_while_the_connection_goes_on(db_url):
    # the search takes its budget (here 0.5 s); a ping sent after the hint is answered first
    with running_app(db_url, bot_budget=0.5) as c:
        me = join(c, hint_table(c), 0)
        me.send({"type": "hint"})
        me.send({"type": "ping"})
        first = me.recv_until(lambda m: m["type"] in ("pong", "hint"))
        assert first["type"] == "pong"
        assert me.recv_until(lambda m: m["type"] == "hint", timeout=10)["action"] in me.state["legal"]


def test_the_bot_workers_start_with_the_server_not_at_the_first_hint(db_url):
    # starting a worker process loads (or compiles) the kernels (seconds on a fresh
    # machine): it happens in the background when the server starts, before any table,
    # not while a player waits
    with running_app(db_url, bot_processes=True, bot_workers=1) as c:
        pool = c.app.state.manager.bots
        assert pool._warming is not None  # no table yet
        hint_table(c)
        deadline = time.monotonic() + 30
        while not (pool._executor is not None and pool._warming.done()):
            assert time.monotonic() < deadline, "the bot workers did not start"
            time.sleep(0.05)
        assert pool._warming.exception() is None and len(pool._executor._processes) == 1


def test_hints_are_refused_without_the_option_to_spectators_and_out_of_turn(client):
    plain = new_table(client, "regicide", ["human"])
    me = join(client, plain, 0)
    me.send({"type": "hint"})
    err = me.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "no_hints" and "without hints" in err["message"]
    d = hint_table(client)
    watcher = join(client, d, None)
    watcher.send({"type": "hint"})
    assert watcher.recv_until(lambda m: m["type"] == "error")["code"] == "spectator"


def test_hints_are_counted_per_address_and_a_refused_one_is_not(db_url):
    # each hint is a bot's search in the shared pool: one client asking without pause at
    # many tables would slow every table's bots (a finding of the server's probe)
    with running_app(db_url, hint_rate="2/minute") as c:
        first = join(c, hint_table(c), 0)
        watcher = join(c, hint_table(c), None)
        watcher.send({"type": "hint"})  # refused (a spectator): not counted
        assert watcher.recv_until(lambda m: m["type"] == "error")["code"] == "spectator"
        first.send({"type": "hint"})
        assert first.recv_until(lambda m: m["type"] in ("hint", "error"))["type"] == "hint"
        second = join(c, hint_table(c), 0)  # another table, the same address
        second.send({"type": "hint"})
        assert second.recv_until(lambda m: m["type"] in ("hint", "error"))["type"] == "hint"
        second.send({"type": "hint"})
        err = second.recv_until(lambda m: m["type"] in ("hint", "error"))
        assert err["code"] == "too_fast" and "hints" in err["message"], err
        limit = err["limit"]  # named, with the wait: the page says when to ask again
        assert limit["what"] == "hint" and (limit["amount"], limit["per"], limit["unit"]) == (2, 1, "minute")
        assert 1 <= limit["retry_after"] <= 60 and f"try again in {limit['retry_after']} s" in err["message"]
        second.send({"type": "ping"})  # the table goes on
        assert second.recv_until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"


def test_only_solo_regicide_tables_may_have_hints(client):
    for body, word in (({**SOLO, "players": 2, "seats": [{"kind": "human"}] * 2}, "solo Regicide"),
                       ({"game": "ribauds", "players": 2, "seats": [{"kind": "human"}] * 2,
                         "hints": True}, "solo Regicide"),
                       ({**SOLO, "seats": [{"kind": "bot"}]}, "played by a human"),
                       ({**SOLO, "hints": "yes"}, "true")):
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400 and word in r.json()["error"], (body, r.text)


def test_a_game_won_with_hints_shows_no_medal(client):
    seed = 2227728569
    line = solve_seed(seed, time_limit=30).line
    assert line, "the solver finds a winning line for this deal"
    for hints, medal_shown in ((True, False), (False, True)):
        d = hint_table(client, seed) if hints else new_table(client, "regicide", ["human"], seed=seed)
        me = join(client, d, 0)
        for ply, action in enumerate(line):
            me.act(action, ply)
            me.state_at(ply + 1)
        st = me.state
        assert st["finished"] and st["outcome"]["result"] == "won"
        won = [e for e in me.log if e.get("kind") == "won"] or [e for e in st["log"] if e.get("kind") == "won"]
        assert bool(st["view"]["medal"]) is medal_shown
        assert bool(st["outcome"]["medal"]) is medal_shown
        assert bool(client.get(f"/api/tables/{d['id']}").json()["outcome"]["medal"]) is medal_shown
        assert won and bool(won[-1].get("medal")) is medal_shown
        replay = client.get(f"/api/tables/{d['id']}/replay").json()
        assert bool(replay["outcome"]["medal"]) is medal_shown
        assert replay["hints"] is hints
        assert all(not e.get("medal") for s in replay["steps"] for e in s["events"]) is not medal_shown
        # the record says so too, and the terminal's replay of it shows no medal
        record = GameRecord.from_json(replay["record"])
        assert record.hints is hints and GameRecord.from_json(record.to_json()) == record
        out = io.StringIO()
        ReplayScreen(record, None, Console(file=out, width=120, color_system=None)).print_all()
        assert ("medal!" in out.getvalue()) is medal_shown
        assert ("played with hints (no medal)" in out.getvalue()) is hints


def test_a_record_refuses_a_hints_field_that_is_not_true_or_false():
    with pytest.raises(InvalidPosition, match="hints: must be true or false"):
        GameRecord.from_json({"format": RECORD_FORMAT, "game": "regicide", "config": {"players": 1},
                              "seed": 1, "actions": [], "hints": "yes"})
