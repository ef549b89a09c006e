"""The Step 1 and Step 4 action generators against brute force (rules 1.5, 1.8), and the
shuffle of the random source against ``random.Random.shuffle`` (same order, same stream)."""

from __future__ import annotations

import random

import pytest

from regalia.core.rng import shuffle
from regalia.games.regicide import actions as A
from regalia.games.regicide import rules as R
from regalia.games.regicide.cards import cards_of, mask_value


def _random_hand(rng: random.Random, size: int) -> int:
    m = 0
    for c in rng.sample(range(54), size):
        m |= 1 << c
    return m


def _subsets(hand: int):
    cards = cards_of(hand)
    for i in range(1, 1 << len(cards)):
        yield sum(1 << cards[j] for j in range(len(cards)) if i >> j & 1)


@pytest.mark.parametrize("size", [1, 3, 5, 7, 8])
def test_rules_1_8_discard_options_are_every_set_reaching_the_attack(size):
    rng = random.Random(size)
    for _ in range(60):
        hand = _random_hand(rng, size) & ~(1 << 53)  # one Jester at most (see discard_options)
        attack = rng.randint(1, 25)
        opts = R.DiscardOptions(hand, attack, A.DISCARD, (A.JESTER_REFRESH,))
        items = list(opts)
        want = {A.DISCARD | m for m in _subsets(hand) if mask_value(m) >= attack}
        assert len(items) == len(opts) == len(want) + 1
        assert set(items[:-1]) == want and items[-1] == A.JESTER_REFRESH
        assert [opts[i] for i in range(-len(opts), len(opts))] == items + items
        assert all(a in opts for a in items)
        with pytest.raises(IndexError):
            opts[len(opts)]


def test_rules_1_5_play_options_are_every_legal_shape_once():
    rng = random.Random(5)
    for _ in range(300):
        hand = _random_hand(rng, rng.randint(1, 10))
        opts = R.play_options(hand)
        assert len(set(opts)) == len(opts)
        assert [A.PLAY | m for m in opts] == R.play_codes(hand)
        jester_once = {m if m >> 52 == 0 else 1 << 52 for m in _subsets(hand)}
        if hand >> 52 == 2:  # only the second Jester: it stands for itself
            jester_once = set(_subsets(hand))
        want = {m for m in jester_once if R.play_problem(m) is None}
        assert set(opts) == want


@pytest.mark.parametrize("length", [0, 1, 2, 4, 5, 12, 40, 53])
def test_shuffle_draws_exactly_what_random_shuffle_draws(length):
    for seed in range(50):
        ours, theirs = random.Random(seed), random.Random(seed)
        x, y = list(range(length)), list(range(length))
        shuffle(x, ours)
        theirs.shuffle(y)
        assert x == y
        assert ours.getstate() == theirs.getstate()


def test_shuffle_uses_another_generators_own_shuffle():
    class Reversing(random.Random):
        def shuffle(self, x):
            x.reverse()

    x = [1, 2, 3]
    shuffle(x, Reversing(0))
    assert x == [3, 2, 1]


def test_rules_1_5_the_play_table_holds_exactly_the_legal_shapes():
    from itertools import combinations

    masks = [sum(1 << c for c in combo) for size in range(1, 4)
             for combo in combinations(range(54), size)]
    masks += [0xF << 4 * r for r in range(13)]  # four of a kind
    for m in masks:
        assert (m in R._PLAY_FACTS) == (R.play_problem(m) is None)
    for m, (cards, texts, value, suits) in R._PLAY_FACTS.items():
        assert list(cards) == cards_of(m)
        assert list(texts) == [R.TEXT[c] for c in cards]
        assert value == mask_value(m)
        assert suits == sum({1 << R.SUIT[c] for c in cards if c < 52})
