"""The table websocket: joining, acting, one writer per table, refusals that change
nothing, bad messages, the Jester-window wishes, table talk and bots taking seats."""

from __future__ import annotations

import json
import time

from regalia.core.records import Match
from regalia.games import get_game
from regalia.server.tables.gamekit import default_bot
from server_helpers import join, new_table, running_app


def moves_in_db(client, table_id):
    store = client.app.state.manager.store
    return store.load_table(table_id).moves


def test_hello_gives_the_seat_its_view_and_legal_actions(client):
    d = new_table(client, "regicide", ["human", "human"], seed=11)
    p0, p1 = join(client, d, 0), join(client, d, 1)
    welcome = p0.messages[0]
    assert welcome["type"] == "welcome" and welcome["seat"] == 0 and welcome["game"] == "regicide"
    m = Match(get_game("regicide"), {"players": 2}, 11)
    cur = m.game.current_seat(m.state)
    acting, waiting = (p0, p1) if cur == 0 else (p1, p0)
    assert acting.state["legal"] == m.game.all_legal_texts(m.state)
    assert waiting.state["legal"] == []
    assert p0.state["view"]["hand"] == m.game.view(m.state, 0)["hand"]
    assert p1.state["view"]["hand"] == m.game.view(m.state, 1)["hand"]
    p0.recv_until(lambda m: m["type"] == "seats" and m["seats"][1]["connected"])
    assert p0.state["seats"][1]["connected"] is True


def test_a_move_is_stored_before_anyone_is_told_and_reaches_everyone(client):
    d = new_table(client, "regicide", ["human", "human"], seed=3)
    peers = [join(client, d, 0), join(client, d, 1)]
    spec = join(client, d, None)
    cur = spec.state["current"]
    action = peers[cur].state["legal"][0]
    peers[cur].act(action)
    for p in peers + [spec]:
        st = p.state_at(1)
        assert st["ply"] == 1
    assert moves_in_db(client, d["id"]) == [(0, cur, action)]
    assert spec.state["view"].get("hand") is None and spec.state["seat"] is None


def test_a_double_click_or_a_second_tab_is_applied_once(client):
    d = new_table(client, "regicide", ["human"], seed=5)
    tab1, tab2 = join(client, d, 0), join(client, d, 0)
    action = tab1.state["legal"][0]
    tab1.act(action, ply=0)
    tab1.act(action, ply=0)          # double click
    tab2.act(action, ply=0)          # the other tab
    tab1.state_at(1)
    tab2.state_at(1)
    errs = [tab1.recv_until(lambda m: m["type"] == "error"), tab2.recv_until(lambda m: m["type"] == "error")]
    assert all(e["code"] == "stale" for e in errs)
    assert len(moves_in_db(client, d["id"])) == 1
    tab1.send({"type": "ping"})
    tab1.recv_until(lambda m: m["type"] == "pong")
    assert tab1.state["ply"] == 1


def test_a_future_ply_is_refused(client):
    d = new_table(client, "regicide", ["human"], seed=5)
    p = join(client, d, 0)
    p.act(p.state["legal"][0], ply=7)
    err = p.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "stale" and "ply 7 is ahead of the game, which is at ply 0" in err["message"]
    assert moves_in_db(client, d["id"]) == []


BAD = [
    ("not json {", "bad_json"),
    ("[1, 2]", "bad_message"),
    ('{"type": 5}', "bad_message"),
    ('{"no": "type"}', "bad_message"),
    ('{"type": "fly"}', "unknown_type"),
    ('{"type": "hello", "token": null}', "bad_message"),
    ('{"type": "act"}', "bad_action"),
    ('{"type": "act", "ply": "zero", "action": "yield"}', "bad_message"),
    ('{"type": "act", "ply": -1, "action": "yield"}', "bad_message"),
    ('{"type": "act", "ply": 10000000000000000000000000000000000000000, "action": "yield"}',
     "bad_message"),
    ('{"type": "act", "action": "yield"}', "bad_message"),
    (json.dumps({"type": "act", "ply": 0, "action": "x" * 300}), "bad_action"),
    ('{"type": "act", "ply": 0, "action": "fly away"}', "illegal"),
    ('{"type": "act", "ply": 0, "action": "play ZZ"}', "illegal"),
    ('{"type": "act", "ply": 0, "action": "discard 2C"}', "illegal"),      # wrong phase
    ('{"type": "act", "ply": 0, "action": "prefer 1 yes"}', "wrong_seat"),  # someone else's wish
    ('{"type": "wish", "value": "maybe"}', "bad_message"),
    ('{"type": "wish", "value": "yes"}', "illegal"),                        # no Jester window
    ('{"type": "say", "message_id": "I hold the 10 of Clubs"}', "bad_message"),
    ('{"type": "chat", "text": "play your hearts!"}', "no_chat"),
    ('{"type": "bot", "seat": 9, "on": true}', "bad_message"),
    ('{"type": "bot", "seat": 1, "on": "yes"}', "bad_message"),
    ("[" * 3000 + "]" * 3000, "too_large"),
    ("[" * 1500 + "]" * 1500, "bad_json"),                                  # too deep
    (json.dumps({"type": "act", "ply": 0, "action": "yield", "pad": "x" * 100_000}), "too_large"),
]


def test_bad_messages_get_an_error_and_change_nothing(client):
    d = new_table(client, "regicide", ["human", "human"], seed=21)
    peers = [join(client, d, 0), join(client, d, 1)]
    spec = join(client, d, None)
    cur = spec.state["current"]
    p, other = peers[cur], peers[1 - cur]
    before = json.dumps(spec.state["view"], sort_keys=True)
    for raw, code in BAD:
        raw = raw.replace("prefer 1", f"prefer {1 - cur}")
        p.send(raw)
        err = p.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == code, (raw[:60], err)
        assert err["ply"] == 0
    p.ws.send_bytes(b'{"type": "ping"}')
    p.recv_until(lambda m: m["type"] == "pong")
    # the seat not to act, and a spectator
    other.act(other.state["legal"][0] if other.state["legal"] else "yield", ply=0)
    assert other.recv_until(lambda m: m["type"] == "error")["code"] == "not_your_turn"
    spec.act("yield", ply=0)
    assert spec.recv_until(lambda m: m["type"] == "error")["code"] == "spectator"
    spec.send({"type": "say", "message_id": "hello"})
    assert spec.recv_until(lambda m: m["type"] == "error")["code"] == "spectator"
    assert moves_in_db(client, d["id"]) == []
    spec.send({"type": "ping"})
    spec.recv_until(lambda m: m["type"] == "pong")
    assert spec.state["ply"] == 0 and json.dumps(spec.state["view"], sort_keys=True) == before
    # and the game still goes on
    p.act(p.state["legal"][0])
    assert spec.state_at(1)["ply"] == 1


def test_refusals_for_another_seat_name_no_cards(client):
    d = new_table(client, "regicide", ["human", "human"], seed=21)
    peers = [join(client, d, 0), join(client, d, 1)]
    cur = peers[0].state["current"]
    other = peers[1 - cur]
    hidden = set(peers[cur].state["view"]["hand"])
    for action in ["play " + c for c in sorted(hidden)] + ["yield", "discard 9S KH"]:
        other.act(action, ply=0)
        err = other.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "not_your_turn"
        assert not any(c in err["message"] for c in hidden)


def test_messages_before_hello_and_unknown_tables(client):
    d = new_table(client, "regicide", ["human"])
    with client.websocket_connect(f"/ws/{d['id']}") as ws:
        ws.send_json({"type": "act", "ply": 0, "action": "yield"})
        assert ws.receive_json()["code"] == "hello_first"
        ws.send_json({"type": "hello", "token": "not-a-token"})
        assert ws.receive_json()["code"] == "no_access"
        assert ws.receive()["code"] == 4403
    for unknown in ("nope", "abcdEFGH"):
        with client.websocket_connect(f"/ws/{unknown}") as ws:
            assert ws.receive_json()["code"] == "not_found"
            assert ws.receive()["code"] == 4404


def jester_seed(first: int | None = None):
    """A 3-player deal whose first player (seat ``first`` if given) holds a Jester."""
    g = get_game("regicide")
    for seed in range(2000):
        m = Match(g, {"players": 3}, seed)
        if "play X" in g.all_legal_texts(m.state) and first in (None, m.state.current):
            return seed
    raise AssertionError("no seed found")


def test_no_seat_states_another_seats_wish_whatever_the_spelling(client):
    """Rules 1.10: each player says their own wish; the engine reads actions in any case
    and spacing, so the server decides whose action it is from the engine's reading."""
    d = new_table(client, "regicide", ["human", "human", "human"], seed=jester_seed())
    peers = [join(client, d, k) for k in range(3)]
    cur = peers[0].state["current"]
    other = (cur + 1) % 3
    peers[cur].act("play X")
    for p in peers:
        p.state_at(1)
    for seat, text in ((cur, f"Prefer {other} yes"), (cur, f"PREFER  {other} no"),
                       ((cur + 2) % 3, f"prefer {other} YES")):
        peers[seat].act(text, ply=1)
        refusal = peers[seat].recv_until(lambda m: m["type"] == "error")
        assert refusal["code"] == "wrong_seat", (text, refusal)
        assert refusal["message"] == f"seat {seat} may only state its own wish"
    peers[cur].send({"type": "ping"})
    peers[cur].recv_until(lambda m: m["type"] == "pong")
    assert peers[cur].state["ply"] == 1  # nothing was applied
    assert peers[cur].state["view"]["preferences"] == [None, None, None]
    peers[other].act(f"Prefer {other} yes", ply=1)  # its own, in any spelling
    assert peers[cur].state_at(2)["view"]["preferences"][other] == "yes"


def test_wishes_count_with_the_talk(db_url):
    """A wish toggled again and again would be a signal (rules 1.10 allows a general wish,
    nothing about cards): wishes are counted in ``talk_rate`` with the seat's messages."""
    with running_app(db_url, talk_rate="3/minute") as c:
        d = new_table(c, "regicide", ["human", "human", "human"], seed=jester_seed())
        peers = [join(c, d, k) for k in range(3)]
        cur = peers[0].state["current"]
        a = (cur + 1) % 3
        peers[cur].act("play X")
        peers[a].state_at(1)
        for ply, value in ((2, "yes"), (3, "no")):
            peers[a].send({"type": "wish", "value": value})
            peers[a].state_at(ply)
        peers[a].send({"type": "say", "message_id": "hello"})
        peers[a].recv_until(lambda m: m["type"] == "talk")
        peers[a].act(f"prefer {a} yes")
        assert peers[a].recv_until(lambda m: m["type"] == "error")["code"] == "too_fast"
        peers[a].send({"type": "ping"})
        peers[a].recv_until(lambda m: m["type"] == "pong")
        assert peers[a].state["ply"] == 3  # nothing was applied
        assert peers[a].state["view"]["preferences"][a] == "no"


def test_jester_window_wishes_are_public_and_cleared(client):
    seed = jester_seed()
    d = new_table(client, "regicide", ["human", "human", "human"], seed=seed)
    peers = [join(client, d, k) for k in range(3)]
    spec = join(client, d, None)
    cur = spec.state["current"]
    others = [k for k in range(3) if k != cur]
    peers[cur].act("play X")
    for p in peers:
        p.state_at(1)
    assert spec.state_at(1)["view"]["phase"] == "choose"
    a, b = others
    assert peers[a].state["side"] == [f"prefer {a} yes", f"prefer {a} no"]
    assert peers[cur].state["side"] == []
    peers[a].send({"type": "wish", "value": "yes"})
    assert spec.state_at(2)["view"]["preferences"][a] == "yes"
    for p in peers:
        assert p.state_at(2)["view"]["preferences"][a] == "yes"
    peers[a].send({"type": "wish", "value": "yes"})  # already shown: refused, nothing changes
    assert peers[a].recv_until(lambda m: m["type"] == "error")["code"] == "illegal"
    peers[b].send({"type": "wish", "value": "no"})
    assert spec.state_at(3)["view"]["preferences"][b] == "no"
    # The chooser saw ply 1: the wishes of others in between do not make it stale.
    peers[cur].act(f"choose {a}", ply=1)
    st = spec.state_at(4)
    assert st["current"] == a and st["view"]["preferences"] == [None, None, None]
    log = [e["kind"] for e in spec.log]
    assert log.count("prefer") == 2 and "choose" in log


def test_bots_state_wishes_in_the_jester_window(client):
    seed = jester_seed(first=0)
    d = new_table(client, "regicide", ["human", "heuristic", "heuristic"], seed=seed)
    p = join(client, d, 0)
    p.act("play X")
    p.state_at(1)
    assert p.state["view"]["phase"] == "choose"
    p.drain(0.5)
    wishes = [e for e in p.log if e["kind"] == "prefer"]
    assert all(e["seat"] in (1, 2) for e in wishes)


def _bot_chooses_after_a_jester(client, wishes: bool) -> tuple[float, list[str]]:
    """Seat 0 plays a Jester and hands its seat to a bot, seats 1 and 2 connected; with
    ``wishes`` both say one at once. Seconds from the Jester to the bot's choice, and the
    kinds of the log's events then."""
    d = new_table(client, "regicide", ["human", "human", "human"], seed=jester_seed(first=0))
    peers = [join(client, d, k) for k in range(3)]
    start = time.monotonic()
    peers[0].act("play X")
    peers[0].state_at(1)
    peers[0].send({"type": "bot", "seat": 0, "on": True})
    if wishes:
        for k in (1, 2):
            peers[k].state_at(1)
            peers[k].send({"type": "wish", "value": "yes" if k == 1 else "no"})
    peers[1].recv_until(lambda m: m["type"] == "state" and m["ply"] >= 1
                        and m["view"]["phase"] != "choose", timeout=40)
    return time.monotonic() - start, [e["kind"] for e in peers[1].log]


def test_rules_1_10_a_bot_who_chooses_gives_the_players_time_to_wish(db_url):
    """The players connected get ``wish_wait`` seconds to say a wish before a bot names who
    goes next, and no more than it takes them to say it."""
    with running_app(db_url, wish_wait=1.5) as c:
        waited, kinds = _bot_chooses_after_a_jester(c, wishes=False)
        assert waited >= 1.4, waited
        assert kinds.count("prefer") == 0 and "choose" in kinds
    with running_app(db_url, wish_wait=30.0) as c:
        waited, kinds = _bot_chooses_after_a_jester(c, wishes=True)
        assert waited < 20, waited  # both wishes said: the bot chose without waiting 30 s
        assert kinds.count("prefer") == 2 and "choose" in kinds


def test_regicide_talk_is_a_fixed_list_of_public_facts(client):
    d = new_table(client, "regicide", ["human", "human"], seed=4)
    p0, p1 = join(client, d, 0), join(client, d, 1)
    p0.send({"type": "say", "message_id": "hand_size"})
    m = p1.recv_until(lambda m: m["type"] == "talk")
    assert m["seat"] == 0 and m["message_id"] == "hand_size"
    assert m["params"] == {"hand": len(p0.state["view"]["hand"])}
    assert m["text"] == f"I have {len(p0.state['view']['hand'])} card(s) in hand."
    p0.send({"type": "say", "message_id": "tavern_size"})
    m = p1.recv_until(lambda m: m["type"] == "talk")
    assert m["params"] == {"tavern": p1.state["view"]["tavern"]}
    p0.send({"type": "chat", "text": "I have the 10 of clubs"})
    assert p0.recv_until(lambda m: m["type"] == "error")["code"] == "no_chat"
    late = join(client, d, None)   # a late-comer gets the history
    hist = late.recv_until(lambda m: m["type"] == "talk_history")["messages"]
    assert [h["message_id"] for h in hist] == ["hand_size", "tavern_size"]


def test_ribauds_has_free_chat_within_limits(client):
    d = new_table(client, "ribauds", ["human", "human"], seed=4)
    p0, p1 = join(client, d, 0), join(client, d, 1)
    p0.send({"type": "chat", "text": "  Bonjour, ma Reine!\x07  "})
    m = p1.recv_until(lambda m: m["type"] == "talk")
    assert m["text"] == "Bonjour, ma Reine!" and m["seat"] == 0
    for bad in ("", "   ", "x" * 301, 42):
        p0.send({"type": "chat", "text": bad})
        assert p0.recv_until(lambda m: m["type"] == "error")["code"] == "bad_message"
    p0.send({"type": "say", "message_id": "hello"})
    assert p0.recv_until(lambda m: m["type"] == "error")["code"] == "bad_message"
    for _ in range(10):
        p1.send({"type": "chat", "text": "spam"})
    codes = [m.get("code") for m in (p1.recv() for _ in range(10)) if m["type"] == "error"]
    assert "too_fast" in codes


def test_a_leaving_human_is_replaced_by_a_bot_and_takes_the_seat_back(client):
    d = new_table(client, "regicide", ["human", "human"], seed=8)
    p0 = join(client, d, 0)
    # seat 1 is not connected: seat 0 hands it to a bot
    p0.send({"type": "bot", "seat": 1, "on": True})
    st = p0.recv_until(lambda m: m["type"] == "state" and m["seats"][1]["bot_replaces"])
    assert st["seats"][1]["bot"] == default_bot("regicide")
    # play until the bot has played seat 1 at least once
    for _ in range(60):
        if any(m["seat"] == 1 for m in [e for e in p0.log if e["kind"] in ("play", "yield", "discard")]):
            break
        if p0.state["finished"]:
            break
        if p0.state["legal"]:
            p0.act(p0.state["legal"][0])
        p0.recv_until(lambda m: m["type"] in ("state", "error"), timeout=10)
    assert any(e["seat"] == 1 for e in p0.log if e["kind"] in ("play", "yield", "discard")) or p0.state["finished"]
    # seat 1 comes back
    p1 = join(client, d, 1)
    assert p1.state["legal"] == [] and p1.state["seats"][1]["bot_replaces"]
    p1.act("yield")
    assert p1.recv_until(lambda m: m["type"] == "error")["code"] in ("bot_seat", "finished")
    p1.send({"type": "bot", "seat": 1, "on": False})
    st = p1.recv_until(lambda m: m["type"] == "state" and not m["seats"][1]["bot_replaces"])
    assert not st["seats"][1]["bot_replaces"]
    # a connected seat cannot be handed over by someone else; only its owner takes it back
    p0.send({"type": "bot", "seat": 1, "on": True})
    assert p0.recv_until(lambda m: m["type"] == "error")["code"] == "wrong_seat"
    p1.send({"type": "bot", "seat": 0, "on": False})
    assert p1.recv_until(lambda m: m["type"] == "error")["code"] == "wrong_seat"


def test_a_table_of_bots_plays_to_the_end(client):
    d = new_table(client, "regicide", ["heuristic", "random"], seed=2)
    spec = join(client, d, None)
    spec.finished()
    summary = client.get(f"/api/tables/{d['id']}").json()
    assert summary["status"] == "finished" and summary["outcome"]["result"] in ("won", "lost")
    replay = client.get(f"/api/tables/{d['id']}/replay").json()
    assert len(replay["steps"]) == summary["ply"] + 1
    assert all(len(s["hands"]) == 2 for s in replay["steps"])  # a replay shows every hand


def test_tables_are_rebuilt_from_the_move_log_after_a_restart(db_url):
    with running_app(db_url) as c:
        d = new_table(c, "regicide", ["human", "human"], seed=13)
        peers = [join(c, d, 0), join(c, d, 1)]
        for _ in range(6):
            cur = peers[0].state["current"]
            if peers[0].state["finished"]:
                break
            ply = peers[0].state["ply"]
            peers[cur].act(peers[cur].state["legal"][-1])
            for p in peers:
                p.state_at(ply + 1)
        seen = peers[0].state
    with running_app(db_url) as c:
        p = join(c, d, 0)
        assert p.state["ply"] == seen["ply"]
        assert p.state["view"] == seen["view"]
        assert p.log == peers[0].log


def test_healthz_times_each_applied_move_and_not_the_refused_ones(client):
    assert client.get("/healthz").json()["move_ms"] == {
        "count": 0, "p50": None, "p90": None, "p99": None, "max": None}
    d = new_table(client, "regicide", ["human"], seed=5)
    p = join(client, d, 0)
    for ply in range(3):
        p.act(p.state["legal"][0], ply=ply)
        p.state_at(ply + 1)
    p.act(p.state["legal"][0], ply=0)  # stale: refused, not counted
    p.recv_until(lambda m: m["type"] == "error")
    health = client.get("/healthz").json()
    timed = health["move_ms"]
    assert health["moves"] == timed["count"] == 3
    assert 0 < timed["p50"] <= timed["p90"] <= timed["p99"] <= timed["max"] < 10_000


def test_latency_summary_takes_nearest_rank_percentiles_in_milliseconds():
    from regalia.server.tables.registry import latency_summary
    summary = latency_summary([i / 1000 for i in range(100, 0, -1)])  # 1..100 ms
    assert summary == {"count": 100, "p50": 50.0, "p90": 90.0, "p99": 99.0, "max": 100.0}


def test_a_seat_just_left_is_not_handed_to_a_bot_by_another(client, monkeypatch):
    """A reload is not a leave: another player may hand over a seat only when nobody has been
    connected to it for HANDOVER_GRACE seconds (a probe found the Ribauds opponent handing
    the reloading player's seat to a bot 60 ms after the socket closed)."""
    from regalia.server.tables import seats

    monkeypatch.setattr(seats, "HANDOVER_GRACE", 1.0)
    d = new_table(client, "ribauds", ["human", "human"])
    p0, p1 = join(client, d, 0), join(client, d, 1)
    p1.close()
    p0.send({"type": "bot", "seat": 1, "on": True})
    err = p0.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "seat_away" and "may be coming back" in err["message"], err
    assert not client.get(f"/api/tables/{d['id']}").json()["seats"][1]["bot_replaces"]
    time.sleep(1.2)
    p0.send({"type": "bot", "seat": 1, "on": True})
    st = p0.recv_until(lambda m: m["type"] in ("state", "error") and (
        m["type"] == "error" or m["seats"][1]["bot_replaces"]))
    assert st["type"] == "state", st


def test_seat_changes_are_counted_as_talk_and_windows_told_only_to_their_seat(db_url):
    """Every player sees a seat handed to a bot and taken back: counted as talk (rules
    1.15), but a seat handing itself over (to leave) is not counted, so that leaving always
    works; a seat's windows are told to that seat only (a count others see is a channel)."""
    with running_app(db_url, talk_rate="3/minute") as c:
        d = new_table(c, "regicide", ["human", "human"])
        p0, p1 = join(c, d, 0), join(c, d, 1)
        for _ in range(3):  # three toggles: three take-backs counted
            for on in (True, False):
                p0.send({"type": "bot", "seat": 0, "on": on})
                p1.recv_until(lambda m, on=on: m["type"] == "state" and m["seats"][0]["bot_replaces"] is on)
        p0.send({"type": "bot", "seat": 0, "on": False})  # nothing to change: not counted
        p0.send({"type": "bot", "seat": 0, "on": True})   # leaving: not counted
        p1.recv_until(lambda m: m["type"] == "state" and m["seats"][0]["bot_replaces"])
        p0.send({"type": "bot", "seat": 0, "on": False})
        err = p0.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "too_fast", err
        assert c.get(f"/api/tables/{d['id']}").json()["seats"][0]["bot_replaces"]
        more = [join(c, d, 0) for _ in range(3)]  # seat 0 in four windows
        # told in a seat list, or in a state when the bot that plays seat 0 moved first
        mine = p0.recv_until(lambda m: m["type"] in ("seats", "state")
                             and m["seats"][0].get("windows") == 4)
        assert "windows" not in mine["seats"][1]
        # seat 1 is told nothing of seat 0's windows: not even a seat list
        heard = len(p1.messages)
        p1.drain(0.2)
        assert not [m for m in p1.messages[heard:] if m["type"] == "seats"]
        theirs = p1.state["seats"]
        assert "windows" not in theirs[0] and theirs[0]["connected"] and theirs[1]["windows"] == 1
        assert all("windows" not in s for s in c.get(f"/api/tables/{d['id']}").json()["seats"])
        for p in more:
            p.close()


def test_after_a_restart_a_held_seat_gets_the_grace_too(db_url):
    """A restart is not a leave: a held seat counts as seen when the table is loaded, so
    the first player back cannot hand the others' seats to bots before they reconnect."""
    with running_app(db_url) as c:
        d = new_table(c, "ribauds", ["human", "human"])
        join(c, d, 0), join(c, d, 1)
    with running_app(db_url) as c:
        p0 = join(c, d, 0)
        p0.send({"type": "bot", "seat": 1, "on": True})
        err = p0.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "seat_away", err
