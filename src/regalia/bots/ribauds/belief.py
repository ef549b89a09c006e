"""What a Le Roy des Ribauds seat believes of the hidden cards (rules/ribauds.md).

``determinize(view, rng)``: a full ``State`` consistent with what the seat knows (rules
2.7): its hand, the Court cards it knows (face up, placed, peeked, seen before a flip),
the public discard pile, the cards it knows are in the opponent's hand, the publicly known
Reines at the bottom of the draw pile; every other card of the 16 (3.L1) is dealt at
random to the unknown Court slots, the rest of the opponent's hand and the draw pile. What
each seat knows of the Court and of the other's hand is carried over from the view, so
the opponent's knowledge is modelled too.
"""

from __future__ import annotations

import random
from typing import Any

from regalia.games.ribauds.cards import KING, QUEEN, parse_card
from regalia.games.ribauds.inferred import COPIES
from regalia.games.ribauds.state import UNKNOWN, Options, State


def _counts(texts) -> list[int]:
    out = [0, 0, 0, 0]
    for t in texts or []:
        out[parse_card(t)] += 1
    return out


def determinize(view: dict[str, Any], rng: random.Random, queen_bias: float = 1.0) -> State:
    """A full position consistent with ``view``'s seat's knowledge (see the module doc).

    ``queen_bias``: how much likelier an unknown card of the opponent's hand is dealt a Reine
    than any other hidden card (1: uniform). An opponent model, not knowledge: players
    keep the Reines they hold for the Marriage (rules 2.5)."""
    me = view["seat"]
    o = 1 - me
    pool = list(COPIES)
    hand = _counts(view["hand"])
    opp_known = _counts(view["opponent_hand_known"])
    discard = [parse_card(t) for t in view["discard"]][::-1]  # top last
    court: list[int | None] = []
    for slot in view["court"]:
        court.append(parse_card(slot["card"]) if slot["card"] is not None else None)
    used = [hand[c] + opp_known[c] for c in range(4)]
    for c in discard:
        used[c] += 1
    for c in court:
        if c is not None:
            used[c] += 1
    rest: list[int] = []
    for c in range(4):
        rest += [c] * max(0, pool[c] - used[c])
    bottom = view["deck_bottom_reines"]
    for _ in range(bottom):
        if QUEEN in rest:
            rest.remove(QUEEN)
        else:
            bottom -= 1
    rng.shuffle(rest)
    s = State.__new__(State)
    s.current = view["current"]
    s.phase = view["phase"]
    s.up = sum(1 << i for i, slot in enumerate(view["court"]) if slot["face_up"])
    s.court = [c if c is not None else (rest.pop() if rest else KING) for c in court]
    opp = opp_known[:]
    for _ in range(view["hand_sizes"][o] - sum(opp_known)):
        if not rest:
            break
        if queen_bias != 1.0:
            q = rest.count(QUEEN)
            if q and rng.random() * (len(rest) - q + q * queen_bias) < q * queen_bias:
                rest.remove(QUEEN)
                opp[QUEEN] += 1
            else:  # a non-Reine (there is one: with only Reines left the draw above is sure)
                others = [i for i, c in enumerate(rest) if c != QUEEN]
                opp[rest.pop(others[rng.randrange(len(others))])] += 1
        else:
            opp[rest.pop()] += 1
    hands = [None, None]
    hands[me] = hand
    hands[o] = opp
    s.hands = hands
    deck_size = view["deck"]
    deck = [QUEEN] * bottom + rest[:max(0, deck_size - bottom)]
    s.deck = deck
    s.discard = discard
    s.winner = view["winner"]
    s.conspiracy = view["conspiracy"]
    s.options = Options.from_dict(view.get("options") or {})
    s.know = [[UNKNOWN] * 4, [UNKNOWN] * 4]
    for i, slot in enumerate(view["court"]):
        for q in (0, 1):
            if slot["face_up"] or slot["known_by"][q]:
                s.know[q][i] = s.court[i]
    s.seen = [None, None]
    s.seen[me] = opp_known[:]
    s.seen[o] = _counts(view["hand_known_by_opponent"])
    s.bottom_reines = view["deck_bottom_reines"]
    s.redeals = tuple(dict(r) for r in view.get("redeals", []))
    s.log = None
    return s
