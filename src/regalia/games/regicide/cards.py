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
            f"{text!r} is not a card: write rank A 2-9 T(or 10) J Q K then suit C D H S, "
            "or X for a Jester"
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


# A mask is read a byte at a time (bits 8k to 8k+7, from ``mask.to_bytes(7, "little")``, so
# no arithmetic on the whole mask), through tables of the card ids and the total value of every
# byte: a hand costs seven look-ups instead of a loop over its cards.
_BYTE_CARDS = tuple(tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256))
                    for k in range(7))
_BYTE_VALUE = tuple(tuple(sum(VALUE[c] for c in cards if c < 54) for cards in table)
                    for table in _BYTE_CARDS)
_BYTE_BITS = tuple(tuple(tuple(1 << c for c in cards) for cards in table) for table in _BYTE_CARDS)
_BYTE_VALUES = tuple(tuple(tuple(VALUE[c] for c in cards if c < 54) for cards in table)
                     for table in _BYTE_CARDS)


def cards_of(mask: int) -> list[int]:
    """Card ids of a bit mask (``0 <= mask < 2**56``), in canonical order (rank, then suit
    C D H S, Jesters last)."""
    c0, c1, c2, c3, c4, c5, c6 = _BYTE_CARDS
    b0, b1, b2, b3, b4, b5, b6 = mask.to_bytes(7, "little")
    return [*c0[b0], *c1[b1], *c2[b2], *c3[b3], *c4[b4], *c5[b5], *c6[b6]]


def bits_of(mask: int) -> list[int]:
    """The one-card masks ``1 << id`` of the cards of a mask (``0 <= mask < 2**56``), in
    canonical order."""
    c0, c1, c2, c3, c4, c5, c6 = _BYTE_BITS
    b0, b1, b2, b3, b4, b5, b6 = mask.to_bytes(7, "little")
    return [*c0[b0], *c1[b1], *c2[b2], *c3[b3], *c4[b4], *c5[b5], *c6[b6]]


def values_of(mask: int) -> tuple[int, ...]:
    """The values of the cards of a mask (rules 1.2), in canonical order."""
    v0, v1, v2, v3, v4, v5, v6 = _BYTE_VALUES
    b0, b1, b2, b3, b4, b5, b6 = mask.to_bytes(7, "little")
    return (*v0[b0], *v1[b1], *v2[b2], *v3[b3], *v4[b4], *v5[b5], *v6[b6])


def mask_of(cards) -> int:
    """Bit mask of an iterable of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def mask_value(mask: int) -> int:
    """Total value of the cards of ``mask`` (rules 1.2)."""
    v0, v1, v2, v3, v4, v5, v6 = _BYTE_VALUE
    b0, b1, b2, b3, b4, b5, b6 = mask.to_bytes(7, "little")
    return v0[b0] + v1[b1] + v2[b2] + v3[b3] + v4[b4] + v5[b5] + v6[b6]


def texts(cards) -> list[str]:
    """Notation of card ids, in the given order."""
    return [TEXT[c] for c in cards]


def mask_texts(mask: int) -> list[str]:
    """Canonical notation of the cards of a mask."""
    return [TEXT[c] for c in cards_of(mask)]
