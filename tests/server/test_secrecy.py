"""Secrets (rules regicide 1.15, ribauds 2.7): every message sent to each connection during
whole games is recorded; a seat only ever receives its own view, a spectator the public
view, and no message holds a card hidden from the seat it is sent to."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from regalia.games import get_game
from regalia.server.tables import gamekit
from server_helpers import card_tokens, join, new_table, play_randomly, states_by_ply


def as_json(obj):
    return json.loads(json.dumps(obj))


def record_of(client, table_id):
    return client.app.state.manager.store.load_table(table_id)


def check_every_message_is_the_seats_view(g, states, seat, peer):
    """Each ``state`` message equals ``view(state at its ply, seat)`` (log sent as a tail),
    with the legal actions only for the seat to act."""
    log = []
    n = 0
    for m in peer.messages:
        if m["type"] != "state":
            continue
        n += 1
        st = states[m["ply"]]
        expected = as_json(g.view(st, seat))
        expected_log = expected.pop("log")
        assert m["view"] == expected, (seat, m["ply"])
        log = log[:m["log_start"]] + m["log"]
        assert log == expected_log, (seat, m["ply"])
        assert m["seat"] == seat
        to_act = g.current_seat(st)
        if seat is not None and to_act == seat and not m["seats"][seat]["bot_replaces"] \
                and not m["waiting"]:  # (nobody acts before every seat is taken)
            assert sorted(m["legal"]) == sorted(g.action_to_text(st, a) for a in list(g.legal_actions(st)))
        else:
            assert m["legal"] == []
        if seat is not None and m["side"]:
            assert m["side"] == gamekit.side_texts(g, st, seat)
    assert n > 0


def regicide_hidden_cards(g, states, seat):
    """Per ply, the cards ``seat`` may not know: in another hand, the Tavern or the Castle,
    and never shown publicly (spectator view) nor held by the seat up to that ply."""
    out = []
    public: set[str] = set()
    own: set[str] = set()
    for st in states:
        public |= card_tokens(json.dumps(g.view(st, None)))
        pos = g.to_json(st)
        if seat is not None:
            own |= set(pos["hands"][seat])
        others = {c for k, h in enumerate(pos["hands"]) if k != seat for c in h}
        others |= set(pos["tavern"]) | set(pos["castle"])
        out.append(others - public - own)
    return out


def check_no_hidden_regicide_card(g, states, seat, peer):
    hidden = regicide_hidden_cards(g, states, seat)
    for raw, m in zip(peer.raw, peer.messages):
        ply = m.get("ply")
        if ply is None:
            continue
        leaked = card_tokens(raw) & hidden[ply]
        assert not leaked, f"seat {seat} received hidden cards {leaked} at ply {ply}: {raw[:200]}"


def play_table(client, game, seats, seed, rng):
    d = new_table(client, game, seats, seed=seed)
    humans = {k: join(client, d, k) for k, s in enumerate(seats) if s == "human"}
    spectator = join(client, d, None)
    play_randomly(humans, spectator, rng)
    stored = record_of(client, d["id"])
    assert stored.status == "finished"
    g = get_game(game)
    states = states_by_ply(game, stored.config, stored.seed, [a for _, _, a in stored.moves])
    peers = {**humans, None: spectator}
    return g, states, peers


@pytest.mark.parametrize("seats,seed", [
    (["human", "human"], 1),
    (["human", "human", "heuristic"], 2),
    (["human", "human", "human", "human"], 3),
    (["human"], 4),
])
def test_regicide_whole_games_leak_no_hidden_card(client, seats, seed):
    g, states, peers = play_table(client, "regicide", seats, seed, random.Random(seed))
    for seat, peer in peers.items():
        check_every_message_is_the_seats_view(g, states, seat, peer)
        check_no_hidden_regicide_card(g, states, seat, peer)
        # the errors a seat receives (its refused actions) name no hidden card either
        assert all(m["ply"] is not None for m in peer.errors())
    assert sum(len(p.errors()) for p in peers.values()) > 0 or len(seats) == 1


@pytest.mark.parametrize("seats,seed", [(["human", "random"], 5), (["human", "human"], 6)])
def test_ribauds_whole_games_show_each_seat_only_what_it_knows(client, seats, seed):
    g, states, peers = play_table(client, "ribauds", seats, seed, random.Random(seed))
    for seat, peer in peers.items():
        check_every_message_is_the_seats_view(g, states, seat, peer)
        for m in peer.messages:
            if m["type"] != "state":
                continue
            pos = g.to_json(states[m["ply"]])
            v = m["view"]
            for i, slot in enumerate(v["court"]):
                truth = pos["court"][i]
                if slot["card"] is not None:
                    assert slot["card"] == truth[0]
                if truth[1] == "-" and (seat is None or not slot["known_by"][seat]):
                    assert slot["card"] is None
            if seat is None:
                assert v["hand"] is None and v["opponent_hand_known"] is None
            else:
                assert Counter(v["hand"]) == Counter(pos["hands"][seat])
                assert not Counter(v["opponent_hand_known"]) - Counter(pos["hands"][1 - seat])


def test_the_checks_catch_a_leaked_hand(client):
    """The checks above are not vacuous: a message holding the other seat's hand fails."""
    g, states, peers = play_table(client, "regicide", ["human", "human"], 1, random.Random(1))
    peer = peers[0]
    other_hand = g.to_json(states[0])["hands"][1]
    fake = {"type": "state", "ply": 0, "view": {"hand": other_hand}}
    peer.messages.append(fake)
    peer.raw.append(json.dumps(fake))
    with pytest.raises(AssertionError):
        check_no_hidden_regicide_card(g, states, 0, peer)
    with pytest.raises(AssertionError):
        check_every_message_is_the_seats_view(g, states, 0, peer)
    assert len(states) > 5
