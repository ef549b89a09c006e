"""Regicide search bot: determinized flat Monte Carlo with policy-guided rollouts.

For each decision the bot

1. reads what its seat knows (``Knowledge.from_view``: own hand, public table and piles,
   the log with its own private draws) and nothing else;
2. keeps the ``candidates`` best legal actions by the compiled heuristic policy
   (``regalia.sim.regicide_policy``; all of them when there are few);
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
   fraction of the twelve enemies defeated).

In 2-4 players each seat runs its own bot on its own view, so a bot knows only its own hand.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Sequence

import numpy as np

from regalia.bots.base import register
from regalia.bots.regicide_knowledge import Knowledge
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import CLUBS, SUIT, VALUE, cards_of, mask_value, parse_card
from regalia.sim import regicide_fast as F
from regalia.sim import regicide_policy as P

DEFAULT_BUDGET = 1.0


def wish_rule(hand: int, view: dict[str, Any]) -> str:
    """The public Jester-window wish rule (rules 1.10) shared by the bots: ``"yes"`` when the
    hand can defeat the enemy now with one card, or holds at least the enemy's attack in
    value with three cards or more; ``"no"`` otherwise. Same rule as ``P.wish_yes``."""
    if not hand or view["enemy"] is None:
        return "no"
    remaining = view["health"] - view["damage"]
    e = parse_card(view["enemy"])
    clubs_ok = not view["immune"] or SUIT[e] != CLUBS
    best = 0
    for c in cards_of(hand):
        v = VALUE[c]
        if c < 52 and SUIT[c] == CLUBS and clubs_ok:
            v *= 2
        best = max(best, v)
    if best >= remaining or (mask_value(hand) >= view["attack"] and hand.bit_count() >= 3):
        return "yes"
    return "no"


def hand_of(view: dict[str, Any]) -> int:
    """The seat's hand as a card mask, with the Jester ids its knowledge gives them."""
    return Knowledge.from_view(view).hand


class SearchBot:
    """Determinized Monte Carlo search (see the module doc).

    ``budget``: seconds per decision (``act``'s ``budget`` argument overrides it);
    ``iterations``: a fixed number of sampled positions per decision instead (deterministic
    for a given random source); ``candidates``: how many actions the policy keeps;
    ``batch``: positions sampled between two checks of the clock.
    """

    name = "ismcts"

    def __init__(self, budget: float | None = None, iterations: int | None = None,
                 candidates: int = 10, batch: int = 8, min_worlds: int = 24) -> None:
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
        first = knowledge.sample_array(rng)
        cands = self._candidates(first, legal, w)
        if len(cands) == 1:
            return int(cands[0])
        if view["phase"] == "choose":
            cands = self._choose_candidates(view, cands)
        n = len(cands)
        sums = np.zeros(n)
        sq = np.zeros((n, n))  # sums of paired differences squared, for the pruning test
        alive = np.ones(n, bool)
        worlds_done = 0
        wish = wish_rule if players > 1 else None
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
            P.evaluate_actions(worlds, cands[idx].copy(), len(idx), seeds, w, out)
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

    def _candidates(self, st: np.ndarray, legal: Sequence[int], w: np.ndarray) -> np.ndarray:
        """The legal actions the policy ranks best (at most ``self.candidates``)."""
        acts = np.empty(F.MAX_ACTIONS, np.int64)
        scores = np.empty(F.MAX_ACTIONS)
        n = P.scored_actions(st, w, acts, scores)
        legal_set = set(int(a) for a in legal)
        pairs = [(scores[i], int(acts[i])) for i in range(n) if int(acts[i]) in legal_set]
        if len(pairs) != len(legal_set):  # should not happen: fall back on the legal list
            pairs = [(0.0, int(a)) for a in legal]
        pairs.sort(key=lambda p: -p[0])
        return np.array([a for _, a in pairs[:self.candidates]], dtype=np.int64)

    @staticmethod
    def _choose_candidates(view: dict[str, Any], cands: np.ndarray) -> np.ndarray:
        """After a Jester every seat is a candidate, whatever the policy says."""
        return cands

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


def _make_search():
    return SearchBot()


register("regicide", "ismcts", _make_search)
