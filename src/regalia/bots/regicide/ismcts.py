"""Regicide search bot ``ismcts``: information-set Monte Carlo tree search.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) from the deciding seat's
knowledge only (``Knowledge.from_view``, rules 1.15). Each iteration

1. takes one full position sampled from that knowledge (a determinization:
   ``Knowledge.sample_arrays``, a batch at a time, partners' Jester-window wishes
   included), on the compiled fast path;
2. descends the tree: a node is an information set of the seat (its own hand and the public
   numbers at one of its decisions: enemy, damage, immunity, shield, Tavern and discard
   sizes, hand sizes, solo Jesters left), an edge one of the seat's actions. At a node the
   seat chooses among the ``candidates`` actions the compiled policy ranks best (every seat
   after a Jester), by ISUCT: untried actions first, then the best
   ``mean + exploration * sqrt(ln(availability) / visits)``, where an action's availability
   counts the visits of its node in which it was legal in the sampled position. Between
   two decisions of the seat its partners play the policy (``regalia.bots.regicide.policy``)
   in the sampled position, and chance (Diamonds draws, Hearts shuffles) comes from the
   iteration's random stream, so the child reached is the information set the seat would
   observe;
3. expands one action (the first untried one it meets), plays the game out with the policy
   and backs the value up along the path: 1 for a win (less ``medal`` per solo Jester
   spent, as for ``montecarlo``), otherwise 0.9 x the fraction of enemies defeated.

It returns the most visited root action. ``budget`` seconds per decision (default
``DEFAULT_BUDGET``) or a fixed number of ``iterations``.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Sequence

import numpy as np

from regalia.bots.regicide import policy as P
from regalia.bots.regicide import wishes as W
from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.heuristic import hand_of
from regalia.bots.regicide.montecarlo import DEFAULT_BUDGET, MEDAL, policy_candidates
from regalia.bots.regicide.wishes import wish_rule
from regalia.fast import regicide as F
from regalia.fast._jit import njit, refresh_cache_if_changed

refresh_cache_if_changed(__file__, F.__file__, P.__file__, W.__file__)

from regalia.fast.regicide import (  # noqa: E402
    CANCELLED,
    CUR,
    DAMAGE,
    ENEMY,
    HANDS,
    JESTERS,
    KNOWN,
    NCASTLE,
    NDISC,
    NTAV,
    PH_WON,
    PHASE,
    PLAYERS,
    SPADES,
    YIELDED,
    apply,
    popcount,
)
from regalia.bots.regicide.policy import choose  # noqa: E402

OBSERVED = 16  # numbers in an information-set key (``observe``)
BATCH = 16  # positions sampled at once (``Knowledge.sample_arrays``)


@njit
def to_turn_of(st, rng, w, buf, me):
    """Plays the other seats' turns with the policy until seat ``me`` decides or the game
    ends."""
    while st[PHASE] < PH_WON and st[CUR] != me:
        apply(st, choose(st, rng, w, buf), rng)


@njit
def observe(st, me, out):
    """Writes what seat ``me`` observes at its decision into ``out`` (``OBSERVED`` numbers):
    its hand, the phase, enemy, damage, immunity, shield, solo Jesters, Tavern (and its
    known top), discard pile and Castle sizes, the yields and every hand's size."""
    out[0] = st[HANDS + me]
    out[1] = st[PHASE]
    out[2] = st[ENEMY]
    out[3] = st[DAMAGE]
    out[4] = st[CANCELLED]
    out[5] = st[SPADES]
    out[6] = st[JESTERS]
    out[7] = st[NTAV]
    out[8] = st[KNOWN]
    out[9] = st[NDISC]
    out[10] = st[NCASTLE]
    out[11] = st[YIELDED]
    for q in range(4):
        out[12 + q] = popcount(st[HANDS + q]) if q < st[PLAYERS] else 0


class _Node:
    """An information set of the searching seat: its candidate actions and, per action,
    visits, total value and availability; children by (action, observation)."""

    __slots__ = ("actions", "visits", "total", "avail", "children")

    def __init__(self, actions: np.ndarray) -> None:
        self.actions = [int(a) for a in actions]
        n = len(self.actions)
        self.visits = [0] * n
        self.total = [0.0] * n
        self.avail = [0] * n
        self.children: dict[tuple[int, bytes], _Node] = {}


class ISMCTSBot:
    """Information-set MCTS (see the module doc).

    ``budget``: seconds per decision (``act``'s ``budget`` overrides it); ``iterations``: a
    fixed number of iterations instead (deterministic for a given random source);
    ``candidates``: actions the policy keeps at each node; ``exploration``: the ISUCT
    constant; ``medal``: what a solo win loses per Jester spent.
    """

    name = "ismcts"

    def __init__(self, budget: float | None = None, iterations: int | None = None,
                 candidates: int = 8, exploration: float = 0.25, medal: float = 0.0) -> None:
        self.budget = DEFAULT_BUDGET if budget is None else budget
        self.iterations = iterations
        self.candidates = candidates
        self.c = exploration
        self.medal = medal
        self.last_iterations = 0  # iterations of the last decision (for reports)
        self.last_root: _Node | None = None  # the last decision's tree (for tests)

    def wish(self, view: dict[str, Any], rng: random.Random) -> str | None:
        return wish_rule(hand_of(view), view)

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: random.Random,
            budget: float | None = None) -> int:
        start = time.perf_counter()
        budget = self.budget if budget is None else budget
        if len(legal) == 1:
            return legal[0]
        knowledge = Knowledge.from_view(view)
        players = view["players"]
        me = view["seat"]
        w = P.weights_for(players)
        first = knowledge.sample_array(rng, players > 1)
        root = _Node(policy_candidates(first, legal, w, self.candidates))
        if len(root.actions) == 1:
            return root.actions[0]
        buf = np.empty(F.MAX_ACTIONS, np.int64)
        obs = np.empty(OBSERVED, np.int64)
        frng = np.empty(1, np.uint64)
        n = 0
        while True:
            if self.iterations is not None:
                if n >= self.iterations:
                    break
            elif n > 0 and time.perf_counter() - start >= budget:
                break
            if n % BATCH == 0:  # sampled a batch at a time (compiled)
                batch = knowledge.sample_arrays(rng, BATCH, players > 1)
            st = first if n == 0 else batch[n % BATCH]
            frng[0] = rng.getrandbits(64) | 1
            self._iterate(root, st.copy(), frng, w, buf, obs, me)
            n += 1
        self.last_iterations = n
        self.last_root = root
        best = max(range(len(root.actions)),
                   key=lambda i: (root.visits[i], root.total[i] / max(1, root.visits[i])))
        return root.actions[best]

    def _iterate(self, root: _Node, st: np.ndarray, frng: np.ndarray, w: np.ndarray,
                 buf: np.ndarray, obs: np.ndarray, me: int) -> None:
        """One iteration from the sampled position ``st`` (see the module doc)."""
        node = root
        path: list[tuple[_Node, int]] = []
        value = None
        while True:
            n_legal = F.legal_actions(st, buf)
            legal = set(buf[:n_legal].tolist())
            pick, best, untried = -1, -1.0, False
            for i, a in enumerate(node.actions):
                if a not in legal:
                    continue
                node.avail[i] += 1
                v = node.visits[i]
                if v == 0:
                    if not untried:
                        pick, untried = i, True
                    continue
                if untried:
                    continue
                score = node.total[i] / v + self.c * math.sqrt(math.log(node.avail[i]) / v)
                if score > best:
                    pick, best = i, score
            if pick < 0:  # no candidate legal in this sample: let the policy play on
                break
            a = node.actions[pick]
            path.append((node, pick))
            apply(st, a, frng)
            to_turn_of(st, frng, w, buf, me)
            if st[PHASE] >= PH_WON:
                value = P.outcome_value(st, self.medal)
                break
            if untried:
                break
            observe(st, me, obs)
            key = (a, obs.tobytes())
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = _Node(
                    policy_candidates(st, F.legal_list(st), w, self.candidates))
            node = child
        if value is None:
            value = P.rollout(st, frng, w, buf, self.medal)
        for nd, i in path:
            nd.visits[i] += 1
            nd.total[i] += value


def ismcts_medal() -> ISMCTSBot:
    """The ``ismcts-medal`` bot: ``ISMCTSBot`` aiming at the best solo medal."""
    return ISMCTSBot(medal=MEDAL)
