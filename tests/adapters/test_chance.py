"""The adapters' explicit chance (``regalia.adapters.chance``): engine draws as chance nodes."""

from __future__ import annotations

import random

import pytest

from regalia.adapters.chance import ChanceDriver, NeedChance, ScriptedRandom


def test_a_shuffle_announces_its_draws_top_card_first_and_replays_them():
    with pytest.raises(NeedChance) as need:
        ScriptedRandom([]).shuffle(["a", "b", "c", "d"])
    assert need.value.sizes == [4, 3, 2] and need.value.cards == ["a", "b", "c", "d"]
    cards = ["a", "b", "c", "d"]
    # draw 0 of abcd puts "a" on top (the end); draw 1 of dbc puts "b" under it; draw 0 of
    # dc puts "d" under that, leaving "c" at the bottom
    ScriptedRandom([0, 1, 0]).shuffle(cards)
    assert cards == ["c", "d", "b", "a"]


def test_the_same_draws_give_what_random_random_gives():
    rng = random.Random(9)
    draws = []
    original = rng._randbelow

    def recording(n):
        j = original(n)
        draws.append(j)
        return j

    rng._randbelow = recording
    expected = list(range(20))
    rng.shuffle(expected)
    first = rng.randrange(3)
    scripted = ScriptedRandom(draws)
    got = list(range(20))
    scripted.shuffle(got)
    assert got == expected and scripted.randrange(3) == first and scripted.used == len(draws)


def test_draws_without_finite_outcomes_or_out_of_range_are_refused():
    with pytest.raises(TypeError, match="finitely many"):
        ScriptedRandom([]).random()
    with pytest.raises(ValueError, match="out of range"):
        ScriptedRandom([5]).randrange(3)
    assert ScriptedRandom([]).randrange(1) == 0  # one outcome: no chance node


def test_driver_pauses_at_each_draw_and_finishes_with_the_call_result():
    def deal(rng):
        cards = list("KQNA")
        rng.shuffle(cards)
        return cards, rng.randrange(2)

    driver = ChanceDriver(deal)
    assert driver.start() is None and not driver.done
    sizes = []
    result = None
    while not driver.done:
        sizes.append(driver.size())
        twin = driver.copy()
        result = driver.apply(driver.size() - 1)
        assert len(twin.outcomes) == len(driver.outcomes) - 1  # copies are independent
    assert sizes == [4, 3, 2, 2]
    assert result == (list("KQNA"), 1)
    with pytest.raises(ValueError, match="not among"):
        _apply_bad(deal)


def _apply_bad(call):
    driver = ChanceDriver(call)
    driver.start()
    driver.apply(9)
