"""The Le Roy des Ribauds fast path against the reference engine (differential test, rules
2.2-2.7).

The reference engine draws from ``FastRandom(seed)`` and the fast path from ``new_rng(seed)``:
the same deal comes out (the Reine check of 2.2 step 4 included), and after each action,
chosen at random among the legal ones, both hold the same position, the same knowledge of
each seat (2.7), the same legal set and the same generator state, to the end of the game
(the same winner by the same conspiracy). Hand-made positions of the rules' scenarios
(section 4.2) are played out the same way.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from regalia.fast import ribauds as F
from regalia.fast.regicide import FastRandom
from regalia.games.ribauds import RIBAUDS as G


def _config(options: dict) -> tuple[int, int]:
    """``(opts, first)`` of the fast path for reference rule options."""
    return (F.OPT_DISCARD if options.get("replaced_card") == "discard" else 0,
            -1 if options.get("first_player") is None else options["first_player"])


def _walk(s, st, rr: FastRandom, nr: np.ndarray, pick: random.Random, seen: Counter) -> None:
    """Plays ``s`` (reference) and ``st`` (fast) with the same random legal actions to the
    end, comparing everything at each step; counts what happened in ``seen``."""
    while True:
        assert F.decode(st) == s, G.to_json(s)
        assert int(nr[0]) == rr.getstate()
        legal = G.legal_actions(s)
        assert sorted(F.legal_list(st)) == sorted(legal), G.to_json(s)
        if G.is_terminal(s):
            seen[s.conspiracy] += 1
            assert F.is_terminal(st) and st[F.WINNER] == s.winner
            return
        a = legal[pick.randrange(len(legal))]
        s, events = G.apply(s, a, rr)
        F.apply(st, a, nr)
        seen.update(e.kind for e in events)
        seen["steps"] += 1


@pytest.mark.parametrize("options", [{}, {"replaced_card": "discard"}, {"first_player": 1}])
def test_fast_path_deals_and_plays_the_reference_engines_games(options):
    pick = random.Random(len(options))
    seen: Counter = Counter()
    for seed in range(120):
        rr, nr = FastRandom(seed), F.new_rng(seed)
        s = G.new_game({"players": 2, **options}, rr)
        st = F.new_game(nr, *_config(options))
        seen.update(r["case"] for r in s.redeals)
        _walk(s, st, rr, nr, pick, seen)
    # the random games went through every rule that draws or decides
    assert seen["steps"] > 3000
    assert min(seen["coronation"], seen["murder"], seen["marriage"]) >= 1, seen
    assert min(seen["inspect"], seen["peek"], seen["discard"], seen["swap"]) >= 20, seen
    assert seen["reshuffle"] >= 10 and seen["single"] >= 5, seen


def test_the_reine_check_cancels_and_repeats_as_the_reference_engine():
    """Deals with a cancelled deal (3.L6) and repeated single re-deals (3.L7) are rare:
    search the seeds for them and compare the deals."""
    found: Counter = Counter()
    for seed in range(3000):
        st = F.new_game(F.new_rng(seed))
        s = G.new_game({"players": 2}, FastRandom(seed))
        assert F.decode(st) == s
        cases = [r["case"] for r in s.redeals]
        found["cancel"] += "cancel" in cases
        found["repeated"] += cases.count("single") >= 2
        assert sum(s.hands[0]) == sum(s.hands[1]) == 3 and len(s.deck) == 6  # L-01
    assert found["cancel"] >= 3 and found["repeated"] >= 1, found


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**64 - 1), choices=hs.integers(0, 2**32 - 1),
       discard=hs.booleans())
def test_any_seed_gives_the_same_game_on_both_paths(seed, choices, discard):
    options = {"replaced_card": "discard"} if discard else {}
    rr, nr = FastRandom(seed), F.new_rng(seed)
    s = G.new_game({"players": 2, **options}, rr)
    _walk(s, F.new_game(nr, *_config(options)), rr, nr, random.Random(choices), Counter())


def _position(court: str, hands: tuple[str, str], deck: str = "", discard: str = "",
              current: int = 0, phase: str = "act", options: dict | None = None):
    """A reference state from compact text (piles top first), as tests/ribauds does."""
    return G.from_json({"game": "ribauds", "current": current, "phase": phase,
                        "court": court.split(), "hands": [list(hands[0]), list(hands[1])],
                        "deck": list(deck), "discard": list(discard), "winner": None,
                        "conspiracy": None, "options": options or {}})


SCENARIOS = {  # rules 4.2
    "L-14 Roi reveal gives the Coronation": ("K+ K- N- A-", ("KQN", "QNA"), "AQN", "KA"),
    "L-18 Knight creates the Murder": ("A+ K+ Q- A+", ("NKQ", "QNK"), "NQK", "N"),
    "L-19 Murder by reveal": ("A+ Q- A+ K-", ("KNQ", "NKQ"), "KN", "QN"),
    "L-25 Reine finds one Reine": ("K- N- A- A-", ("QKN", "QKA"), "NKQ", "A"),
    "L-28 reshuffle during Roi (b)": ("K- Q- N- A+", ("KNA", "QKN"), "Q", "QAKNA"),
    "L-29 reshuffle during the Reine": ("K- Q- N- A-", ("QNA", "QKA"), "", "KNANK"),
    "L-06 Marriage at the turn's start": ("K- N- A- A-", ("QQN", "KNA"), "QQKN", "K"),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("options", [{}, {"replaced_card": "discard"}])
def test_rules_scenarios_play_out_the_same_from_hand_made_positions(name, options):
    court, hands, deck, discard = SCENARIOS[name]
    pick = random.Random(name)
    for seed in range(25):
        s = _position(court, hands, deck, discard, options=options)
        st = F.encode(s)
        _walk(s, st, FastRandom(seed), F.new_rng(seed), pick, Counter())


def test_encode_decode_round_trip_keeps_knowledge_and_redeals():
    rr = FastRandom(11)
    s = G.new_game({"players": 2, "first_player": 0}, rr)
    pick = random.Random(2)
    for _ in range(20):
        if G.is_terminal(s):
            break
        legal = G.legal_actions(s)
        s, _ = G.apply(s, legal[pick.randrange(len(legal))], rr)
    back = F.decode(F.encode(s))
    assert back == s and back.know == s.know and back.seen == s.seen


def test_random_playouts_end_with_a_conspiracy():
    nr = F.new_rng(4)
    buf = np.empty(F.MAX_ACTIONS, np.int64)
    for _ in range(200):
        st = F.new_game(nr)
        steps = F.random_playout(st, nr, buf)
        assert steps >= 1 and F.is_terminal(st)
        assert st[F.CONSP] in (F.CORONATION, F.MARRIAGE, F.MURDER) and st[F.WINNER] in (0, 1)
        s = F.decode(st)  # 16 cards in all (rules 2.8: draw + discard piles hold 6)
        assert len(s.deck) + len(s.discard) + sum(map(sum, s.hands)) + 4 == 16
