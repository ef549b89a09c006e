"""Le Roy des Ribauds bots that play (rules/ribauds.md), deciding from a seat's view;
their sampled positions come from ``belief.determinize``.

* ``HeuristicBot`` ("heuristic"): wins at once when it surely can; otherwise picks, among
  the actions after which the opponent can win at once in the fewest sampled positions
  (through a card effect too), the one preferring to keep Reines toward the Marriage and to
  learn hidden Court cards. Its own wins are single actions (a reveal, a face-up placement,
  a swap, a flip).
* ``TacticalBot`` ("tactical"): the same, but it also sees wins and threats through the
  effect a card resolves in the same turn (a Chevalier placed face up, then its swap and
  flip; a Roi, then its reveal of a known card): a shallow search, stronger than the
  heuristic.
* ``ISMCTSBot`` ("ismcts"): single-observer information-set Monte Carlo tree search
  (Cowling, Powley & Whitehouse 2012): each iteration samples a position with
  ``determinize``, descends the tree of action histories restricted to the actions legal in
  that sample (UCB1 with availability counts; a seat that knows of a win in the sample
  takes it, so an opponent is never credited with missing one), expands one node, plays
  out with a policy that takes a win it knows of and otherwise plays at random (keeping
  Reines), re-drawing up to ``careful`` (8) times a move that hands the opponent a win it
  knows of or ends the turn with the opponent holding three Reines (the Marriage; players
  rarely do: ``heuristic`` never does when it can avoid it), and backs up the result for
  the seat that moved. The root is seeded with virtual visits from a one-ply look-ahead
  (``_prior``), which counts a move's Reines won or lost against the opponent
  (``reine_weight``, 0.1: the Marriage, rules 2.5). It returns the most visited root
  action that lets the opponent win at once in none of ``safety_samples`` (128) fresh
  samples (``_safest``; when each action may, the one that does in the fewest): the
  search's statistics miss rare ways for the opponent to win that the heuristic's check
  sees (in 40 games at 40 iterations, 6 of 440 decisions handed over a win another move
  avoided; with the check none of 484). Budget: seconds per decision or a fixed number of
  iterations. Its samples deal the opponent's unknown cards Reines ``queen_bias`` (3) times
  likelier than other cards:
  an opponent model (players keep Reines for the Marriage; against ``heuristic`` the
  uniform deal predicted a hand of 2+ Reines 24% of the time, 46% observed; 3 predicts
  46-50%), never a look at hidden cards. The sure wins of the tree's expansions and of the
  rollouts are memoized (``win_set``).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Sequence

from regalia.bots.ribauds.belief import determinize
from regalia.games.ribauds import RIBAUDS as G
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.cards import ASSASSIN, KING, KNIGHT, QUEEN
from regalia.games.ribauds.rules import court_conspiracy
from regalia.games.ribauds.state import (
    ACT,
    ASSASSIN_PEEK,
    KING_CHOICE,
    KING_DISCARD,
    KNIGHT_FLIP,
    KNIGHT_SWAP,
    UNKNOWN,
    WON,
    State,
)

DEFAULT_BUDGET = 0.2


# ----------------------------------------------------------------------------- sure wins


def _win(court, up: int) -> bool:
    return court_conspiracy(court, up) is not None


def _maybe(court, up: int, know) -> bool:
    """A quick necessary condition for a win this turn: enough face-up (or known, for one
    flip) Rois or Assassins."""
    kings = assassins = known_k = known_a = 0
    for i in range(4):
        c = court[i] if up >> i & 1 else know[i]
        if up >> i & 1:
            kings += c == KING
            assassins += c == ASSASSIN
        elif c == KING:
            known_k = 1
        elif c == ASSASSIN:
            known_a = 1
    return kings + known_k >= 3 or assassins + known_a >= 2


def _effect_wins(court, up: int, know, card: int) -> bool:
    """After ``card`` turned face up and resolves its effect (rules 2.4), can the active
    player surely win before the turn ends, as far as it knows (``know``)?"""
    if card == KNIGHT:
        for i in range(4):
            for j in range(i + 1, 4):
                c = list(court)
                c[i], c[j] = c[j], c[i]
                k = list(know)
                k[i], k[j] = k[j], k[i]
                u = up ^ (1 << i | 1 << j) if (up >> i ^ up >> j) & 1 else up
                if _win(c, u) or _flip_wins(c, u, k):
                    return True
        return False
    if card == KING:
        for i in range(4):
            if not up >> i & 1 and know[i] != UNKNOWN:
                c = list(court)
                c[i] = know[i]
                if _win(c, up | 1 << i):
                    return True
    return False


def _flip_wins(court, up: int, know) -> bool:
    for f in range(4):
        if not up >> f & 1 and know[f] != UNKNOWN:
            c = list(court)
            c[f] = know[f]
            if _win(c, up | 1 << f):
                return True
    return False


def sure_win(s: State, action: int, effects: bool = True) -> bool:
    """Whether ``action`` surely wins this turn for the seat to act, as far as that seat
    knows: at once, or through the effect it resolves (a Chevalier's swap and flip, a
    Roi's reveal of a known card). A card the seat does not know is never counted on."""
    p = s.current
    kind, arg = action >> A.SHIFT, action & A.ARG
    court, up, know = s.court, s.up, s.know[p]
    phase = s.phase
    if kind == A.REVEAL:
        card = know[arg]
        if card == UNKNOWN:
            return False
        c = list(court)
        c[arg] = card
        u = up | 1 << arg
        if _win(c, u):
            return True
        return effects and phase == ACT and card in (KNIGHT, KING) and \
            _maybe(c, u, know) and _effect_wins(c, u, know, card)
    if kind == A.REPLACE:
        slot, card, face_up = arg >> 3, arg >> 1 & 3, arg & 1
        if not face_up:
            return False
        c = list(court)
        c[slot] = card
        u = up | 1 << slot
        if _win(c, u):
            return True
        if effects and card in (KNIGHT, KING):
            k = list(know)
            k[slot] = card
            return _maybe(c, u, k) and _effect_wins(c, u, k, card)
        return False
    if kind == A.SWAP:
        i, j = arg >> 2, arg & 3
        c = list(court)
        c[i], c[j] = c[j], c[i]
        u = up ^ (1 << i | 1 << j) if (up >> i ^ up >> j) & 1 else up
        if _win(c, u):
            return True
        k = list(know)
        k[i], k[j] = k[j], k[i]
        return effects and _flip_wins(c, u, k)
    if kind == A.FLIP:
        if up >> arg & 1 or know[arg] == UNKNOWN:
            return False
        c = list(court)
        c[arg] = know[arg]
        return _win(c, up | 1 << arg)
    return False


class _Probe:
    """The fields of a ``State`` that ``sure_win`` reads."""

    __slots__ = ("current", "court", "up", "know", "phase")


# Candidate sure-win codes by phase (legal or not: the caller intersects with legal actions).
_CANDIDATES = {
    ACT: tuple([A.reveal(i) for i in range(4)]
               + [A.replace(i, c, True) for i in range(4) for c in range(4)]),
    KING_CHOICE: tuple(A.reveal(i) for i in range(4)),
    KNIGHT_SWAP: tuple(A.swap(i, j) for i in range(4) for j in range(i + 1, 4)),
    KNIGHT_FLIP: tuple(A.flip(i) for i in range(4)),
}
_WINS: dict[tuple, frozenset] = {}
_NONE: frozenset = frozenset()


def win_set(s: State) -> frozenset:
    """The action codes that ``sure_win(s, a)`` accepts (with effects), legal or not:
    a function of the Court, the face-up mask, the active seat's Court knowledge and the
    phase only, so it is memoized on them."""
    phase = s.phase
    cands = _CANDIDATES.get(phase)
    if cands is None:
        return _NONE
    court, up, know = s.court, s.up, s.know[s.current]
    key = (phase, up, court[0], court[1], court[2], court[3], know[0], know[1], know[2], know[3])
    w = _WINS.get(key)
    if w is None:
        if len(_WINS) > 500_000:
            _WINS.clear()
        pr = _Probe()
        pr.current, pr.court, pr.up, pr.know, pr.phase = 0, list(court), up, [list(know)], phase
        w = _WINS[key] = frozenset(a for a in cands if sure_win(pr, a)) or _NONE
    return w


def _fast_threats(s: State) -> bool:
    """Whether the seat to act has a legal sure win (``_threats(s) > 0``, memoized)."""
    if s.phase == WON:
        return False
    w = win_set(s)
    if not w:
        return False
    return any(a in w for a in G.legal_actions(s))


def _rollout_action(s: State, legal: Sequence[int], rng: random.Random) -> int:
    """A known win; otherwise a noisy choice that leans toward the Marriage (keep and
    collect Reines, rules 2.5) and toward sending a Reine against a hand known to hold
    Reines (rules 2.4)."""
    w = win_set(s)
    if w:
        for a in legal:
            if a in w:
                return a
    if s.phase != ACT:
        if s.phase == KING_DISCARD:
            # keep the Reines (the Marriage, rules 2.5): discard as few as possible
            reines = {a: ((a & A.ARG) >> 2 == QUEEN) + ((a & 3) == QUEEN) for a in legal}
            fewest = min(reines.values())
            legal = [a for a in legal if reines[a] == fewest]
        return legal[rng.randrange(len(legal))]
    p = s.current
    hand = s.hands[p]
    know = s.know[p]
    opp_reines = s.seen[p][QUEEN]
    best, best_v = legal[0], -1e9
    for a in legal:
        v = rng.random() * 1.5
        if a >> A.SHIFT == A.REPLACE:
            arg = a & A.ARG
            slot, card, up = arg >> 3, arg >> 1 & 3, arg & 1
            taken = know[slot]
            if card == QUEEN:
                v += 2.0 if up and opp_reines else -1.0 - hand[QUEEN]
            if taken == QUEEN and card != QUEEN:
                v += 1.0 + hand[QUEEN]
        if v > best_v:
            best, best_v = a, v
    return best


def playout(s: State, rng: random.Random, max_steps: int = 200, *, careful: int) -> State:
    """Play ``s`` to the end with the rollout policy: a known win; else the policy's choice,
    re-drawn (uniformly among the legal actions) up to ``careful`` times while it hands the
    opponent a known win or ends the turn with the opponent holding three Reines (the
    Marriage wins at the start of its turn, rules 2.5)."""
    for _ in range(max_steps):
        if s.phase == WON:
            break
        legal = G.legal_actions(s)
        a = _rollout_action(s, legal, rng)
        t, _ = G.apply(s, a, rng)
        p = s.current
        for _ in range(careful):
            if t.phase == WON:
                if t.winner == p:
                    break
            elif t.current == p or not _fast_threats(t):
                break
            a = legal[rng.randrange(len(legal))]
            t, _ = G.apply(s, a, rng)
        s = t
    return s


# ----------------------------------------------------------------------------- heuristic


def _threats(s: State, effects: bool = True) -> int:
    """How many actions of the seat to act would surely win (as that seat knows)."""
    if s.phase == WON:
        return 0
    return sum(1 for a in G.legal_actions(s) if sure_win(s, a, effects))


def _hands_over(s: State, action: int, me: int, rng: random.Random) -> bool:
    """Whether ``action`` lets the opponent win: at once, or with an action it surely wins
    with (as it knows) when the turn passes to it."""
    t, _ = G.apply(s, action, rng)
    if t.phase == WON:
        return t.winner != me
    return t.current != me and _threats(t) > 0


class HeuristicBot:
    """See the module doc. ``samples``: sampled positions per decision; ``effects``: look
    through the effect a card resolves (a Chevalier's swap and flip, a Roi's reveal) when
    looking for sure wins and threats ("tactical"), or only at single actions ("heuristic")."""

    name = "heuristic"

    def __init__(self, samples: int = 16, effects: bool = False) -> None:
        self.samples = samples
        self.effects = effects

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: random.Random,
            budget: float | None = None) -> int:
        if len(legal) == 1:
            return legal[0]
        fx = self.effects
        worlds = [determinize(view, rng) for _ in range(self.samples)]
        me = view["seat"]
        for a in legal:
            if sure_win(worlds[0], a, fx):
                return a
        ranked = []
        for a in legal:
            score = 0.0
            handed = 0  # sampled positions where a lets the opponent win at once
            for w in worlds:
                t, _ = G.apply(w, a, rng)
                if t.phase == WON:
                    score += 10.0 if t.winner == me else -10.0
                    handed += t.winner != me
                    continue
                if t.current != me and _threats(t):
                    handed += 1
                    score -= 3.0
                score += 0.4 * t.hands[me][QUEEN]
                score += 0.1 * sum(1 for k in t.know[me] if k != UNKNOWN)
            # Never hand over a win when another action avoids it: safety first, then score.
            ranked.append((-handed, score / len(worlds) + rng.random() * 1e-3, a))
        ranked.sort(reverse=True)
        # The safest actions are checked again on fresh samples: a rare way for the opponent
        # to win may have been missed by the first ones.
        fresh = [determinize(view, rng) for _ in range(2 * self.samples)]
        for handed, _, a in ranked[:3]:
            if handed < ranked[0][0]:
                break
            if not any(_hands_over(w, a, me, rng) for w in fresh):
                return a
        return ranked[0][2]

    def wish(self, view, rng):
        return None


class TacticalBot(HeuristicBot):
    """``HeuristicBot`` that also sees wins and threats through card effects."""

    name = "tactical"

    def __init__(self, samples: int = 6) -> None:
        super().__init__(samples, effects=True)


# ----------------------------------------------------------------------------- ISMCTS


class _Node:
    """An information set of the searching seat: per action ``[visits, reward, avail]``,
    and the children by ``(action, what the searching seat observed)``."""

    __slots__ = ("stats", "next")

    def __init__(self) -> None:
        self.stats: dict[int, list] = {}
        self.next: dict[tuple, _Node] = {}


def _observation(events, seat: int) -> tuple:
    """What ``seat`` learns from ``events`` (public parts and its own private parts)."""
    out = []
    for e in events:
        d = e.seen_by(seat)
        out.append(tuple(sorted((k, str(v)) for k, v in d.items())))
    return tuple(out)


class ISMCTSBot:
    """Single-observer ISMCTS (see the module doc); the tree's nodes are the searching
    seat's information sets: a child is keyed by the action and by what the seat observed
    when it was applied (a revealed or peeked card, its own draws, a Reine's inspection)."""

    name = "ismcts"

    def __init__(self, budget: float | None = None, iterations: int | None = None,
                 exploration: float = 0.35, prior_visits: int = 16, prior_samples: int = 4,
                 queen_bias: float = 3.0, careful: int = 8, reine_weight: float = 0.1,
                 safety_samples: int = 128) -> None:
        self.budget = DEFAULT_BUDGET if budget is None else budget
        self.iterations = iterations
        self.c = exploration
        self.prior_visits = prior_visits
        self.prior_samples = prior_samples
        self.queen_bias = queen_bias
        self.careful = careful
        self.reine_weight = reine_weight
        self.safety_samples = safety_samples
        self.last_iterations = 0

    def wish(self, view, rng):
        return None

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: random.Random,
            budget: float | None = None) -> int:
        if len(legal) == 1:
            return legal[0]
        budget = self.budget if budget is None else budget
        start = time.perf_counter()
        root = _Node()
        probe = determinize(view, rng)
        for a in legal:
            if sure_win(probe, a):
                return a
        me = view["seat"]
        if self.prior_visits and len(legal) > 1:
            self._prior(root, view, legal, rng, me)
        n = 0
        while True:
            if self.iterations is not None:
                if n >= self.iterations:
                    break
            elif n > 0 and time.perf_counter() - start >= budget:
                break
            self._iterate(root, determinize(view, rng, self.queen_bias), rng, me)
            n += 1
        self.last_iterations = n
        ranked = sorted(legal, key=lambda a: tuple(root.stats.get(a, (0, 0.0))[:2]), reverse=True)
        return self._safest(ranked, view, rng, me)

    def _safest(self, ranked: Sequence[int], view, rng: random.Random, me: int) -> int:
        """The first of ``ranked`` (most visited first) that lets the opponent win at once
        in none of ``safety_samples`` fresh samples (``_hands_over``, as ``heuristic``
        checks its choice); when each may, the one that does in the fewest (the first of
        those). The search's statistics may miss a rare way for the opponent to win that
        another action avoids. Beyond the budget: ~5 ms on average, a few tens of ms when
        many actions are checked."""
        if not self.safety_samples:
            return ranked[0]
        fresh = [determinize(view, rng) for _ in range(self.safety_samples)]
        risks = []
        for i, a in enumerate(ranked):
            handed = sum(_hands_over(w, a, me, rng) for w in fresh)
            if not handed:
                return a
            risks.append((handed, i, a))
        return min(risks)[2]

    def _prior(self, root: _Node, view, legal: Sequence[int], rng: random.Random,
               me: int) -> None:
        """Seed the root with ``prior_visits`` virtual visits per action, valued by a
        one-ply look-ahead on ``prior_samples`` samples: an action after which the opponent
        surely wins this turn (as it knows) is worth 0, one that surely wins 1, others 0.5
        plus ``reine_weight`` per Reine the action gains in the Reine balance (the seat's
        Reines less the opponent's: taking one, or discarding the opponent's with a Reine
        counts +1; placing or discarding one of its own -1), kept within 0.05-0.95."""
        worlds = [determinize(view, rng, self.queen_bias) for _ in range(self.prior_samples)]
        k = self.prior_visits
        rw = self.reine_weight
        for a in legal:
            value = 0.0
            for w in worlds:
                t, _ = G.apply(w, a, rng)
                if t.phase == WON:
                    value += 1.0 if t.winner == me else 0.0
                elif t.current != me and _fast_threats(t):
                    value += 0.0
                else:
                    gain = (t.hands[me][QUEEN] - w.hands[me][QUEEN]
                            - t.hands[1 - me][QUEEN] + w.hands[1 - me][QUEEN])
                    value += min(0.95, max(0.05, 0.5 + rw * gain))
            root.stats[a] = [k, k * value / len(worlds), k]

    def _iterate(self, root: _Node, s: State, rng: random.Random, me: int) -> None:
        node = root
        path: list[tuple[list, int]] = []  # (action statistics, seat that chose the action)
        expanded = False
        while s.phase != WON:
            legal = G.legal_actions(s)
            mover = s.current
            stats = node.stats
            untried = [a for a in legal if a not in stats]
            for a in legal:
                st = stats.get(a)
                if st is not None:
                    st[2] += 1
            w = win_set(s)
            win = next((b for b in legal if b in w), None) if w else None
            if win is not None:
                a = win
                st = stats.get(a)
                if st is None:
                    st = stats[a] = [0, 0.0, 1]
                    expanded = True
            elif untried:
                a = untried[rng.randrange(len(untried))]
                st = stats[a] = [0, 0.0, 1]
                expanded = True
            else:
                a, best_v = legal[0], -1.0
                c = self.c
                for b in legal:
                    x = stats[b]
                    v = x[1] / x[0] + c * math.sqrt(math.log(x[2]) / x[0])
                    if v > best_v:
                        a, best_v = b, v
                st = stats[a]
            s, events = G.apply(s, a, rng)
            path.append((st, mover))
            if expanded:
                break
            key = (a, _observation(events, me))
            child = node.next.get(key)
            if child is None:
                child = node.next[key] = _Node()
            node = child
        s = playout(s, rng, careful=self.careful)
        winner = s.winner if s.phase == WON else None
        for st, mover in path:
            st[0] += 1
            st[1] += 1.0 if winner == mover else (0.5 if winner is None else 0.0)
