"""A clairvoyant solver for solo Regicide deals (rules/regicide.md 1.3-1.14).

A solo deal is a seed: ``Match(REGICIDE, {"players": 1, ...}, seed)`` deals the Castle and
the Tavern from ``random.Random(seed)`` and then draws every Hearts shuffle (rules 1.6) from
the same source. The solver knows that whole future: the Tavern order, the Castle order and
the random stream. It decides whether the deal can be won and the best medal reachable
(rules 1.14: Gold, Silver, Bronze by Jesters left), and gives a winning line.

Method: depth-first search over the fast-path positions (``regalia.fast.regicide``), compiled with
numba, with

* exact chance: Python's Mersenne Twister is not reimplemented; the solver draws the raw
  32-bit outputs of the deal's generator (``getrandbits(32)``) once, and a position carries
  its offset into that stream. A Hearts heal shuffles the discard pile exactly as
  ``random.Random.shuffle`` does (``_randbelow``: ``k = n.bit_length()`` top bits of one
  output, rejected while ``>= n``), so the reference engine and ``Match`` reach the same
  positions (checked by a test on this interpreter);
* a transposition table of positions proven lost (64-bit keys, direct-mapped, always
  replace: a lost entry only costs a re-search). The key leaves out what cannot matter any
  more: once no Hearts card can ever be played again (none in hand, Tavern, or the Castle
  still to be recruited), no heal can happen, so the discard pile, the table's plays and the
  offset in the random stream are left out, and positions that differ only there are one;
* move ordering by the compiled heuristic policy (``regalia.bots.regicide.policy.scored_actions``), so
  the first line tried is the heuristic policy's, and limited discrepancy search over that
  order: passes with a growing budget of departures from the policy (``DISCREPANCIES``),
  the last one unlimited, so that a win off the policy's line is found without first
  exhausting the deep subtrees of its early choices; table entries keep the budget they
  failed with, and only the unlimited pass proves a loss;
* a medal goal: a search for "a win with at least ``goal`` Jesters left" never flips a
  Jester that would go below the goal. The best medal is found by raising the goal.

Every legal action is tried unless the table already holds the child as lost, so "lost"
(exhausted) is a proof up to 64-bit key collisions. A search stops at a node budget and can
be resumed; ``solve_deal`` runs it under a time limit and reports ``undecided`` when the
time runs out.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from regalia.bots.regicide import policy as _policy
from regalia.bots.regicide import wishes as _wishes
from regalia.fast import regicide as _fast
from regalia.fast._jit import njit, refresh_cache_if_changed

refresh_cache_if_changed(__file__, _fast.__file__, _policy.__file__, _wishes.__file__)

from regalia.fast.regicide import (  # noqa: E402
    ARG_MASK,
    CASTLE,
    DAMAGE,
    DISC,
    ENEMY,
    HANDS,
    JESTERS,
    KIND_SHIFT,
    MAX_ACTIONS,
    NCASTLE,
    NDISC,
    NPLAYS,
    NTAV,
    PH_LOST,
    PH_WON,
    PHASE,
    PLAYS,
    SIZE,
    SPADES,
    SUIT,
    apply_forced,
    tavern_card,
)
from regalia.bots.regicide.policy import scored_actions  # noqa: E402

WON, LOST, UNDECIDED = "won", "lost", "undecided"
MEDAL_OF_JESTERS = {2: "gold", 1: "silver", 0: "bronze"}  # rules 1.14
STREAM_LENGTH = 1 << 16  # 32-bit outputs drawn ahead; a search that needs more stops
MAX_DEPTH = 1024  # decisions in one game: each play deals >= 1 of the 360 health
DEFAULT_TABLE_BITS = 22  # 4 M entries, 48 MiB
UNLIMITED = 1 << 30  # the discrepancy budget of a complete search (fits the int32 table)
DISCREPANCIES = (0, 1, 2, 4, 8, 16, 32, UNLIMITED)  # the budgets tried in turn

# Kernel status codes.
_BUDGET, _FOUND, _EXHAUSTED, _OVERFLOW = 0, 1, 2, 3
HEARTS_MASK = sum(1 << c for c in range(52) if c % 4 == 2)


# ----------------------------------------------------------------------------- chance
@njit
def bit_length(n):
    k = 0
    while n:
        n >>= 1
        k += 1
    return k


@njit
def shuffle_from_stream(st, stream, off, out):
    """The discard pile of ``st`` shuffled as ``random.Random.shuffle`` would (bottom first,
    into ``out``), drawing 32-bit outputs from ``stream`` at ``off``; returns the new offset,
    or -1 when the stream is too short."""
    nd = st[NDISC]
    for i in range(nd):
        out[i] = st[DISC + i]
    limit = stream.shape[0]
    for i in range(nd - 1, 0, -1):
        n = i + 1
        shift = 32 - bit_length(n)
        while True:
            if off >= limit:
                return -1
            r = stream[off] >> shift
            off += 1
            if r < n:
                break
        t = out[i]
        out[i] = out[r]
        out[r] = t
    return off


@njit
def heals(st, action):
    """Whether ``action`` (legal in ``st``) makes a Hearts heal happen (rules 1.6)."""
    if action >> KIND_SHIFT != 1 or st[NDISC] == 0:
        return False
    mask = action & ARG_MASK
    if mask & HEARTS_MASK == 0:
        return False
    return SUIT[st[ENEMY]] != 2  # solo: no Jester play ever cancels the immunity


# ----------------------------------------------------------------------------- keys
_GOLDEN = np.int64(0x9E3779B97F4A7C15 - (1 << 64))  # 2**64 / golden ratio, as a signed int
@njit
def _mix(h, x):
    h = (h ^ x) * _GOLDEN
    return h ^ ((h >> 31) & 0x1FFFFFFFF)


@njit
def heal_possible(st):
    """Whether a Hearts card may still be played: one is in hand, in the Tavern, or in the
    Castle (a royal recruited by an exact kill, rules 1.7)."""
    if st[HANDS] & HEARTS_MASK:
        return True
    for i in range(st[NTAV]):
        if SUIT[tavern_card(st, i)] == 2:
            return True
    if SUIT[st[ENEMY]] == 2:
        return True
    for i in range(st[NCASTLE]):
        if SUIT[st[CASTLE + i]] == 2:
            return True
    return False


@njit
def position_key(st, off, goal):
    """64-bit key of what decides the rest of a solo game from ``st`` (never 0)."""
    h = _mix(0x1234567, goal)
    h = _mix(h, st[HANDS])
    h = _mix(h, st[PHASE] | st[NCASTLE] << 4 | st[DAMAGE] << 8 | st[SPADES] << 20
             | st[JESTERS] << 32)
    for i in range(st[NTAV]):
        h = _mix(h, tavern_card(st, i) + 1)
    h = _mix(h, 255)
    if heal_possible(st):
        for i in range(st[NDISC]):
            h = _mix(h, st[DISC + i] + 1)
        h = _mix(h, 511)
        for i in range(st[NPLAYS]):
            h = _mix(h, st[PLAYS + i])
        h = _mix(h, off + 1024)
    return h if h != 0 else 1


# ----------------------------------------------------------------------------- search
@njit
def expand(states, acts, nact, idx, d, goal, w, scores):
    """Writes the legal actions of ``states[d]`` into ``acts[d]``, best first by the policy,
    leaving out Jester refreshes that would go below ``goal``."""
    st = states[d]
    row = acts[d]
    n = scored_actions(st, w, row, scores)
    k = 0
    for i in range(n):
        a = row[i]
        if a >> KIND_SHIFT == 4 and st[JESTERS] <= goal:
            continue
        row[k] = a
        scores[k] = scores[i]
        k += 1
    order = np.argsort(-scores[:k], kind="mergesort")
    tmp = row[:k].copy()
    for i in range(k):
        row[i] = tmp[order[i]]
    nact[d] = k
    idx[d] = 0


@njit
def search(states, offs, keys, acts, nact, idx, budget, cut, depth, stream, goal, table,
           table_budget, w, max_nodes, scratch, scores, rng):
    """Runs the depth-first search for up to ``max_nodes`` new positions.

    Limited discrepancy: a node with budget ``b`` tries its ``i``-th action (0 = the
    policy's first choice) with budget ``b - i``, and no action whose budget would go below
    0; a node whose subtree met that limit is "cut" (``cut[d]``). A node left without a win
    is stored in the table with its budget, or with ``UNLIMITED`` (proven lost) when nothing
    below it was cut; a stored node is skipped when reached again with no more budget.

    The stack (``states``, ``offs``, ``keys``, ``acts``, ``nact``, ``idx``, ``budget``,
    ``cut``, ``depth[0]``) persists between calls, so a search resumes where it stopped.
    Returns ``(status, nodes)``: ``_FOUND`` (the line is ``acts[d, idx[d] - 1]`` for
    ``d <= depth[0]``), ``_EXHAUSTED`` (no win with ``goal`` Jesters left within the root's
    budget: a proof when ``cut[0]`` is 0), ``_BUDGET`` or ``_OVERFLOW``.
    """
    mask = table.shape[0] - 1
    nodes = 0
    d = depth[0]
    while d >= 0:
        if nodes >= max_nodes:
            depth[0] = d
            return _BUDGET, nodes
        i = idx[d]
        if i < nact[d] and budget[d] - i < 0:
            cut[d] = 1
            idx[d] = i = nact[d]
        if i >= nact[d]:
            key = keys[d]
            slot = key & mask
            table[slot] = key
            table_budget[slot] = budget[d] if cut[d] else UNLIMITED
            if cut[d] and d > 0:
                cut[d - 1] = 1
            d -= 1
            continue
        a = acts[d, i]
        idx[d] = i + 1
        child = states[d + 1]
        child[:] = states[d]
        off = offs[d]
        if heals(child, a):
            off = shuffle_from_stream(child, stream, off, scratch)
            if off < 0:
                depth[0] = d
                return _OVERFLOW, nodes
            apply_forced(child, a, rng, scratch[:child[NDISC]])
        else:
            apply_forced(child, a, rng, scratch[:0])
        nodes += 1
        phase = child[PHASE]
        if phase == PH_WON:
            if child[JESTERS] < goal:
                continue
            depth[0] = d
            return _FOUND, nodes
        if phase == PH_LOST:
            continue
        if d + 1 >= states.shape[0] - 1:
            continue  # cannot happen: a game has fewer decisions than the stack holds
        key = position_key(child, off, goal)
        slot = key & mask
        child_budget = budget[d] - i
        if table[slot] == key and table_budget[slot] >= child_budget:
            if table_budget[slot] != UNLIMITED:
                cut[d] = 1
            continue
        d += 1
        offs[d] = off
        keys[d] = key
        budget[d] = child_budget
        cut[d] = 0
        expand(states, acts, nact, idx, d, goal, w, scores)
    depth[0] = -1
    return _EXHAUSTED, nodes


# ----------------------------------------------------------------------------- driver
@dataclass
class Deal:
    """A solo deal ready for the solver: ``seed``, ``config``, the fast-path ``root``
    position and the deal's ``stream`` of 32-bit random outputs after the setup."""

    seed: int
    config: dict[str, Any]
    root: np.ndarray
    stream: np.ndarray

    @classmethod
    def from_seed(cls, seed: int, options: dict[str, Any] | None = None) -> "Deal":
        """The deal of ``seed`` as ``Match`` plays it; raises ``InvalidPosition`` for a bad
        option."""
        from regalia.core.records import Match
        from regalia.games.regicide import REGICIDE

        config = {"players": 1, **(options or {})}
        m = Match(REGICIDE, config, seed)
        return cls.from_state(m.state, m.rng, seed, config)

    @classmethod
    def from_state(cls, state, rng: random.Random, seed: int = 0,
                   config: dict[str, Any] | None = None) -> "Deal":
        """A deal from any solo ``regalia.games.regicide.State`` whose chance comes from
        ``rng`` (its state is copied, not advanced); raises ``ValueError`` unless solo."""
        if state.players != 1:
            raise ValueError(f"the solver is for solo positions, this one has "
                             f"{state.players} players")
        own = random.Random()
        own.setstate(rng.getstate())
        stream = np.array([own.getrandbits(32) for _ in range(STREAM_LENGTH)], np.int64)
        return cls(seed, dict(config or {"players": 1}), _fast.encode(state), stream)


@dataclass
class Solution:
    """What the solver found for one deal.

    ``result``: ``"won"`` (a winning line exists), ``"lost"`` (proven: no line wins) or
    ``"undecided"`` (time ran out first). ``medal``: the best medal found (``None`` unless
    won); ``medal_proven``: no better medal exists. ``line``: the winning line's action
    texts (formats.md 1.3) for ``medal``. ``nodes``: positions searched; ``seconds``:
    the whole time, ``decide_seconds``: the time until won or lost was known.
    """

    seed: int
    result: str
    medal: str | None = None
    medal_proven: bool = False
    line: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    decide_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "result": self.result, "medal": self.medal,
                "medal_proven": self.medal_proven, "line": self.line, "nodes": self.nodes,
                "seconds": round(self.seconds, 3),
                "decide_seconds": round(self.decide_seconds, 3)}


class Solver:
    """Reusable search buffers (the stack and the transposition table, ``2**table_bits``
    keys of 8 bytes)."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS) -> None:
        self.table = np.zeros(1 << table_bits, np.int64)
        self.table_budget = np.zeros(1 << table_bits, np.int32)
        self.states = np.zeros((MAX_DEPTH, SIZE), np.int64)
        self.offs = np.zeros(MAX_DEPTH, np.int64)
        self.keys = np.zeros(MAX_DEPTH, np.int64)
        self.acts = np.zeros((MAX_DEPTH, MAX_ACTIONS), np.int64)
        self.nact = np.zeros(MAX_DEPTH, np.int64)
        self.idx = np.zeros(MAX_DEPTH, np.int64)
        self.budget = np.zeros(MAX_DEPTH, np.int64)
        self.cut = np.zeros(MAX_DEPTH, np.int64)
        self.depth = np.zeros(1, np.int64)
        self.scratch = np.zeros(64, np.int64)
        self.scores = np.zeros(MAX_ACTIONS, np.float64)
        self.weights = _policy.weights_for(1)
        self.rng = np.ones(1, np.uint64)  # never drawn from: chance comes from the stream
        # Compile (or load) the kernels now, so that no deal's time limit pays for it.
        self.search_goal(Deal.from_seed(0), 0, 0.0, chunk=1)

    def search_goal(self, deal: Deal, goal: int, deadline: float,
                    chunk: int = 100_000) -> tuple[str, list[int], int]:
        """Search ``deal`` for a win with at least ``goal`` Jesters left until the
        ``time.monotonic()`` ``deadline``. Returns ``(result, action codes, nodes)`` with
        result ``WON``, ``LOST`` or ``UNDECIDED``."""
        root = deal.root
        if root[PHASE] == PH_WON:
            return (WON if root[JESTERS] >= goal else LOST), [], 0
        if root[PHASE] == PH_LOST:
            return LOST, [], 0
        self.table[:] = 0
        self.states[0] = root
        self.offs[0] = 0
        self.keys[0] = position_key(root, 0, goal)
        nodes = 0
        for limit in DISCREPANCIES:
            self.depth[0] = 0
            self.budget[0] = limit
            self.cut[0] = 0
            expand(self.states, self.acts, self.nact, self.idx, 0, goal, self.weights,
                   self.scores)
            while True:
                status, n = search(self.states, self.offs, self.keys, self.acts, self.nact,
                                   self.idx, self.budget, self.cut, self.depth, deal.stream,
                                   goal, self.table, self.table_budget, self.weights, chunk,
                                   self.scratch, self.scores, self.rng)
                nodes += n
                if status == _FOUND:
                    d = int(self.depth[0])
                    line = [int(self.acts[i, self.idx[i] - 1]) for i in range(d + 1)]
                    return WON, line, nodes
                if status == _EXHAUSTED:
                    break
                if status == _OVERFLOW or time.monotonic() >= deadline:
                    return UNDECIDED, [], nodes
            if not self.cut[0]:
                return LOST, [], nodes
        raise AssertionError("the unlimited search is never cut")  # pragma: no cover

    def solve(self, deal: Deal, time_limit: float = 60.0, medals: bool = True) -> Solution:
        """Decide ``deal`` within ``time_limit`` seconds: first any win, then (``medals``)
        better medals with the time left (rules 1.14)."""
        start = time.monotonic()
        deadline = start + time_limit
        result, line, nodes = self.search_goal(deal, 0, deadline)
        sol = Solution(deal.seed, result, nodes=nodes,
                       decide_seconds=time.monotonic() - start)
        if result == WON:
            best = _final_jesters(deal, line)
            sol.medal, sol.line = MEDAL_OF_JESTERS[best], _line_texts(line)
            most = int(deal.root[JESTERS])  # no line ends with more Jesters than this
            sol.medal_proven = best == most
            while medals and best < most and time.monotonic() < deadline:
                r, better, n = self.search_goal(deal, best + 1, deadline)
                sol.nodes += n
                if r != WON:
                    sol.medal_proven = r == LOST
                    break
                best = _final_jesters(deal, better)
                sol.medal, sol.line = MEDAL_OF_JESTERS[best], _line_texts(better)
                sol.medal_proven = best == most
        sol.seconds = time.monotonic() - start
        return sol


def _final_jesters(deal: Deal, line: list[int]) -> int:
    """Jesters left after playing ``line`` on the fast path with the deal's stream."""
    return int(replay_fast(deal, line)[JESTERS])


def replay_fast(deal: Deal, line: list[int]) -> np.ndarray:
    """The fast-path position after ``line`` from the deal's root, with exact chance."""
    st = deal.root.copy()
    off = 0
    scratch = np.zeros(64, np.int64)
    dummy = np.zeros(1, np.uint64)
    for a in line:
        if heals(st, a):
            off = shuffle_from_stream(st, deal.stream, off, scratch)
            apply_forced(st, np.int64(a), dummy, scratch[:st[NDISC]].copy())
        else:
            apply_forced(st, np.int64(a), dummy, scratch[:0])
    return st


def _line_texts(line: list[int]) -> list[str]:
    from regalia.games.regicide import actions as A

    return [A.to_text(a) for a in line]


def solve_seed(seed: int, options: dict[str, Any] | None = None, time_limit: float = 60.0,
               medals: bool = True, solver: Solver | None = None) -> Solution:
    """Solve the solo deal of ``seed`` (see ``Solver.solve``); raises ``InvalidPosition``
    for a bad rule option."""
    return (solver or Solver()).solve(Deal.from_seed(seed, options), time_limit, medals)
