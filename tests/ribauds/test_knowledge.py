"""Per-seat knowledge kept in the state and shown by ``view`` (rules 2.7)."""

from __future__ import annotations

import json
import random

from regalia.games.ribauds import RIBAUDS as G
from regalia.games.ribauds.cards import KING, QUEEN

from .helpers import events_of, play, state


def court_cards(s, seat):
    return [c["card"] for c in G.view(s, seat)["court"]]


def test_placer_knows_its_face_down_card_and_knowledge_follows_a_knight_swap():
    s = state("Q- N- A- K-", ("KQA", "NAQ"), deck="KN")
    s, _ = play(s, "replace 1 K down")  # A knows slot 1; B does not
    assert court_cards(s, 0) == [None, "K", None, None]
    assert court_cards(s, 1) == [None, None, None, None]
    s, _ = play(s, "replace 0 N up", "swap 1 2")  # B's Knight moves A's Roi to slot 2
    assert court_cards(s, 0) == ["N", None, "K", None]
    assert court_cards(s, 1) == ["N", None, None, None]
    assert G.view(s, 1)["court"][2]["known_by"] == [True, False]
    s, _ = play(s, "flip 3")  # a face-down card turned up is known to both
    assert court_cards(s, 1) == ["N", None, None, "K"]


def test_assassin_knowledge_follows_the_card_and_a_flip_hides_nothing_known():
    s = state("A- K- Q- N-", ("KNA", "QKN"), deck="NQ")
    s, _ = play(s, "reveal 0", "peek 1 2")
    assert court_cards(s, 0) == ["A", "K", "Q", None]
    s, _ = play(s, "replace 3 N up", "swap 1 3", "flip 2")  # B: Knight; flip Q face up
    assert court_cards(s, 0) == ["A", "N", "Q", "K"]  # A still knows the Roi, now in slot 3
    assert court_cards(s, 1) == ["A", "N", "Q", None]


def test_taking_a_known_face_down_card_tells_the_opponent():
    s = state("A- K- Q- N-", ("KNA", "QKN"), deck="NQ")
    s, _ = play(s, "reveal 0", "peek 1 2")  # A knows slot 2 is a Reine
    s, evs = play(s, "replace 2 K down")  # B takes it
    assert G.view(s, 0)["opponent_hand_known"] == ["Q"]
    assert G.view(s, 1)["hand_known_by_opponent"] == ["Q"]
    replace_a = [e for e in G.view(s, 0)["log"] if e["kind"] == "replace"][-1]
    assert replace_a["taken"] == "Q"  # A's log says what A knows
    replace_spectator = [e for e in G.view(s, None)["log"] if e["kind"] == "replace"][-1]
    assert replace_spectator["taken"] is None


def _inspected(b_hand, wanted):
    for seed in range(300):
        s = state("N- A- K- Q-", ("QNA", b_hand), deck="NKA")
        s2, evs = play(s, "replace 0 Q up", rng=random.Random(seed))
        if sorted(events_of(evs, "inspect")[0].private[0]["cards"]) == sorted(wanted):
            return s2
    raise AssertionError(wanted)


def test_seen_cards_leave_when_shown_and_blur_when_hidden():
    s = _inspected("KNA", "KN")  # A saw B's Roi and Chevalier
    assert G.view(s, 0)["opponent_hand_known"] == ["K", "N"]
    t, _ = play(s, "replace 2 K up")  # B shows the Roi: A still knows the Chevalier
    assert G.view(t, 0)["opponent_hand_known"] == ["N"]
    t, _ = play(s, "replace 2 A down")  # B hides a card: it may be either, A knows none
    assert G.view(t, 0)["opponent_hand_known"] == []
    assert G.view(t, 1)["hand_known_by_opponent"] == []


def test_seen_pair_of_one_type_loses_one_on_a_hidden_placement():
    s = _inspected("KKA", "KK")
    assert s.seen[0][KING] == 2
    t, _ = play(s, "replace 2 A down")
    assert G.view(t, 0)["opponent_hand_known"] == ["K"]  # at least one Roi is still there


def test_public_bottom_reines_are_known_when_drawn():
    s = state("K+ N- A- Q-", ("KQA", "KAN"), deck="NQQ", phase="king")
    s.bottom_reines = 2  # as after a public single re-deal (3.L17)
    s, evs = play(s, "draw")
    (draw,) = events_of(evs, "draw")
    assert draw.data["known"] == ["Q"]
    assert G.view(s, 1)["opponent_hand_known"] == ["Q"]
    assert G.view(s, 1)["deck_bottom_reines"] == 1
    s, _ = play(s, "discard K N")
    assert G.view(s, 1)["opponent_hand_known"] == ["Q"]
    assert s.hands[0][QUEEN] >= 1


def test_view_keys_and_hand_privacy():
    s = G.new_game({}, random.Random(4))
    v0, v1, vs = G.view(s, 0), G.view(s, 1), G.view(s, None)
    keys = {"game", "players", "seat", "current", "phase", "winner", "conspiracy", "options",
            "court", "hand", "hand_sizes", "opponent_hand_known", "hand_known_by_opponent",
            "deck", "deck_bottom_reines", "discard", "redeals", "log"}
    assert set(v0) == set(v1) == set(vs) == keys
    assert v0["hand"] == G.to_json(s)["hands"][0] and vs["hand"] is None
    deal0 = [e for e in v0["log"] if e["kind"] == "deal"][0]
    deal1 = [e for e in v1["log"] if e["kind"] == "deal"][0]
    assert deal0["hand"] == v0["hand"] and deal1["hand"] == v1["hand"]
    assert "hand" not in [e for e in vs["log"] if e["kind"] == "deal"][0]
    json.dumps(v0), json.dumps(vs)
