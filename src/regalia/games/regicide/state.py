"""The Regicide state record (rules 1.1, 1.3; formats.md 1.2).

Piles are Python lists with the **top card last** (``pop()`` draws), unlike the position
JSON, which lists them top first. Hands are card bit masks (see ``cards``). The engine never
mutates a state it was given: ``apply`` works on a ``successor()``, which shares the piles
with the state it came from, so the rules replace a pile instead of changing it in place.

``to_json`` writes a state as its position object (formats.md 1.2): every field, piles top
card first, hands in canonical order; ``position.from_json`` reads one back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from regalia.core.options import RuleOptions
from regalia.games.regicide.cards import TEXT, cards_of

PLAY, SUFFER, CHOOSE, WON, LOST = "play", "suffer", "choose", "won", "lost"
PHASES = (PLAY, SUFFER, CHOOSE, WON, LOST)
OVER = (WON, LOST)  # the phases of a finished game
MAX_HAND = {1: 8, 2: 7, 3: 6, 4: 5}  # rules 1.3
JESTERS_IN_TAVERN = {1: 0, 2: 0, 3: 1, 4: 2}  # rules 1.3


@dataclass(frozen=True)
class Options(RuleOptions):
    """Rule options (rules page, "Rule options"); the defaults are the rules as stated."""

    solo_yield: bool = False
    jester_choose_self: bool = True
    minimal_discard: bool = False
    first_player: int | None = None

    @classmethod
    def problem(cls, key: str, value: Any, players: int | None) -> str | None:
        """Why ``value`` is not allowed for option ``key`` with ``players`` players (``None``:
        not known yet), or ``None``; seats count from 0, as in the formats."""
        if key == "first_player":
            if value is not None and (type(value) is not int or value < 0
                                      or (players is not None and value >= players)):
                if players == 1:
                    return "must be 0 (the only seat) or null"
                if players is not None:
                    return f"must be a seat number from 0 to {players - 1} or null"
                return "must be a seat number or null"
        elif type(value) is not bool:
            return "must be true or false"
        elif key == "solo_yield" and value and players is not None and players > 1:
            return ("yielding in solo is for 1-player games only; with 2 to 4 players rules "
                    "1.11 decide when a player may yield")
        return None

class State:
    """One Regicide position, omniscient.

    Fields: ``players`` (1-4); ``current`` seat; ``phase`` (``play``, ``suffer``,
    ``choose``, ``won``, ``lost``); ``enemy`` card id or ``None``; ``damage`` taken by it;
    ``cancelled`` (a Jester cancelled its immunity); ``table``: list of play masks, oldest
    first; ``spades``: sum of the attack values of the table's Spade-containing plays (the
    shield before immunity, rules 1.9); ``castle``, ``tavern``, ``discard``: card id lists,
    top last; ``known_top``: how many top Tavern cards are public (exact-kill royals, rules
    1.15); ``hands``: card masks per seat; ``yielded``: per seat; ``jesters``: solo refreshes
    left; ``preferences``: per seat ``"yes"``, ``"no"`` or ``None``; ``options``;
    ``log``: the persistent event log, ``(event, older)`` or ``None``.
    """

    __slots__ = ("players", "current", "phase", "enemy", "damage", "cancelled", "table",
                 "spades", "castle", "tavern", "discard", "known_top", "hands", "yielded",
                 "jesters", "preferences", "options", "log")

    def successor(self) -> "State":
        """The copy ``apply`` changes into the next position: it shares the piles
        (``table``, ``castle``, ``tavern``, ``discard``), ``yielded`` and ``preferences``
        with ``self``, as the rules never change those lists in place but replace them;
        ``hands`` is copied."""
        s = State.__new__(State)
        s.players = self.players
        s.current = self.current
        s.phase = self.phase
        s.enemy = self.enemy
        s.damage = self.damage
        s.cancelled = self.cancelled
        s.table = self.table
        s.spades = self.spades
        s.castle = self.castle
        s.tavern = self.tavern
        s.discard = self.discard
        s.known_top = self.known_top
        s.hands = self.hands[:]
        s.yielded = self.yielded
        s.jesters = self.jesters
        s.preferences = self.preferences
        s.options = self.options
        s.log = self.log
        return s

    def copy(self) -> "State":
        """A copy sharing nothing mutable with ``self`` (the log is persistent, so shared)."""
        s = self.successor()
        s.table, s.castle, s.tavern = self.table[:], self.castle[:], self.tavern[:]
        s.discard, s.yielded, s.preferences = self.discard[:], self.yielded[:], self.preferences[:]
        return s

    @property
    def max_hand(self) -> int:
        """Maximum hand size for the player count (rules 1.3)."""
        return MAX_HAND[self.players]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        # The two Jesters are the same card: positions compare by their JSON form.
        return to_json(self) == to_json(other)

    def __repr__(self) -> str:
        return f"<regicide.State {to_json(self)}>"


def to_json(s: State) -> dict[str, Any]:
    """The position object of ``s`` (formats.md 1.2)."""
    return {
        "game": "regicide",
        "players": s.players,
        "current": s.current,
        "phase": s.phase,
        "enemy": TEXT[s.enemy] if s.enemy is not None else None,
        "damage": s.damage,
        "immunity_cancelled": s.cancelled,
        "table": [[TEXT[c] for c in cards_of(m)] for m in s.table],
        "castle": [TEXT[c] for c in reversed(s.castle)],
        "tavern": [TEXT[c] for c in reversed(s.tavern)],
        "discard": [TEXT[c] for c in reversed(s.discard)],
        "hands": [[TEXT[c] for c in cards_of(h)] for h in s.hands],
        "yielded": list(s.yielded),
        "jesters": s.jesters,
        "preferences": list(s.preferences),
        "options": s.options.to_dict(),
    }
