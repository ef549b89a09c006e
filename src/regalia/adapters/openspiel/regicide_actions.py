"""A fixed action encoding of Regicide for OpenSpiel (ids ``0 .. NUM_ACTIONS - 1``).

The engine's action codes (``regalia.games.regicide.actions``) are card masks, and a Step 4
discard may be any set of hand cards totalling enough (rules 1.8): too many to number one
by one. Here a discard is a sequence of decisions instead, one card at a time in ascending
card order, ended by ``DISCARD_DONE``; each legal discard has exactly one such sequence.

=======================  ===================================================================
ids                      meaning
=======================  ===================================================================
``0 .. 283``             ``play``: the legal play shapes of rules 1.5, in ``PLAYS`` order
                         (singles, Animal Companion pairs, sets; one Jester play ``X``)
``YIELD`` (284)          ``yield`` (rules 1.11)
``REFRESH`` (285)        solo ``jester`` refresh (rules 1.14)
``CHOOSE + s`` (286-289) ``choose s`` after a Jester (rules 1.10)
``PICK + c`` (290-342)   add card ``c`` (0-51, 52 = a Jester) to the discard being chosen
``DISCARD_DONE`` (343)   discard the cards picked (rules 1.8)
=======================  ===================================================================

``prefer`` (a Jester-window wish, rules 1.10) is a side remark of seats not to act, not a
turn, so it has no id here.
"""

from __future__ import annotations

from itertools import combinations

from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import JESTERS, RANK, card_text, cards_of


def _play_shapes() -> tuple[int, ...]:
    """Card masks of every play shape of rules 1.5 (a Jester as card 52)."""
    singles = [1 << c for c in range(53)]
    aces = [c for c in range(52) if RANK[c] == 1]
    pairs = sorted({1 << a | 1 << c for a in aces for c in range(52) if c != a})
    sets = []
    for r in (2, 3, 4, 5):
        cards = [(r - 1) * 4 + x for x in range(4)]
        for size in range(2, 5):
            if r * size <= 10:
                sets += [sum(1 << c for c in combo) for combo in combinations(cards, size)]
    return tuple(singles + pairs + sets)


PLAYS = _play_shapes()
_PLAY_ID = {m: i for i, m in enumerate(PLAYS)}
YIELD = len(PLAYS)
REFRESH = YIELD + 1
CHOOSE = REFRESH + 1
PICK = CHOOSE + 4
JESTER_PICK = PICK + 52
DISCARD_DONE = JESTER_PICK + 1
NUM_ACTIONS = DISCARD_DONE + 1

_JESTER_BITS = (1 << 52) | (1 << 53)


def play_id(code: int) -> int:
    """Id of an engine ``play`` code (either Jester id maps to the one Jester play)."""
    mask = code & A.ARG_MASK
    if mask & _JESTER_BITS:
        mask = 1 << 52
    return _PLAY_ID[mask]


def turn_id(code: int) -> int:
    """Id of an engine action code other than a discard; raises ``KeyError`` otherwise."""
    k = A.kind(code)
    if k == A.PLAY:
        return play_id(code)
    if k == A.YIELD:
        return YIELD
    if k == A.JESTER_REFRESH:
        return REFRESH
    if k == A.CHOOSE:
        return CHOOSE + A.arg(code)
    raise KeyError(f"engine code {code} has no single id (discards are picked card by card)")


def turn_code(action: int, hand: int) -> int:
    """Engine code of a non-discard id, ``hand`` (card mask) telling which Jester plays."""
    if action < YIELD:
        mask = PLAYS[action]
        if mask == 1 << 52:
            mask = 1 << (52 if hand >> 52 & 1 else 53)
        return A.PLAY | mask
    if action == YIELD:
        return A.YIELD
    if action == REFRESH:
        return A.JESTER_REFRESH
    if CHOOSE <= action < PICK:
        return A.CHOOSE | (action - CHOOSE)
    raise KeyError(f"action {action} is not a turn action")


def pick_card(action: int, hand: int, picked: int) -> int:
    """Engine card id the pick ``action`` adds to ``picked`` (the lowest Jester not picked)."""
    c = action - PICK
    if c < 52:
        return c
    return next(j for j in JESTERS if hand >> j & 1 and not picked >> j & 1)


def pick_ids(discards, picked: int, hand: int) -> list[int]:
    """Legal ids while choosing a discard: the picks that can still end in one of the legal
    ``discards`` (engine masks, tag bits included or not), and ``DISCARD_DONE`` once
    ``picked`` is one. Picks go in ascending card order, so a discard has one sequence."""
    top = picked.bit_length()  # cards below this one are decided
    low = (1 << top) - 1
    ids = set()
    done = False
    for code in discards:
        m = code & A.ARG_MASK
        if m & low != picked:
            continue
        if m == picked:
            done = True
            continue
        nxt = (m & ~low) & -(m & ~low)
        c = nxt.bit_length() - 1
        ids.add(PICK + min(c, 52))
    out = sorted(ids)
    if done:
        out.append(DISCARD_DONE)
    return out


def to_text(action: int) -> str:
    """Text of an id: ``"play 5C 5D"``, ``"yield"``, ``"pick 7H"``, ``"discard picked"``."""
    if action < YIELD:
        return "play " + " ".join(card_text(c) for c in cards_of(PLAYS[action]))
    if action == YIELD:
        return "yield"
    if action == REFRESH:
        return "jester"
    if CHOOSE <= action < PICK:
        return f"choose {action - CHOOSE}"
    if PICK <= action < DISCARD_DONE:
        return "pick " + card_text(action - PICK)
    if action == DISCARD_DONE:
        return "discard picked"
    raise ValueError(f"{action} is not a Regicide OpenSpiel action id (0 to {NUM_ACTIONS - 1})")
