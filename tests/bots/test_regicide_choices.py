"""The Jester's choice searched by ``montecarlo-choices``: per-world values chosen by the
wishes the chooser will see (rules 1.10), and the compiled evaluation behind them."""

from __future__ import annotations

import random

import numpy as np

from regalia.bots import make_bot
from regalia.bots.regicide import policy as P
from regalia.bots.regicide.montecarlo import MonteCarloBot, chosen_values, opens_window
from regalia.fast import regicide as F
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A


def test_chosen_values_pick_by_the_wishes_from_the_other_fold():
    # Worlds 0-3: partners' wishes 0b0010, seat 1 is best; worlds 4-7: 0b0100, seat 2.
    out = np.array([[0.2, 1.0, 0.1, -1]] * 4 + [[0.2, 0.0, 0.9, -1]] * 4, float)
    pattern = np.array([2] * 4 + [4] * 4)
    vals = chosen_values(out, pattern, prior=1.0)
    assert vals.tolist() == [1.0] * 4 + [0.9] * 4


def test_chosen_values_do_not_pick_with_the_world_itself():
    # One world per wish pattern and fold: a world's own value never decides its choice.
    out = np.array([[1.0, 0.0, -1, -1], [0.0, 1.0, -1, -1]], float)
    pattern = np.array([2, 2])
    vals = chosen_values(out, pattern, prior=0.0)
    assert vals.tolist() == [0.0, 0.0]  # each takes the seat the other world preferred


def test_chosen_values_keep_plain_values_and_skip_illegal_seats():
    out = np.array([[0.5, 0.5, 0.5, 0.5], [0.3, 0.4, -1, -1], [0.2, 0.6, -1, -1]], float)
    pattern = np.array([-1, 0, 0])
    vals = chosen_values(out, pattern)
    assert vals[0] == 0.5
    assert vals[1] == 0.4 and vals[2] == 0.6  # seats 2 and 3 are not in a 2-player game


def _jester_position(players: int, seed: int):
    """A position of a heuristic game where the seat to play may play a Jester."""
    rng = random.Random(seed)
    bots = [make_bot("regicide", "heuristic") for _ in range(players)]
    s = G.new_game({"players": players}, rng)
    brng = random.Random(seed + 1)
    for _ in range(400):
        if G.is_terminal(s):
            return None
        legal = G.legal_actions(s)
        jest = [a for a in legal if opens_window(a)]
        if jest and s.phase == "play":
            return s, jest[0]
        if s.phase == "choose":
            for q in range(players):
                if q != s.current:
                    w = bots[q].wish(G.view(s, q), brng)
                    if w and s.preferences[q] != w:
                        s, _ = G.apply(s, A.prefer(q, w == "yes"), rng)
        a = bots[s.current].act(G.view(s, s.current), G.legal_actions(s), brng)
        s, _ = G.apply(s, a, rng)
    return None


def _some_jester_position(players: int):
    for seed in range(200):
        found = _jester_position(players, seed)
        if found:
            return found
    raise AssertionError("no Jester position")


def test_opens_window_is_a_jester_play_only():
    assert opens_window(A.PLAY | 1 << 52) and opens_window(A.PLAY | 1 << 53)
    assert not opens_window(A.PLAY | 1 << 3) and not opens_window(A.YIELD)
    assert not opens_window(A.CHOOSE | 1) and not opens_window(A.DISCARD | 1 << 52)


def test_evaluate_choices_sees_the_wishes_and_values_every_choice():
    s, jester = _some_jester_position(4)
    st = F.encode(s)
    worlds = np.stack([st, st])
    out = np.zeros((2, 4))
    pattern = np.zeros(2, np.int64)
    seeds = np.array([3, 5], np.uint64)
    P.evaluate_choices(worlds, jester, seeds, P.weights_for(4), out, pattern)
    after, _ = G.apply(s, jester, random.Random(0))
    assert after.phase == "choose"
    at = F.encode(after)
    expect = sum(1 << q for q in range(4) if q != s.current and P.wish_yes(at, q) == 1)
    assert pattern.tolist() == [expect, expect]
    chooses = {a & A.ARG_MASK for a in G.legal_actions(after)}
    for q in range(4):
        if q in chooses:
            assert 0.0 <= out[0, q] <= 1.0
        else:
            assert out[0, q] == -1.0
    # A play that opens no window: every column holds the same plain rollout value.
    plain = next(a for a in G.legal_actions(s) if not opens_window(a))
    P.evaluate_choices(worlds, plain, seeds, P.weights_for(4), out, pattern)
    assert pattern.tolist() == [-1, -1] and np.all(out == out[:, :1])


def test_choices_bot_plays_a_legal_and_repeatable_action_at_a_jester():
    for players in (3, 4):
        s, _ = _some_jester_position(players)
        v = G.view(s, s.current)
        legal = G.legal_actions(s)
        a = MonteCarloBot(iterations=24, choices=True).act(v, legal, random.Random(4))
        b = MonteCarloBot(iterations=24, choices=True).act(v, legal, random.Random(4))
        assert a in legal and a == b


def test_tavern_reshuffles_permute_each_pool_over_its_own_slots():
    from regalia.bots.regicide.belief import Knowledge
    from regalia.bots.regicide.montecarlo import reshuffle_tavern, tavern_groups

    s, _ = _some_jester_position(4)
    kn = Knowledge.from_view(G.view(s, s.current))
    st = kn.sample_array(random.Random(2))
    groups = tavern_groups(kn)
    assert groups and all(kn.tavern[i][0] == "s" for g in groups for i in g)
    lo = int(st[F.TLO])

    def at(x, i):
        return int(x[F.TAV + ((lo + i) & 63)])

    changed = False
    for seed in range(5):
        t = reshuffle_tavern(st, groups, random.Random(seed))
        for g in groups:
            assert sorted(at(t, i) for i in g) == sorted(at(st, i) for i in g)
            changed |= [at(t, i) for i in g] != [at(st, i) for i in g]
        fixed = [i for i, (kind, _) in enumerate(kn.tavern) if kind == "k"]
        assert all(at(t, i) == at(st, i) for i in fixed)
        outside = np.ones(F.SIZE, bool)
        outside[F.TAV:F.TAV + 64] = False
        assert np.array_equal(t[outside], st[outside])  # hands, piles, enemy: untouched
    assert changed


def test_tavern_orders_bot_plays_a_legal_and_repeatable_action():
    s, _ = _some_jester_position(4)
    v = G.view(s, s.current)
    legal = G.legal_actions(s)
    a = MonteCarloBot(iterations=16, tavern_orders=3).act(v, legal, random.Random(4))
    b = MonteCarloBot(iterations=16, tavern_orders=3).act(v, legal, random.Random(4))
    assert a in legal and a == b
