"""A compiled heuristic policy for Regicide, for rollouts and fast evaluation.

``choose(st, rng, w, buf)`` picks an action for the seat to act in a fast-path position
(``regalia.fast.regicide``) by scoring each legal action with a one-step look-ahead. It reads only
what that seat may know: its own hand, the public table, enemy, pile sizes and hand sizes,
and the partners' Jester-window wishes (rules 1.10), which it computes with the same public
rule every bot uses (``wish_yes``); it never reads the Tavern order or a partner's hand
otherwise. The weights ``w`` (``DEFAULT_WEIGHTS``, tuned by self-play with this module) are
in units of "hand value after the turn".
"""

from __future__ import annotations

import numpy as np

from regalia.bots.regicide import wishes as _wishes
from regalia.bots.regicide.wishes import wish_yes  # (also ``policy.wish_yes``, as before)
from regalia.fast import regicide as _fast
from regalia.fast._jit import njit, refresh_cache_if_changed

refresh_cache_if_changed(__file__, _fast.__file__, _wishes.__file__)

from regalia.fast.regicide import (  # noqa: E402
    A_DISCARD,
    A_REFRESH,
    ARG_MASK,
    CANCELLED,
    CUR,
    DAMAGE,
    DISCARD_SCRATCH,
    ENEMY,
    HANDS,
    JESTERS,
    KIND_SHIFT,
    MAX_ACTIONS,
    NDISC,
    NTAV,
    OPT_MINIMAL,
    OPTS,
    PH_CHOOSE,
    PH_SUFFER,
    PH_WON,
    PHASE,
    PLAYERS,
    SIZE,
    SUIT,
    VALUE,
    apply,
    bit_index,
    effective_attack,
    enemies_defeated,
    gen_discards,
    hand_value,
    legal_actions,
    max_hand,
    new_game_into,
    popcount,
    rng_float,
    shield,
)

# Weight indices.
W_DMG, W_SHIELD, W_DRAW, W_HEAL, W_HAND, W_KILL, W_EXACT, W_DEAD = 0, 1, 2, 3, 4, 5, 6, 7
W_RISKY, W_CARDS, W_YIELD, W_JESTER, W_REFRESH, W_AVG, W_TEAMDRAW, W_OVERKILL = (
    8, 9, 10, 11, 12, 13, 14, 15)
W_KEEP_C, W_KEEP_D, W_KEEP_H, W_KEEP_S, W_KEEP_ACE, W_KEEP_JESTER, W_KEEP_IMMUNE = (
    16, 17, 18, 19, 20, 21, 22)
W_KILL_HAND, W_HEAL_LOW, W_NEXT_WEAK, W_CANCEL, W_NOISE = 23, 24, 25, 26, 27
N_WEIGHTS = 28

WEIGHT_NAMES = ("dmg", "shield", "draw", "heal", "hand", "kill", "exact", "dead", "risky",
                "cards", "yield", "jester", "refresh", "avg", "teamdraw", "overkill",
                "keep_c", "keep_d", "keep_h", "keep_s", "keep_ace", "keep_jester",
                "keep_immune", "kill_hand", "heal_low", "next_weak", "cancel", "noise")

DEFAULT_WEIGHTS = np.array([
    1.0,    # dmg: per damage point dealt (no kill)
    1.0,    # shield: per useful shield point gained
    2.0,    # draw: per card drawn into the own hand (beyond its expected value)
    0.4,    # heal: per card healed into the Tavern
    1.0,    # hand: per point of hand value after the turn
    30.0,   # kill
    12.0,   # exact: bonus for an exact kill (the royal joins the Tavern)
    -500.0,  # dead: the seat cannot absorb the attack
    -4.0,   # risky: per point the hand lacks before the Diamonds draw
    1.0,    # cards: per card kept
    0.0,    # yield: base score of a yield
    0.0,    # jester: base score of a multiplayer Jester play
    25.0,   # refresh: cost of spending a solo Jester
    5.0,    # avg: expected value of an unknown card
    1.0,    # teamdraw: per card drawn by a partner
    -0.3,   # overkill: per point of damage beyond the kill
    0.0, 0.5, 0.0, 0.5,  # keep C D H S
    2.0,    # keep ace
    8.0,    # keep jester
    -1.0,   # keep a card of the enemy's suit
    1.0,    # kill_hand: per point of hand value kept on a kill
    0.2,    # heal_low: heal bonus per card when the Tavern is short
    2.0,    # next_weak: penalty when the next seat is weak and the enemy survives
    0.5,    # cancel: per own card of the enemy's suit when a Jester cancels immunity
    0.0,    # noise: random jitter of the scores (rollout diversity)
], dtype=np.float64)


@njit
def _own_draws(st, p, hand_after, v):
    """Cards that seat ``p`` and its partners draw from a Diamonds play of value ``v``."""
    players = st[PLAYERS]
    full = max_hand(players)
    sizes = 0  # one byte per seat (no array: this runs for every Diamonds play scored)
    for q in range(players):
        sizes |= popcount(hand_after if q == p else st[HANDS + q]) << (8 * q)
    left = v
    tav = st[NTAV]
    seat = p
    skipped = 0
    own = 0
    team = 0
    while left > 0 and tav > 0 and skipped < players:
        if (sizes >> (8 * seat)) & 255 < full:
            sizes += 1 << (8 * seat)
            tav -= 1
            left -= 1
            skipped = 0
            if seat == p:
                own += 1
            else:
                team += 1
        else:
            skipped += 1
        seat = (seat + 1) % players
    return own, team


@njit
def keep_value(st, c, w):
    """How much the seat loses by discarding card ``c``."""
    if c >= 52:
        return w[W_KEEP_JESTER]
    k = VALUE[c] * w[W_HAND]
    s = SUIT[c]
    k += w[W_KEEP_C + s]
    if c < 4:
        k += w[W_KEEP_ACE]
    e = st[ENEMY]
    if e >= 0 and SUIT[e] == s and st[CANCELLED] == 0:
        k += w[W_KEEP_IMMUNE]
    return k + w[W_CARDS]


@njit
def score_play(st, mask, w):
    """Score of playing the cards of ``mask`` (``A_PLAY`` argument)."""
    return _score_play(st, mask, w, hand_value(st[HANDS + st[CUR]]))


@njit
def _score_play(st, mask, w, hv_hand):
    """``score_play``, given the value of the hand (``hv_hand``)."""
    p = st[CUR]
    players = st[PLAYERS]
    hand = st[HANDS + p]
    after = hand & ~mask
    nh = popcount(after)
    e = st[ENEMY]
    esuit = SUIT[e]
    atk = VALUE[e]
    if mask >> 52:  # a Jester (multiplayer): no damage, no attack, choose who goes next
        cancel = 0.0
        if st[CANCELLED] == 0:
            m = after
            while m:
                low = m & -m
                c = bit_index(low)
                m ^= low
                if c < 52 and SUIT[c] == esuit:
                    cancel += 1.0
        return w[W_JESTER] + w[W_HAND] * hv_hand + w[W_CARDS] * nh + w[W_CANCEL] * cancel
    v = 0
    suits = 0
    spent = 0.0  # what the played cards were worth beyond their value (suit, Ace)
    m = mask
    while m:
        low = m & -m
        c = bit_index(low)
        m ^= low
        v += VALUE[c]
        suits |= 1 << SUIT[c]
        spent += keep_value(st, c, w) - VALUE[c] * w[W_HAND] - w[W_CARDS]
    hv = hv_hand - v  # the hand's value after the play
    immune = 0 if st[CANCELLED] else suits & (1 << esuit)
    powers = suits & ~immune
    dmg = 2 * v if powers & 1 else v
    remaining = 2 * atk - st[DAMAGE]
    score = -spent
    own = 0
    team = 0
    if powers & 2:
        own, team = _own_draws(st, p, after, v)
        score += (w[W_DRAW] + w[W_AVG] * w[W_HAND]) * own + w[W_TEAMDRAW] * team
        nh += own
    if powers & 4:
        healed = v if v < st[NDISC] else st[NDISC]
        score += w[W_HEAL] * healed
        if st[NTAV] < 10:
            score += w[W_HEAL_LOW] * healed * (10 - st[NTAV])
    if dmg >= remaining:
        score += w[W_KILL] + w[W_KILL_HAND] * hv + w[W_CARDS] * nh
        score += w[W_OVERKILL] * (dmg - remaining)
        if dmg == remaining:
            score += w[W_EXACT] * (atk / 10.0)
        return score
    sh = shield(st)
    if powers & 8:
        sh += v
    d = atk - sh
    gained = 0
    if powers & 8:
        gained = v
        if st[CANCELLED] == 0 and esuit == 3:
            gained = 0
        cap = atk - shield(st)
        if gained > cap:
            gained = cap if cap > 0 else 0
    if d < 0:
        d = 0
    score += w[W_DMG] * dmg + w[W_SHIELD] * gained
    if hv >= d:
        score += w[W_HAND] * (hv - d) + w[W_CARDS] * nh
    elif hv + own * w[W_AVG] >= d:
        score += w[W_HAND] * (hv + own * w[W_AVG] - d) + w[W_RISKY] * (d - hv)
    elif st[JESTERS] > 0:
        # Solo: play now, refresh at Step 4 (the rest of the hand is thrown away).
        tav = st[NTAV] - own
        new = tav if tav < 8 else 8
        score += -w[W_REFRESH] + w[W_HAND] * (new * w[W_AVG] - d) - 0.5 * w[W_HAND] * hv
    else:
        score += w[W_DEAD] + hv - d
    if players > 1 and d > 0:
        nxt = (p + 1) % players
        if popcount(st[HANDS + nxt]) <= 2:
            score -= w[W_NEXT_WEAK]
    return score


@njit
def score_action(st, a, w, keep):
    """Score of legal action ``a``; ``keep[c]`` is ``keep_value`` of each card in hand."""
    return _score_action(st, a, w, keep, hand_value(st[HANDS + st[CUR]]))


@njit
def _score_action(st, a, w, keep, hv):
    """``score_action``, given the value of the hand (``hv``)."""
    kind = a >> KIND_SHIFT
    arg = a & ARG_MASK
    p = st[CUR]
    if kind == 1:
        return _score_play(st, arg, w, hv)
    hand = st[HANDS + p]
    if kind == 2:  # discard: lose the kept value of the discarded cards
        s = 0.0
        m = arg
        while m:
            low = m & -m
            s -= keep[bit_index(low)]
            m ^= low
        return s
    if kind == 3:  # yield: suffer the full attack
        d = effective_attack(st)
        if hv < d:
            return w[W_DEAD] + hv - d
        if st[PLAYERS] == 1:  # option solo_yield: a free yield would only stall the game
            return -1000.0 + hv - d
        return w[W_YIELD] + w[W_HAND] * (hv - d) + w[W_CARDS] * popcount(hand) - 2.0
    if kind == 4:  # solo refresh
        tav = st[NTAV]
        new = tav if tav < 8 else 8
        if st[PHASE] == PH_SUFFER:
            d = effective_attack(st)
            if hv < d:
                return 1e6  # the only way to survive
            return -w[W_REFRESH] + w[W_HAND] * (new * w[W_AVG] - d - 2) - w[W_HAND] * (hv - d)
        if hand == 0:
            return 1e6
        return -w[W_REFRESH] + w[W_HAND] * (new * w[W_AVG] - hv) - 10.0
    if kind == 5:  # choose the next player
        q = arg
        if q == p:
            return popcount(hand) + 3.0 * (1 if hv >= effective_attack(st) else -1)
        return popcount(st[HANDS + q]) + 3.0 * wish_yes(st, q)
    return 0.0


_NO_KEEP = np.zeros(54, np.float64)


@njit
def choose(st, rng, w, buf):
    """The policy's action for the seat to act (``buf``: scratch of ``MAX_ACTIONS``): the
    legal action of the best ``score_action``, ties broken by a draw per action from
    ``rng`` (``W_NOISE`` > 0: a jitter that wide instead)."""
    if st[PHASE] == PH_SUFFER:
        return _choose_suffer(st, rng, w, buf)
    n = legal_actions(st, buf)
    if n == 1:
        return buf[0]
    best = buf[0]
    best_score = -1e18
    hv = hand_value(st[HANDS + st[CUR]])
    for i in range(n):
        s = _jitter(_score_action(st, buf[i], w, _NO_KEEP, hv), rng, w)
        if s > best_score:
            best_score = s
            best = buf[i]
    return best


@njit
def _jitter(s, rng, w):
    """Score ``s`` with its tie-breaking draw (``choose``)."""
    noise = w[W_NOISE]
    if noise > 0:
        return s + noise * rng_float(rng)
    return s + 1e-9 * rng_float(rng)


@njit
def _choose_suffer(st, rng, w, buf):
    """``choose`` in phase suffer (Step 4, rules 1.8), the same action and the same draws
    as scoring each legal action with ``score_action``, without writing the discards as
    action codes: what a discard loses, the sum of its cards' ``keep_value``, is built for
    every set of hand slots by doubling, as ``gen_discards`` builds their totals."""
    p = st[CUR]
    hand = st[HANDS + p]
    d = effective_attack(st)
    table = np.empty(DISCARD_SCRATCH, np.int64)  # the hand's cards first (``gen_discards``)
    n = 0
    if hand_value(hand) >= d and d > 0:
        n = gen_discards(hand, d, (st[OPTS] & OPT_MINIMAL) != 0, buf, 0, True, table)
    refresh = st[JESTERS] > 0
    if n == 0 or (n == 1 and not refresh):
        return A_REFRESH if n == 0 else _discard_of(table, buf[0])
    nc = popcount(hand)
    lost = np.empty(1 << nc, np.float64)  # lost[m]: the kept value of slot set m
    lost[0] = 0.0
    for j in range(nc):
        k = keep_value(st, table[j], w)
        h = 1 << j
        for r in range(h):
            lost[h + r] = lost[r] + k
    best = 0
    best_score = -1e18
    for i in range(n):
        s = _jitter(-lost[buf[i]], rng, w)
        if s > best_score:
            best_score = s
            best = i
    if refresh and _jitter(score_action(st, A_REFRESH, w, _NO_KEEP), rng, w) > best_score:
        return A_REFRESH
    return _discard_of(table, buf[best])


@njit
def _discard_of(table, m):
    """The discard action of slot set ``m`` of the cards ``table[:16]``."""
    mask = np.int64(0)
    j = 0
    while m:
        if m & 1:
            mask |= np.int64(1) << table[j]
        m >>= 1
        j += 1
    return A_DISCARD | mask


@njit
def outcome_value(st, medal):
    """The value of an ended position: a win is worth 1.0 less ``medal`` per solo Jester
    spent (rules 1.14: Gold, Silver, Bronze for 0, 1, 2 spent; ``medal`` 0 values every
    win alike); a loss the fraction of enemies defeated plus the damage on the current
    one, scaled into [0, 0.9]."""
    if st[PHASE] == PH_WON:
        if st[PLAYERS] == 1:
            return 1.0 - medal * (2 - st[JESTERS])
        return 1.0
    e = st[ENEMY]
    frac = st[DAMAGE] / (2.0 * VALUE[e]) if e >= 0 else 0.0
    return 0.9 * (enemies_defeated(st) + frac) / 12.0


@njit
def rollout(st, rng, w, buf, medal=0.0):
    """Plays ``st`` to its end with the policy; returns its ``outcome_value``."""
    while st[PHASE] < PH_WON:
        apply(st, choose(st, rng, w, buf), rng)
    return outcome_value(st, medal)


@njit
def policy_games(players, games, rng, w):
    """Deals and plays ``games`` games with the policy in every seat; returns
    ``(wins, total enemies defeated, medal counts [gold, silver, bronze])``."""
    st = np.zeros(SIZE, np.int64)
    buf = np.empty(MAX_ACTIONS, np.int64)
    wins = 0
    defeated = 0
    medals = np.zeros(3, np.int64)
    for _ in range(games):
        new_game_into(st, players, 0, -1, rng)
        while st[PHASE] < PH_WON:
            apply(st, choose(st, rng, w, buf), rng)
        if st[PHASE] == PH_WON:
            wins += 1
            if players == 1:
                medals[2 - st[JESTERS]] += 1
        defeated += enemies_defeated(st)
    return wins, defeated, medals


@njit
def evaluate_actions(worlds, actions, n_actions, seeds, w, out, medal=0.0):
    """Flat Monte Carlo: ``out[i, k]`` is the rollout value of ``actions[k]`` in world ``i``
    (``rollout`` with ``medal``).

    Each world is a determinized position (one row of ``worlds``); every action of a world
    is rolled out with the same random seed (common random numbers).
    """
    buf = np.empty(MAX_ACTIONS, np.int64)
    rng = np.empty(1, np.uint64)
    for i in range(worlds.shape[0]):
        for k in range(n_actions):
            st = worlds[i].copy()
            rng[0] = seeds[i]
            apply(st, actions[k], rng)
            out[i, k] = rollout(st, rng, w, buf, medal)


@njit
def evaluate_choices(worlds, action, seeds, w, out, pattern, medal=0.0):
    """Flat Monte Carlo one step deeper for an action that opens the Jester's window (rules
    1.10): ``out[i, q]`` is the rollout value of choosing seat ``q`` next after ``action`` in
    world ``i`` (-1 where that choice is not legal) and ``pattern[i]`` the partners' wishes
    there (bit ``q`` set where seat ``q`` says "yes" by the public rule ``wish_yes``), what
    the chooser will see before choosing. Where ``action`` does not open the window, every
    ``out[i, q]`` is the plain rollout value and ``pattern[i]`` is -1. Same random seeds
    as ``evaluate_actions`` (common random numbers); every choice of a world continues
    from the same random state."""
    buf = np.empty(MAX_ACTIONS, np.int64)
    opts = np.empty(MAX_ACTIONS, np.int64)
    rng = np.empty(1, np.uint64)
    for i in range(worlds.shape[0]):
        st = worlds[i].copy()
        rng[0] = seeds[i]
        apply(st, action, rng)
        if st[PHASE] != PH_CHOOSE:
            v = rollout(st, rng, w, buf, medal)
            for q in range(out.shape[1]):
                out[i, q] = v
            pattern[i] = -1
            continue
        p = st[CUR]
        pat = 0
        for q in range(st[PLAYERS]):
            if q != p and wish_yes(st, q) == 1:
                pat |= 1 << q
        pattern[i] = pat
        for q in range(out.shape[1]):
            out[i, q] = -1.0
        n = legal_actions(st, opts)
        r0 = rng[0]
        for k in range(n):
            s2 = st.copy()
            rng[0] = r0
            q = opts[k] & ARG_MASK
            apply(s2, opts[k], rng)
            out[i, q] = rollout(s2, rng, w, buf, medal)


_WEIGHTS_FILE = __import__("pathlib").Path(__file__).with_name("policy_weights.json")
_TUNED: dict[int, np.ndarray] | None = None


def weights_for(players: int) -> np.ndarray:
    """The policy weights for a player count: the tuned ones from ``policy_weights.json``
    (written by ``regalia.lab.tune_policy``) when present, else ``DEFAULT_WEIGHTS``. A copy."""
    global _TUNED
    if _TUNED is None:
        import json

        _TUNED = {}
        if _WEIGHTS_FILE.exists():
            obj = json.loads(_WEIGHTS_FILE.read_text())
            for k, v in obj.items():
                _TUNED[int(k)] = np.array([v.get(n, DEFAULT_WEIGHTS[i])
                                           for i, n in enumerate(WEIGHT_NAMES)], np.float64)
    return _TUNED.get(players, DEFAULT_WEIGHTS).copy()


@njit
def scored_actions(st, w, acts, scores):
    """Writes every legal action into ``acts`` and its policy score into ``scores``;
    returns how many."""
    return scored_actions_into(st, w, acts, scores, np.empty(54, np.float64))


@njit
def scored_actions_into(st, w, acts, scores, keep):
    """``scored_actions`` with a scratch ``keep`` ((54,) float64) for the cards' kept
    values (overwritten)."""
    n = legal_actions(st, acts)
    if st[PHASE] == PH_SUFFER:
        m = st[HANDS + st[CUR]]
        while m:
            low = m & -m
            c = bit_index(low)
            keep[c] = keep_value(st, c, w)
            m ^= low
    hv = hand_value(st[HANDS + st[CUR]])
    for i in range(n):
        scores[i] = _score_action(st, acts[i], w, keep, hv)
    return n
