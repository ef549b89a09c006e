"""The Le Roy des Ribauds state record (rules 2.1-2.7; formats.md 2.2).

Besides the omniscient position (formats.md 2.2) the state keeps what each seat knows
(rules 2.7), so that ``view`` needs no memory outside the state:

* ``know[seat][slot]``: the card id ``seat`` knows lies in Court slot ``slot``, or ``-1``.
  Face-up slots are known to both seats. A face-down slot is known to a seat that placed it
  face down, looked at it with an Assassin, or saw it face up before a Knight flip hid it;
  the knowledge follows the card through a Knight swap. It is never wrong: a known slot
  always holds the card believed.
* ``seen[seat]``: count vector (4 counts by type) of cards ``seat`` knows are in the
  *opponent's* hand right now: a multiset included in that hand at all times. It grows
  when the opponent takes a card the seat knows (a face-up Court card, a face-down card the
  seat knew, a Reine publicly known to lie at the bottom of the draw pile) and with the
  seat's Reine inspections (the non-Reine cards seen stay in the opponent's hand); it
  shrinks when the opponent gives up cards: a card shown (placed face up, discarded) removes
  one of its type; a card hidden (placed face down) removes one of *every* type, since the
  seat cannot tell which card left. Which seat knows which slot, and ``seen`` itself, only
  change through public events and the Reine's inspection (whose owner learns which cards
  were seen), so each seat can also be shown what its opponent knows of it.
* ``bottom_reines``: how many bottom cards of the draw pile are publicly known to be
  Reines, from the public single re-deal (rules 2.2 step 4, 3.L17).
* ``redeals``: the public record of the setup re-deals (list of dicts).

A state read from a position JSON holds no knowledge beyond the public: face-up cards are
known to both seats, face-down ones to neither, ``seen`` is empty, ``bottom_reines`` 0.

Piles are Python lists with the **top card last** (``pop()`` draws), unlike the position
JSON, which lists them top first. The engine never mutates a state it was given: ``apply``
works on a ``copy()``.

``to_json`` writes a state as its position object (formats.md 2.2): every field, piles top
card first, hands in canonical order (K Q N A). It holds no knowledge: what each seat knows
lives only in the state; ``position.from_json`` reads one back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from regalia.core.options import RuleOptions
from regalia.games.ribauds.cards import LETTERS, cards_of
from regalia.games.ribauds.inferred import REPLACED_CARD_CHOICES, REPLACED_CARD_DEFAULT

ACT = "act"
KNIGHT_SWAP = "knight_swap"
KNIGHT_FLIP = "knight_flip"
KING_CHOICE = "king"
KING_DISCARD = "king_discard"
ASSASSIN_PEEK = "assassin"
WON = "won"
PHASES = (ACT, KNIGHT_SWAP, KNIGHT_FLIP, KING_CHOICE, KING_DISCARD, ASSASSIN_PEEK, WON)

CORONATION, MARRIAGE, MURDER = "coronation", "marriage", "murder"
CONSPIRACIES = (CORONATION, MARRIAGE, MURDER)

UNKNOWN = -1  # a Court slot whose card a seat does not know


@dataclass(frozen=True)
class Options(RuleOptions):
    """Rule options (rules page, "Rule options"); the defaults are the rules as stated.

    ``replaced_card``: ``"hand"`` (3.L2, default) or ``"discard"``; ``first_player``: a seat
    number, or ``None`` for a random first player drawn from the game's seed.
    """

    replaced_card: str = REPLACED_CARD_DEFAULT
    first_player: int | None = None

    @classmethod
    def problem(cls, key: str, value: Any, players: int | None) -> str | None:
        if key == "first_player" and value is not None and (type(value) is not int
                                                             or value not in (0, 1)):
            return "must be 0, 1 or null"
        if key == "replaced_card" and value not in REPLACED_CARD_CHOICES:
            return f"{value!r}; choose " + " or ".join(repr(v) for v in REPLACED_CARD_CHOICES)
        return None

class State:
    """One Le Roy des Ribauds position, omniscient, plus each seat's knowledge.

    Fields: ``current`` seat (0 or 1; in phase ``won`` the winner); ``phase`` (one of
    ``PHASES``); ``court``: 4 card ids, slot 0 first; ``up``: face-up bit mask, bit ``i`` set
    when slot ``i`` is face up;
    ``hands``: per seat a count vector (4 counts by type; 3 cards between actions, 5 in
    ``king_discard``); ``deck``, ``discard``: card id lists, top last; ``winner`` seat or
    ``None``; ``conspiracy`` name or ``None``; ``options``; ``know``, ``seen``,
    ``bottom_reines``, ``redeals`` (see the module docstring); ``log``: the persistent event
    log, ``(event, older)`` or ``None``.
    """

    __slots__ = ("current", "phase", "court", "up", "hands", "deck", "discard", "winner",
                 "conspiracy", "options", "know", "seen", "bottom_reines", "redeals", "log")

    def copy(self) -> "State":
        """A copy sharing nothing mutable with ``self`` (the log is persistent, so shared)."""
        s = State.__new__(State)
        s.current = self.current
        s.phase = self.phase
        s.court = self.court[:]
        s.up = self.up
        h = self.hands
        s.hands = [h[0][:], h[1][:]]
        s.deck = self.deck[:]
        s.discard = self.discard[:]
        s.winner = self.winner
        s.conspiracy = self.conspiracy
        s.options = self.options
        k = self.know
        s.know = [k[0][:], k[1][:]]
        n = self.seen
        s.seen = [n[0][:], n[1][:]]
        s.bottom_reines = self.bottom_reines
        s.redeals = self.redeals  # a tuple, never changed after setup
        s.log = self.log
        return s

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__ if k != "log")

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<ribauds.State {to_json(self)}>"


def to_json(s: State) -> dict[str, Any]:
    """The position object of ``s`` (formats.md 2.2)."""
    return {
        "game": "ribauds",
        "current": s.current,
        "phase": s.phase,
        "court": [LETTERS[c] + ("+" if s.up >> i & 1 else "-") for i, c in enumerate(s.court)],
        "hands": [[LETTERS[c] for c in cards_of(h)] for h in s.hands],
        "deck": [LETTERS[c] for c in reversed(s.deck)],
        "discard": [LETTERS[c] for c in reversed(s.discard)],
        "winner": s.winner,
        "conspiracy": s.conspiracy,
        "options": s.options.to_dict(),
    }
