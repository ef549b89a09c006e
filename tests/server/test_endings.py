"""The players end a game before its rules do (``tables.endings``): a concession in Le Roy
des Ribauds (the opponent wins), a stop every player agrees to in Regicide (a loss for all).
Neither is an action of the rules: the table stores an ending row after the moves, so the
game is over with its result for every seat and spectator, in the table's summary, the
replay and its record, and after a restart. A message out of place changes nothing."""

from __future__ import annotations

import io

from rich.console import Console

from regalia.cli.replay import ReplayScreen
from regalia.core.records import CONCEDED, STOPPED, Ending, GameRecord
from server_helpers import join, new_table, running_app


def settled(*peers) -> None:
    for p in peers:
        p.drain(0.1)


def error_of(peer) -> dict:
    return peer.recv_until(lambda m: m["type"] == "error")


def stored(client, table_id: str):
    return client.app.state.manager.store.load_table(table_id)


def move_once(peers: dict, spectator) -> None:
    """The seat to act plays its first legal action (a human seat of ``peers``)."""
    st = spectator.state
    p = peers[st["current"]]
    p.state_at(st["ply"])
    p.act(p.state["legal"][0])
    for q in [*peers.values(), spectator]:
        q.state_at(st["ply"] + 1)


# -- Le Roy des Ribauds: concede ---------------------------------------------------------


def test_a_concession_ends_the_game_and_the_opponent_wins_for_everyone(db_url):
    with running_app(db_url) as c:
        d = new_table(c, "ribauds", ["human", "human"], seed=11)
        a, b = join(c, d, 0), join(c, d, 1)
        watcher = join(c, d, None)
        move_once({0: a, 1: b}, watcher)
        ply = watcher.state["ply"]
        b.send({"type": "concede"})
        for p in (a, b, watcher):
            st = p.finished(timeout=5)
            assert st["ply"] == ply and st["current"] is None and not st["legal"]
            assert st["outcome"]["ending"] == {"how": "conceded", "seat": 1}
            assert st["outcome"]["winner"] == 0 and st["outcome"]["returns"] == [1.0, 0.0]
            assert p.log[-1]["kind"] == "conceded" and p.log[-1]["seat"] == 1
        summary = c.get(f"/api/tables/{d['id']}").json()
        assert summary["status"] == "finished" and summary["current"] is None
        assert summary["ending"] == {"how": "conceded", "seat": 1}
        assert summary["outcome"]["winner"] == 0
        # stored: the move log ends with the ending row, read apart from the moves
        data = stored(c, d["id"])
        assert data.status == "finished" and data.ending == Ending(CONCEDED, 1)
        assert len(data.moves) == ply
        # twice, or a move after it: refused, nothing changed
        b.send({"type": "concede"})
        assert error_of(b)["code"] == "finished"
        a.act("reveal 0", ply)
        assert error_of(a)["code"] == "finished"
        settled(a, b)
        assert len(stored(c, d["id"]).moves) == ply
        replay = c.get(f"/api/tables/{d['id']}/replay").json()
        assert replay["ending"] == {"how": "conceded", "seat": 1}
        assert replay["record"]["ending"] == {"how": "conceded", "seat": 1}
        assert len(replay["steps"]) == ply + 1
        assert replay["steps"][-1]["events"][-1]["kind"] == "conceded"
        assert replay["outcome"]["winner"] == 0
    with running_app(db_url) as c:  # a restart reads the ending from the database
        summary = c.get(f"/api/tables/{d['id']}").json()
        assert summary["status"] == "finished" and summary["outcome"]["winner"] == 0
        assert summary["ending"] == {"how": "conceded", "seat": 1} and summary["ply"] == ply
        a = join(c, d, 0)
        assert a.state["finished"] and a.state["outcome"]["ending"]["seat"] == 1
        assert a.log[-1]["kind"] == "conceded" and not a.state["legal"]
        a.act("reveal 0", ply)
        assert error_of(a)["code"] == "finished"
        replay = c.get(f"/api/tables/{d['id']}/replay").json()
        record = GameRecord.from_json(replay["record"])
        assert record.ending == Ending(CONCEDED, 1) and len(record.actions) == ply
        assert GameRecord.from_json(record.to_json()) == record
        out = io.StringIO()
        ReplayScreen(record, None, Console(file=out, width=120, color_system=None)).print_all()
        text = out.getvalue()
        assert "Player 2 conceded" in text and "Player 1 wins: Player 2 conceded" in text


def test_a_concession_after_a_move_another_replica_stored_is_refused_then_goes_through(client):
    """The ending row takes the ply after the last move: when another server stored a move
    at that ply first (as another replica would), the concession is refused as stale, the
    table reads the move, and a concession then ends the game after it."""
    d = new_table(client, "ribauds", ["human", "human"], seed=11)
    a, b = join(client, d, 0), join(client, d, 1)
    st = a.state
    mover = a if st["current"] == 0 else b
    other = b if mover is a else a
    client.app.state.manager.store.append_move(d["id"], 0, st["current"], mover.state["legal"][0])
    other.send({"type": "concede"})
    assert error_of(other)["code"] == "stale"
    other.state_at(1)  # read again from the database
    assert stored(client, d["id"]).ending is None
    other.send({"type": "concede"})
    st = other.finished(timeout=5)
    assert st["ply"] == 1 and st["outcome"]["ending"]["seat"] == other.state["seat"]
    data = stored(client, d["id"])
    assert len(data.moves) == 1 and data.ending == Ending(CONCEDED, other.state["seat"])


def test_a_player_may_concede_before_any_move_against_a_bot_and_the_bot_stops(db_url):
    with running_app(db_url) as c:
        d = new_table(c, "ribauds", ["human", "random"], seed=4)
        me = join(c, d, 0)
        me.send({"type": "concede"})
        st = me.finished(timeout=5)
        assert st["outcome"]["ending"] == {"how": "conceded", "seat": 0}
        assert st["outcome"]["winner"] == 1
        ply = st["ply"]
        settled(me)
        assert c.get(f"/api/tables/{d['id']}").json()["ply"] == ply  # the bot plays no more
        assert len(stored(c, d["id"]).moves) == ply


def test_a_spectators_concession_or_one_in_regicide_is_refused_and_changes_nothing(client):
    d = new_table(client, "ribauds", ["human", "human"], seed=3)
    a, b = join(client, d, 0), join(client, d, 1)
    watcher = join(client, d, None)
    watcher.send({"type": "concede"})
    err = error_of(watcher)
    assert err["code"] == "spectator"
    r = new_table(client, "regicide", ["human", "human"], seed=3)
    p0 = join(client, r, 0)
    join(client, r, 1)
    p0.send({"type": "concede"})
    err = error_of(p0)
    assert err["code"] == "no_concede" and '"stop"' in err["message"]
    a.send({"type": "stop", "agree": True})
    err = error_of(a)
    assert err["code"] == "no_stop" and '"concede"' in err["message"]
    settled(a, b, watcher, p0)
    for t in (d, r):
        summary = client.get(f"/api/tables/{t['id']}").json()
        assert summary["status"] == "playing" and summary["ending"] is None
        assert stored(client, t["id"]).ending is None
    assert not a.state["finished"] and not p0.state["finished"]


def test_a_seat_a_bot_plays_cannot_concede_until_taken_back(client):
    d = new_table(client, "ribauds", ["human", "human"], seed=8)
    a, b = join(client, d, 0), join(client, d, 1)
    a.send({"type": "bot", "seat": 0, "on": True})
    a.recv_until(lambda m: m["type"] in ("state", "seats") and m["seats"][0]["bot_replaces"])
    a.send({"type": "concede"})
    assert error_of(a)["code"] == "bot_seat"
    settled(a)
    assert stored(client, d["id"]).ending is None and not a.state["finished"]
    a.send({"type": "bot", "seat": 0, "on": False})
    a.recv_until(lambda m: m["type"] in ("state", "seats") and not m["seats"][0]["bot_replaces"])
    a.send({"type": "concede"})
    assert b.finished(timeout=5)["outcome"]["winner"] == 1


def test_a_table_waiting_for_its_players_cannot_be_conceded(client):
    d = new_table(client, "ribauds", ["human", "human"], seed=8)
    a = join(client, d, 0)
    assert a.state["waiting"]
    a.send({"type": "concede"})
    assert error_of(a)["code"] == "waiting"
    assert stored(client, d["id"]).ending is None


def test_a_conceded_game_may_be_played_again(client):
    d = new_table(client, "ribauds", ["human", "human"], seed=8)
    a, b = join(client, d, 0), join(client, d, 1)
    a.send({"type": "concede"})
    a.finished(timeout=5)
    token = d["seats"][0]["token"]
    r = client.post(f"/api/tables/{d['id']}/rematch", json={"token": token})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/tables/{r.json()['id']}").json()["status"] == "playing"


# -- Regicide: stop by agreement ---------------------------------------------------------


def regicide_table(client, seats=("human", "human", "human"), seed=21):
    d = new_table(client, "regicide", list(seats), seed=seed)
    peers = {k: join(client, d, k) for k, s in enumerate(seats) if s == "human"}
    watcher = join(client, d, None)
    return d, peers, watcher


def stop_field(peer, pred) -> dict:
    st = peer.recv_until(lambda m: m["type"] == "state" and pred(m["stop"]))
    return st["stop"]


def test_when_every_player_accepts_the_proposal_the_game_stops_as_a_loss(db_url):
    with running_app(db_url) as c:
        d, peers, watcher = regicide_table(c)
        a, b, e = peers[0], peers[1], peers[2]
        ply = watcher.state["ply"]
        b.send({"type": "stop", "agree": True})
        for p in (a, b, e, watcher):
            said = p.recv_until(lambda m: m["type"] == "stop")
            assert said == {"type": "stop", "seat": 1, "agree": True, "ply": ply}
            assert stop_field(p, bool) == {"by": 1, "agreed": [1], "waiting": [0, 2]}
        a.send({"type": "stop", "agree": True})
        assert stop_field(watcher, lambda s: s and 0 in s["agreed"]) == \
            {"by": 1, "agreed": [0, 1], "waiting": [2]}
        assert not watcher.state["finished"] and stored(c, d["id"]).ending is None
        a.send({"type": "stop", "agree": True})  # twice: refused
        err = error_of(a)
        assert err["code"] == "already_agreed" and "seat 2" in err["message"]
        e.send({"type": "stop", "agree": True})
        for p in (a, b, e, watcher):
            st = p.finished(timeout=5)
            assert st["ply"] == ply and st["stop"] is None and st["current"] is None
            assert st["outcome"]["ending"] == {"how": "stopped", "seat": 1}
            assert st["outcome"]["result"] == "lost" and st["outcome"]["returns"] == [0.0] * 3
            assert p.log[-1]["kind"] == "stopped" and p.log[-1]["seat"] == 1
            assert not st["legal"]
        assert stored(c, d["id"]).ending == Ending(STOPPED, 1)
        assert c.get(f"/api/tables/{d['id']}").json()["status"] == "finished"
        replay = c.get(f"/api/tables/{d['id']}/replay").json()
        assert replay["ending"] == {"how": "stopped", "seat": 1}
        assert replay["steps"][-1]["events"][-1]["kind"] == "stopped"
        e.send({"type": "stop", "agree": True})
        assert error_of(e)["code"] == "finished"
    with running_app(db_url) as c:  # and after a restart
        summary = c.get(f"/api/tables/{d['id']}").json()
        assert summary["status"] == "finished" and summary["outcome"]["result"] == "lost"
        assert summary["ending"] == {"how": "stopped", "seat": 1}
        record = GameRecord.from_json(c.get(f"/api/tables/{d['id']}/replay").json()["record"])
        out = io.StringIO()
        ReplayScreen(record, None, Console(file=out, width=120, color_system=None)).print_all()
        assert "Player 2 proposed to stop" in out.getvalue()
        assert "stopped by agreement" in out.getvalue()


def test_a_decline_cancels_the_proposal(client):
    d, peers, watcher = regicide_table(client, ("human", "human"))
    a, b = peers[0], peers[1]
    a.send({"type": "stop", "agree": True})
    assert stop_field(b, bool)["waiting"] == [1]
    b.send({"type": "stop", "agree": False})
    said = a.recv_until(lambda m: m["type"] == "stop" and not m["agree"])
    assert said["seat"] == 1
    assert stop_field(a, lambda s: s is None) is None
    settled(a, b)
    assert not a.state["finished"] and stored(client, d["id"]).ending is None
    b.send({"type": "stop", "agree": True})  # a new proposal, not an answer to the old one
    assert stop_field(a, bool) == {"by": 1, "agreed": [1], "waiting": [0]}
    b.send({"type": "stop", "agree": False})  # the proposer withdraws it
    assert stop_field(a, lambda s: s is None) is None
    a.send({"type": "stop", "agree": False})
    assert error_of(a)["code"] == "no_proposal"


def test_a_move_cancels_the_proposal(client):
    d, peers, watcher = regicide_table(client, ("human", "human"))
    st = watcher.state
    other = peers[1 - st["current"]]
    other.send({"type": "stop", "agree": True})
    assert stop_field(watcher, bool)["by"] == other.state["seat"]
    move_once(peers, watcher)
    assert watcher.state["stop"] is None
    settled(*peers.values())
    # the accept that follows answers no proposal: it makes a new one, the game goes on
    mover = peers[st["current"]]
    mover.send({"type": "stop", "agree": True})
    assert stop_field(watcher, bool) == {"by": st["current"], "agreed": [st["current"]],
                                         "waiting": [1 - st["current"]]}
    assert not watcher.state["finished"] and stored(client, d["id"]).ending is None


def test_alone_with_bots_a_player_stops_at_once(client):
    d = new_table(client, "regicide", ["human", "random"], seed=5)
    me = join(client, d, 0)
    me.send({"type": "stop", "agree": True})
    st = me.finished(timeout=5)
    assert st["outcome"]["ending"] == {"how": "stopped", "seat": 0}
    assert st["outcome"]["result"] == "lost"
    solo = new_table(client, "regicide", ["human"], seed=5)
    me = join(client, solo, 0)
    me.send({"type": "stop", "agree": True})
    assert me.finished(timeout=5)["outcome"]["ending"] == {"how": "stopped", "seat": 0}


def test_a_seat_handed_to_a_bot_counts_as_agreeing(client):
    d, peers, watcher = regicide_table(client, ("human", "human", "human"))
    peers[0].send({"type": "stop", "agree": True})
    stop_field(watcher, bool)
    peers[1].send({"type": "stop", "agree": True})
    assert stop_field(watcher, lambda s: s and s["waiting"] == [2])["agreed"] == [0, 1]
    peers[2].send({"type": "bot", "seat": 2, "on": True})  # the last to answer leaves
    st = watcher.finished(timeout=5)
    assert st["outcome"]["ending"] == {"how": "stopped", "seat": 0}


def test_stop_messages_out_of_place_are_refused(client):
    d, peers, watcher = regicide_table(client, ("human", "human"))
    watcher.send({"type": "stop", "agree": True})
    assert error_of(watcher)["code"] == "spectator"
    for bad in ({"type": "stop"}, {"type": "stop", "agree": "yes"}, {"type": "stop", "agree": 1}):
        peers[0].send(bad)
        err = error_of(peers[0])
        assert err["code"] == "bad_message" and "agree: true" in err["message"]
    peers[0].send({"type": "stop!"})
    err = error_of(peers[0])
    assert err["code"] == "unknown_type" and "concede" in err["message"] and "stop" in err["message"]
    settled(watcher, *peers.values())
    assert watcher.state["stop"] is None and not watcher.state["finished"]
    assert stored(client, d["id"]).ending is None


def test_proposals_to_stop_are_counted_as_talk(db_url):
    """A proposal to stop says something to the others (rules 1.15): proposing and
    withdrawing again and again is held to the talk rate, as sayings are."""
    with running_app(db_url, talk_rate="2/minute") as c:
        d, peers, watcher = regicide_table(c, ("human", "human"))
        a = peers[0]
        for _ in range(2):
            a.send({"type": "stop", "agree": True})
            stop_field(watcher, bool)
            a.send({"type": "stop", "agree": False})
            stop_field(watcher, lambda s: s is None)
        a.send({"type": "stop", "agree": True})
        err = error_of(a)
        assert err["code"] == "too_fast" and err["limit"]["what"] == "talk"
        settled(watcher)
        assert watcher.state["stop"] is None
