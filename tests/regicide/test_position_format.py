"""Regicide position JSON and action text (formats.md 1.1-1.3)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from regalia.core.errors import IllegalAction, InvalidPosition
from regalia.games.regicide import REGICIDE as G

from regicide_helpers import act, js, legal, pos, state

FORMATS_EXAMPLE = {
    "game": "regicide",
    "players": 2,
    "current": 0,
    "phase": "play",
    "enemy": "JS",
    "damage": 12,
    "immunity_cancelled": False,
    "table": [["5S"], ["8D", "AC"]],
    "castle": ["JH", "JD", "JC", "QS", "QC", "QH", "QD", "KD", "KS", "KH", "KC"],
    "tavern": ["4C", "9D"],
    "discard": ["2H"],
    "hands": [["7H", "AS"], ["KD", "3C"]],
    "yielded": [False, False],
    "jesters": 0,
    "preferences": [None, None],
    "options": {},
}


def bad(obj, field: str):
    """``from_json(obj)`` raises InvalidPosition whose message names ``field``."""
    with pytest.raises(InvalidPosition) as e:
        G.from_json(obj)
    assert field in str(e.value), f"message {str(e.value)!r} does not name {field!r}"
    return str(e.value)


# --------------------------------------------------------------------------- round trip

@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("seed", [0, 7])
def test_round_trip_new_game(players, seed):
    s = G.new_game({"players": players}, random.Random(seed))
    p = js(s)
    p2 = json.loads(json.dumps(p))
    assert js(G.from_json(p2)) == p
    assert js(G.from_json(js(G.from_json(p2)))) == p


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("seed", [0, 7])
def test_round_trip_gives_an_equal_state(players, seed):
    """``from_json(to_json(s)) == s``: the two Jesters are the same card (formats 1.1: both
    are ``X``), so which internal id stands where must not make two states differ."""
    s = G.new_game({"players": players}, random.Random(seed))
    assert G.from_json(js(s)) == s


def test_round_trip_mid_game_positions():
    # after an exact kill (royal on top of the Tavern), during a Jester window, in Step 4
    s = state(4, "JS", hands=[["3C", "9H", "X"], ["4D", "X"], ["5H"], ["5C"]], table=[["8D"], ["6H"]],
              damage=14, tavern=["2D", "2H"],
              castle=["JH", "JD", "JC", "QS", "QH", "QD", "QC", "KS", "KH", "KD", "KC"],
              options={"minimal_discard": True, "jester_choose_self": False})
    for texts in ([], ["play 3C"], ["play 3C", "play X"], ["play 3C", "play X", "prefer 1 yes"],
                  ["play 3C", "play X", "choose 1", "play 4D"]):
        t = act(s, *texts)
        p = js(t)
        assert G.from_json(json.loads(json.dumps(p))) == t, texts
        assert js(G.from_json(p)) == p


def test_formats_example_reads_and_writes_back():
    # The page's example holds KD twice (castle and hands[1]); with that fixed it round-trips.
    example = copy.deepcopy(FORMATS_EXAMPLE)
    example["hands"][1] = ["9C", "3C"]
    p = js(G.from_json(example))
    for key in example:
        if key == "hands":
            assert [sorted(h) for h in p["hands"]] == [sorted(h) for h in example["hands"]]
        elif key == "table":
            assert [sorted(x) for x in p["table"]] == [sorted(x) for x in example["table"]]
        else:
            assert p[key] == example[key], key
    assert p["hands"] == [["AS", "7H"], ["3C", "9C"]]  # canonical order
    assert p["table"] == [["5S"], ["AC", "8D"]]


def test_formats_example_as_printed_is_refused_for_its_duplicate_KD():
    bad(copy.deepcopy(FORMATS_EXAMPLE), "KD")


def test_defaults_of_optional_fields():
    p = pos(2, "JH", hands=[["2C"], ["3C"]], tavern=["4C"])
    for key in ("immunity_cancelled", "table", "yielded", "jesters", "preferences", "options"):
        del p[key]
    out = js(G.from_json(p))
    assert out["immunity_cancelled"] is False and out["table"] == []
    assert out["yielded"] == [False, False] and out["jesters"] == 0
    assert out["preferences"] == [None, None] and out["options"] == {}
    solo = pos(1, "JH", hands=[["2C"]])
    del solo["jesters"]
    assert js(G.from_json(solo))["jesters"] == 2


def test_writer_canonical_order():
    p = js(state(4, "JH", hands=[["X", "KD", "2S", "2C", "AS"], ["X"], [], []],
                 table=[["8D", "AC"]]))
    assert p["hands"][0] == ["AS", "2C", "2S", "KD", "X"]
    assert p["table"] == [["AC", "8D"]]


def test_card_text_lower_case_and_ten():
    p = pos(3, "jh", hands=[["10h", "as", "x"], ["td"], ["9c"]], tavern=["10s", "kd"],
            discard=["qc"], castle=["js"], table=[["10C"]])
    out = js(G.from_json(p))
    assert out["enemy"] == "JH"
    assert out["hands"] == [["AS", "TH", "X"], ["TD"], ["9C"]]
    assert out["tavern"] == ["TS", "KD"] and out["discard"] == ["QC"]
    assert out["castle"] == ["JS"] and out["table"] == [["TC"]]


@pytest.mark.parametrize("text", ["1H", "11C", "TZ", "Joker", "", "XX"])
def test_bad_card_text_names_field(text):
    bad(pos(2, "JH", hands=[["2C", text], []]), "hands")


# --------------------------------------------------------------------------- refusals

def test_unknown_field():
    p = pos(2, "JH", hands=[["2C"], []])
    p["shield"] = 3
    bad(p, "shield")


def test_unknown_option():
    bad(pos(2, "JH", hands=[["2C"], []], options={"bogus": True}), "bogus")


def test_bad_option_value():
    bad(pos(2, "JH", hands=[["2C"], []], options={"solo_yield": "yes"}), "solo_yield")


@pytest.mark.parametrize("field", ["game", "players", "current", "phase", "enemy", "damage",
                                   "castle", "tavern", "discard", "hands"])
def test_missing_required_field(field):
    p = pos(2, "JH", hands=[["2C"], []])
    del p[field]
    bad(p, field)


@pytest.mark.parametrize("where", [
    dict(hands=[["5S", "9C"], []], tavern=["5S"]),
    dict(hands=[["5S", "5S"], []]),
    dict(hands=[["TS"], []], discard=["10s"]),
    dict(hands=[["5s"], ["5S"]]),
    dict(hands=[["5S"], []], table=[["5S"]]),
])
def test_duplicated_card_is_named(where):
    card = "TS" if "discard" in where else "5S"
    bad(pos(2, "JH", **where), card)


def test_enemy_also_in_castle_is_named():
    p = pos(2, "JH", hands=[["2C"], []], castle=["JH", "JD"])
    bad(p, "JH")


def test_third_jester():
    bad(pos(3, "JH", hands=[["X", "2C"], ["X"], ["X"]]), "X")
    bad(pos(4, "JH", hands=[["X"], [], [], []], tavern=["X"], discard=["X"]), "X")


def test_two_jesters_are_fine():
    p = js(state(4, "JH", hands=[["X"], [], [], []], tavern=["X"]))
    assert p["hands"][0] == ["X"] and p["tavern"] == ["X"]


@pytest.mark.parametrize("players", [0, 5, "2", None])
def test_bad_players(players):
    p = pos(2, "JH", hands=[["2C"], []])
    p["players"] = players
    bad(p, "players")


@pytest.mark.parametrize("current", [2, -1, 5, "0"])
def test_current_out_of_range(current):
    bad(pos(2, "JH", hands=[["2C"], []], current=current), "current")


@pytest.mark.parametrize("enemy,damage", [("JH", 20), ("QS", 30), ("KC", 40), ("JH", 25),
                                          ("JH", -1)])
def test_bad_damage(enemy, damage):
    bad(pos(2, enemy, hands=[["2C"], []], damage=damage), "damage")


def test_damage_one_below_health_is_fine():
    assert js(state(2, "KC", hands=[["2C"], []], damage=39))["damage"] == 39


@pytest.mark.parametrize("phase", ["attack", "Play", "", None, "step4"])
def test_bad_phase(phase):
    bad(pos(2, "JH", hands=[["2C"], []], phase=phase), "phase")


@pytest.mark.parametrize("players,size", [(1, 9), (2, 8), (3, 7), (4, 6)])
def test_hand_over_max_size(players, size):
    cards = [r + s for r in "23456789T" for s in "CDHS"][:size]
    hands = [cards] + [[] for _ in range(players - 1)]
    bad(pos(players, "JH", hands=hands), "hands")


@pytest.mark.parametrize("players,size", [(1, 8), (2, 7), (3, 6), (4, 5)])
def test_hand_at_max_size_is_fine(players, size):
    cards = [r + s for r in "23456789T" for s in "CDHS"][:size]
    hands = [cards] + [[] for _ in range(players - 1)]
    assert len(js(state(players, "JH", hands=hands))["hands"][0]) == size


def test_suffer_with_zero_attack():
    bad(pos(2, "JH", hands=[["2C"], []], table=[["TS"]], damage=10, phase="suffer"), "phase")
    bad(pos(2, "JD", hands=[["2C"], []], table=[["7S"], ["5S"]], damage=12, phase="suffer"),
        "phase")
    # A Spades enemy blocks the shield: suffer is possible there.
    assert js(state(2, "JS", hands=[["TC"], []], table=[["TS"]], damage=10,
                    phase="suffer"))["phase"] == "suffer"


def test_other_impossible_values():
    bad(pos(1, "JH", hands=[["2C"]], jesters=3), "jesters")
    bad(pos(2, "JH", hands=[["2C"], []], jesters=1), "jesters")
    bad(pos(2, "JH", hands=[["2C"], []], preferences=["yes", None]), "preferences")
    bad(pos(2, "5H", hands=[["2C"], []], castle=[]), "enemy")
    bad(pos(2, "JH", hands=[["2C"], []], castle=["5D"]), "castle")
    bad(pos(2, "JH", hands=[["2C"], []], yielded=[False]), "yielded")
    bad(pos(2, "JH", hands=[["2C"]]), "hands")
    p = pos(2, "JH", hands=[["2C"], []])
    p["game"] = "ribauds"
    bad(p, "game")
    bad(pos(2, "JH", hands=[["2C"], []], immunity_cancelled="no"), "immunity_cancelled")


# --------------------------------------------------------------------------- actions (1.3)

def test_action_text_any_order_lower_case_canonical_writer():
    s = state(2, "JH", hands=[["5D", "5C", "8D", "AC", "TH"], ["2S"]])
    for text, canonical in [("play 5d 5c", "play 5C 5D"), ("play ac 8d", "play AC 8D"),
                            ("play 10h", "play TH"), ("PLAY 5C 5D", "play 5C 5D")]:
        assert G.action_to_text(s, G.action_from_text(s, text)) == canonical
    assert "play 5C 5D" in legal(s)


@pytest.mark.parametrize("text", ["", "dance", "play", "discard", "choose x", "prefer 1 maybe",
                                  "yield now", "play 5C 5C"])
def test_unreadable_action_text_is_refused(text):
    s = state(2, "JH", hands=[["5C"], ["2S"]])
    with pytest.raises(IllegalAction):
        G.apply(s, G.action_from_text(s, text), random.Random(0))


def test_legal_texts_each_once():
    s = state(4, "JH", hands=[["X", "X", "2C", "AC", "AD"], ["3C"], ["3D"], ["4D"]])
    texts = G.all_legal_texts(s)
    assert len(texts) == len(set(texts))
    assert texts.count("play X") == 1
    assert "play AC AD" in texts and "play AD AC" not in texts
    s = state(4, "JH", hands=[["X", "X", "TC", "9D"], ["3C"], ["3D"], ["4D"]], phase="suffer")
    texts = G.all_legal_texts(s)
    assert len(texts) == len(set(texts))
    assert "discard TC X X" in texts and "discard TC X" in texts
