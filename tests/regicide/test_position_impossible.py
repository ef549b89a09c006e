"""Positions that cannot arise in play are refused, naming the field (formats.md 1.2)."""

from __future__ import annotations

import random

import pytest

from regalia.core.errors import IllegalAction, InvalidPosition
from regalia.games.regicide import REGICIDE as G

BASE = {"game": "regicide", "players": 2, "current": 0, "phase": "play", "enemy": "JS",
        "damage": 0, "castle": [], "tavern": [], "discard": [], "hands": [["2C"], ["3C"]]}


def variant(**changes):
    p = dict(BASE)
    p.update(changes)
    return p


@pytest.mark.parametrize("changes, field", [
    ({"hands": [["X", "2C"], ["3C"]]}, "hands"),                       # rules 1.3: no Jester in 2p
    ({"players": 3, "hands": [["X"], ["X"], ["3C"]], "yielded": [False] * 3,
      "preferences": [None] * 3}, "hands"),                            # 3p has one Jester
    ({"table": [["6H", "6D"]]}, "table"),                              # rules 1.5
    ({"table": [["KD", "KH"]]}, "table"),
    ({"players": 3, "hands": [["2C"], ["3C"], ["4C"]], "table": [["X"]],
      "yielded": [False] * 3, "preferences": [None] * 3}, "immunity_cancelled"),  # rules 1.9
    ({"immunity_cancelled": True}, "immunity_cancelled"),             # rules 1.10: no Jester
    ({"players": 3, "hands": [["X"], ["2C"], ["3C"]], "immunity_cancelled": True,
      "yielded": [False] * 3, "preferences": [None] * 3}, "immunity_cancelled"),  # not played
    ({"yielded": [True, True]}, "yielded"),                            # rules 1.11
    ({"players": 1, "hands": [["2C"]], "yielded": [True]}, "yielded"),
    ({"enemy": "KS", "castle": ["JC", "QD"]}, "castle"),              # rules 1.3 order
    ({"phase": "won", "enemy": None, "damage": 5}, "damage"),
    ({"phase": "won", "enemy": None, "castle": ["KH"]}, "castle"),     # rules 1.13
])
def test_impossible_positions_are_refused(changes, field):
    with pytest.raises(InvalidPosition) as e:
        G.from_json(variant(**changes))
    assert str(e.value).startswith(field)


@pytest.mark.parametrize("text", ["choose 72057594037927936", "choose ٢", "prefer ١ yes",
                                  "choose 100"])
def test_seat_numbers_must_be_small_ascii_numbers(text):
    with pytest.raises(IllegalAction):
        G.action_from_text(G.from_json(BASE), text)


def test_a_position_read_from_json_reveals_no_tavern_card():
    """Rules 1.15: which top Tavern cards are public is not in the position, so none is."""
    s = G.from_json(variant(tavern=["KD", "5C"]))
    assert G.view(s, 0)["tavern_top"] == []


def test_partial_heal_shuffles_the_whole_discard_pile():
    """Rules 1.6 Hearts: the pile is shuffled, then cards are taken: the top left is random."""
    tops = set()
    for seed in range(40):
        s = G.from_json(variant(enemy="JS", hands=[["AH", "2C"], ["3C"]],
                                discard=["KD", "5C", "6C", "7C", "8C"]))
        t, _ = G.apply(s, G.action_from_text(s, "play AH"), random.Random(seed))
        assert len(t.discard) == 4 and len(t.tavern) == 1
        tops.add(G.to_json(t)["discard"][0])
    assert len(tops) > 1
