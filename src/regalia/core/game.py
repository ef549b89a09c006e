"""The Game protocol shared by every game (design.md, "core").

A game is a stateless object offering pure functions over its own immutable-by-contract
state records, in the spirit of OpenSpiel's Game/State and Pgx:

* ``new_game(config, rng)`` builds the initial state from a configuration and a seeded
  ``random.Random``;
* ``current_seat(state)`` is the seat whose decision it is (``None`` once terminal);
* ``legal_actions(state)`` lists the legal actions of that seat, as ``int`` codes;
* ``apply(state, action, rng)`` returns ``(new_state, events)`` and never mutates ``state``;
* ``view(state, seat)`` is everything that seat may know (``seat=None``: a spectator);
* ``is_terminal(state)`` / ``returns(state)``;
* ``to_json(state)`` / ``from_json(obj)`` read and write positions (formats.md);
* ``action_to_text(state, action)`` / ``action_from_text(state, text)`` read and write the
  action notation (formats.md).

Randomness comes only from the ``rng`` passed in: the same seed and actions always give the
same game.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, NamedTuple


class Event(NamedTuple):
    """Something that happened, for the game log.

    ``kind`` names it (``"play"``, ``"draw"``, ...), ``seat`` is the acting seat or ``None``,
    ``data`` is a JSON-able dict every seat may see, ``private`` maps a seat to the extra
    JSON-able data only that seat may see (``None`` when nothing is private).
    """

    kind: str
    seat: int | None
    data: dict[str, Any]
    private: dict[int, dict[str, Any]] | None = None

    def seen_by(self, seat: int | None) -> dict[str, Any]:
        """The event as ``seat`` may see it: a JSON-able dict with ``kind`` and ``seat``.

        ``seat=None`` is a spectator, who sees only the public part.
        """
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat, **self.data}
        if self.private and seat is not None and seat in self.private:
            out.update(self.private[seat])
        return out


def log_events(log: tuple | None) -> list[Event]:
    """Events of a state's persistent log (a ``(event, older)`` linked list), oldest first."""
    out = []
    while log is not None:
        out.append(log[0])
        log = log[1]
    out.reverse()
    return out


def events_since(log: tuple | None, older: tuple | None) -> list[Event]:
    """Events of the persistent log ``log`` added after ``older`` (the log of an earlier
    state of the same game, ``None``: from the start), oldest first: a walk over the new
    events only. Raises ``ValueError`` when ``older`` is not part of ``log``."""
    out = []
    while log is not older:
        if log is None:
            raise ValueError("the older log is not part of this one")
        out.append(log[0])
        log = log[1]
    out.reverse()
    return out


class Game(ABC):
    """One game's rules. Subclasses are stateless singletons."""

    name: str
    min_players: int
    max_players: int
    # What a server offers around the rules (the defaults: free talk, no hints, no analysis).
    talk: str = "chat"  # "chat": free text between the players; "say": only fixed public
                        # messages whose parameters come from the public view
    solo_hints: bool = False  # a solo table may be created with hints (the default bot's move)
    analysable: bool = False  # a finished game can be analysed decision by decision
    # How the players may end a game before its rules do, at a table (never an action of
    # the rules: the record's ``ending``): "concede": one player resigns and the others win;
    # "agree": every player agrees to stop, a loss for all (a cooperative game).
    early_end: str = "concede"

    @abstractmethod
    def new_game(self, config: dict[str, Any], rng: random.Random) -> Any:
        """Initial state for ``config`` (``players`` plus rule options), dealt with ``rng``.

        Raises ``InvalidPosition`` for an unknown option or an impossible player count.
        """

    @abstractmethod
    def current_seat(self, state: Any) -> int | None:
        """Seat to act, or ``None`` when the game is over."""

    @abstractmethod
    def legal_actions(self, state: Any) -> list[int]:
        """Legal actions of the seat to act, each once, as action codes."""

    @abstractmethod
    def apply(self, state: Any, action: int, rng: random.Random) -> tuple[Any, list[Event]]:
        """``(new_state, events)`` after ``action``; raises ``IllegalAction``, state untouched."""

    @abstractmethod
    def view(self, state: Any, seat: int | None, log: bool = True) -> dict[str, Any]:
        """JSON-able dict of what ``seat`` may know; ``None`` is a spectator. Its ``log``
        (the events as ``seat`` sees them, oldest first) is left out with ``log=False``
        (a caller that keeps the log itself: ``events_since``)."""

    @abstractmethod
    def is_terminal(self, state: Any) -> bool:
        """Whether the game is over."""

    @abstractmethod
    def returns(self, state: Any) -> list[float]:
        """Per-seat result of a finished game (1 win, 0 loss)."""

    @abstractmethod
    def to_json(self, state: Any) -> dict[str, Any]:
        """The position JSON object of ``state`` (formats.md)."""

    @abstractmethod
    def from_json(self, obj: Any) -> Any:
        """State from a position JSON object; raises ``InvalidPosition`` naming the field."""

    @abstractmethod
    def action_to_text(self, state: Any, action: int) -> str:
        """Canonical text of ``action`` (formats.md)."""

    @abstractmethod
    def action_from_text(self, state: Any, text: str) -> int:
        """Action code of ``text`` in ``state``; raises ``IllegalAction`` when unreadable."""

    def all_legal_texts(self, state: Any) -> list[str]:
        """Every legal action of the position as canonical text, including side actions
        that seats other than the one to act may take (Regicide's ``prefer``)."""
        return [self.action_to_text(state, a) for a in self.legal_actions(state)]

    def apply_text(self, state: Any, text: str, rng: random.Random) -> tuple[Any, list[Event]]:
        """Parse ``text`` and apply it; raises ``IllegalAction``."""
        return self.apply(state, self.action_from_text(state, text), rng)

    def hint_reason(self, view: dict[str, Any], action: int) -> dict[str, Any] | None:
        """Why ``action`` (a legal action code of the seat whose ``view`` this is) is a good
        move, as ``{"key": KIND, **params}`` for a page to put in words, read from the view
        alone; ``None`` (the default) where the game gives no reasons."""
        return None
