"""Batch simulators: ``N`` games stepped at once on the compiled fast paths.

``RegicideBatch`` (``regalia.fast.regicide``) and ``RibaudsBatch`` (Le Roy des Ribauds,
``regalia.fast.ribauds``). Arrays in (one action id per game), arrays out (observations,
legal-action masks, rewards, done flags), automatic reset, seeded. The encoding is
``regalia.adapters.encoding``'s (the PettingZoo and Gymnasium environments'), computed here
in compiled code from the fast-path position; ``tests/adapters/test_batch.py`` and
``test_ribauds_batch.py`` check, game by game and step by step, that the same seeds and
action ids give the same observations and masks as the environments. Example::

    from regalia.adapters.batch import RegicideBatch, sample_legal

    sim = RegicideBatch(1024, players=2, seed=0)
    obs, masks = sim.reset()                    # (1024, 408) float32, (1024, 516) int8
    rng = RegicideBatch.new_rng(1)
    for _ in range(100):
        actions = sample_legal(masks, rng)      # (1024,) int64, uniform among legal ids
        obs, masks, rewards, terminated, truncated = sim.step(actions)

Each row is the position of the seat to act (``sim.seats``), seen from that seat. Regicide
rewards are the cooperative result of the game an action ended (1.0 won, 0.0 lost or
truncated), shared by every seat; Le Roy des Ribauds rewards are the acting seat's (+1.0
won, -1.0 lost; ``RibaudsBatch``). When game ``i`` ends (``terminated[i]``, or
``truncated[i]`` after ``max_steps`` actions), its slot is dealt a new game at once and row
``i`` already shows it. Chance: slot ``i`` draws from the fast generator seeded ``seed + i``
(``reset(seed)``), the same draws as ``regalia.adapters.episode.Episode.reset(seed + i)`` on
the reference engine; later games of a slot continue its stream. The returned arrays are
read-only views of buffers the next ``step`` overwrites: copy what you keep.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from regalia.adapters import encoding as E
from regalia.fast import regicide as F
from regalia.fast import ribauds as RF
from regalia.fast._jit import njit, refresh_cache_if_changed

# The kernels below inline the fast paths and the encoding's constants: a change to any
# must drop numba's cached copies of them.
refresh_cache_if_changed(__file__, F.__file__, RF.__file__, E.__file__)

from regalia.fast.regicide import (  # noqa: E402
    A_CHOOSE,
    A_DISCARD,
    A_PLAY,
    A_REFRESH,
    A_YIELD,
    CANCELLED,
    CUR,
    DAMAGE,
    DISC,
    ENEMY,
    HANDS,
    JESTERS,
    KNOWN,
    MAX_ACTIONS,
    NCASTLE,
    NDISC,
    NPLAYS,
    NTAV,
    OPT_MINIMAL,
    OPT_NO_CHOOSE_SELF,
    OPT_SOLO_YIELD,
    OPTS,
    PH_CHOOSE,
    PH_PLAY,
    PH_SUFFER,
    PH_WON,
    PHASE,
    PLAYERS,
    PLAYS,
    RANK,
    SIZE,
    SUIT,
    VALUE,
    YIELDED,
    bit_index,
    can_yield,
    effective_attack,
    enemies_defeated,
    gen_discards,
    gen_plays,
    hand_value,
    new_game_into,
    popcount,
    rng_below,
    shield,
    tavern_card,
)

N_ACTIONS = E.REGICIDE_ACTIONS
SCRATCH = MAX_ACTIONS + F.DISCARD_SCRATCH
OBS = E.REGICIDE_OBS
_PLAY, _DISCARD, _YIELD, _REFRESH, _CHOOSE = (E.PLAY_IDS, E.DISCARD_IDS, E.YIELD_ID,
                                             E.REFRESH_ID, E.CHOOSE_IDS)
_HAND, _SLOTS, _SLOT, _ENEMY, _STATS = E.R_HAND, E.R_SLOTS, E.SLOT_SIZE, E.R_ENEMY, E.R_STATS
_PHASE, _PLAYERS, _CURRENT, _SIZES, _YIELDED = (E.R_PHASE, E.R_PLAYERS, E.R_CURRENT,
                                                E.R_HAND_SIZES, E.R_YIELDED)
_CAN_YIELD, _CASTLE, _PILES, _DTOP, _KNOWN = (E.R_CAN_YIELD, E.R_CASTLE, E.R_PILES,
                                              E.R_DISCARD_TOP, E.R_KNOWN)
_TABLE, _OPTIONS, _DEFEATED = E.R_TABLE, E.R_OPTIONS, E.R_DEFEATED


# ----------------------------------------------------------------------------- encoding
@njit
def _add_cards(o, base, m):
    """Adds the cards of mask ``m`` to the card-kind entries at ``base`` (Jesters: 1/2 each)."""
    while m:
        low = m & -m
        c = bit_index(low)
        m ^= low
        if c >= 52:
            o[base + 52] += 0.5
        else:
            o[base + c] = 1.0


@njit
def _relative(q, seat, players):
    """Seat ``q`` counted from ``seat`` (0 = ``seat``); ``(q - seat) % players`` without a
    division."""
    r = q - seat
    return r + players if r < 0 else r


@njit
def observe(st, seat, o):
    """Writes the ``encoding`` observation of ``seat`` (float32, ``OBS`` long) into ``o``."""
    o[:] = 0.0
    players = st[PLAYERS]
    hand = st[HANDS + seat]
    _add_cards(o, _HAND, hand)
    i = 0
    m = hand
    while m:
        low = m & -m
        c = bit_index(low)
        m ^= low
        base = _SLOTS + _SLOT * i
        if c >= 52:
            o[base + 13] = 1.0
        else:
            o[base + RANK[c] - 1] = 1.0
            o[base + 14 + SUIT[c]] = 1.0
        i += 1
    e = st[ENEMY]
    phase = st[PHASE]
    attack = 0
    if e >= 0:
        o[_ENEMY + (RANK[e] - 11) * 4 + SUIT[e]] = 1.0
        attack = VALUE[e]
    o[_STATS] = attack / 20
    o[_STATS + 1] = 2 * attack / 40
    o[_STATS + 2] = st[DAMAGE] / 40
    o[_STATS + 3] = min(shield(st), 40) / 40
    o[_STATS + 4] = effective_attack(st) / 20 if phase == PH_SUFFER else 0.0
    o[_STATS + 5] = 1.0 if e >= 0 and st[CANCELLED] == 0 else 0.0
    o[_PHASE + phase] = 1.0
    o[_PLAYERS + players - 1] = 1.0
    cur = st[CUR]
    o[_CURRENT + _relative(cur, seat, players)] = 1.0
    for q in range(players):
        r = _relative(q, seat, players)
        o[_SIZES + r] = popcount(st[HANDS + q]) / 8
        o[_YIELDED + r] = (st[YIELDED] >> q) & 1
    o[_CAN_YIELD] = 1.0 if can_yield(st, cur) else 0.0
    o[_CAN_YIELD + 1] = st[JESTERS] / 2
    nc = st[NCASTLE]  # the Castle below the enemy: Kings at the bottom, Queens, then Jacks
    o[_CASTLE] = nc / 11
    o[_CASTLE + 1] = max(nc - 8, 0) / 4
    o[_CASTLE + 2] = min(max(nc - 4, 0), 4) / 4
    o[_CASTLE + 3] = min(nc, 4) / 4
    o[_PILES] = st[NTAV] / 54
    nd = st[NDISC]
    o[_PILES + 1] = nd / 54
    if nd > 0:
        o[_DTOP + min(st[DISC + nd - 1], 52)] = 1.0
    known = st[KNOWN]
    if known > 0:
        o[_KNOWN] = min(known, 12) / 12
        o[_KNOWN + 1 + min(tavern_card(st, st[NTAV] - 1), 52)] = 1.0
    for k in range(st[NPLAYS]):
        _add_cards(o, _TABLE, st[PLAYS + k])
    opts = st[OPTS]
    o[_OPTIONS] = 1.0 if opts & OPT_SOLO_YIELD else 0.0
    o[_OPTIONS + 1] = 0.0 if opts & OPT_NO_CHOOSE_SELF else 1.0
    o[_OPTIONS + 2] = 1.0 if opts & OPT_MINIMAL else 0.0
    o[_DEFEATED] = enemies_defeated(st) / 12


@njit
def legal_mask(st, row, buf):
    """Writes the int8 legal-action mask of the seat to act (all 0 once over) into ``row``;
    ``buf``: int64 scratch of ``SCRATCH`` entries."""
    row[:] = 0
    phase = st[PHASE]
    p = st[CUR]
    if phase == PH_PLAY:
        n = gen_plays(st[HANDS + p], buf, 0, True)
        for k in range(n):
            row[_PLAY + buf[k] - 1] = 1
        if can_yield(st, p):
            row[_YIELD] = 1
        if st[JESTERS] > 0:
            row[_REFRESH] = 1
    elif phase == PH_SUFFER:
        hand = st[HANDS + p]
        d = effective_attack(st)
        if hand_value(hand) >= d and d > 0:
            n = gen_discards(hand, d, (st[OPTS] & OPT_MINIMAL) != 0, buf, 0, True,
                             buf[MAX_ACTIONS:])
            for k in range(n):
                row[_DISCARD + buf[k] - 1] = 1
        if st[JESTERS] > 0:
            row[_REFRESH] = 1
    elif phase == PH_CHOOSE:
        players = st[PLAYERS]
        for k in range(players):
            if k != p or (st[OPTS] & OPT_NO_CHOOSE_SELF) == 0:
                row[_CHOOSE + _relative(k, p, players)] = 1


@njit
def action_code(st, a):
    """The fast-path action code of action id ``a`` for the seat to act (no legality check)."""
    p = st[CUR]
    if a < _YIELD:
        kind = A_PLAY if a < _DISCARD else A_DISCARD
        subset = a - (_PLAY if a < _DISCARD else _DISCARD) + 1
        hand = st[HANDS + p]
        mask = np.int64(0)
        while subset:  # the hand's cards in order, kept where ``subset`` has a 1
            low = hand & -hand
            hand ^= low
            if subset & 1:
                mask |= low
            subset >>= 1
        return kind | mask
    if a == _YIELD:
        return A_YIELD
    if a == _REFRESH:
        return A_REFRESH
    return A_CHOOSE | (p + a - _CHOOSE) % st[PLAYERS]


# ----------------------------------------------------------------------------- kernels
@njit
def _deal(states, rngs, i, players, opts, first, obs, masks, seats, buf):
    st = states[i]
    new_game_into(st, players, opts, first, rngs[i])
    seats[i] = st[CUR]
    observe(st, st[CUR], obs[i])
    legal_mask(st, masks[i], buf)


@njit
def reset_all(states, rngs, players, opts, first, obs, masks, seats, steps):
    """Deals a new game in every slot from its generator."""
    buf = np.empty(SCRATCH, np.int64)
    for i in range(states.shape[0]):
        _deal(states, rngs, i, players, opts, first, obs, masks, seats, buf)
        steps[i] = 0


@njit
def step_all(states, rngs, actions, players, opts, first, max_steps, obs, masks, seats,
             steps, rewards, terminated, truncated):
    """Steps every game by its action id; returns -1, or the first slot whose action is not
    legal (then nothing changed)."""
    n = states.shape[0]
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or masks[i, a] == 0:
            return i
    buf = np.empty(SCRATCH, np.int64)
    for i in range(n):
        st = states[i]
        F.apply(st, action_code(st, actions[i]), rngs[i])
        steps[i] += 1
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        if st[PHASE] >= PH_WON:
            terminated[i] = True
            rewards[i] = 1.0 if st[PHASE] == PH_WON else 0.0
        elif steps[i] >= max_steps:
            truncated[i] = True
        if terminated[i] or truncated[i]:
            _deal(states, rngs, i, players, opts, first, obs, masks, seats, buf)
            steps[i] = 0
        else:
            seats[i] = st[CUR]
            observe(st, st[CUR], obs[i])
            legal_mask(st, masks[i], buf)
    return -1


@njit
def _sample_into(masks, rng, out):
    """Reads each row eight ids at a time: a word's popcount is its number of legal ids."""
    width = masks.shape[1]
    whole = width // 8
    for i in range(masks.shape[0]):
        row = masks[i]
        words = row[:8 * whole].view(np.uint64)
        count = 0
        for w in range(whole):
            count += popcount(words[w])
        for a in range(8 * whole, width):
            count += row[a]
        out[i] = -1
        if count == 0:
            continue
        k = rng_below(rng, count)
        for w in range(whole):
            c = popcount(words[w])
            if k < c:
                for a in range(8 * w, 8 * w + 8):
                    if row[a]:
                        if k == 0:
                            out[i] = a
                            break
                        k -= 1
                break
            k -= c
        else:
            for a in range(8 * whole, width):
                if row[a]:
                    if k == 0:
                        out[i] = a
                        break
                    k -= 1


def sample_legal(masks: np.ndarray, rng: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """One action id per row of ``masks`` (``(N, A)`` of 0s and 1s, int8), uniform among the
    legal ids, drawn from ``rng`` (``RegicideBatch.new_rng``); -1 for a row with none.
    Compiled.

    ``out``: an ``(N,)`` int64 array to fill (allocated when ``None``); returned. Raises
    ``ValueError`` for masks that are not 2-dimensional int8.
    """
    if masks.ndim != 2 or masks.dtype != np.int8:
        raise ValueError(f"masks must be a 2-dimensional int8 array, not {masks.ndim}-d "
                         f"{masks.dtype}")
    if out is None:
        out = np.empty(masks.shape[0], np.int64)
    _sample_into(np.ascontiguousarray(masks), rng, out)
    return out


# ----------------------------------------------------------------------------- the simulator
class _Batch:
    """What the two simulators share: the buffers (``n`` games of ``size`` int64 each, one
    generator per slot), their read-only views, the seeding, and the checks of ``reset``
    and ``step``. A subclass sets ``new_rng`` and writes ``_reset_all()`` and
    ``_step_all(actions)`` (its compiled loops; the second returns the first game whose
    action was not legal, else -1)."""

    new_rng: Any
    VIEWS = ("obs", "masks", "rewards", "terminated", "truncated", "seats")

    def _buffers(self, n: int, size: int, obs: int, actions: int, seed: int,
                 max_steps: int) -> None:
        if type(max_steps) is not int or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, not {max_steps!r}")
        self.n = n
        self.max_steps = max_steps
        self._states = np.zeros((n, size), np.int64)
        self._rngs = np.zeros((n, 1), np.uint64)
        self._steps = np.zeros(n, np.int64)
        self._obs = np.zeros((n, obs), np.float32)
        self._masks = np.zeros((n, actions), np.int8)
        self._rewards = np.zeros(n, np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._seats = np.zeros(n, np.int64)
        self._winners = np.full(n, -1, np.int64)
        for name in self.VIEWS:
            view = getattr(self, "_" + name).view()
            view.flags.writeable = False
            setattr(self, name, view)
        self._seed(seed)
        self._dealt = False

    def _seed(self, seed: int) -> None:
        if type(seed) is not int:
            raise ValueError(f"seed must be an int, not {seed!r}")
        for i in range(self.n):
            self._rngs[i, 0] = self.new_rng(seed + i)[0]

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Deal a new game in every slot (re-seeded ``seed + i`` when ``seed`` is given,
        else continuing each slot's stream); returns ``(obs, masks)``. Raises
        ``ValueError`` for a seed that is not an int."""
        if seed is not None:
            self._seed(seed)
        self._reset_all()
        self._rewards[:] = 0.0
        self._terminated[:] = False
        self._truncated[:] = False
        self._dealt = True
        return self.obs, self.masks

    def step(self, actions) -> tuple[np.ndarray, ...]:
        """Apply one action id per game (``(n,)`` integers); returns ``(obs, masks, rewards,
        terminated, truncated)`` (see the class doc); a game that ended is dealt again at
        once, its row showing the new game.

        Raises ``ValueError`` (changing nothing) when ``actions`` is not ``n`` ids or one is
        not legal in its game, naming the game and its legal ids; ``RuntimeError`` before
        the first ``reset``.
        """
        if not self._dealt:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.n,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.n} integer action ids (shape ({self.n},)), "
                             f"not shape {acts.shape} of {acts.dtype}")
        bad = self._step_all(acts.astype(np.int64, copy=False))
        if bad >= 0:
            legal = np.flatnonzero(self._masks[bad]).tolist()
            raise ValueError(f"game {bad}: action id {int(acts[bad])} is not legal for seat "
                             f"{int(self._seats[bad])}; the legal ids are {legal}")
        return self.obs, self.masks, self.rewards, self.terminated, self.truncated

    def _reset_all(self) -> None:
        raise NotImplementedError

    def _step_all(self, actions: np.ndarray) -> int:
        raise NotImplementedError


class RegicideBatch(_Batch):
    """``n`` Regicide games of ``players`` (1-4) stepped together (see the module doc).

    Rule options as keywords (rules page, "Rule options"): ``solo_yield``,
    ``jester_choose_self``, ``minimal_discard``, ``first_player``. ``max_steps``: actions
    after which a game still running is truncated (as the environments').

    Attributes (read-only views, overwritten by each ``step``): ``obs`` ``(n, 408)``
    float32, ``masks`` ``(n, 516)`` int8, ``rewards`` ``(n,)`` float32, ``terminated`` and
    ``truncated`` ``(n,)`` bool, ``seats`` ``(n,)`` int64 (seat to act). Raises
    ``ValueError`` for a bad size, player count or option.
    """

    new_rng = staticmethod(F.new_rng)

    def __init__(self, n: int, players: int = 2, seed: int = 0, *, solo_yield: bool = False,
                 jester_choose_self: bool = True, minimal_discard: bool = False,
                 first_player: int | None = None, max_steps: int = 1000):
        if type(n) is not int or n < 1:
            raise ValueError(f"n must be a positive int (games at once), not {n!r}")
        if type(players) is not int or not 1 <= players <= 4:
            raise ValueError(f"players must be 1 to 4, not {players!r}")
        if first_player is not None and (type(first_player) is not int
                                         or not 0 <= first_player < players):
            raise ValueError(f"first_player must be a seat 0 to {players - 1} or None")
        for name, value in (("solo_yield", solo_yield), ("jester_choose_self", jester_choose_self),
                            ("minimal_discard", minimal_discard)):
            if type(value) is not bool:
                raise ValueError(f"{name} must be true or false, not {value!r}")
        self.players = players
        self._opts = ((OPT_SOLO_YIELD if solo_yield else 0)
                      | (0 if jester_choose_self else OPT_NO_CHOOSE_SELF)
                      | (OPT_MINIMAL if minimal_discard else 0))
        self._first = -1 if first_player is None else first_player
        self._buffers(n, SIZE, OBS, N_ACTIONS, seed, max_steps)

    def _reset_all(self) -> None:
        reset_all(self._states, self._rngs, self.players, self._opts, self._first, self._obs,
                  self._masks, self._seats, self._steps)

    def _step_all(self, actions: np.ndarray) -> int:
        return step_all(self._states, self._rngs, actions, self.players, self._opts,
                        self._first, self.max_steps, self._obs, self._masks, self._seats,
                        self._steps, self._rewards, self._terminated, self._truncated)

    def position(self, i: int):
        """The reference ``State`` of game ``i`` (``regalia.fast.regicide.decode``), for tests and
        tools; a learner must not read it."""
        return F.decode(self._states[i])


# ============================================================================= Le Roy des Ribauds
R_ACTIONS = E.RIBAUDS_ACTIONS
R_OBS = E.RIBAUDS_OBS
# action code -> action id (-1: no action), action id -> code (encoding.RIBAUDS_CODES)
R_CODE_OF = np.array(E.RIBAUDS_CODES, np.int64)
R_ID_OF = np.full(RF.N_CODES, -1, np.int64)
R_ID_OF[R_CODE_OF] = np.arange(R_ACTIONS)


@njit
def ribauds_observe(st, seat, o):
    """Writes the ``encoding.ribauds_observation`` of ``seat`` (float32, ``R_OBS`` long) into
    ``o``, from the fast-path position ``st`` (``regalia.fast.ribauds``)."""
    o[:] = 0.0
    opp = 1 - seat
    up = st[RF.UP]
    for i in range(4):
        face_up = (up >> i) & 1
        if face_up or st[RF.KNOW + 4 * seat + i] >= 0:
            o[6 * i + st[RF.COURT + i]] = 1.0
        o[6 * i + 4] = face_up
        if st[RF.KNOW + 4 * opp + i] >= 0:
            o[6 * i + 5] = 1.0
    own = 0
    other = 0
    for c in range(4):
        k = st[RF.HANDS + 4 * seat + c]
        own += k
        other += st[RF.HANDS + 4 * opp + c]
        o[24 + c] = k / 4
        o[30 + c] = st[RF.SEEN + 4 * seat + c] / 4
        o[34 + c] = st[RF.SEEN + 4 * opp + c] / 4
    o[28] = own / 5
    o[29] = other / 5
    o[38] = st[RF.NDECK] / 16
    o[39] = st[RF.BOTTOM] / 4
    for k in range(st[RF.NDISC]):
        o[40 + st[RF.DISC + k]] += 0.25
    o[44 + st[RF.PHASE]] = 1.0
    if st[RF.CUR] == seat:
        o[51] = 1.0
    if st[RF.OPTS] & RF.OPT_DISCARD:
        o[52] = 1.0


@njit
def ribauds_legal_mask(st, row, buf):
    """Writes the int8 legal-action mask of the seat to act (all 0 once won) into ``row``;
    ``buf``: int64 scratch of ``regalia.fast.ribauds.MAX_ACTIONS`` entries."""
    row[:] = 0
    n = RF.legal_actions(st, buf)
    for k in range(n):
        row[R_ID_OF[buf[k]]] = 1


@njit
def _ribauds_deal(states, rngs, i, opts, first, obs, masks, seats, buf):
    st = states[i]
    RF.new_game_into(st, opts, first, rngs[i])
    seats[i] = st[RF.CUR]
    ribauds_observe(st, st[RF.CUR], obs[i])
    ribauds_legal_mask(st, masks[i], buf)


@njit
def ribauds_reset_all(states, rngs, opts, first, obs, masks, seats, steps, winners):
    """Deals a new game in every slot from its generator."""
    buf = np.empty(RF.MAX_ACTIONS, np.int64)
    for i in range(states.shape[0]):
        _ribauds_deal(states, rngs, i, opts, first, obs, masks, seats, buf)
        steps[i] = 0
        winners[i] = -1


@njit
def ribauds_step_all(states, rngs, actions, opts, first, max_steps, obs, masks, seats, steps,
                     rewards, terminated, truncated, winners):
    """Steps every game by its action id; returns -1, or the first slot whose action is not
    legal (then nothing changed)."""
    n = states.shape[0]
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= R_ACTIONS or masks[i, a] == 0:
            return i
    buf = np.empty(RF.MAX_ACTIONS, np.int64)
    for i in range(n):
        st = states[i]
        actor = st[RF.CUR]
        RF.apply(st, R_CODE_OF[actions[i]], rngs[i])
        steps[i] += 1
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        winners[i] = -1
        if st[RF.PHASE] == RF.PH_WON:
            terminated[i] = True
            winners[i] = st[RF.WINNER]
            rewards[i] = 1.0 if st[RF.WINNER] == actor else -1.0
        elif steps[i] >= max_steps:
            truncated[i] = True
        if terminated[i] or truncated[i]:
            _ribauds_deal(states, rngs, i, opts, first, obs, masks, seats, buf)
            steps[i] = 0
        else:
            seats[i] = st[RF.CUR]
            ribauds_observe(st, st[RF.CUR], obs[i])
            ribauds_legal_mask(st, masks[i], buf)
    return -1


class RibaudsBatch(_Batch):
    """``n`` games of Le Roy des Ribauds (rules/ribauds.md) stepped together on the compiled
    fast path (``regalia.fast.ribauds``), with automatic reset.

    Rows are the position of the seat to act (``seats``), seen from that seat: observations
    ``encoding.ribauds_observation`` of its view, masks its legal ids among the 67 of
    ``encoding.RIBAUDS_CODES`` (the PettingZoo and Gymnasium environments' encoding).
    Rewards are the acting seat's: +1.0 when its action ended the game with its win, -1.0
    when the game ended with the other seat's win (the Marriage of the seat whose turn the
    action started, rules 2.3 step 1), 0.0 otherwise and for a truncated game;
    ``winners[i]`` is the winning seat of the game just ended, else -1.

    Chance: slot ``i`` draws from the fast generator seeded ``seed + i`` (``reset(seed)``),
    the same draws as the reference engine with ``regalia.fast.regicide.FastRandom(seed +
    i)``, i.e. ``regalia.adapters.episode.Episode.reset(seed + i)`` of the environments:
    the same action ids then give the same games. Later games of a slot continue its
    stream. Rule options as keywords (rules page, "Rule options"): ``replaced_card``
    (``"hand"`` or ``"discard"``), ``first_player`` (0, 1 or ``None``: drawn per game).
    ``max_steps``: actions after which a game still running is truncated (as the
    environments').

    Attributes (read-only views of buffers the next ``step`` overwrites: copy what you
    keep): ``obs`` ``(n, 53)`` float32, ``masks`` ``(n, 67)`` int8, ``rewards`` ``(n,)``
    float32, ``terminated`` and ``truncated`` ``(n,)`` bool, ``seats`` ``(n,)`` int64 (seat
    to act), ``winners`` ``(n,)`` int64. Raises ``ValueError`` for a bad size or option.
    Example::

        sim = RibaudsBatch(1024, seed=0)
        obs, masks = sim.reset()                  # (1024, 53) float32, (1024, 67) int8
        rng = RibaudsBatch.new_rng(1)
        actions = sample_legal(masks, rng)
        obs, masks, rewards, terminated, truncated = sim.step(actions)
    """

    new_rng = staticmethod(RF.new_rng)
    VIEWS = _Batch.VIEWS + ("winners",)

    def __init__(self, n: int, seed: int = 0, *, replaced_card: str = "hand",
                 first_player: int | None = None, max_steps: int = 1000):
        if type(n) is not int or n < 1:
            raise ValueError(f"n must be a positive int (games at once), not {n!r}")
        if replaced_card not in ("hand", "discard"):
            raise ValueError(f"replaced_card must be 'hand' or 'discard' (rules 3.L2), not "
                             f"{replaced_card!r}")
        if first_player is not None and (type(first_player) is not int
                                         or first_player not in (0, 1)):
            raise ValueError(f"first_player must be 0, 1 or None, not {first_player!r}")
        self._opts = RF.OPT_DISCARD if replaced_card == "discard" else 0
        self._first = -1 if first_player is None else first_player
        self._buffers(n, RF.SIZE, R_OBS, R_ACTIONS, seed, max_steps)

    def _reset_all(self) -> None:
        ribauds_reset_all(self._states, self._rngs, self._opts, self._first, self._obs,
                          self._masks, self._seats, self._steps, self._winners)

    def _step_all(self, actions: np.ndarray) -> int:
        return ribauds_step_all(self._states, self._rngs, actions, self._opts, self._first,
                                self.max_steps, self._obs, self._masks, self._seats,
                                self._steps, self._rewards, self._terminated, self._truncated,
                                self._winners)

    def position(self, i: int):
        """The reference ``regalia.games.ribauds.State`` of game ``i``, each seat's knowledge
        included (``regalia.fast.ribauds.decode``; no log), for tests and tools; a learner
        must not read it. Raises ``IndexError`` for a slot out of range."""
        if not -self.n <= i < self.n:
            raise IndexError(f"game {i} of {self.n}")
        return RF.decode(self._states[i])
