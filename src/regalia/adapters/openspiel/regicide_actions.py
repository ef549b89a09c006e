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

These ids differ from the shared encoding's (``regalia.adapters.encoding``: 516 ids, plays
and discards as subsets of hand slots); that module's docstring says why.
``to_encoding_id`` and ``from_encoding_id`` map one move between the two: a play, yield,
refresh or choose is one id on both sides, a discard is its picks and ``DISCARD_DONE`` here
and one id there.
"""

from __future__ import annotations

from itertools import combinations

from collections.abc import Sequence
from typing import Any

from regalia.adapters import encoding as E
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import JESTERS, RANK, card_text, cards_of, parse_card


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


# ----------------------------------------------------------------------------- encoding ids


def _hand_cards(view: dict[str, Any]) -> list[int]:
    """Engine card ids of the seat's hand, slot by slot (the first Jester 52, a second 53)."""
    hand = view.get("hand")
    if view.get("seat") is None or hand is None:
        raise ValueError("a spectator's view has no hand: give the view of the seat to act")
    cards, jesters = [], 0
    for t in hand:
        if t == "X":
            cards.append(JESTERS[jesters])
            jesters += 1
        else:
            cards.append(parse_card(t))
    return cards


def _check_id(action: int) -> None:
    if not (type(action) is int and 0 <= action < NUM_ACTIONS):
        raise ValueError(f"{action!r} is not a Regicide OpenSpiel action id "
                         f"(0 to {NUM_ACTIONS - 1})")


def to_encoding_id(view: dict[str, Any], actions: Sequence[int]) -> int:
    """The shared encoding's id (``regalia.adapters.encoding``, 0-515) of one move given as
    OpenSpiel ids, for the seat of ``view`` (``Game.view``; its ``hand`` gives the slots).

    ``actions``: one id of a play, ``YIELD``, ``REFRESH`` or ``CHOOSE + seat``; or a Step 4
    discard: its ``PICK`` ids in ascending card order, then ``DISCARD_DONE``, as OpenSpiel
    plays them (an empty discard: ``[DISCARD_DONE]``). Raises ``ValueError`` for a
    spectator's view, an id out of range, a sequence that is not one move in that form, a
    card not in the hand, a seat past the player count. Legality is not checked: the id is
    that of the engine action the move names, legal or not (``from_encoding_id`` is its
    inverse on legal moves).
    """
    actions = list(actions)
    for a in actions:
        _check_id(a)
    cards = _hand_cards(view)
    hand = 0
    for c in cards:
        hand |= 1 << c
    if not actions:
        raise ValueError("no OpenSpiel id given: a move is one id, or a discard's picks "
                         "and DISCARD_DONE")
    if actions[-1] != DISCARD_DONE:
        if len(actions) != 1 or actions[0] >= PICK:
            raise ValueError(f"{[to_text(a) for a in actions]} is not one move: a discard "
                             "ends with DISCARD_DONE, any other move is one id")
        code = turn_code(actions[0], hand)
        if A.kind(code) == A.CHOOSE and A.arg(code) >= view["players"]:
            raise ValueError(f"{to_text(actions[0])}: there are {view['players']} players")
        if A.kind(code) == A.PLAY and (code & A.ARG_MASK) & ~hand:
            raise ValueError(f"{to_text(actions[0])}: a card of it is not in the hand "
                             f"{view['hand']}")
        return E.regicide_action_id(view, code)
    picked, last = 0, -1
    for a in actions[:-1]:
        if not PICK <= a < DISCARD_DONE:
            raise ValueError(f"{to_text(a)} inside a discard: only picks come before "
                             "DISCARD_DONE")
        c = a - PICK
        if c < last or c == last < 52:
            raise ValueError("picks go in ascending card order, each card once (Jesters "
                             "last)")
        last = c
        if c < 52 and not hand >> c & 1:
            raise ValueError(f"{to_text(a)}: {card_text(c)} is not in the hand "
                             f"{view['hand']}")
        if c == 52 and not any(hand >> j & 1 and not picked >> j & 1 for j in JESTERS):
            raise ValueError(f"{to_text(a)}: no Jester left in the hand {view['hand']}")
        picked |= 1 << pick_card(a, hand, picked)
    return E.regicide_action_id(view, A.DISCARD | picked)


def from_encoding_id(view: dict[str, Any], action_id: int) -> list[int]:
    """The OpenSpiel ids that make the move of the shared encoding's id ``action_id``
    (0-515) for the seat of ``view``: one id, or for a discard its picks in ascending card
    order and ``DISCARD_DONE``.

    Raises ``ValueError`` for a spectator's view, an id out of range, a slot past the end
    of the hand, a play of slots that is no play shape (rules 1.5), or a choice of a seat
    past the player count.
    """
    if not (type(action_id) is int and 0 <= action_id < E.REGICIDE_ACTIONS):
        raise ValueError(f"{action_id!r} is not a Regicide encoding id "
                         f"(0 to {E.REGICIDE_ACTIONS - 1})")
    cards = _hand_cards(view)
    if action_id == E.YIELD_ID:
        return [YIELD]
    if action_id == E.REFRESH_ID:
        return [REFRESH]
    if action_id >= E.CHOOSE_IDS:
        k = action_id - E.CHOOSE_IDS
        if k >= view["players"]:
            raise ValueError(f"id {action_id} chooses the seat {k} places on, but there "
                             f"are {view['players']} players")
        return [CHOOSE + (view["seat"] + k) % view["players"]]
    discard = action_id >= E.DISCARD_IDS
    subset = action_id - (E.DISCARD_IDS if discard else E.PLAY_IDS) + 1
    if subset >> len(cards):
        raise ValueError(f"id {action_id} names a slot past the hand {view['hand']}")
    chosen = [c for i, c in enumerate(cards) if subset >> i & 1]
    if discard:
        return [PICK + min(c, 52) for c in chosen] + [DISCARD_DONE]
    mask = sum(1 << c for c in chosen)
    try:
        if len(chosen) > 1 and mask & _JESTER_BITS:
            raise KeyError(mask)  # a Jester is played alone (rules 1.5)
        return [play_id(A.PLAY | mask)]
    except KeyError:
        raise ValueError(f"id {action_id} plays {[card_text(c) for c in chosen]}, no play "
                         "shape of rules 1.5") from None
