"""The compiled determinization (``regalia.bots.regicide.sampler``, rules 1.6 and 1.15):
its samples follow the same law as the reference draw of ``belief.Knowledge``, replay with
the same random source, and give way to the reference draw where it cannot serve."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from regalia.bots import make_bot
from regalia.bots.regicide import sampler
from regalia.bots.regicide.belief import Knowledge, _conserved
from regalia.bots.regicide.wishes import wish_rule
from regalia.fast import regicide as F
from regalia.games.regicide import REGICIDE as G

from tests.bots.test_regicide_bots import _play


def _late_view(players: int, seed: int) -> dict:
    """The acting seat's view half-way through a heuristic game, after a Hearts heal."""
    kept = []
    bots = [make_bot("regicide", "heuristic") for _ in range(players)]

    def keep(s, seat, a):
        if not G.is_terminal(s) and s.phase != "choose":
            v = G.view(s, s.current)
            if any(e["kind"] == "heal" for e in v["log"]):
                kept.append(v)

    _play(players, bots, seed, keep)
    assert kept
    return kept[len(kept) // 2]


def _places(st: np.ndarray) -> list[tuple[int, str, int]]:
    """Where each hidden-or-not card lies in a fast-path position: ``(card, place,
    index)``, the Tavern by groups of four slots from the bottom."""
    out = []
    for q in range(4):
        m = int(st[F.HANDS + q])
        out += [(c, "hand", q) for c in range(54) if m >> c & 1]
    for i in range(st[F.NTAV]):
        out.append((int(st[F.TAV + ((st[F.TLO] + i) & 63)]), "tavern", i // 4))
    out += [(int(st[F.DISC + i]), "discard", 0) for i in range(st[F.NDISC])]
    out += [(int(st[F.CASTLE + i]), "castle", i) for i in range(st[F.NCASTLE])]
    return out


def _counts(rows) -> Counter:
    c: Counter = Counter()
    for r in rows:
        c.update(_places(r))
    return c


@pytest.mark.parametrize("players,seed", [(1, 200), (2, 200), (3, 200), (4, 200), (4, 201)])
def test_compiled_samples_follow_the_reference_draw(players, seed):
    """Over 3,000 samples each, every card's place (a partner's hand, a group of Tavern
    slots, the discard pile, a Castle slot) is as frequent in the compiled draw as in the
    reference draw: no place differs beyond sampling noise. (A row the compiled draw cannot
complete falls back on the reference draw, so the compiled draw must complete them all.)"""
    k = Knowledge.from_view(_late_view(players, seed))
    assert k.consistent and k.heals
    n = 3000
    rng = random.Random(1)
    fast = _counts(k.sample_arrays(rng, n))
    ref = _counts(k._array_of(k._sample_parts(rng, None)) for _ in range(n))
    keys = set(fast) | set(ref)
    z = {x: (fast[x] - ref[x]) / np.sqrt(fast[x] + ref[x]) for x in keys}
    assert max(abs(v) for v in z.values()) < 5.0
    assert sum(v * v for v in z.values()) / len(keys) < 1.3
    assert k.simple_samples == 0
    seeds = np.arange(1, 257, dtype=np.uint64)  # and the compiled draw did them all
    assert sampler.sample_rows(k._plan, np.empty((256, F.SIZE), np.int64), seeds)[0].all()


def test_compiled_samples_replay_with_the_same_random_source():
    k = Knowledge.from_view(_late_view(4, 202))
    a = k.sample_arrays(random.Random(7), 16)
    b = Knowledge.from_view(k.view).sample_arrays(random.Random(7), 16)
    assert np.array_equal(a, b)
    assert len({r.tobytes() for r in a}) == 16
    assert not np.array_equal(a, k.sample_arrays(random.Random(8), 16))


def test_rows_the_compiled_draw_cannot_complete_are_drawn_the_reference_way():
    """A plan that no sample can meet (here: a discard pile of the wrong size) completes
    no row; ``sample_arrays`` then draws every row with the reference draw, each still
    agreeing with the seat's view."""
    view = _late_view(3, 203)
    k = Knowledge.from_view(view)
    k.sample_arrays(random.Random(0), 1)
    bad = k._plan._replace(discard=k._plan.discard + 1)
    done, _ = sampler.sample_rows(bad, np.empty((4, F.SIZE), np.int64),
                               np.arange(1, 5, dtype=np.uint64))
    assert not done.any()
    k._plan = bad
    for row in k.sample_arrays(random.Random(1), 4):
        d = F.decode(row)
        d.log = None
        assert _conserved(d)
        assert d.hands[view["seat"]] == k.hand
        assert [h.bit_count() for h in d.hands] == view["hand_sizes"]
        assert len(d.discard) == view["discard"]


def _window_views(players: int, seed: int) -> list[dict]:
    """The views of the Jester's player in the Jester's window (phase choose, rules 1.10)
    where at least two partners stated a wish, in a game of heuristic bots."""
    kept = []
    bots = [make_bot("regicide", "heuristic") for _ in range(players)]

    def keep(s, seat, a):
        if s.phase == "choose":
            v = G.view(s, seat)
            if sum(w is not None for q, w in enumerate(v["preferences"]) if q != seat) >= 2:
                kept.append(v)

    _play(players, bots, seed, keep)
    return kept


@pytest.mark.parametrize("players,seed", [(3, 210), (4, 210), (4, 212), (4, 214)])
def test_compiled_samples_match_the_partners_wishes_as_the_reference_draw(players, seed):
    """In the Jester's window (rules 1.10) the compiled draw conditions each partner's hand
    on its stated wish under the public rule as the reference draw does (``wish_rule``):
    every sampled partner hand matches its wish but for those counted unmatched
    (``unmet_wishes``, as many as in the reference draw), and over 2,000 samples every
    card's place is as frequent as in the reference draw."""
    def missed(view, rows) -> float:  # the share of rows where some wish is not matched
        return np.mean([any(wish_rule(int(row[F.HANDS + q]), view) != w
                            for q, w in enumerate(view["preferences"])
                            if w is not None and q != view["seat"]) for row in rows])

    views = _window_views(players, seed)
    assert views
    # The window where plain draws (no wishes) miss the wishes most: they tell most there.
    view = max(views, key=lambda v: missed(v, Knowledge.from_view(v).sample_arrays(
        random.Random(0), 200)))
    k = Knowledge.from_view(view)
    assert k.consistent
    n = 2000
    rng = random.Random(1)
    assert missed(view, k.sample_arrays(rng, n)) > 0.1
    rows = k.sample_arrays(rng, n, wishes=True)
    assert k.simple_samples == 0
    assert k.unmet_wishes == sum(wish_rule(int(row[F.HANDS + q]), view) != w for row in rows
                                 for q, w in enumerate(view["preferences"])
                                 if w is not None and q != view["seat"])
    r = Knowledge.from_view(view)
    r.template()
    ref = _counts(r._array_of(r._sample_parts(rng, wish_rule)) for _ in range(n))
    # A wish no hand can match (the heals a partner's cards came from are guessed) is
    # counted and left: as often as in the reference draw.
    assert abs(k.unmet_wishes - r.unmet_wishes) <= 5 * np.sqrt(k.unmet_wishes
                                                                + r.unmet_wishes + 1)
    fast = _counts(rows)
    keys = set(fast) | set(ref)
    z = {x: (fast[x] - ref[x]) / np.sqrt(fast[x] + ref[x]) for x in keys}
    assert max(abs(v) for v in z.values()) < 5.0
    assert sum(v * v for v in z.values()) / len(keys) < 1.3


@pytest.mark.parametrize("seed", [408, 414])
def test_a_wish_no_hand_can_match_leaves_the_others_conditioned(seed):
    """rules 1.10: a partner whose hand holds no unknown card (here an empty hand that says
    "yes", as a person may) cannot be matched; the other partners' hands still match their
    wishes as often as without it, in the compiled and in the reference draw."""
    views = []
    bots = [make_bot("regicide", "heuristic") for _ in range(4)]

    def keep(s, seat, a):
        if s.phase == "choose":
            v = G.view(s, seat)
            empty = [q for q, h in enumerate(v["hand_sizes"]) if h == 0 and q != seat]
            if empty and any(w is not None and q not in empty and q != seat
                             for q, w in enumerate(v["preferences"])):
                views.append((v, empty[0]))

    _play(4, bots, seed, keep)
    assert views
    view, empty = views[0]
    others = [q for q, w in enumerate(view["preferences"])
              if w is not None and q not in (empty, view["seat"])]

    def missed(v, rows) -> float:
        return np.mean([wish_rule(int(row[F.HANDS + q]), v) != v["preferences"][q]
                        for row in rows for q in others])

    impossible = dict(view, preferences=[("yes" if q == empty else w) for q, w
                                         in enumerate(view["preferences"])])
    silent = dict(view, preferences=[(None if q == empty else w) for q, w
                                     in enumerate(view["preferences"])])
    n = 1000
    fast = {}
    ref = {}
    for name, v in (("impossible", impossible), ("silent", silent)):
        k = Knowledge.from_view(v)
        fast[name] = missed(v, k.sample_arrays(random.Random(1), n, wishes=True))
        r = Knowledge.from_view(v)
        r.template()
        ref[name] = missed(v, [r._array_of(r._sample_parts(random.Random(i), wish_rule))
                               for i in range(400)])
    plain = missed(view, Knowledge.from_view(view).sample_arrays(random.Random(1), n))
    assert plain > fast["silent"] + 0.1  # the others' wishes tell something
    assert abs(fast["impossible"] - fast["silent"]) < 0.04
    assert abs(ref["impossible"] - ref["silent"]) < 0.08
