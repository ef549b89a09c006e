"""The two rules of Le Roy des Ribauds that rest on inference, kept here so they can change.

* rules 3.L1 (deck composition): the sources say 16 cards of four types, not how many of
  each; we take 4 Roi, 4 Reine, 4 Chevalier, 4 Assassin (``COPIES``).
* rules 3.L2 (where a replaced Court card goes): into the active player's hand (a swap);
  the other reading, "face up to the discard pile, then draw 1", is the rule option
  ``replaced_card = "discard"``. ``REPLACED_CARD_DEFAULT`` is the default of that option.

Nothing else in the package hard-codes either choice: the deck is built from ``COPIES``
(``full_deck``), position reading refuses more than ``COPIES`` cards of a type, and the
Replace action asks ``replaced_card_to_hand``.
"""

from __future__ import annotations

# rules 3.L1: copies of each of the four card types (Roi, Reine, Chevalier, Assassin).
COPIES = (4, 4, 4, 4)

# rules 3.L2: where the card taken out of the Court by Replace goes, by default.
REPLACED_CARD_DEFAULT = "hand"
REPLACED_CARD_CHOICES = ("hand", "discard")


def full_deck() -> list[int]:
    """The 16 game cards as card ids (rules 2.1, 3.L1), in canonical order (K Q N A)."""
    return [card for card, n in enumerate(COPIES) for _ in range(n)]


def replaced_card_to_hand(replaced_card: str) -> bool:
    """Whether a Court card replaced from hand goes into the active player's hand (3.L2).

    ``replaced_card`` is the option value: ``"hand"`` (default) or ``"discard"`` (face up to
    the discard pile, and the active player draws 1 card).
    """
    return replaced_card == "hand"
