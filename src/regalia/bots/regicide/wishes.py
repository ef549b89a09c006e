"""The public Jester-window wish rule (rules 1.10) that every Regicide bot here states and
reads in its partners' wishes: "yes" (I would like to go next) when the hand can defeat the
enemy now with one card, or holds at least the enemy's attack in value with three cards or
more; "no" otherwise. Two forms of the same rule: ``wish_rule`` on a hand and a view, and
``wish_yes`` compiled on a fast-path position (``regalia.fast.regicide``); the tests check
that they agree."""

from __future__ import annotations

from typing import Any

from regalia.fast import regicide as _fast
from regalia.fast._jit import njit, refresh_cache_if_changed
from regalia.games.regicide.cards import CLUBS, SUIT, VALUE, cards_of, mask_value, parse_card

refresh_cache_if_changed(__file__, _fast.__file__)

from regalia.fast.regicide import (  # noqa: E402
    CANCELLED,
    DAMAGE,
    ENEMY,
    HANDS,
    bit_index,
    hand_value,
    popcount,
)
from regalia.fast.regicide import SUIT as _SUIT  # noqa: E402
from regalia.fast.regicide import VALUE as _VALUE  # noqa: E402


def wish_rule(hand: int, view: dict[str, Any]) -> str:
    """The wish of a seat holding ``hand`` (a card mask) in ``view`` (any seat's view of the
    same position): ``"yes"`` or ``"no"``."""
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


@njit
def wish_yes(st, seat):
    """The wish of ``seat`` in the fast-path position ``st`` ((SIZE,) int64): 1 "yes",
    -1 "no"."""
    hand = st[HANDS + seat]
    if hand == 0:
        return -1
    e = st[ENEMY]
    remaining = 2 * _VALUE[e] - st[DAMAGE]
    hv = hand_value(hand)
    # The best single card's damage: twice its value for a Club the enemy does not block.
    best = 0
    m = hand
    while m:
        low = m & -m
        c = bit_index(low)
        m ^= low
        v = _VALUE[c]
        if c < 52 and _SUIT[c] == 0 and (st[CANCELLED] or _SUIT[e] != 0):
            v *= 2
        if v > best:
            best = v
    if best >= remaining or (hv >= _VALUE[e] and popcount(hand) >= 3):
        return 1
    return -1
