"""Refusals carry a stable reason code and parameters (for translated interfaces) besides
the English message (rules 2.3, 2.4, 2.5)."""

from __future__ import annotations

import random

import pytest

from regalia.core.errors import IllegalAction, Reason
from .helpers import G, state


def refusal(s, text: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        G.apply(s, G.action_from_text(s, text), random.Random(0))
    return e.value


def test_rules_2_3_a_face_up_card_cannot_be_revealed():
    e = refusal(state("A- K- Q- N+", ("KNA", "QQK")), "reveal 3")
    assert (e.code, e.params) == ("slot_face_up", {"slot": 3})
    assert "face up" in str(e)


def test_rules_2_3_replacing_with_a_card_not_held_names_it():
    e = refusal(state("A- K- Q- N+", ("KNK", "QQA")), "replace 0 A up")
    assert (e.code, e.params) == ("not_held", {"cards": ["A"]})


def test_rules_2_4_a_chevalier_step_out_of_its_phase_is_not_now():
    e = refusal(state("A- K- Q- N+", ("KNA", "QQK")), "swap 0 1")
    assert e.code == "not_now"


def test_rules_2_4_the_assassin_looks_at_two_cards():
    s = state("A+ K- Q- N-", ("KNA", "QQK"), phase="assassin")
    e = refusal(s, "peek 1")
    assert (e.code, e.params) == ("peek_count", {"n": 2})


def test_rules_2_5_nothing_is_allowed_once_won():
    s = state("K+ K+ K+ N-", ("QNA", "QQA"), phase="won", winner=0, conspiracy="coronation")
    assert refusal(s, "reveal 3").code == "game_over"


def test_a_reason_is_still_a_string():
    r = Reason("slot 2 is face up", "slot_face_up", slot=2)
    assert r == "slot 2 is face up" and r.code == "slot_face_up" and r.params == {"slot": 2}
