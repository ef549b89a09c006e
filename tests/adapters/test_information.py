"""Secret stays secret in the environments (Regicide rules 1.15, Ribauds rules 2.7): two
states that differ only in cards hidden from a seat give that seat the same observation and
the same action mask, through the PettingZoo environment and through the batch simulator's
encoding (both games); a change the seat can see changes its observation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from regalia.adapters.pettingzoo import regicide_env, ribauds_env
from regalia.games.regicide import REGICIDE
from regalia.games.regicide.state import to_json
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds.state import UNKNOWN
from regalia.adapters import batch as B
from regalia.fast import regicide as F
from regalia.fast import ribauds as RF


def _positions(game, players: int, seed: int, count: int) -> list:
    """States still in play reached by random play from a few deals."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.new_game({"players": players}, rng)
        while not game.is_terminal(s) and len(out) < count:
            out.append(s)
            legal = game.legal_actions(s)
            s, _ = game.apply(s, legal[rng.randrange(len(legal))], rng)
    return out[::2]


def _regicide_hidden_variant(s, seat: int, rng: random.Random):
    """``s`` with the cards hidden from ``seat`` dealt again: the partners' hands and the
    Tavern below its publicly known top cards (sizes kept)."""
    t = s.copy()
    body = len(t.tavern) - t.known_top
    pool = t.tavern[:body]
    partners = [q for q in range(t.players) if q != seat]
    for q in partners:
        pool += [c for c in range(54) if t.hands[q] >> c & 1]
    rng.shuffle(pool)
    for q in partners:
        size = t.hands[q].bit_count()
        t.hands[q] = sum(1 << c for c in pool[:size])
        del pool[:size]
    t.tavern[:body] = pool
    return t


def _observe(env, state, seat: int):
    env.reset(options={"state": state})
    out = env.observe(env.possible_agents[seat])
    return out["observation"], out["action_mask"]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_regicide_hidden_cards_do_not_change_a_seats_observation(players):
    rng = random.Random(players)
    env = regicide_env(players=players)
    changed = 0
    for s in _positions(REGICIDE, players, 20 + players, 80):
        for seat in range(players):
            t = _regicide_hidden_variant(s, seat, rng)
            changed += to_json(t) != to_json(s)
            o1, m1 = _observe(env, s, seat)
            o2, m2 = _observe(env, t, seat)
            assert np.array_equal(o1, o2) and np.array_equal(m1, m2)
            # the batch simulator's compiled encoding sees the same
            row = np.zeros(B.OBS, np.float32)
            B.observe(F.encode(t), seat, row)
            assert np.array_equal(row, o1)
    assert changed >= 20


def test_regicide_own_hand_and_public_cards_do_change_the_observation():
    env = regicide_env(players=2)
    s = _positions(REGICIDE, 2, 5, 10)[2]
    seat = s.current
    t = s.copy()  # one card of the seat's hand trades places with the Tavern's bottom card
    own = min(c for c in range(52) if t.hands[seat] >> c & 1)
    swap = t.tavern[0]
    t.hands[seat] = t.hands[seat] & ~(1 << own) | (1 << swap)
    t.tavern[0] = own
    assert not np.array_equal(_observe(env, s, seat)[0], _observe(env, t, seat)[0])
    assert np.array_equal(_observe(env, s, 1 - seat)[0], _observe(env, t, 1 - seat)[0])


def _ribauds_hidden_variant(s, seat: int, rng: random.Random):
    """``s`` with the cards hidden from ``seat`` dealt again: the part of the opponent's hand
    it has not seen and the draw pile above its known bottom Reines."""
    o = 1 - seat
    t = s.copy()
    free = [t.hands[o][c] - t.seen[seat][c] for c in range(4)]
    pool = t.deck[t.bottom_reines:]
    for c in range(4):
        pool += [c] * free[c]
    rng.shuffle(pool)
    hand = list(t.seen[seat])
    for _ in range(sum(free)):
        hand[pool.pop()] += 1
    t.hands[o] = hand
    t.deck = t.deck[:t.bottom_reines] + pool
    return t


def test_ribauds_hidden_cards_do_not_change_a_seats_observation():
    rng = random.Random(8)
    env = ribauds_env()
    changed = 0
    for s in _positions(RIBAUDS, 2, 31, 160):
        for seat in (0, 1):
            t = _ribauds_hidden_variant(s, seat, rng)
            changed += t != s
            o1, m1 = _observe(env, s, seat)
            o2, m2 = _observe(env, t, seat)
            assert np.array_equal(o1, o2) and np.array_equal(m1, m2)
            # the batch simulator's compiled encoding sees the same
            row = np.zeros(B.R_OBS, np.float32)
            B.ribauds_observe(RF.encode(t), seat, row)
            assert np.array_equal(row, o1)
            if t.current == seat:
                mask = np.zeros(B.R_ACTIONS, np.int8)
                B.ribauds_legal_mask(RF.encode(t), mask, np.empty(RF.MAX_ACTIONS, np.int64))
                assert np.array_equal(mask, m1)
    assert changed >= 20


def test_ribauds_a_face_down_card_shows_only_to_a_seat_that_knows_it():
    env = ribauds_env()
    for s in _positions(RIBAUDS, 2, 44, 200):
        slots = [i for i in range(4) if not s.up >> i & 1 and s.know[0][i] != UNKNOWN
                 and s.know[1][i] == UNKNOWN]
        if not slots:
            continue
        i = slots[0]
        t = s.copy()  # another card in that slot, known to seat 0 only
        t.court[i] = t.know[0][i] = (s.court[i] + 1) % 4
        assert not np.array_equal(_observe(env, s, 0)[0], _observe(env, t, 0)[0])
        assert np.array_equal(_observe(env, s, 1)[0], _observe(env, t, 1)[0])
        return
    pytest.fail("no position with a face-down card known to one seat only")
