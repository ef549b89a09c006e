"""Regicide search bot ``montecarlo``: determinized flat Monte Carlo with policy rollouts.

Not a tree search: every candidate action is valued by playing it out in sampled positions
(for the information-set tree search see ``ismcts``).

For each decision the bot

1. reads what its seat knows (``Knowledge.from_view``: own hand, public table and piles,
   the log with its own private draws) and nothing else;
2. keeps the ``candidates`` best legal actions by the compiled heuristic policy
   (``regalia.bots.regicide.policy``; all of them when there are few);
3. repeatedly samples a full position from that knowledge (``Knowledge.sample``: Tavern order,
   partners' hands by their sizes, the contents of past Hearts heals, the Castle suits;
   partners' Jester-window wishes condition the sample), and plays every candidate out to
   the end of the game in that position with the policy in every seat, all candidates with
   the same random stream (common random numbers); the Hearts shuffles of the future come
   from that stream;
4. after each batch drops candidates that are clearly behind (a paired comparison with the
   leader), and stops at the time budget (``budget`` seconds, default ``DEFAULT_BUDGET``) or
   after ``iterations`` sampled positions;
5. returns the candidate with the best mean rollout value (1 for a win, otherwise 0.9 x the
   fraction of the twelve enemies defeated; with ``medal`` > 0 a solo win is worth
   ``medal`` less per Jester spent, so the bot aims at Gold, then Silver, then Bronze;
   ``montecarlo-medal`` is the bot with ``MEDAL``).

In 2-4 players each seat runs its own bot on its own view, so a bot knows only its own hand.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Sequence

import numpy as np

from regalia.bots.regicide import policy as P
from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.heuristic import hand_of, wish_rule
from regalia.fast import regicide as F
from regalia.games.regicide import actions as A

DEFAULT_BUDGET = 1.0
MEDAL = 0.03  # what a solo win loses per Jester spent, for the bots that aim at medals


def policy_candidates(st: np.ndarray, legal: Sequence[int], w: np.ndarray,
                      limit: int) -> np.ndarray:
    """The ``limit`` legal actions the compiled policy (weights ``w``) scores best in the
    fast-path position ``st``, best first (every legal action if ``legal`` disagrees with
    the fast path's list, which should not happen)."""
    acts = np.empty(F.MAX_ACTIONS, np.int64)
    scores = np.empty(F.MAX_ACTIONS)
    n = P.scored_actions(st, w, acts, scores)
    legal = np.asarray(legal, dtype=np.int64)
    acts, scores = acts[:n], scores[:n]
    keep = np.isin(acts, legal)
    if keep.sum() != len(np.unique(legal)):
        return legal[:limit].copy()
    acts, scores = acts[keep], scores[keep]
    return acts[np.argsort(-scores, kind="stable")[:limit]]


class MonteCarloBot:
    """Determinized Monte Carlo search (see the module doc).

    ``budget``: seconds per decision (``act``'s ``budget`` argument overrides it);
    ``iterations``: a fixed number of sampled positions per decision instead (deterministic
    for a given random source); ``candidates``: how many actions the policy keeps;
    ``batch``: positions sampled between two checks of the clock; ``medal``: what a solo
    win loses per Jester spent (0: every win alike).
    """

    name = "montecarlo"

    def __init__(self, budget: float | None = None, iterations: int | None = None,
                 candidates: int = 10, batch: int = 8, min_worlds: int = 24,
                 medal: float = 0.0) -> None:
        self.medal = medal
        self.budget = DEFAULT_BUDGET if budget is None else budget
        self.iterations = iterations
        self.candidates = candidates
        self.batch = batch
        self.min_worlds = min_worlds
        self.last_worlds = 0  # positions sampled for the last decision (for reports)

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
        w = P.weights_for(players)
        wish = wish_rule if players > 1 else None
        first = knowledge.sample_array(rng, wish_rule=wish)
        cands = policy_candidates(first, legal, w, self.candidates)
        if len(cands) == 1:
            return int(cands[0])
        n = len(cands)
        sums = np.zeros(n)
        sq = np.zeros((n, n))  # sums of paired differences squared, for the pruning test
        alive = np.ones(n, bool)
        worlds_done = 0
        limit = self.iterations
        while True:
            b = self.batch if limit is None else min(self.batch, limit - worlds_done)
            if b <= 0:
                break
            worlds = np.empty((b, F.SIZE), np.int64)
            for i in range(b):
                worlds[i] = first if worlds_done == 0 and i == 0 else \
                    knowledge.sample_array(rng, wish_rule=wish)
            seeds = np.array([rng.getrandbits(64) | 1 for _ in range(b)], dtype=np.uint64)
            idx = np.flatnonzero(alive)
            out = np.zeros((b, len(idx)))
            P.evaluate_actions(worlds, cands[idx].copy(), len(idx), seeds, w, out, self.medal)
            sums[idx] += out.sum(axis=0)
            d = out[:, :, None] - out[:, None, :]
            sq[np.ix_(idx, idx)] += (d * d).sum(axis=0)
            worlds_done += b
            if len(idx) > 1 and worlds_done >= self.min_worlds:
                self._prune(sums, sq, alive, worlds_done)
            if limit is None and time.perf_counter() - start >= budget:
                break
            if alive.sum() == 1 and limit is None:
                break
        self.last_worlds = worlds_done
        means = np.where(alive, sums / max(1, worlds_done), -np.inf)
        return int(cands[int(np.argmax(means))])

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _prune(sums: np.ndarray, sq: np.ndarray, alive: np.ndarray, n: int) -> None:
        """Drop candidates behind the leader by more than 3 standard errors (paired)."""
        idx = np.flatnonzero(alive)
        means = sums / n
        lead = idx[int(np.argmax(means[idx]))]
        for j in idx:
            if j == lead:
                continue
            diff = means[lead] - means[j]
            var = sq[lead, j] / n - diff * diff
            se = math.sqrt(max(var, 1e-12) / n)
            if diff > 3.0 * se + 1e-9:
                alive[j] = False


def montecarlo_medal() -> MonteCarloBot:
    """The ``montecarlo-medal`` bot: ``MonteCarloBot`` aiming at the best solo medal."""
    return MonteCarloBot(medal=MEDAL)
