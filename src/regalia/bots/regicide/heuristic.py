"""Regicide bots that decide from a seat's view (rules/regicide.md).

``HeuristicBot`` ("heuristic") is the compiled one-step look-ahead policy of
``regalia.bots.regicide.policy`` with weights tuned by self-play (``policy_weights.json``),
applied to a position built from the view: it reads only the seat's own hand and public
numbers (enemy, shield, pile and hand sizes), and the partners' stated Jester-window wishes.

``SimpleBot`` ("simple") is the first hand-written heuristic of the engine issue, kept as a
baseline: it scores each legal action by one-step look-ahead on public numbers: it kills
(exactly when it can, so the royal joins the Tavern), keeps enough hand value to survive the
enemy's attack, values Spades shields and Diamonds draws when hands are low, spends the
solo Jester refresh only when it would otherwise lose, and discards the smallest total that
absorbs the attack.

The search bots are in ``montecarlo`` ("montecarlo": determinized flat Monte Carlo)
and ``ismcts`` ("ismcts": information-set Monte Carlo tree search); their
"-medal" variants aim at the best solo medal. ``wishes.wish_rule`` (with ``hand_of``) is the
public Jester-window wish rule that every Regicide bot here states.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.wishes import wish_rule
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT,
    SUIT_LETTERS,
    VALUE,
    cards_of,
    mask_value,
    parse_card,
)

LOSE = -1_000_000.0


def hand_mask(view: dict[str, Any]) -> int:
    """Card mask of the seat's own hand in a view (two ``X`` become both Jester ids)."""
    m = 0
    jester = 52
    for text in view.get("hand", []):
        c = parse_card(text)
        if c == 52:
            c, jester = jester, jester + 1
        m |= 1 << c
    return m


def hand_of(view: dict[str, Any]) -> int:
    """The seat's hand as a card mask, with the Jester ids its knowledge gives them."""
    return Knowledge.from_view(view).hand


class SimpleBot:
    """One-step look-ahead over the legal actions, from the view alone (see module doc)."""

    name = "simple"

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: random.Random,
            budget: float | None = None) -> int:
        best, best_score = None, None
        for a in legal:
            score = self.score(view, a) + rng.random() * 1e-6
            if best_score is None or score > best_score:
                best, best_score = a, score
        return best

    def wish(self, view: dict[str, Any], rng: random.Random) -> str | None:
        hand = hand_mask(view)
        return "yes" if mask_value(hand) >= view["attack"] and hand.bit_count() >= 3 else "no"

    # ------------------------------------------------------------------ scoring

    def score(self, view: dict[str, Any], action: int) -> float:
        """Higher is better; ``LOSE`` for an action after which the seat surely dies."""
        k = A.kind(action)
        arg = A.arg(action)
        hand = hand_mask(view)
        if k == A.PLAY:
            return self._score_play(view, hand, arg)
        if k == A.YIELD:
            d = max(0, view["attack"] - view["shield"])
            if d == 0:
                return 5.0
            return -2.0 * d if mask_value(hand) >= d else LOSE
        if k == A.DISCARD:
            total = mask_value(arg)
            kept = hand & ~arg
            return -(total - view["attack_to_absorb"]) * 3 - arg.bit_count() + _keep_bonus(kept)
        if k == A.JESTER_REFRESH:
            if view["phase"] == "suffer":
                return 0.0 if mask_value(hand) < view["attack_to_absorb"] else LOSE / 2
            # Step 1: refresh only when no play survives (handled by comparison) or hand empty.
            return -500.0 if hand else 0.0
        if k == A.CHOOSE:
            seat = arg
            sizes = view["hand_sizes"]
            pref = view["preferences"][seat]
            return sizes[seat] + (5 if pref == "yes" else -5 if pref == "no" else 0)
        return 0.0

    def _score_play(self, view: dict[str, Any], hand: int, play: int) -> float:
        cards = cards_of(play)
        if cards[0] >= 52:  # multiplayer Jester: skips the attack; keep it for emergencies
            return 50.0 if view["immune"] and view["enemy_suit"] in "SC" else -20.0
        v = sum(VALUE[c] for c in cards)
        suits = {SUIT[c] for c in cards}
        immune = SUIT_LETTERS.index(view["enemy_suit"]) if view["immune"] else -1
        active = suits - {immune}
        damage = v * 2 if CLUBS in active else v
        remaining = view["health"] - view["damage"]
        after = hand & ~play
        after_value = mask_value(after)
        if damage >= remaining:
            exact = damage == remaining
            return 1000.0 + (300 if exact else 0) - v * 2 + after_value * 0.1
        shield = view["shield"] + (v if SPADES in active else 0)
        d = max(0, view["attack"] - shield)
        players = view["players"]
        max_hand = {1: 8, 2: 7, 3: 6, 4: 5}[players]
        draws = 0
        if DIAMONDS in active:
            room = sum(max_hand - n for n in view["hand_sizes"]) + len(cards)
            draws = min(v, view["tavern"], room)
            own = min(max_hand - after.bit_count(), -(-draws // players) if players else draws)
            after_value += own * 5
        if after_value < d:
            return LOSE + after_value - d
        score = damage * 2.0 + (v if SPADES in active else 0) * 1.5 + draws * 2.5
        if HEARTS in active:
            score += min(v, view["discard"]) * 0.5
        score -= v * 1.2  # the cards spent
        score -= d * 1.0  # what Step 4 will cost
        return score


def _keep_bonus(kept: int) -> float:
    """Small preference for keeping Aces and Jesters (flexible plays)."""
    return sum(0.5 for c in cards_of(kept) if c < 4 or c >= 52)


class HeuristicBot:
    """The tuned compiled policy (see the module doc); deterministic given the random source."""

    name = "heuristic"

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: random.Random,
            budget: float | None = None) -> int:
        if len(legal) == 1:
            return legal[0]
        if view["phase"] == "choose":
            return self._choose(view, legal)
        import numpy as np

        from regalia.bots.regicide import policy as P
        from regalia.fast import regicide as F

        st = Knowledge.from_view(view).sample_array(rng)
        w = P.weights_for(view["players"])
        acts = np.empty(F.MAX_ACTIONS, np.int64)
        scores = np.empty(F.MAX_ACTIONS)
        n = P.scored_actions(st, w, acts, scores)
        legal_set = set(int(a) for a in legal)
        best, best_score = None, None
        for i in range(n):
            a = int(acts[i])
            if a in legal_set:
                sc = scores[i] + rng.random() * 1e-9
                if best_score is None or sc > best_score:
                    best, best_score = a, sc
        return best if best is not None else legal[0]

    def wish(self, view: dict[str, Any], rng: random.Random) -> str | None:
        return wish_rule(hand_of(view), view)

    @staticmethod
    def _choose(view: dict[str, Any], legal: Sequence[int]) -> int:
        """After a Jester: the seat with the most cards, moved by the stated wishes."""
        me = view["seat"]
        best, best_score = legal[0], None
        for a in legal:
            q = A.arg(a)
            if q == me:
                hand = hand_of(view)
                sc = hand.bit_count() + (3 if mask_value(hand) >= view["attack"] else -3)
            else:
                pref = view["preferences"][q]
                sc = view["hand_sizes"][q] + (3 if pref == "yes" else -3 if pref == "no" else 0)
            if best_score is None or sc > best_score:
                best, best_score = a, sc
        return best

