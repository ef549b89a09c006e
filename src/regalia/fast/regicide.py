"""The Regicide fast path: a compact position and a compiled kernel (rules/regicide.md 1.3-1.14).

A position is one ``numpy.int64`` array of ``SIZE`` slots (layout below); the kernel
functions change it in place, so copy it (``st.copy()``) to keep the old one. Action codes
are the reference engine's (``regalia.games.regicide.actions``), so a legal action set of the
fast path compares directly with ``REGICIDE.legal_actions``. Cards are the engine's ids
(``(rank - 1) * 4 + suit``, Jesters 52 and 53); hands are card bit masks.

Randomness comes from a small xorshift64* generator whose state is a one-element
``numpy.uint64`` array (``new_rng(seed)``), so rollouts are reproducible and independent of
any global random state. ``FastRandom(seed)`` is the same generator as a ``random.Random``:
the reference engine dealing with it deals what ``new_game_into`` deals from ``new_rng(seed)``.
``apply_forced`` takes a ``forced`` array: the discard pile as a Hearts heal shuffled it,
bottom first, as the reference engine shuffled it (the differential test uses it); an empty
array means "shuffle with the generator".

The whole module is plain Python that numba compiles (``regalia.fast._jit``); it also runs,
very slowly, without numba.

Layout of a position (``st[...]``):

====================  ==========================================================
``PLAYERS``           1-4
``CUR``               seat to act
``PHASE``             ``PH_PLAY``, ``PH_SUFFER``, ``PH_CHOOSE``, ``PH_WON``, ``PH_LOST``
``ENEMY``             card id of the current enemy, -1 once won
``DAMAGE``            damage taken by the enemy
``CANCELLED``         1 when a Jester cancelled its immunity
``SPADES``            sum of the values of the table's Spade plays (rules 1.9)
``JESTERS``           solo refreshes left
``KNOWN``             publicly known top cards of the Tavern (exact-kill royals)
``YIELDED``           bit per seat: its last turn was a yield
``OPTS``              ``OPT_SOLO_YIELD | OPT_NO_CHOOSE_SELF | OPT_MINIMAL``
``NCASTLE``           cards in the Castle below the enemy
``NTAV``, ``TLO``     Tavern size, and the ring index of its bottom card
``NDISC``             discard pile size
``NPLAYS``            plays on the table
``FIRST``             the ``first_player`` option (-1: none)
``HANDS + seat``      hand masks (4 slots)
``CASTLE + i``        Castle cards, bottom first (top = ``CASTLE + NCASTLE - 1``)
``TAV + j``           the Tavern as a ring of 64: card ``i`` from the bottom is
                      ``st[TAV + ((TLO + i) & 63)]``
``DISC + i``          discard pile, bottom first
``PLAYS + i``         the table's play masks, oldest first
====================  ==========================================================
"""

from __future__ import annotations

import os
import random

import numpy as np

from regalia.fast._jit import njit, trailing_zeros

# ----------------------------------------------------------------------------- layout
PLAYERS, CUR, PHASE, ENEMY, DAMAGE, CANCELLED, SPADES, JESTERS = 0, 1, 2, 3, 4, 5, 6, 7
KNOWN, YIELDED, OPTS, NCASTLE, NTAV, TLO, NDISC, NPLAYS, FIRST = 8, 9, 10, 11, 12, 13, 14, 15, 16
HANDS = 20
CASTLE = 24
TAV = 64
DISC = 128
PLAYS = 192
SIZE = 256

PH_PLAY, PH_SUFFER, PH_CHOOSE, PH_WON, PH_LOST = 0, 1, 2, 3, 4
OPT_SOLO_YIELD, OPT_NO_CHOOSE_SELF, OPT_MINIMAL = 1, 2, 4

KIND_SHIFT = 56
ARG_MASK = (1 << KIND_SHIFT) - 1
A_PLAY = 1 << KIND_SHIFT
A_DISCARD = 2 << KIND_SHIFT
A_YIELD = 3 << KIND_SHIFT
A_REFRESH = 4 << KIND_SHIFT
A_CHOOSE = 5 << KIND_SHIFT

JESTER_BITS = np.int64(3) << 52
MAX_ACTIONS = 512  # more than any position has (8 cards: 255 discards + refresh)

# ----------------------------------------------------------------------------- card tables
VALUE = np.array([(r if r <= 10 else {11: 10, 12: 15, 13: 20}[r])
                  for r in [i // 4 + 1 for i in range(52)]] + [0, 0], dtype=np.int64)
SUIT = np.array([i % 4 for i in range(52)] + [-1, -1], dtype=np.int64)
RANK = np.array([i // 4 + 1 for i in range(52)] + [0, 0], dtype=np.int64)


# ----------------------------------------------------------------------------- random source
@njit
def rng_next(r):
    """Next 64-bit output of the xorshift64* generator whose state is ``r[0]``."""
    x = r[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    r[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit
def rng_below(r, n):
    """A uniform integer in ``[0, n)`` (``n >= 1``)."""
    return np.int64((rng_next(r) >> np.uint64(11)) % np.uint64(n))


@njit
def rng_float(r):
    """A uniform float in ``[0, 1)``."""
    return np.float64(rng_next(r) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def new_rng(seed: int) -> np.ndarray:
    """A generator state for ``seed`` (any int)."""
    x = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    return np.array([x or 0x9E3779B97F4A7C15], dtype=np.uint64)


class FastRandom(random.Random):
    """A ``random.Random`` drawing from the fast path's generator (``new_rng``).

    ``shuffle``, ``randrange``, ``choice`` and ``random`` use the same calls as the compiled
    kernel (Fisher-Yates from the top, ``rng_below``), so the reference engine dealing and
    healing with ``FastRandom(seed)`` draws exactly what ``new_game_into`` and a Hearts heal
    draw from ``new_rng(seed)``: the same seed and actions give the same game on both paths.
    The state (``getstate``) is the generator's 64-bit word. ``seed=None`` seeds from the
    operating system; other seeds must be ints.
    """

    def seed(self, a=None, version=2) -> None:
        if a is None:
            a = int.from_bytes(os.urandom(8), "little")
        if type(a) is not int:
            raise TypeError(f"FastRandom seeds are ints, not {type(a).__name__}")
        self._r = new_rng(a)

    def getstate(self) -> int:
        return int(self._r[0])

    def setstate(self, state: int) -> None:
        self._r[0] = state

    def _randbelow(self, n: int) -> int:
        return int(rng_below(self._r, n))

    def random(self) -> float:
        return float(rng_float(self._r))

    def getrandbits(self, k: int) -> int:
        x = 0
        for shift in range(0, k, 64):
            x |= int(rng_next(self._r)) << shift
        return x & ((1 << k) - 1)


# ----------------------------------------------------------------------------- small helpers
@njit
def bit_index(low):
    """The index of the one set bit of ``low`` (a card id when ``low`` is a one-card mask;
    ``0 < low < 2**63``)."""
    return np.int64(trailing_zeros(np.int64(low)))


@njit
def popcount(m):
    """Number of set bits of ``m`` (``0 <= m < 2**63``), branch-free."""
    x = np.uint64(m)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit
def cards_of(m, out):
    """Writes the card ids of mask ``m`` ascending into ``out``; returns how many."""
    n = 0
    while m:
        low = m & -m
        out[n] = bit_index(low)
        n += 1
        m ^= low
    return n


@njit
def hand_value(m):
    t = 0
    while m:
        low = m & -m
        t += VALUE[bit_index(low)]
        m ^= low
    return t


@njit
def max_hand(players):
    return 9 - players  # 8, 7, 6, 5 (rules 1.3)


@njit
def enemy_attack(st):
    e = st[ENEMY]
    return VALUE[e] if e >= 0 else 0


@njit
def shield(st):
    e = st[ENEMY]
    if e < 0 or (SUIT[e] == 3 and st[CANCELLED] == 0):
        return 0
    return st[SPADES]


@njit
def effective_attack(st):
    d = enemy_attack(st) - shield(st)
    return d if d > 0 else 0


@njit
def can_yield(st, seat):
    players = st[PLAYERS]
    if players == 1:
        return (st[OPTS] & OPT_SOLO_YIELD) != 0
    y = st[YIELDED]
    for q in range(players):
        if q != seat and (y >> q) & 1 == 0:
            return True
    return False


@njit
def enemies_defeated(st):
    return 12 - st[NCASTLE] - (1 if st[ENEMY] >= 0 else 0)


@njit
def tavern_card(st, i):
    """Tavern card ``i`` from the bottom."""
    return st[TAV + ((st[TLO] + i) & 63)]


# ----------------------------------------------------------------------------- legal actions
@njit
def _slots_of(sub, nib):
    """The bits of ``sub`` renumbered among the set bits of ``nib`` (both 4-bit)."""
    out = 0
    j = 0
    for b in range(4):
        if (nib >> b) & 1:
            if (sub >> b) & 1:
                out |= 1 << j
            j += 1
    return out


@njit
def gen_plays(hand, out, n, slots):
    """Appends every legal Step 1 play of ``hand`` (rules 1.5): ``A_PLAY | mask`` or, with
    ``slots``, the set of hand slots played (bit ``i``: the hand's ``i``-th card in canonical
    order)."""
    one = np.int64(1)
    m = hand
    i = 0
    while m:
        low = m & -m
        m ^= low
        out[n] = (one << i) if slots else A_PLAY | low
        n += 1
        i += 1
    if (hand >> 52) & 3 == 3:
        n -= 1  # two Jesters: "play X" once (the higher id is last)
    aces = hand & 0xF
    i = 0  # the Aces hold the first slots
    while aces:
        a = aces & -aces
        aces ^= a
        rest = hand & ~((a << 1) - 1) & ~JESTER_BITS  # the later non-Jester cards
        j = i + 1
        while rest:
            c = rest & -rest
            rest ^= c
            out[n] = ((one << i) | (one << j)) if slots else A_PLAY | a | c
            n += 1
            j += 1
        i += 1
    for r in range(2, 6):
        nib = (hand >> (4 * (r - 1))) & 0xF
        if nib & (nib - 1):
            first = popcount(hand & ((one << (4 * (r - 1))) - 1))  # slot of the first rank-r card
            for sub in range(3, 16):
                if sub & ~nib == 0:
                    k = popcount(sub)
                    if k >= 2 and r * k <= 10:
                        if slots:
                            out[n] = np.int64(_slots_of(sub, nib)) << first
                        else:
                            out[n] = A_PLAY | (np.int64(sub) << (4 * (r - 1)))
                        n += 1
    return n


DISCARD_SCRATCH = 16 + 3 * 256  # int64 entries ``gen_discards`` needs for a hand of 8


@njit
def gen_discards(hand, d, minimal, out, n, slots, table):
    """Appends every legal Step 4 discard (rules 1.8, 3.R10): ``A_DISCARD | mask`` or, with
    ``slots``, the set of hand slots discarded (as in ``gen_plays``), by increasing slot set.

    ``table``: scratch, an int64 array of ``DISCARD_SCRATCH`` entries. The totals of all slot
    sets are built by doubling (set ``2**j + r`` is set ``r`` plus slot ``j``); two Jesters
    count once (the set holding only the second is skipped)."""
    nc = popcount(hand)
    full = 1 << nc
    cards = table[:16]
    cards_of(hand, cards)
    sums = table[16:16 + full]
    masks = table[16 + full:16 + 2 * full]
    mins = table[16 + 2 * full:]
    sums[0] = 0
    masks[0] = 0
    mins[0] = 1 << 30
    for j in range(nc):
        v = VALUE[cards[j]]
        bit = np.int64(1) << cards[j]
        h = 1 << j
        for r in range(h):
            sums[h + r] = sums[r] + v
            if not slots:
                masks[h + r] = masks[r] | bit
            if minimal:
                mins[h + r] = v if v < mins[r] else mins[r]
    two_jesters = (hand >> 52) & 3 == 3
    for m in range(1, full):
        if sums[m] >= d:
            if two_jesters and (m >> (nc - 2)) & 3 == 2:
                continue
            if minimal and sums[m] - mins[m] >= d:
                continue
            out[n] = m if slots else A_DISCARD | masks[m]
            n += 1
    return n


@njit
def legal_actions(st, out):
    """Writes the legal action codes of the seat to act into ``out``; returns how many."""
    phase = st[PHASE]
    p = st[CUR]
    n = 0
    if phase == PH_PLAY:
        n = gen_plays(st[HANDS + p], out, 0, False)
        if can_yield(st, p):
            out[n] = A_YIELD
            n += 1
        if st[JESTERS] > 0:
            out[n] = A_REFRESH
            n += 1
    elif phase == PH_SUFFER:
        hand = st[HANDS + p]
        d = effective_attack(st)
        if hand_value(hand) >= d and d > 0:
            table = np.empty(DISCARD_SCRATCH, np.int64)
            n = gen_discards(hand, d, (st[OPTS] & OPT_MINIMAL) != 0, out, 0, False, table)
        if st[JESTERS] > 0:
            out[n] = A_REFRESH
            n += 1
    elif phase == PH_CHOOSE:
        for k in range(st[PLAYERS]):
            if k != p or (st[OPTS] & OPT_NO_CHOOSE_SELF) == 0:
                out[n] = A_CHOOSE | k
                n += 1
    return n


# ----------------------------------------------------------------------------- apply
@njit
def _discard_mask(st, m):
    """Put the cards of ``m`` on the discard pile, ascending (the engine's order)."""
    nd = st[NDISC]
    while m:
        low = m & -m
        st[DISC + nd] = bit_index(low)
        nd += 1
        m ^= low
    st[NDISC] = nd


@njit
def _draw(st, seat):
    n = st[NTAV] - 1
    c = st[TAV + ((st[TLO] + n) & 63)]
    st[NTAV] = n
    if st[KNOWN] > 0:
        st[KNOWN] -= 1
    st[HANDS + seat] |= np.int64(1) << c


@njit
def _check_start(st, p):
    if st[HANDS + p] == 0 and not can_yield(st, p) and st[JESTERS] == 0:
        st[PHASE] = PH_LOST


@njit
def _check_suffer(st, p, d):
    if hand_value(st[HANDS + p]) < d and st[JESTERS] == 0:
        st[PHASE] = PH_LOST


@njit
def _next_turn(st, p):
    st[CUR] = p
    st[PHASE] = PH_PLAY
    _check_start(st, p)


@njit
def _step4(st, p):
    d = effective_attack(st)
    if d == 0:
        _next_turn(st, (p + 1) % st[PLAYERS])
        return
    st[PHASE] = PH_SUFFER
    _check_suffer(st, p, d)


@njit
def _defeat(st, p, exact):
    e = st[ENEMY]
    if exact:
        st[TAV + ((st[TLO] + st[NTAV]) & 63)] = e
        st[NTAV] += 1
        st[KNOWN] += 1
    else:
        st[DISC + st[NDISC]] = e
        st[NDISC] += 1
    for i in range(st[NPLAYS]):
        _discard_mask(st, st[PLAYS + i])
    st[NPLAYS] = 0
    st[SPADES] = 0
    st[CANCELLED] = 0
    st[DAMAGE] = 0
    if st[NCASTLE] == 0:
        st[ENEMY] = -1
        st[PHASE] = PH_WON
        return
    st[NCASTLE] -= 1
    st[ENEMY] = st[CASTLE + st[NCASTLE]]
    _next_turn(st, p)


@njit
def _heal(st, v, rng, forced):
    """Hearts (rules 1.6): the discard pile is shuffled and its top min(v, size) cards go
    under the Tavern (the engine's order: the pile's cards keep their shuffled order)."""
    nd = st[NDISC]
    n = v if v < nd else nd
    if forced.shape[0] > 0:
        for i in range(nd):
            st[DISC + i] = forced[i]
    else:
        for i in range(nd - 1, 0, -1):
            j = rng_below(rng, i + 1)
            t = st[DISC + i]
            st[DISC + i] = st[DISC + j]
            st[DISC + j] = t
    keep = nd - n
    lo = (st[TLO] - n) & 63
    for j in range(n):
        st[TAV + ((lo + j) & 63)] = st[DISC + keep + j]
    st[TLO] = lo
    st[NTAV] += n
    st[NDISC] = keep


@njit
def _play(st, p, mask, rng, forced):
    """Steps 1-3 of a card play (rules 1.5-1.7)."""
    st[HANDS + p] &= ~mask
    st[PLAYS + st[NPLAYS]] = mask
    st[NPLAYS] += 1
    st[YIELDED] &= ~(1 << p)
    if mask >> 52:  # a Jester, always alone (rules 1.10)
        st[CANCELLED] = 1
        st[PHASE] = PH_CHOOSE
        return
    v = 0
    suits = 0
    m = mask
    while m:
        low = m & -m
        c = bit_index(low)
        v += VALUE[c]
        suits |= 1 << SUIT[c]
        m ^= low
    e = st[ENEMY]
    immune = 0 if st[CANCELLED] else suits & (1 << SUIT[e])
    powers = suits & ~immune
    damage = 2 * v if powers & 1 else v
    if powers & 4 and st[NDISC] > 0:  # Hearts before Diamonds (rules 1.6)
        _heal(st, v, rng, forced)
    if powers & 2 and st[NTAV] > 0:  # Diamonds: round-robin draw
        players = st[PLAYERS]
        full = max_hand(players)
        left = v
        seat = p
        skipped = 0
        while left > 0 and st[NTAV] > 0 and skipped < players:
            if popcount(st[HANDS + seat]) < full:
                _draw(st, seat)
                left -= 1
                skipped = 0
            else:
                skipped += 1
            seat = (seat + 1) % players
    if suits & 8:
        st[SPADES] += v
    st[DAMAGE] += damage
    health = 2 * VALUE[e]
    if st[DAMAGE] >= health:
        _defeat(st, p, st[DAMAGE] == health)
    else:
        _step4(st, p)


@njit
def _refresh(st, p):
    """Solo Jester refresh (rules 1.14)."""
    st[JESTERS] -= 1
    _discard_mask(st, st[HANDS + p])
    st[HANDS + p] = 0
    full = max_hand(st[PLAYERS])
    drawn = 0
    while st[NTAV] > 0 and drawn < full:
        _draw(st, p)
        drawn += 1
    if st[PHASE] == PH_SUFFER:
        _check_suffer(st, p, effective_attack(st))
    else:
        _check_start(st, p)


NO_FORCE = np.empty(0, np.int64)


@njit
def apply_forced(st, action, rng, forced):
    """Applies a legal ``action`` to ``st`` in place (no legality check)."""
    kind = action >> KIND_SHIFT
    arg = action & ARG_MASK
    p = st[CUR]
    if kind == 1:
        _play(st, p, arg, rng, forced)
    elif kind == 3:
        st[YIELDED] |= 1 << p
        _step4(st, p)
    elif kind == 4:
        _refresh(st, p)
    elif kind == 2:
        st[HANDS + p] &= ~arg
        _discard_mask(st, arg)
        _next_turn(st, (p + 1) % st[PLAYERS])
    elif kind == 5:
        _next_turn(st, arg)


@njit
def apply(st, action, rng):
    """Applies a legal ``action`` to ``st`` in place, chance from ``rng``."""
    apply_forced(st, action, rng, np.empty(0, np.int64))


@njit
def is_terminal(st):
    return st[PHASE] >= PH_WON


# ----------------------------------------------------------------------------- setup
@njit
def _shuffle(a, n, rng):
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit
def new_game_into(st, players, opts, first, rng):
    """Deals a new game into ``st`` (rules 1.3); ``first`` -1 draws the first player."""
    for i in range(SIZE):
        st[i] = 0
    st[PLAYERS] = players
    st[OPTS] = opts
    st[FIRST] = first
    group = np.empty(4, np.int64)
    for r in range(3):  # shuffled Jacks, Queens, Kings, as the reference engine draws them
        rank = 11 + r
        for s in range(4):
            group[s] = (rank - 1) * 4 + s
        _shuffle(group, 4, rng)
        for s in range(4):  # Kings at the bottom, then Queens, Jacks on top
            st[CASTLE + 4 * (2 - r) + s] = group[s]
    st[NCASTLE] = 11
    st[ENEMY] = st[CASTLE + 11]
    deck = np.empty(42, np.int64)
    n = 0
    for c in range(40):
        deck[n] = c
        n += 1
    jesters = 0 if players <= 2 else players - 2
    for j in range(jesters):
        deck[n] = 52 + j
        n += 1
    _shuffle(deck, n, rng)
    for i in range(n):
        st[TAV + i] = deck[i]
    st[TLO] = 0
    st[NTAV] = n
    for _ in range(max_hand(players)):
        for p in range(players):
            _draw(st, p)
    st[JESTERS] = 2 if players == 1 else 0
    st[CUR] = first if first >= 0 else rng_below(rng, players)
    st[PHASE] = PH_PLAY


def new_game(players: int, rng: np.ndarray, opts: int = 0, first: int = -1) -> np.ndarray:
    """A new dealt position (its own random deal, not the reference engine's)."""
    st = np.zeros(SIZE, np.int64)
    new_game_into(st, players, opts, first, rng)
    return st


# ----------------------------------------------------------------------------- random play
@njit
def random_playout(st, rng, buf):
    """Plays ``st`` to its end choosing uniformly among the legal actions; returns the number
    of actions taken."""
    steps = 0
    while st[PHASE] < PH_WON:
        n = legal_actions(st, buf)
        apply(st, buf[rng_below(rng, n)], rng)
        steps += 1
    return steps


@njit
def random_games(players, games, seed_rng):
    """Deals and plays ``games`` random games; returns ``(wins, actions, enemies defeated)``."""
    st = np.zeros(SIZE, np.int64)
    buf = np.empty(MAX_ACTIONS, np.int64)
    wins = 0
    actions = 0
    defeated = 0
    for _ in range(games):
        new_game_into(st, players, 0, -1, seed_rng)
        actions += random_playout(st, seed_rng, buf)
        if st[PHASE] == PH_WON:
            wins += 1
        defeated += enemies_defeated(st)
    return wins, actions, defeated


# ----------------------------------------------------------------------------- conversions
_PHASE_CODE = {"play": PH_PLAY, "suffer": PH_SUFFER, "choose": PH_CHOOSE, "won": PH_WON,
               "lost": PH_LOST}
_PHASE_NAME = {v: k for k, v in _PHASE_CODE.items()}


def encode(s) -> np.ndarray:
    """The fast-path array of a reference ``regalia.games.regicide.State``."""
    st = np.zeros(SIZE, np.int64)
    st[PLAYERS] = s.players
    st[CUR] = s.current
    st[PHASE] = _PHASE_CODE[s.phase]
    st[ENEMY] = -1 if s.enemy is None else s.enemy
    st[DAMAGE] = s.damage
    st[CANCELLED] = 1 if s.cancelled else 0
    st[SPADES] = s.spades
    st[JESTERS] = s.jesters
    st[KNOWN] = s.known_top
    st[YIELDED] = sum(1 << q for q, y in enumerate(s.yielded) if y)
    o = s.options
    st[OPTS] = ((OPT_SOLO_YIELD if o.solo_yield else 0)
                | (0 if o.jester_choose_self else OPT_NO_CHOOSE_SELF)
                | (OPT_MINIMAL if o.minimal_discard else 0))
    st[FIRST] = -1 if o.first_player is None else o.first_player
    for q, h in enumerate(s.hands):
        st[HANDS + q] = h
    st[NCASTLE] = len(s.castle)
    st[CASTLE:CASTLE + len(s.castle)] = s.castle
    st[NTAV] = len(s.tavern)
    st[TLO] = 0
    st[TAV:TAV + len(s.tavern)] = s.tavern
    st[NDISC] = len(s.discard)
    st[DISC:DISC + len(s.discard)] = s.discard
    st[NPLAYS] = len(s.table)
    st[PLAYS:PLAYS + len(s.table)] = s.table
    return st


def decode(st: np.ndarray):
    """The reference ``State`` of a fast-path array (no log, no stated wishes)."""
    from regalia.games.regicide.state import Options, State

    s = State.__new__(State)
    players = int(st[PLAYERS])
    s.players = players
    s.current = int(st[CUR])
    s.phase = _PHASE_NAME[int(st[PHASE])]
    s.enemy = None if st[ENEMY] < 0 else int(st[ENEMY])
    s.damage = int(st[DAMAGE])
    s.cancelled = bool(st[CANCELLED])
    s.spades = int(st[SPADES])
    s.jesters = int(st[JESTERS])
    s.known_top = int(st[KNOWN])
    s.yielded = [bool(int(st[YIELDED]) >> q & 1) for q in range(players)]
    opts = int(st[OPTS])
    s.options = Options(solo_yield=bool(opts & OPT_SOLO_YIELD),
                        jester_choose_self=not opts & OPT_NO_CHOOSE_SELF,
                        minimal_discard=bool(opts & OPT_MINIMAL),
                        first_player=None if st[FIRST] < 0 else int(st[FIRST]))
    s.hands = [int(st[HANDS + q]) for q in range(players)]
    s.castle = [int(c) for c in st[CASTLE:CASTLE + int(st[NCASTLE])]]
    lo = int(st[TLO])
    s.tavern = [int(st[TAV + ((lo + i) & 63)]) for i in range(int(st[NTAV]))]
    s.discard = [int(c) for c in st[DISC:DISC + int(st[NDISC])]]
    s.table = [int(m) for m in st[PLAYS:PLAYS + int(st[NPLAYS])]]
    s.preferences = [None] * players
    s.log = None
    return s


def legal_list(st: np.ndarray) -> list[int]:
    """The legal action codes of a position, as a Python list."""
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(st, buf)
    return [int(a) for a in buf[:n]]


def step(st: np.ndarray, action: int, rng: np.ndarray, forced=None) -> np.ndarray:
    """A copy of ``st`` after ``action`` (``forced``: the discard pile as a Hearts heal
    shuffled it, bottom first)."""
    t = st.copy()
    f = NO_FORCE if forced is None else np.asarray(forced, dtype=np.int64)
    apply_forced(t, np.int64(action), rng, f)
    return t
