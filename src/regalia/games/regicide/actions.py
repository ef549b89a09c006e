"""Regicide action codes and their text (formats.md 1.3).

An action is an ``int``: its kind in the bits from 56 up, its argument below.

* ``play``: ``PLAY | mask`` (the played cards; a Jester play is ``PLAY | 1 << 52``)
* ``discard``: ``DISCARD | mask``
* ``yield``: ``YIELD``; solo ``jester`` refresh: ``JESTER_REFRESH``
* ``choose SEAT``: ``CHOOSE | seat``
* ``prefer SEAT yes|no``: ``PREFER | seat << 1 | (1 if yes else 0)``
"""

from __future__ import annotations

from regalia.core.errors import IllegalAction
from regalia.games.regicide.cards import (
    JESTERS,
    CardError,
    card_text,
    cards_of,
    parse_card,
)

KIND_SHIFT = 56
ARG_MASK = (1 << KIND_SHIFT) - 1
PLAY = 1 << KIND_SHIFT
DISCARD = 2 << KIND_SHIFT
YIELD = 3 << KIND_SHIFT
JESTER_REFRESH = 4 << KIND_SHIFT
CHOOSE = 5 << KIND_SHIFT
PREFER = 6 << KIND_SHIFT

VERBS = {PLAY: "play", DISCARD: "discard", YIELD: "yield", JESTER_REFRESH: "jester",
         CHOOSE: "choose", PREFER: "prefer"}


def kind(action: int) -> int:
    """The kind bits of an action (``PLAY``, ``DISCARD``, ...)."""
    return action & ~ARG_MASK


def arg(action: int) -> int:
    """The argument bits of an action (a card mask or a seat)."""
    return action & ARG_MASK


def prefer(seat: int, yes: bool) -> int:
    """Action code of ``prefer SEAT yes|no``."""
    return PREFER | seat << 1 | (1 if yes else 0)


def to_text(action: int) -> str:
    """Canonical text of an action code: ``"play 5C 5D"``, ``"choose 2"``.

    Raises ``ValueError`` for a code of no known kind.
    """
    k = action & ~ARG_MASK
    a = action & ARG_MASK
    if k in (PLAY, DISCARD):
        return VERBS[k] + " " + " ".join(card_text(c) for c in cards_of(a))
    if k in (YIELD, JESTER_REFRESH):
        return VERBS[k]
    if k == CHOOSE:
        return f"choose {a}"
    if k == PREFER:
        return f"prefer {a >> 1} {'yes' if a & 1 else 'no'}"
    raise ValueError(f"not a Regicide action code: {action}")


def _is_seat(word: str) -> bool:
    """A seat number as ASCII digits, small enough to stay in the argument bits."""
    return word.isascii() and word.isdigit() and len(word) <= 2


def from_text(text: str, hand_of) -> int:
    """Action code of ``text``.

    ``hand_of(seat_or_None)`` gives the card mask of the hand that a ``play`` or ``discard``
    takes cards from: it decides which Jester id an ``X`` stands for. Cards may come in any
    order. Raises ``IllegalAction`` naming what is unreadable and the accepted forms.
    """
    words = text.split()
    if not words:
        raise IllegalAction(
            "empty action: write play CARD..., yield, jester, discard CARD..., choose SEAT "
            "or prefer SEAT yes|no"
        )
    verb = words[0].lower()
    rest = words[1:]
    if verb in ("play", "discard"):
        if not rest:
            raise IllegalAction(f"{text!r}: {verb} needs at least one card, e.g. '{verb} 7H'")
        hand = hand_of(None)
        mask = 0
        # the hand's Jesters first: "X X" with one held names the other, which it lacks
        jester_ids = sorted(JESTERS, key=lambda j: not hand >> j & 1)
        for w in rest:
            try:
                c = parse_card(w)
            except CardError as e:
                raise IllegalAction(f"{text!r}: {e}") from None
            if c in JESTERS:
                if not jester_ids:
                    raise IllegalAction(f"{text!r}: more Jesters than there are")
                c = jester_ids.pop(0)
            if mask >> c & 1:
                raise IllegalAction(f"{text!r}: {card_text(c)} is named twice")
            mask |= 1 << c
        return (PLAY if verb == "play" else DISCARD) | mask
    if verb in ("yield", "jester"):
        if rest:
            raise IllegalAction(f"{text!r}: {verb} takes no argument")
        return YIELD if verb == "yield" else JESTER_REFRESH
    if verb == "choose":
        if len(rest) != 1 or not _is_seat(rest[0]):
            raise IllegalAction(f"{text!r}: write choose SEAT, with SEAT a seat number 0 to 3")
        return CHOOSE | int(rest[0])
    if verb == "prefer":
        if len(rest) != 2 or not _is_seat(rest[0]) or rest[1].lower() not in ("yes", "no"):
            raise IllegalAction(f"{text!r}: write prefer SEAT yes or prefer SEAT no, with SEAT "
                                "a seat number 0 to 3")
        return prefer(int(rest[0]), rest[1].lower() == "yes")
    raise IllegalAction(
        f"{text!r}: unknown action {verb!r}; the actions are play CARD..., yield, jester, "
        "discard CARD..., choose SEAT and prefer SEAT yes|no"
    )
