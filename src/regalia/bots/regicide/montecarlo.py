"""Regicide search bot ``montecarlo``: determinized flat Monte Carlo with policy rollouts.

Not a tree search: every candidate action is valued by playing it out in sampled positions
(for the information-set tree search see ``ismcts``).

For each decision the bot

1. reads what its seat knows (``Knowledge.from_view``: own hand, public table and piles,
   the log with its own private draws) and nothing else;
2. keeps the ``candidates`` best legal actions by the compiled heuristic policy
   (``regalia.bots.regicide.policy``; all of them when there are few);
3. repeatedly samples full positions from that knowledge, a batch at a time, in compiled
   code (``Knowledge.sample_arrays``: Tavern order, partners' hands by their sizes, the
   contents of past Hearts heals, the Castle suits; partners' Jester-window wishes
   condition the sample; with partners the samples are resampled by how well they explain
   the partners' plays, discards and yields, ``partners``), and plays every candidate out to
   the end of the game in that position with the policy in every seat, all candidates with
   the same random stream (common random numbers); the Hearts shuffles of the future come
   from that stream;
4. after each batch drops candidates that are clearly behind (a paired comparison with the
   leader), and stops at the time budget (``budget`` seconds, default ``DEFAULT_BUDGET``) or
   after ``iterations`` sampled positions, or, once a share ``settle_at`` of that effort is
   spent, as soon as the choice is settled (with partners: the candidate chosen, the
   policy's lean counted, is ahead of every other by ``prune_sigma`` standard errors);
5. returns the candidate with the best mean rollout value, the policy's first candidate
   given ``policy_lean`` more with partners (1 for a win, otherwise 0.9 x the
   fraction of the twelve enemies defeated; with ``medal`` > 0 a solo win is worth
   ``medal`` less per Jester spent, so the bot aims at Gold, then Silver, then Bronze;
   ``montecarlo-medal`` is the bot with ``MEDAL``).

With ``choices`` (the ``montecarlo-choices`` bot) a Jester play of 2-4 players is valued one
step deeper: in every world each choice of the next player is rolled out
(``P.evaluate_choices``), and the world's value is that of the seat the chooser would pick
by what it will see, the partners' wishes (``chosen_values``: the best seat for those wishes
in the other half of the worlds), instead of the rollout policy's pick. Measured at 128
positions per decision it is no stronger than the plain bot (README, "Four players"), so it
is not the default.

In 2-4 players each seat runs its own bot on its own view, so a bot knows only its own hand.
"""

from __future__ import annotations

import random
import time
from typing import Any, Sequence

import numpy as np

from regalia.bots.regicide import partners
from regalia.bots.regicide import policy as P
from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.heuristic import hand_of
from regalia.bots.regicide.wishes import wish_rule
from regalia.fast import regicide as F

DEFAULT_BUDGET = 1.0
MEDAL = 0.03  # what a solo win loses per Jester spent, for the bots that aim at medals
POLICY_LEAN = 0.05  # the policy's first candidate's bonus with partners (README "Play the partners expect")
PARTNER_TAU = 3.0  # the temperature of the partners' model with partners (``partners``)
PARTNER_EPS = 0.2  # its uniform share
PARTNER_POOL = 4  # positions drawn per position kept, as a multiple


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


def opens_window(action: int) -> bool:
    """Whether ``action`` (a fast-path code) is a Jester play of 2-4 players, after which
    the player chooses who goes next (rules 1.10)."""
    return action >> F.KIND_SHIFT == F.A_PLAY >> F.KIND_SHIFT and (action >> 52) & 3 != 0


def tavern_groups(knowledge: Knowledge) -> list[list[int]]:
    """The Tavern slots (from the bottom) whose cards a sample deals from one pool, one list
    per pool with two slots or more: the slots of the Tavern as dealt, or of one Hearts heal
    (``Knowledge.tavern``'s segments). Known cards (exact-kill royals) are in none."""
    groups: dict[int, list[int]] = {}
    for i, (kind, x) in enumerate(knowledge.tavern):
        if kind == "s":
            groups.setdefault(x, []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def reshuffle_tavern(st: np.ndarray, groups: list[list[int]],
                     rng: random.Random) -> np.ndarray:
    """A copy of the sampled position ``st`` with the cards of each group of Tavern slots
    (``tavern_groups``) in a new random order: another sample of the same knowledge that
    keeps the partners' hands and the discard pile (every order of a pool's cards over its
    slots is equally likely given the rest of the sample)."""
    out = st.copy()
    lo = int(st[F.TLO])
    for g in groups:
        at = [F.TAV + ((lo + i) & 63) for i in g]
        cards = [int(st[j]) for j in at]
        rng.shuffle(cards)
        out[at] = cards
    return out


def chosen_values(out: np.ndarray, pattern: np.ndarray, prior: float = 4.0) -> np.ndarray:
    """Per world, the value of a Jester play when its player then chooses who goes next by
    what it will see, the partners' wishes (``evaluate_choices``'s ``out`` and ``pattern``).

    The worlds are split in two folds (even and odd rows); a world's choice is the seat with
    the best mean value in the *other* fold's worlds with the same wishes, shrunk towards
    that fold's mean over all wishes by ``prior`` worlds, so that no world's value is the
    maximum of noisy means it took part in (which would overrate the Jester). A world whose
    action did not open the window (``pattern`` -1) keeps its plain value.
    """
    n, width = out.shape
    vals = out[:, 0].astype(float).copy()
    win = pattern >= 0
    if not win.any():
        return vals
    legal = out[np.flatnonzero(win)[0]] >= 0
    rows = np.arange(n)
    for fold in (0, 1):
        mine = win & (rows % 2 == fold)
        other = win & (rows % 2 != fold)
        if not other.any():
            other = win
        base = out[other].mean(axis=0)
        for g in np.unique(pattern[mine]):
            same = other & (pattern == g)
            k = int(same.sum())
            score = (out[same].sum(axis=0) + prior * base) / (k + prior)
            score = np.where(legal, score, -np.inf)
            q = int(np.argmax(score))
            at = mine & (pattern == g)
            vals[at] = out[at, q]
    return vals


def position_sampler(knowledge: Knowledge, rng: random.Random, wishes: bool,
                     tau: float = PARTNER_TAU, eps: float = PARTNER_EPS,
                     pool: int = PARTNER_POOL):
    """``draw(b)``: ``b`` positions sampled from ``knowledge``, a ``(b, SIZE)`` int64 array
    (``regalia.fast.regicide``). Plain samples (conditioned on the partners' stated wishes
    with ``wishes``, rules 1.10), or with ``tau`` > 0 and partner decisions in the log
    samples resampled by the likelihood of those decisions (``partners``, temperature
    ``tau`` points of hand value, uniform share ``eps``): from a pool ``pool`` times
    larger, systematic resampling; a position picked again is played out in a new Tavern
    order (``reshuffle_tavern``). Reads only the seat's view (rules 1.15)."""
    def plain(b: int) -> np.ndarray:
        return knowledge.sample_arrays(rng, b, wishes)

    if not tau:
        return plain
    obs = partners.observations(knowledge)
    if not len(obs):
        return plain
    w = P.weights_for(knowledge.players)
    groups = tavern_groups(knowledge)

    def weighted(b: int) -> np.ndarray:
        drawn = knowledge.sample_arrays(rng, b * pool, wishes)
        ll = np.empty(len(drawn))
        partners.log_likelihoods(drawn, obs.positions, obs.seats, obs.actions, obs.since, w,
                                 tau, eps, ll)
        p = np.exp(ll - ll.max())
        at = np.searchsorted(np.cumsum(p / p.sum()), (rng.random() + np.arange(b)) / b)
        at = np.minimum(at, len(drawn) - 1)
        out = drawn[at]
        for i in range(1, b):
            if at[i] == at[i - 1] and groups:
                out[i] = reshuffle_tavern(out[i], groups, rng)
        return out

    return weighted


class MonteCarloBot:
    """Determinized Monte Carlo search (see the module doc).

    ``budget``: seconds per decision (``act``'s ``budget`` argument overrides it);
    ``iterations``: at most this many sampled positions per decision instead (deterministic
    for a given random source; the sampling stops early once pruning has left one
    candidate); ``candidates``: how many actions the policy keeps;
    ``batch``: positions sampled between two checks of the clock; ``medal``: what a solo
    win loses per Jester spent (0: every win alike); ``choices``: a Jester play is valued
    with the choice of the next player searched too, by the wishes its player will see
    (``evaluate_choices``, ``chosen_values``), not left to the rollout policy;
    ``tavern_orders``: each sampled position is played out in that many Tavern orders (the
    sample and ``tavern_orders - 1`` reshuffles of it, ``reshuffle_tavern``), a candidate's
    value in the sample being their mean; ``min_worlds``: positions sampled before the
    first pruning; ``prune_sigma``: a candidate is dropped once its paired difference to
    the leader exceeds that many standard errors (``_prune``); ``rollout_noise``: a random
    jitter of the rollout policy's action scores, uniform in [0, ``rollout_noise``) points of
    hand value (the policy's ``noise`` weight; 0, the default: the deterministic policy, as
    no jitter measured better at four players, README "Four players"); ``policy_lean``:
    a bonus added, after the pruning, to the mean rollout value of the policy's first
    candidate (the play its partners' model of it, the policy, expects: it is kept unless
    another is better by more than that; default ``POLICY_LEAN`` with partners, 0 in solo);
    ``partner_tau``, ``partner_eps``, ``partner_pool``: sampled positions resampled by the
    likelihood of the partners' decisions seen in the log (``partners``; the softmax's
    temperature in points of hand value, default ``PARTNER_TAU`` with partners, 0 = off;
    the uniform share; the pool's size as a multiple of the batch); ``settle_at``: once
    that share of the effort is spent (of ``iterations`` positions, or of the ``budget``'s
    seconds), the search stops when the choice can no longer change by the pruning test
    with the lean counted (``_decided``; None, the default: never; in solo, with no lean,
    the pruning alone already stops a settled search, so it changes nothing there;
    measured at four players in the README, "Settled choices", and not kept as a default).
    """

    name = "montecarlo"

    def __init__(self, budget: float | None = None, iterations: int | None = None,
                 candidates: int = 10, batch: int = 8, min_worlds: int = 24,
                 medal: float = 0.0, choices: bool = False, tavern_orders: int = 1,
                 prune_sigma: float = 2.0, rollout_noise: float = 0.0,
                 policy_lean: float | None = None, partner_tau: float | None = None,
                 partner_eps: float = PARTNER_EPS,
                 partner_pool: int = PARTNER_POOL,
                 settle_at: float | None = None) -> None:
        self.settle_at = settle_at
        self.policy_lean = policy_lean
        self.partner_tau = partner_tau
        self.partner_eps = partner_eps
        self.partner_pool = partner_pool
        self.prune_sigma = prune_sigma
        self.rollout_noise = rollout_noise
        self.medal = medal
        self.choices = choices
        self.tavern_orders = tavern_orders
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
        self.last_worlds = 0
        if len(legal) == 1:
            return legal[0]
        knowledge = Knowledge.from_view(view)
        players = view["players"]
        w = P.weights_for(players)
        w[P.W_NOISE] = self.rollout_noise
        draw = self._sampler(knowledge, rng, players > 1)
        first = draw(1)[0]
        cands = policy_candidates(first, legal, w, self.candidates)
        if len(cands) == 1:
            return int(cands[0])
        n = len(cands)
        if self.choices and players > 1 and any(opens_window(int(a)) for a in cands):
            return self._act_choices(draw, cands, w, first, rng, start, budget, players)
        groups = tavern_groups(knowledge) if self.tavern_orders > 1 \
            and knowledge.consistent else []
        sums = np.zeros(n)
        sq = np.zeros((n, n))  # sums of paired differences squared, for the pruning test
        alive = np.ones(n, bool)
        worlds_done = 0
        limit = self.iterations
        while True:
            b = self.batch if limit is None else min(self.batch, limit - worlds_done)
            if b <= 0:
                break
            worlds = draw(b)
            if worlds_done == 0:
                worlds[0] = first  # the sample the candidates were chosen in
            k = self.tavern_orders if groups else 1
            if k > 1:
                worlds = np.stack([world if r == 0 else reshuffle_tavern(world, groups, rng)
                                   for world in worlds for r in range(k)])
            seeds = np.array([rng.getrandbits(64) | 1 for _ in range(b * k)], dtype=np.uint64)
            idx = np.flatnonzero(alive)
            out = np.zeros((b * k, len(idx)))
            P.evaluate_actions(worlds, cands[idx].copy(), len(idx), seeds, w, out, self.medal)
            if k > 1:
                out = out.reshape(b, k, len(idx)).mean(axis=1)
            sums[idx] += out.sum(axis=0)
            d = out[:, :, None] - out[:, None, :]
            sq[np.ix_(idx, idx)] += (d * d).sum(axis=0)
            worlds_done += b
            if self._settled(sums, sq, alive, worlds_done, start, budget, players):
                break
        self.last_worlds = worlds_done
        means = np.where(alive, sums / max(1, worlds_done), -np.inf)
        means[0] += self._lean(players)  # after the pruning, which it does not change
        return int(cands[int(np.argmax(means))])

    def _act_choices(self, draw, cands: np.ndarray, w: np.ndarray, first: np.ndarray,
                     rng: random.Random, start: float, budget: float, players: int) -> int:
        """``act``'s loop when a candidate is a Jester play and ``choices`` is set: every
        world's values are kept, the Jester plays' recomputed by ``chosen_values`` after
        each batch (the choice of the next player improves with the worlds)."""
        n = len(cands)
        jesters = [k for k in range(n) if opens_window(int(cands[k]))]
        values: list[np.ndarray] = []  # per batch: (b, n), NaN where not evaluated
        jout: dict[int, list[np.ndarray]] = {k: [] for k in jesters}
        jpat: dict[int, list[np.ndarray]] = {k: [] for k in jesters}
        alive = np.ones(n, bool)
        worlds_done = 0
        limit = self.iterations
        means = np.zeros(n)
        while True:
            b = self.batch if limit is None else min(self.batch, limit - worlds_done)
            if b <= 0:
                break
            worlds = draw(b)
            if worlds_done == 0:
                worlds[0] = first  # the sample the candidates were chosen in
            seeds = np.array([rng.getrandbits(64) | 1 for _ in range(b)], dtype=np.uint64)
            idx = np.array([k for k in np.flatnonzero(alive) if k not in jesters], np.int64)
            batch = np.full((b, n), np.nan)
            if len(idx):
                out = np.zeros((b, len(idx)))
                P.evaluate_actions(worlds, cands[idx].copy(), len(idx), seeds, w, out,
                                   self.medal)
                batch[:, idx] = out
            for k in jesters:
                if alive[k]:
                    o = np.zeros((b, 4))  # one column per seat
                    pat = np.zeros(b, np.int64)
                    P.evaluate_choices(worlds, int(cands[k]), seeds, w, o, pat, self.medal)
                    jout[k].append(o)
                    jpat[k].append(pat)
            values.append(batch)
            worlds_done += b
            table = np.vstack(values)
            for k in jesters:
                if alive[k]:
                    table[:, k] = chosen_values(np.vstack(jout[k]), np.concatenate(jpat[k]))
            live = np.flatnonzero(alive)
            sums = np.zeros(n)
            sums[live] = table[:, live].sum(axis=0)
            sq = np.zeros((n, n))
            d = table[:, live][:, :, None] - table[:, live][:, None, :]
            sq[np.ix_(live, live)] = (d * d).sum(axis=0)
            means = np.where(alive, sums / worlds_done, -np.inf)
            if self._settled(sums, sq, alive, worlds_done, start, budget, players):
                break
        self.last_worlds = worlds_done
        means = np.where(alive, means, -np.inf)
        means[0] += self._lean(players)
        return int(cands[int(np.argmax(means))])

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _with_partners(value: float | None, default: float, players: int) -> float:
        """A setting that concerns partners: ``value`` when given, else ``default`` with
        partners (2-4 players) and 0 in solo."""
        if value is not None:
            return value
        return default if players > 1 else 0.0

    def _lean(self, players: int) -> float:
        return self._with_partners(self.policy_lean, POLICY_LEAN, players)

    def _sampler(self, knowledge: Knowledge, rng: random.Random, wishes: bool):
        """``position_sampler`` with this bot's partners' model (``partner_tau``,
        ``partner_eps``, ``partner_pool``)."""
        tau = self._with_partners(self.partner_tau, PARTNER_TAU, knowledge.players)
        return position_sampler(knowledge, rng, wishes, tau, self.partner_eps,
                                self.partner_pool)

    def _settled(self, sums: np.ndarray, sq: np.ndarray, alive: np.ndarray, n: int,
                 start: float, budget: float, players: int) -> bool:
        """After a batch, ``n`` positions sampled so far: prune (from ``min_worlds`` on);
        True when the search is over: one candidate left, the choice settled
        (``_decided``) once ``settle_at`` of the effort and ``min_worlds`` positions are
        spent, or, without ``iterations``, the ``budget`` (seconds since ``start``) spent."""
        if alive.sum() > 1 and n >= self.min_worlds:
            self._prune(sums, sq, alive, n, self.prune_sigma)
        if alive.sum() == 1:
            return True
        elapsed = time.perf_counter() - start
        if self.settle_at is not None and n >= self.min_worlds:
            spent = n / self.iterations if self.iterations else (
                elapsed / budget if budget > 0 else 1.0)
            if spent >= self.settle_at and self._decided(
                    sums, sq, alive, n, self.prune_sigma, self._lean(players)):
                return True
        return self.iterations is None and elapsed >= budget

    @staticmethod
    def _decided(sums: np.ndarray, sq: np.ndarray, alive: np.ndarray, n: int,
                 sigma: float, lean: float) -> bool:
        """Whether the candidate the bot would choose now (the best mean, the first
        candidate's given ``lean`` more) is ahead of every other alive candidate by more
        than ``sigma`` standard errors of their paired difference over the ``n`` positions
        sampled (``sums``, ``sq``, ``alive`` as in ``_prune``)."""
        idx = np.flatnonzero(alive)
        means = sums / n
        lifted = means.copy()
        lifted[0] += lean
        lead = idx[int(np.argmax(lifted[idx]))]
        others = idx[idx != lead]
        ahead = lifted[lead] - lifted[others]
        return bool(np.all(ahead > sigma * _paired_se(means, sq, others, lead, n) + 1e-9))

    @staticmethod
    def _prune(sums: np.ndarray, sq: np.ndarray, alive: np.ndarray, n: int,
               sigma: float) -> None:
        """Drop candidates behind the leader by more than ``sigma`` standard errors of
        their paired difference to it over the ``n`` positions sampled; ``sums``: (k,)
        value sums, ``sq``: (k, k) sums of squared paired differences, ``alive``: (k,)
        bool, updated in place."""
        idx = np.flatnonzero(alive)
        means = sums / n
        lead = idx[int(np.argmax(means[idx]))]
        behind = means[lead] - means[idx] > sigma * _paired_se(means, sq, idx, lead, n) + 1e-9
        alive[idx[behind]] = False  # never the leader (a difference of 0)


def _paired_se(means: np.ndarray, sq: np.ndarray, idx: np.ndarray, lead: int,
               n: int) -> np.ndarray:
    """The standard errors, over ``n`` positions, of the paired differences between
    candidate ``lead`` and each candidate of ``idx`` (``means``: (k,) mean values, ``sq``:
    (k, k) sums of squared paired differences); a floor of 1e-12 on each variance."""
    diff = means[lead] - means[idx]
    return np.sqrt(np.maximum(sq[lead, idx] / n - diff * diff, 1e-12) / n)


def montecarlo_medal() -> MonteCarloBot:
    """The ``montecarlo-medal`` bot: ``MonteCarloBot`` aiming at the best solo medal."""
    return MonteCarloBot(medal=MEDAL)


def montecarlo_choices() -> MonteCarloBot:
    """The ``montecarlo-choices`` bot: ``MonteCarloBot`` that values a Jester play with the
    choice of the next player searched by the wishes it will see (``choices``)."""
    return MonteCarloBot(choices=True)
