"""Regicide cards (rules 1.1, 1.2; formats.md 1.1).

A card is an ``int`` id: ``(rank - 1) * 4 + suit`` for ranks 1 (Ace) to 13 (King) and suits
0 Clubs, 1 Diamonds, 2 Hearts, 3 Spades, so ids 0..51 in canonical order; the two Jesters
are 52 and 53 (both written ``X``). A set of cards (a hand, a play) is an ``int`` bit mask
with bit ``id`` set for each card.
"""

from __future__ import annotations

from regalia.core.errors import RegaliaError

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_LETTERS = "CDHS"
RANK_LETTERS = "A23456789TJQK"
SUIT_SYMBOLS = "♣♦♥♠"
JESTER = 52
JESTERS = (52, 53)
JESTER_MASK = (1 << 52) | (1 << 53)
ALL_CARDS = tuple(range(54))
JACK, QUEEN, KING = 11, 12, 13

RANK = tuple([i // 4 + 1 for i in range(52)] + [0, 0])
SUIT = tuple([i % 4 for i in range(52)] + [-1, -1])
# Value of a card when played or discarded (rules 1.2).
VALUE = tuple(
    [(r if r <= 10 else {JACK: 10, QUEEN: 15, KING: 20}[r]) for r in RANK[:52]] + [0, 0]
)
# Enemy statistics by rank (rules 1.2).
ATTACK = {JACK: 10, QUEEN: 15, KING: 20}
HEALTH = {JACK: 20, QUEEN: 30, KING: 40}
TEXT = tuple([RANK_LETTERS[RANK[i] - 1] + SUIT_LETTERS[SUIT[i]] for i in range(52)] + ["X", "X"])
IS_ROYAL = tuple(RANK[i] >= JACK for i in range(54))
IS_ACE = tuple(RANK[i] == 1 for i in range(54))

_PARSE = {TEXT[i]: i for i in range(52)}
for _i in range(52):
    if RANK[_i] == 10:
        _PARSE["10" + SUIT_LETTERS[SUIT[_i]]] = _i


class CardError(RegaliaError):
    """A card text that is not a Regicide card."""


def parse_card(text: str) -> int:
    """Card id of ``text`` (``"TD"``, ``"10d"``, ``"X"``; case-insensitive).

    A Jester parses as 52; callers holding two Jesters pick the id. Raises ``CardError``.
    """
    t = text.strip().upper()
    if t == "X":
        return JESTER
    try:
        return _PARSE[t]
    except KeyError:
        raise CardError(
            f"{text!r} is not a card: write rank A 2-9 T(or 10) J Q K then suit C D H S, or X"
        ) from None


def card_text(card: int) -> str:
    """Notation of a card id (``"TD"``, ``"X"``)."""
    return TEXT[card]


def pretty(card: int) -> str:
    """A card for people: ``"10♦"``, ``"Jester"``."""
    if card >= 52:
        return "Jester"
    r = RANK_LETTERS[RANK[card] - 1]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[SUIT[card]]


def cards_of(mask: int) -> list[int]:
    """Card ids of a bit mask, in canonical order (rank, then suit C D H S, Jesters last)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards) -> int:
    """Bit mask of an iterable of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def mask_value(mask: int) -> int:
    """Total value of the cards of ``mask`` (rules 1.2)."""
    total = 0
    while mask:
        low = mask & -mask
        total += VALUE[low.bit_length() - 1]
        mask ^= low
    return total


def texts(cards) -> list[str]:
    """Notation of card ids, in the given order."""
    return [TEXT[c] for c in cards]


def mask_texts(mask: int) -> list[str]:
    """Canonical notation of the cards of a mask."""
    return [TEXT[c] for c in cards_of(mask)]
