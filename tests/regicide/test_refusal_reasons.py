"""Refusals carry a stable reason code and parameters (for translated interfaces) besides
the English message (rules 1.5, 1.8, 1.10, 1.11, 1.14)."""

from __future__ import annotations

import random

import pytest

from regalia.core.errors import IllegalAction
from regalia.games.regicide.cards import VALUE, parse_card
from regicide_helpers import G, state


def refusal(s, text: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        G.apply(s, G.action_from_text(s, text), random.Random(0))
    return e.value


def test_rules_1_5_a_mixed_play_says_play_shape():
    e = refusal(state(2, hands=[["5H", "6C", "2S"], ["3C"]]), "play 5H 6C")
    assert e.code == "play_shape" and e.params == {}
    assert "same number" in str(e)


def test_rules_1_5_a_card_not_held_is_named_in_the_params():
    e = refusal(state(2, hands=[["5H"], ["3C"]]), "play 9D")
    assert (e.code, e.params) == ("not_held", {"cards": ["9D"]})


def test_rules_1_8_a_short_discard_gives_its_total_and_the_attack():
    s = state(2, enemy="JH", hands=[["2C", "3D", "9S"], ["4C"]], phase="suffer")
    e = refusal(s, "discard 2C 3D")
    assert (e.code, e.params) == ("discard_short", {"total": 5, "attack": 10})
    assert e.reason() == {"code": "discard_short", "params": {"total": 5, "attack": 10}}


def test_rules_1_8_a_refused_discard_gives_the_cheapest_discards_as_examples():
    """With many legal discards the refusal names their kind and, as examples, the discards
    of least value (then fewest cards): those a player would look for, not four small cards
    where one 10 does."""
    s = state(2, enemy="JH", hands=[["AH", "2S", "3C", "4C", "4D", "TH", "QS"], ["4S"]],
              phase="suffer")
    e = refusal(s, "discard 4D 3C")
    examples = str(e).split("e.g. ", 1)[1].split(", ")
    assert examples[:3] == ["discard TH", "discard 2S 4C 4D", "discard AH 2S 3C 4C"], examples
    costs = [(sum(VALUE[parse_card(c)] for c in ex.split()[1:]), len(ex.split()) - 1)
             for ex in examples]
    assert costs == sorted(costs) and len(examples) == 6, (examples, costs)


def test_rules_1_8_cards_are_not_discarded_in_step_1_and_no_phase_name_is_needed():
    e = refusal(state(2, hands=[["5H"], ["3C"]]), "discard 5H")
    assert e.code == "not_now" and e.params == {}
    assert "happens in Step 4, not in Step 1" in str(e)  # the step, in the rules' words
    assert "phase" not in str(e)


def test_refusals_of_another_step_name_it_in_the_rules_words():
    s = state(2, enemy="JH", hands=[["2C", "3D", "9S"], ["4C"]], phase="suffer")
    assert "cards are played in Step 1, not in Step 4;" in str(refusal(s, "play 2C"))
    assert "yielding happens in Step 1, not in Step 4;" in str(refusal(s, "yield"))
    chosen = state(3, hands=[["5H"], ["3C"], ["4D"]], table=[["X"]], phase="choose",
                   immunity_cancelled=True)
    for text in ("play 5H", "discard 5H", "yield"):
        e = refusal(chosen, text)
        assert e.code == "not_now" and "phase" not in str(e)
        assert "not during the Jester's choice of who goes next;" in str(e)


def test_rules_1_11_no_yield_in_solo():
    assert refusal(state(1, hands=[["5H"]]), "yield").code == "no_yield_solo"


def test_rules_1_11_no_yield_when_every_other_player_yielded():
    s = state(2, hands=[["5H"], ["3C"]], yielded=[False, True])
    assert refusal(s, "yield").code == "no_yield_all_yielded"


def test_rules_1_14_the_jester_refresh_is_solo_only():
    assert refusal(state(2, hands=[["5H"], ["3C"]]), "jester").code == "jester_solo_only"


def test_rules_1_10_a_wish_outside_the_jester_window():
    e = refusal(state(2, hands=[["5H"], ["3C"]]), "prefer 1 yes")
    assert e.code == "wish_not_now"


def test_rules_1_10_a_wish_for_a_seat_that_is_not_there():
    chosen = state(3, hands=[["5H"], ["3C"], ["4D"]], table=[["X"]], phase="choose",
                   immunity_cancelled=True)
    e = refusal(chosen, "prefer 3 yes")
    assert (e.code, e.params) == ("no_seat", {"seat": 3})
    assert "there is no seat 3; the seats are 0 to 2" in str(e)
    assert refusal(chosen, "prefer 0 yes").code == "wish_wrong_seat"  # the Jester's player


def test_rules_1_3_two_jesters_named_with_one_held_name_the_one_not_held():
    """4 players have two Jesters: "play X X" with one in hand (the other on the table) is
    refused for the Jester not held, with what the seat may do."""
    s = state(4, enemy="JD", hands=[["X", "2C"], ["3C"], ["4C"], ["5C"]], table=[["X"]],
              immunity_cancelled=True)
    e = refusal(s, "play X X")
    assert (e.code, e.params) == ("not_held", {"cards": ["X"]})
    assert "seat 0 does not hold X; seat 0 may: play 2C, play X, yield" in str(e)
    with pytest.raises(IllegalAction, match="more Jesters than there are"):
        G.action_from_text(s, "play X X X")


def test_an_unreadable_action_has_the_plain_code():
    with pytest.raises(IllegalAction) as e:
        G.action_from_text(state(1, hands=[["5H"]]), "fly away")
    assert e.value.code == "illegal" and e.value.params == {}


def test_rules_1_8_a_short_discard_names_the_total_with_the_discards_not_the_jester():
    """Solo Step 4 with Jesters left (rules 1.8, 1.14): the sentence of what is allowed puts
    the total to reach beside "discard", not after the solo Jester."""
    s = state(1, enemy="JH", hands=[["2C", "3C", "4D", "5D", "6S", "7S", "8C"]], phase="suffer")
    e = refusal(s, "discard 2C")
    assert "may: discard (cards totalling at least 10), jester; e.g. jester, " in str(e)
