"""Le Roy des Ribauds cards (rules 2.1; formats.md 2.1).

A card is an ``int`` type id: 0 Roi (``K``), 1 Reine (``Q``), 2 Chevalier (``N``),
3 Assassin (``A``). Cards of one type are interchangeable, so a hand is a list of 4 counts
indexed by type (``[kings, queens, knights, assassins]``). Canonical order, used by every
writer: K Q N A (the order of formats.md 2.1).
"""

from __future__ import annotations

from regalia.core.errors import RegaliaError

KING, QUEEN, KNIGHT, ASSASSIN = 0, 1, 2, 3
TYPES = (KING, QUEEN, KNIGHT, ASSASSIN)
LETTERS = "KQNA"
NAMES = ("Roi", "Reine", "Chevalier", "Assassin")

_PARSE = {letter: i for i, letter in enumerate(LETTERS)}


class CardError(RegaliaError):
    """A card text that is not a Le Roy des Ribauds card."""


def parse_card(text: str) -> int:
    """Card id of ``text`` (``"K"``, ``"q"``; case-insensitive). Raises ``CardError``."""
    try:
        return _PARSE[text.strip().upper()]
    except (KeyError, AttributeError):
        raise CardError(
            f"{text!r} is not a card: write K (Roi), Q (Reine), N (Chevalier) or A (Assassin)"
        ) from None


def cards_of(counts) -> list[int]:
    """The cards of a count vector (4 counts by type), in canonical order."""
    out: list[int] = []
    for c in TYPES:
        out.extend([c] * counts[c])
    return out


def counts_of(cards) -> list[int]:
    """The count vector (4 counts by type) of a list of card ids."""
    out = [0, 0, 0, 0]
    for c in cards:
        out[c] += 1
    return out


def texts(cards) -> list[str]:
    """Letters of a list of card ids, in the given order."""
    return [LETTERS[c] for c in cards]
