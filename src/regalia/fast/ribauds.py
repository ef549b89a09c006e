"""The Le Roy des Ribauds fast path: a compact position and a compiled kernel (rules/ribauds.md
2.2-2.6, with the knowledge of 2.7).

A position is one ``numpy.int64`` array of ``SIZE`` slots (layout below); the kernel
functions change it in place, so copy it (``st.copy()``) to keep the old one. Action codes
are the reference engine's (``regalia.games.ribauds.actions``: ``kind << 5 | arg``) and
card ids its own (0 Roi, 1 Reine, 2 Chevalier, 3 Assassin), so a legal set of the fast
path compares directly with ``RIBAUDS.legal_actions``. Besides the cards the position keeps
what each seat knows (the reference ``State``'s ``know``, ``seen``, ``bottom_reines`` and
``redeals``, rules 2.7, 3.L17), so an observation can be computed from it.

Randomness comes from the Regicide fast path's xorshift64* generator
(``regalia.fast.regicide.new_rng``, a one-element ``numpy.uint64`` array). Every draw is
the one the reference engine makes with ``regalia.fast.regicide.FastRandom``: a shuffle
is Python's Fisher-Yates from the top, the first player ``randrange(2)``, the Reine's pick
``random.sample`` of the opponent's cards in canonical order. So the reference engine
dealing and playing with ``FastRandom(seed)`` reaches, action for action, the positions
``new_game_into`` and ``apply`` reach from ``new_rng(seed)`` (``tests/fast/
test_ribauds_fast.py`` checks it).

The whole module is plain Python that numba compiles (``regalia.fast._jit``); it also runs,
very slowly, without numba. Importing it compiles nothing.

Layout of a position (``st[...]``):

=================  ===============================================================
``CUR``            seat to act (0 or 1; once won, the winner)
``PHASE``          ``PH_ACT`` .. ``PH_WON``: the order of ``regalia.games.ribauds.state.
                   PHASES``
``UP``             face-up bit mask of the Court (bit ``i``: slot ``i``)
``WINNER``         the winner's seat, -1 while playing
``CONSP``          ``NO_CONSPIRACY``, ``CORONATION``, ``MARRIAGE`` or ``MURDER``
``OPTS``           ``OPT_DISCARD`` when option ``replaced_card`` is ``"discard"``
``FIRST``          the ``first_player`` option (-1: none)
``BOTTOM``         bottom cards of the draw pile publicly known to be Reines (3.L17)
``NDECK``          draw pile size; ``NDISC``: discard pile size
``NREDEAL``        setup re-deals (rules 2.2 step 4)
``COURT + i``      card in slot ``i``
``HANDS + 4q + c`` cards of type ``c`` in seat ``q``'s hand
``KNOW + 4q + i``  the card seat ``q`` knows in slot ``i``, -1 when it does not know it
``SEEN + 4q + c``  cards of type ``c`` seat ``q`` knows are in the opponent's hand
``DECK + k``       draw pile, bottom first (top: ``DECK + NDECK - 1``)
``DISC + k``       discard pile, bottom first
``REDEAL + k``     the re-deals in order: -1 a cancelled deal, a seat for its single re-deal
                   (the first ``MAX_REDEALS`` only; more never happen in practice)
=================  ===============================================================
"""

from __future__ import annotations

import numpy as np

from regalia.fast import regicide as _R
from regalia.fast._jit import njit, refresh_cache_if_changed
from regalia.games.ribauds import actions as _A

# The kernels below call the Regicide fast path's generator: a change there must drop
# numba's cached copies of them.
refresh_cache_if_changed(__file__, _R.__file__)

from regalia.fast.regicide import FastRandom, new_rng, rng_below  # noqa: E402

# ----------------------------------------------------------------------------- layout
CUR, PHASE, UP, WINNER, CONSP, OPTS, FIRST, BOTTOM, NDECK, NDISC, NREDEAL = range(11)
COURT = 12
HANDS = 16
KNOW = 24
SEEN = 32
DECK = 40
DISC = 56
REDEAL = 72
MAX_REDEALS = 56
SIZE = 128

PH_ACT, PH_KNIGHT_SWAP, PH_KNIGHT_FLIP, PH_KING, PH_KING_DISCARD, PH_ASSASSIN, PH_WON = range(7)
NO_CONSPIRACY, CORONATION, MARRIAGE, MURDER = 0, 1, 2, 3
OPT_DISCARD = 1

KING, QUEEN, KNIGHT, ASSASSIN = 0, 1, 2, 3
REVEAL, REPLACE, SWAP, FLIP, DRAW, DISCARD, PEEK = (_A.REVEAL, _A.REPLACE, _A.SWAP, _A.FLIP,
                                                    _A.DRAW, _A.DISCARD, _A.PEEK)
DRAW_CODE = _A.DRAW_CODE
N_CODES = _A.N_CODES
MAX_ACTIONS = 40  # more than any position has (phase act: 4 reveals + 4 slots x 4 types x 2)

# The 16 cards (rules 2.1, 3.L1) in canonical order, as ``inferred.full_deck`` lists them.
_COPIES = np.array([4, 4, 4, 4], np.int64)


# ----------------------------------------------------------------------------- conspiracies
@njit
def conspiracy(st):
    """``CORONATION`` or ``MURDER`` if the Court shows one, else ``NO_CONSPIRACY`` (rules
    2.5, 3.L15, 3.L16)."""
    up = st[UP]
    kings = 0
    for i in range(4):
        if (up >> i) & 1 and st[COURT + i] == KING:
            kings += 1
    if kings >= 3:
        return CORONATION
    if ((up & 7) == 7 and st[COURT] == ASSASSIN and st[COURT + 2] == ASSASSIN) or \
            ((up & 14) == 14 and st[COURT + 1] == ASSASSIN and st[COURT + 3] == ASSASSIN):
        return MURDER
    return NO_CONSPIRACY


@njit
def _win(st, which):
    st[PHASE] = PH_WON
    st[WINNER] = st[CUR]
    st[CONSP] = which


@njit
def _court_changed(st):
    """The win check after an atomic Court change (rules 2.3 step 3, 3.L8); True if won."""
    c = conspiracy(st)
    if c == NO_CONSPIRACY:
        return False
    _win(st, c)
    return True


@njit
def _start_turn(st, seat):
    """``seat`` starts a turn: the Marriage check (rules 2.3 step 1, 2.5)."""
    st[CUR] = seat
    st[PHASE] = PH_ACT
    if st[HANDS + 4 * seat + QUEEN] >= 3:
        _win(st, MARRIAGE)


@njit
def _end_turn(st):
    _start_turn(st, 1 - st[CUR])


# ----------------------------------------------------------------------------- knowledge
@njit
def _hand_loses(st, owner, card, shown):
    """What the opponent knows of ``owner``'s hand after it lost ``card`` (``knowledge.
    hand_loses``): one of that type if shown, else one of every known type."""
    base = SEEN + 4 * (1 - owner)
    if shown:
        if st[base + card] > 0:
            st[base + card] -= 1
    else:
        for c in range(4):
            if st[base + c] > 0:
                st[base + c] -= 1


# ----------------------------------------------------------------------------- piles
@njit
def _shuffle(a, lo, n, rng):
    """Python's ``random.shuffle`` of ``a[lo:lo + n]`` with the fast generator."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = a[lo + i]
        a[lo + i] = a[lo + j]
        a[lo + j] = t


@njit
def _draw(st, seat, rng):
    """``seat`` draws the top card (rules 2.6; 3.L11 reshuffle when needed, 3.L12 skip when
    both piles are empty: returns -1); returns the card."""
    n = st[NDECK]
    if n == 0:
        nd = st[NDISC]
        if nd == 0:
            return -1
        for k in range(nd):
            st[DECK + k] = st[DISC + k]
        st[NDISC] = 0
        _shuffle(st, DECK, nd, rng)
        st[BOTTOM] = 0
        n = nd
    public = n <= st[BOTTOM]
    n -= 1
    c = st[DECK + n]
    st[NDECK] = n
    st[HANDS + 4 * seat + c] += 1
    if public:
        st[BOTTOM] = n
        st[SEEN + 4 * (1 - seat) + c] += 1
    return c


@njit
def _discard(st, c):
    st[DISC + st[NDISC]] = c
    st[NDISC] += 1


# ----------------------------------------------------------------------------- effects
@njit
def _reine(st, rng):
    """The Reine (rules 2.4, 3.L10, 3.L18): ``random.sample`` of 2 of the opponent's cards
    (canonical order), the Reines among them discarded, as many drawn back."""
    p = st[CUR]
    o = 1 - p
    pool = np.empty(8, np.int64)
    n = 0
    for c in range(4):
        for _ in range(st[HANDS + 4 * o + c]):
            pool[n] = c
            n += 1
    k = 2 if n >= 2 else n
    counts = np.zeros(4, np.int64)
    for i in range(k):
        j = rng_below(rng, n - i)
        counts[pool[j]] += 1
        pool[j] = pool[n - i - 1]
    for c in range(4):  # the inspector's knowledge: the per-type maximum
        if counts[c] > st[SEEN + 4 * p + c]:
            st[SEEN + 4 * p + c] = counts[c]
    r = counts[QUEEN]
    for _ in range(r):
        st[HANDS + 4 * o + QUEEN] -= 1
        _discard(st, QUEEN)
        _hand_loses(st, o, QUEEN, True)
    for _ in range(r):
        if _draw(st, o, rng) < 0:
            break


@njit
def _resolve(st, card, rng):
    """The effect of ``card``, just turned or placed face up (rules 2.4)."""
    if card == KING:
        st[PHASE] = PH_KING
    elif card == KNIGHT:
        st[PHASE] = PH_KNIGHT_SWAP
    elif card == ASSASSIN:
        if st[UP] == 15:
            _end_turn(st)
        else:
            st[PHASE] = PH_ASSASSIN
    else:
        _reine(st, rng)
        _end_turn(st)


@njit
def _reveal(st, slot, rng):
    card = st[COURT + slot]
    st[UP] |= 1 << slot
    st[KNOW + slot] = card
    st[KNOW + 4 + slot] = card
    by_king = st[PHASE] == PH_KING
    if _court_changed(st):
        return
    if by_king:
        _end_turn(st)
    else:
        _resolve(st, card, rng)


@njit
def _replace(st, arg, rng):
    slot = arg >> 3
    card = (arg >> 1) & 3
    face_up = arg & 1
    p = st[CUR]
    o = 1 - p
    old = st[COURT + slot]
    old_up = (st[UP] >> slot) & 1
    opp_knew = st[KNOW + 4 * o + slot] >= 0
    st[HANDS + 4 * p + card] -= 1
    _hand_loses(st, p, card, face_up != 0)
    st[COURT + slot] = card
    if face_up:
        st[UP] |= 1 << slot
        st[KNOW + 4 * o + slot] = card
    else:
        st[UP] &= ~(1 << slot)
        st[KNOW + 4 * o + slot] = -1
    st[KNOW + 4 * p + slot] = card
    if st[OPTS] & OPT_DISCARD:
        _discard(st, old)
        _draw(st, p, rng)
    else:
        st[HANDS + 4 * p + old] += 1
        if old_up or opp_knew:
            st[SEEN + 4 * o + old] += 1
    if face_up:
        if not _court_changed(st):
            _resolve(st, card, rng)
    else:
        _end_turn(st)


@njit
def _swap(st, arg):
    i = arg >> 2
    j = arg & 3
    t = st[COURT + i]
    st[COURT + i] = st[COURT + j]
    st[COURT + j] = t
    u = st[UP]
    if ((u >> i) ^ (u >> j)) & 1:
        st[UP] = u ^ ((1 << i) | (1 << j))
    for q in range(2):
        t = st[KNOW + 4 * q + i]
        st[KNOW + 4 * q + i] = st[KNOW + 4 * q + j]
        st[KNOW + 4 * q + j] = t
    if not _court_changed(st):
        st[PHASE] = PH_KNIGHT_FLIP


@njit
def _flip(st, slot):
    card = st[COURT + slot]
    st[UP] ^= 1 << slot
    st[KNOW + slot] = card
    st[KNOW + 4 + slot] = card
    if not ((st[UP] >> slot) & 1 and _court_changed(st)):
        _end_turn(st)


@njit
def _king_discard(st, arg):
    p = st[CUR]
    for c in (arg >> 2, arg & 3):
        st[HANDS + 4 * p + c] -= 1
        _discard(st, c)
        _hand_loses(st, p, c, True)
    _end_turn(st)


@njit
def _peek(st, mask):
    p = st[CUR]
    for i in range(4):
        if (mask >> i) & 1:
            st[KNOW + 4 * p + i] = st[COURT + i]
    _end_turn(st)


@njit
def apply(st, action, rng):
    """Applies the legal action code ``action`` of the seat to act (no legality check: an
    illegal code leaves a position the rules never reach); draws from ``rng``."""
    kind = action >> 5
    arg = action & 31
    if kind == REVEAL:
        _reveal(st, arg, rng)
    elif kind == REPLACE:
        _replace(st, arg, rng)
    elif kind == SWAP:
        _swap(st, arg)
    elif kind == FLIP:
        _flip(st, arg)
    elif kind == DRAW:
        for _ in range(2):  # the Roi's option (b): draw 2, one at a time (2.6 between)
            if _draw(st, st[CUR], rng) < 0:
                break
        st[PHASE] = PH_KING_DISCARD
    elif kind == DISCARD:
        _king_discard(st, arg)
    else:
        _peek(st, arg)


@njit
def is_terminal(st):
    return st[PHASE] == PH_WON


# ----------------------------------------------------------------------------- legal actions
@njit
def legal_actions(st, out):
    """Writes the legal action codes of the seat to act into ``out`` (int64, at least
    ``MAX_ACTIONS`` long); returns how many (0 once won). Rules 2.3, 2.4, 3.L4, 3.L13, 3.L14."""
    phase = st[PHASE]
    up = st[UP]
    n = 0
    if phase == PH_ACT:
        h = HANDS + 4 * st[CUR]
        for i in range(4):
            if not (up >> i) & 1:
                out[n] = (REVEAL << 5) | i
                n += 1
        for i in range(4):
            for c in range(4):
                if st[h + c] > 0:
                    out[n] = (REPLACE << 5) | (i << 3) | (c << 1)
                    out[n + 1] = (REPLACE << 5) | (i << 3) | (c << 1) | 1
                    n += 2
    elif phase == PH_KNIGHT_SWAP:
        for i in range(4):
            for j in range(i + 1, 4):
                out[n] = (SWAP << 5) | (i << 2) | j
                n += 1
    elif phase == PH_KNIGHT_FLIP:
        for i in range(4):
            out[n] = (FLIP << 5) | i
            n += 1
    elif phase == PH_KING:
        for i in range(4):
            if not (up >> i) & 1:
                out[n] = (REVEAL << 5) | i
                n += 1
        out[n] = DRAW_CODE
        n += 1
    elif phase == PH_ASSASSIN:
        down = 15 & ~up
        count = 0
        for i in range(4):
            count += (down >> i) & 1
        if count <= 2:
            out[n] = (PEEK << 5) | down
            n += 1
        else:
            for i in range(4):
                for j in range(i + 1, 4):
                    if (down >> i) & 1 and (down >> j) & 1:
                        out[n] = (PEEK << 5) | (1 << i) | (1 << j)
                        n += 1
    elif phase == PH_KING_DISCARD:
        h = HANDS + 4 * st[CUR]
        for c1 in range(4):
            for c2 in range(c1, 4):
                if st[h + c1] > 0 and st[h + c2] >= (2 if c1 == c2 else 1):
                    out[n] = (DISCARD << 5) | (c1 << 2) | c2
                    n += 1
    return n


# ----------------------------------------------------------------------------- setup
@njit
def _queens(h, lo):
    n = 0
    for k in range(3):
        if h[lo + k] == QUEEN:
            n += 1
    return n


@njit
def new_game_into(st, opts, first, rng):
    """Deals a new game into ``st`` (rules 2.2, with the Reine check of step 4 as
    ``rules.resolve_reine_check`` does it); ``opts``: ``OPT_DISCARD`` or 0; ``first``: the
    first seat, -1 to draw it."""
    for i in range(SIZE):
        st[i] = 0
    st[OPTS] = opts
    st[FIRST] = first
    st[WINNER] = -1
    cards = np.empty(16, np.int64)
    n = 0
    for c in range(4):
        for _ in range(_COPIES[c]):
            cards[n] = c
            n += 1
    _shuffle(cards, 0, 16, rng)
    for i in range(4):
        st[COURT + i] = cards[i]
    # hands[q] = h[3q:3q + 3] (lists in deal order); the undealt cards u[:un], top first
    h = np.empty(6, np.int64)
    for k in range(6):
        h[k] = cards[4 + k]
    u = np.empty(16, np.int64)
    un = 6
    for k in range(6):
        u[k] = cards[10 + k]
    pool = np.empty(16, np.int64)
    bottom = 0
    nr = 0
    for _ in range(1000):
        q0 = _queens(h, 0)
        q1 = _queens(h, 3)
        if q0 == 3 or q1 == 3 or (q0 == 2 and q1 == 2):  # cancel (3.L6)
            m = 0
            for k in range(un):
                pool[m] = u[k]
                m += 1
            for k in range(6):
                pool[m] = h[k]
                m += 1
            _shuffle(pool, 0, m, rng)
            for k in range(6):
                h[k] = pool[k]
            un = m - 6
            for k in range(un):
                u[k] = pool[6 + k]
            bottom = 0
            if nr < MAX_REDEALS:
                st[REDEAL + nr] = -1
            nr += 1
            continue
        if q0 == 2 or q1 == 2:  # single (3.L5, 3.L7)
            seat = 0 if q0 == 2 else 1
            lo = 3 * seat
            keep = -1
            for k in range(3):
                if h[lo + k] != QUEEN:
                    keep = h[lo + k]
            u[un] = QUEEN
            u[un + 1] = QUEEN
            un += 2
            h[lo] = keep
            h[lo + 1] = u[0]
            h[lo + 2] = u[1]
            for k in range(un - 2):
                u[k] = u[k + 2]
            un -= 2
            bottom = min(bottom + 2, un)
            if nr < MAX_REDEALS:
                st[REDEAL + nr] = seat
            nr += 1
            continue
        break
    st[NREDEAL] = nr
    for k in range(6):
        st[HANDS + 4 * (k // 3) + h[k]] += 1
    st[NDECK] = un
    for k in range(un):
        st[DECK + k] = u[un - 1 - k]
    st[BOTTOM] = bottom
    for k in range(8):
        st[KNOW + k] = -1
    _start_turn(st, first if first >= 0 else rng_below(rng, 2))


def new_game(rng: np.ndarray, opts: int = 0, first: int = -1) -> np.ndarray:
    """A new dealt position drawn from ``rng`` (``new_rng``)."""
    st = np.zeros(SIZE, np.int64)
    new_game_into(st, opts, first, rng)
    return st


# ----------------------------------------------------------------------------- random play
@njit
def random_playout(st, rng, buf):
    """Plays ``st`` to its end choosing uniformly among the legal actions; returns the number
    of actions taken."""
    steps = 0
    while st[PHASE] != PH_WON:
        n = legal_actions(st, buf)
        apply(st, buf[rng_below(rng, n)], rng)
        steps += 1
    return steps


# ----------------------------------------------------------------------------- conversions
_PHASES = ("act", "knight_swap", "knight_flip", "king", "king_discard", "assassin", "won")
_CONSPIRACIES = (None, "coronation", "marriage", "murder")


def encode(s) -> np.ndarray:
    """The fast-path array of a reference ``regalia.games.ribauds.State`` (its knowledge
    included; re-deals beyond ``MAX_REDEALS`` are left out)."""
    st = np.zeros(SIZE, np.int64)
    st[CUR] = s.current
    st[PHASE] = _PHASES.index(s.phase)
    st[UP] = s.up
    st[WINNER] = -1 if s.winner is None else s.winner
    st[CONSP] = _CONSPIRACIES.index(s.conspiracy)
    st[OPTS] = OPT_DISCARD if s.options.replaced_card == "discard" else 0
    st[FIRST] = -1 if s.options.first_player is None else s.options.first_player
    st[BOTTOM] = s.bottom_reines
    st[COURT:COURT + 4] = s.court
    for q in range(2):
        st[HANDS + 4 * q:HANDS + 4 * q + 4] = s.hands[q]
        st[KNOW + 4 * q:KNOW + 4 * q + 4] = s.know[q]
        st[SEEN + 4 * q:SEEN + 4 * q + 4] = s.seen[q]
    st[NDECK] = len(s.deck)
    st[DECK:DECK + len(s.deck)] = s.deck
    st[NDISC] = len(s.discard)
    st[DISC:DISC + len(s.discard)] = s.discard
    st[NREDEAL] = len(s.redeals)
    for k, r in enumerate(s.redeals[:MAX_REDEALS]):
        st[REDEAL + k] = -1 if r["case"] == "cancel" else r["seat"]
    return st


def decode(st: np.ndarray):
    """The reference ``State`` of a fast-path array (no log)."""
    from regalia.games.ribauds.state import Options, State

    s = State.__new__(State)
    s.current = int(st[CUR])
    s.phase = _PHASES[int(st[PHASE])]
    s.court = [int(c) for c in st[COURT:COURT + 4]]
    s.up = int(st[UP])
    s.hands = [[int(c) for c in st[HANDS + 4 * q:HANDS + 4 * q + 4]] for q in range(2)]
    s.deck = [int(c) for c in st[DECK:DECK + int(st[NDECK])]]
    s.discard = [int(c) for c in st[DISC:DISC + int(st[NDISC])]]
    s.winner = None if st[WINNER] < 0 else int(st[WINNER])
    s.conspiracy = _CONSPIRACIES[int(st[CONSP])]
    s.options = Options(replaced_card="discard" if st[OPTS] & OPT_DISCARD else "hand",
                        first_player=None if st[FIRST] < 0 else int(st[FIRST]))
    s.know = [[int(c) for c in st[KNOW + 4 * q:KNOW + 4 * q + 4]] for q in range(2)]
    s.seen = [[int(c) for c in st[SEEN + 4 * q:SEEN + 4 * q + 4]] for q in range(2)]
    s.bottom_reines = int(st[BOTTOM])
    s.redeals = tuple({"case": "cancel"} if r < 0 else {"case": "single", "seat": int(r)}
                      for r in st[REDEAL:REDEAL + min(int(st[NREDEAL]), MAX_REDEALS)])
    s.log = None
    return s


def legal_list(st: np.ndarray) -> list[int]:
    """The legal action codes of a position, as a Python list."""
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(st, buf)
    return [int(a) for a in buf[:n]]


def step(st: np.ndarray, action: int, rng: np.ndarray) -> np.ndarray:
    """A copy of ``st`` after ``action``."""
    t = st.copy()
    apply(t, np.int64(action), rng)
    return t


__all__ = ["FastRandom", "new_rng", "new_game", "new_game_into", "apply", "legal_actions",
           "encode", "decode", "legal_list", "step", "random_playout", "conspiracy"]
