"""Compiled determinization: full positions sampled from a Regicide seat's knowledge.

``Knowledge`` (``belief``) reads a seat's view into what every sample shares; this module
draws samples from it in compiled code, many at once, straight into fast-path position
arrays (``regalia.fast.regicide``). It is the same draw as ``Knowledge._sample_once``
(rules 1.6, 1.10, 1.15):

1. the Hearts heals are re-drawn in order: each takes from the sampled discard pile of its
   moment the cards later seen coming out of it, and a uniform subset of the others that
   excludes the cards seen staying behind;
2. the pile left is the discard pile (the public top card on top);
3. each segment's cards (the Tavern as dealt: every card never seen; heal ``k``: the cards
   it took that were not seen since) are shuffled and dealt to the partners' slots of that
   segment, then to the Tavern's slots of that segment, bottom first;
4. the Castle below the enemy keeps its public rank order, the suits shuffled;
5. with ``wishes`` (the Jester's window, rules 1.10), while a partner's hand does not match
   its stated wish under the public wish rule (``wishes.wish_yes``), one of its unknown
   cards is swapped with a card of the same segment elsewhere (another partner's slot or
   the Tavern's), the swap kept unless it leaves more wishes unmatched; after
   ``WISH_SWAPS`` swaps, or once no unmatched partner holds an unknown card, a wish still
   unmatched is counted and ignored (``Knowledge._wished_hands`` is the reference).

A sample whose constraints cannot be met (a wrong guess of the log's reading; never seen in
a game of bots) is marked not done, and ``Knowledge`` draws that row its crude way.

The shared part is ``Plan`` (``plan_of``: numpy arrays built once per knowledge); the random
source of row ``i`` is the fast path's xorshift generator seeded with ``seeds[i]``, so the
samples are reproducible and independent of any global random state.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from regalia.bots.regicide import wishes as _wishes
from regalia.bots.regicide.wishes import wish_yes
from regalia.fast import regicide as _fast
from regalia.fast._jit import njit, refresh_cache_if_changed

refresh_cache_if_changed(__file__, _fast.__file__, _wishes.__file__)
from regalia.fast.regicide import (  # noqa: E402
    CASTLE,
    DISC,
    HANDS,
    NCASTLE,
    NDISC,
    NTAV,
    TAV,
    _shuffle,
    popcount,
    rng_below,
)

POOL = 64  # room for one segment's cards (at most 54)
WISH_SWAPS = 400  # card swaps that look for partners' hands matching their stated wishes


class Plan(NamedTuple):
    """What every sample of one seat's knowledge shares, as arrays (``plan_of``).

    ``events``: (E, 2) int64, in time order: ``(0, card)`` a card goes to the discard pile,
    ``(1, k)`` the ``k``-th Hearts heal (1-based); per segment ``k`` (0: the Tavern as
    dealt; shape (K,)): ``heal_n`` cards it took, ``must`` the mask of the cards known to
    come out of it, ``bar`` the mask of those known to stay behind, ``gone`` the mask of
    its cards seen since (drawn by the seat or replayed by a partner); ``never_seen``: the
    cards of segment 0; ``known`` (4,): each partner's publicly known cards (mask; the
    seat's own hand at ``seat``); ``needs`` (4, K): each partner's unknown cards per
    segment; ``tavern`` (T, 2): the Tavern bottom first, ``(0, card)`` a known card or
    ``(1, k)`` a card of segment ``k``; ``royals`` (3, 4) and ``royal_n`` (3,): the Kings,
    Queens and Jacks not seen, ``castle_take`` (3,): how many of each lie in the Castle;
    ``top``: the discard pile's public top card (-1: none), ``discard``: its size;
    ``template``: the fast-path position with every public field (piles and hands empty).
    """

    events: np.ndarray
    heal_n: np.ndarray
    must: np.ndarray
    bar: np.ndarray
    gone: np.ndarray
    never_seen: np.ndarray
    known: np.ndarray
    needs: np.ndarray
    seat: int
    tavern: np.ndarray
    royals: np.ndarray
    royal_n: np.ndarray
    castle_take: np.ndarray
    top: int
    discard: int
    template: np.ndarray


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def plan_of(k, template: np.ndarray) -> Plan:
    """The ``Plan`` of a consistent ``belief.Knowledge`` ``k`` (its ``_prepare``d time line,
    Tavern slots, partners' slots and unseen royals) and its public ``template`` position."""
    from regalia.games.regicide.cards import JACK, KING, QUEEN

    timeline, top_card, gone, never_seen = k._prepare()
    segments = len(k.heals) + 1
    events = np.zeros((len(timeline), 2), np.int64)
    heal_n = np.zeros(segments, np.int64)
    must = np.zeros(segments, np.int64)
    bar = np.zeros(segments, np.int64)
    for i, (what, x, n, must_set, barred) in enumerate(timeline):
        events[i] = (what, x)
        if what == 1:
            heal_n[x], must[x], bar[x] = n, _mask(must_set), _mask(barred)
    gone_m = np.zeros(segments, np.int64)
    for seg, cards in gone.items():
        gone_m[seg] = _mask(cards)
    known = np.zeros(4, np.int64)
    needs = np.zeros((4, segments), np.int64)
    for q in range(k.players):
        if q == k.seat:
            known[q] = k.hand
            continue
        known[q] = _mask(k.partner_known[q])
        for seg in k.partner_slots[q]:
            needs[q, seg] += 1
    tavern = np.array([(0 if kind == "k" else 1, x) for kind, x in k.tavern],
                      np.int64).reshape(-1, 2)
    royals = np.full((3, 4), -1, np.int64)
    royal_n = np.zeros(3, np.int64)
    take = np.zeros(3, np.int64)
    for r, (rank, key) in enumerate(((KING, "K"), (QUEEN, "Q"), (JACK, "J"))):
        group = k._royals[rank]
        royals[r, :len(group)] = group
        royal_n[r] = len(group)
        take[r] = k.view["castle_ranks"][key]
    return Plan(events, heal_n, must, bar, gone_m, np.array(never_seen, np.int64), known,
                needs, k.seat, tavern, royals, royal_n, take,
                -1 if top_card is None else top_card, k.view["discard"], template)


def sample_rows(plan: Plan, out: np.ndarray, seeds: np.ndarray,
                wishes: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Writes one sampled position per row of ``out`` ((n, SIZE) int64), row ``i`` drawn
    with ``seeds[i]`` ((n,) uint64, nonzero). ``wishes`` ((4,) int64, per seat 1 "yes",
    -1 "no", 0 no wish; the seat's own is ignored): the partners' stated wishes that
    condition their hands (step 5 of the module doc). Returns ``(done, unmet)``: ``done``
    ((n,) bool) False where the plan's constraints could not be met (that row is left
    unspecified); ``unmet`` the wishes left unmatched, summed over the rows done."""
    done = np.zeros(len(out), np.bool_)
    wishes = np.zeros(4, np.int64) if wishes is None else np.array(wishes, np.int64)
    if wishes.shape != (4,):
        raise ValueError(f"wishes: one value per seat, shape (4,), not {wishes.shape}")
    wishes[plan.seat] = 0
    unmet = _sample_rows(plan.events, plan.heal_n, plan.must, plan.bar, plan.gone,
                         plan.never_seen, plan.known, plan.needs, plan.seat, plan.tavern,
                         plan.royals, plan.royal_n, plan.castle_take, plan.top, plan.discard,
                         plan.template, out, seeds, done, wishes)
    return done, int(unmet)


@njit
def _sample_rows(events, heal_n, must, bar, gone, never_seen, known, needs, seat, tavern,
                 royals, royal_n, castle_take, top, discard, template, out, seeds, done,
                 wishes):
    segments = heal_n.shape[0]
    slots = np.empty((3, POOL), np.int64)  # the cards dealt from the pools: card, segment, place
    unmet = 0
    pile = np.empty(POOL, np.int64)
    free = np.empty(POOL, np.int64)
    pools = np.empty((segments, POOL), np.int64)
    sizes = np.zeros(segments, np.int64)
    group = np.empty(4, np.int64)
    rng = np.empty(1, np.uint64)
    for row in range(out.shape[0]):
        rng[0] = seeds[row]
        st = out[row]
        st[:] = template
        done[row] = _sample_one(events, heal_n, must, bar, gone, never_seen, known, needs,
                                seat, tavern, royals, royal_n, castle_take, top, discard,
                                st, rng, pile, free, pools, sizes, group, slots)
        if done[row]:
            unmet += _match_wishes(st, wishes, slots, free, rng)  # (free: scratch now)
    return unmet


@njit
def _sample_one(events, heal_n, must, bar, gone, never_seen, known, needs, seat, tavern,
                royals, royal_n, castle_take, top, discard, st, rng, pile, free, pools,
                sizes, group, slots):
    segments = heal_n.shape[0]
    for k in range(segments):
        sizes[k] = 0
    # 1. The heals, re-drawn in order from the pile of their moment.
    n = 0
    for e in range(events.shape[0]):
        x = events[e, 1]
        if events[e, 0] == 0:
            pile[n] = x
            n += 1
            continue
        forced = must[x]
        found = 0
        nf = 0
        for i in range(n):
            c = pile[i]
            if forced >> c & 1:
                found += 1
            elif not (bar[x] >> c & 1):
                free[nf] = c
                nf += 1
        if found != popcount(forced):
            return False
        need = heal_n[x] - found
        if need < 0:
            return False
        if need > nf:  # the barred cards too, when the others are too few
            nf = 0
            for i in range(n):
                if not (forced >> pile[i] & 1):
                    free[nf] = pile[i]
                    nf += 1
            if need > nf:
                return False
        took = forced
        for i in range(need):  # a uniform subset: a partial Fisher-Yates shuffle
            j = i + rng_below(rng, nf - i)
            c = free[j]
            free[j] = free[i]
            free[i] = c
            took |= np.int64(1) << c
        left = took & ~gone[x]
        for c in range(54):
            if left >> c & 1:
                pools[x, sizes[x]] = c
                sizes[x] += 1
        kept = 0
        for i in range(n):
            if not (took >> pile[i] & 1):
                pile[kept] = pile[i]
                kept += 1
        n = kept
    # 2. The discard pile, the public top card on top.
    if n != discard:
        return False
    if top >= 0 and n > 0 and pile[n - 1] != top:
        for i in range(n - 1):
            if pile[i] == top:
                for j in range(i, n - 1):
                    pile[j] = pile[j + 1]
                pile[n - 1] = top
                break
    st[NDISC] = n
    for i in range(n):
        st[DISC + i] = pile[i]
    # 3. Each segment's cards to the partners' slots, then to the Tavern's; each dealt card
    # noted in ``slots`` (its segment, and its place: a seat, or 4 + its Tavern index).
    for i in range(never_seen.shape[0]):
        pools[0, i] = never_seen[i]
    sizes[0] = never_seen.shape[0]
    for k in range(segments):
        _shuffle(pools[k], sizes[k], rng)
    dealt = 0
    for q in range(4):
        hand = known[q]
        if q != seat:
            for k in range(segments):
                if needs[q, k] > sizes[k]:
                    return False
                for _ in range(needs[q, k]):
                    sizes[k] -= 1
                    c = pools[k, sizes[k]]
                    hand |= np.int64(1) << c
                    slots[0, dealt], slots[1, dealt], slots[2, dealt] = c, k, q
                    dealt += 1
        st[HANDS + q] = hand
    st[NTAV] = tavern.shape[0]
    for i in range(tavern.shape[0]):
        k = tavern[i, 1]
        if tavern[i, 0] == 0:
            st[TAV + i] = k
            continue
        if sizes[k] == 0:
            return False
        sizes[k] -= 1
        st[TAV + i] = pools[k, sizes[k]]
        slots[0, dealt], slots[1, dealt], slots[2, dealt] = st[TAV + i], k, 4 + i
        dealt += 1
    for k in range(segments):
        if sizes[k] != 0:
            return False
    slots[0, POOL - 1] = dealt  # (a pool never fills its last cell: at most 54 cards)
    # 4. The Castle: Kings at the bottom, Jacks on top, the suits shuffled.
    at = 0
    for r in range(3):
        for i in range(royal_n[r]):
            group[i] = royals[r, i]
        _shuffle(group, royal_n[r], rng)
        for i in range(min(castle_take[r], royal_n[r])):
            st[CASTLE + at] = group[i]
            at += 1
    st[NCASTLE] = at
    return True


@njit
def _unmatched(st, wishes):
    n = 0
    for q in range(4):
        if wishes[q] != 0 and wish_yes(st, q) != wishes[q]:
            n += 1
    return n


@njit
def _holds_unknown(slots, q):
    for x in range(slots[0, POOL - 1]):
        if slots[2, x] == q:
            return True
    return False


@njit
def _swap(st, slots, i, j):
    """Exchanges the cards of dealt slots ``i`` and ``j`` in ``st`` and in ``slots``."""
    ci, cj = slots[0, i], slots[0, j]
    for at, old, new in ((slots[2, i], ci, cj), (slots[2, j], cj, ci)):
        if at < 4:
            st[HANDS + at] ^= (np.int64(1) << old) | (np.int64(1) << new)
        else:
            st[TAV + at - 4] = new
    slots[0, i], slots[0, j] = cj, ci


@njit
def _match_wishes(st, wishes, slots, segs, rng):
    """Step 5 of the module doc on a sampled position ``st`` whose dealt cards are in
    ``slots`` (``_sample_one``; ``segs``: scratch room for a segment list); returns the
    number of wishes left unmatched."""
    dealt = slots[0, POOL - 1]
    bad = _unmatched(st, wishes)
    for _ in range(WISH_SWAPS):
        if bad == 0:
            break
        fixable = 0  # the unmatched partners holding an unknown card (a swap may help)
        for p in range(4):
            if wishes[p] != 0 and wish_yes(st, p) != wishes[p] and _holds_unknown(slots, p):
                fixable += 1
        if fixable == 0:
            break
        r = rng_below(rng, fixable)  # one of them, each as likely
        q = 0
        for p in range(4):
            if wishes[p] != 0 and wish_yes(st, p) != wishes[p] and _holds_unknown(slots, p):
                if r == 0:
                    q = p
                    break
                r -= 1
        nsegs = 0  # the segments of its unknown cards, listed in ``segs``
        for x in range(dealt):
            if slots[2, x] == q:
                known = False
                for y in range(nsegs):
                    known |= segs[y] == slots[1, x]
                if not known:
                    segs[nsegs] = slots[1, x]
                    nsegs += 1
        seg = segs[rng_below(rng, nsegs)]  # a segment, then a card of it, each as likely
        mine = 0
        for x in range(dealt):
            mine += slots[2, x] == q and slots[1, x] == seg
        r = rng_below(rng, mine)
        i = 0
        for x in range(dealt):
            if slots[2, x] == q and slots[1, x] == seg:
                if r == 0:
                    i = x
                    break
                r -= 1
        places = 0
        for x in range(dealt):
            places += slots[1, x] == slots[1, i] and slots[2, x] != q
        if places == 0:
            continue
        r = rng_below(rng, places)
        j = 0
        for x in range(dealt):
            if slots[1, x] == slots[1, i] and slots[2, x] != q:
                if r == 0:
                    j = x
                    break
                r -= 1
        _swap(st, slots, i, j)
        after = _unmatched(st, wishes)
        if after > bad:
            _swap(st, slots, i, j)
        else:
            bad = after
    return bad
