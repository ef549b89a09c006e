"""The names of the seats at the terminal, as the browser's tables give them.

A human seat is its player's name (``regalia play --name``), else "Player N"; a bot seat is
"Bot (KIND)", numbered by its seat when two bots of one kind sit ("Bot 2 (heuristic)",
"Bot 3 (heuristic)"); the one person of a game against bots (or solo) is "You", and so is
the seat a replay is shown for. ``SeatNames`` is the ``name`` argument of the games'
``describe`` functions and of the screens (``"You"`` makes their verbs agree: "You play").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

YOU = "You"
NAME_MAX = 24
"""The longest name, in characters (as at the tables in the browser)."""

# Labels a person's name must not pass for (as the server's ``gamekit.clean_name`` refuses
# them): "Bot...", "Player 2", "Nobody", and here "You".
_LABELS = re.compile(r"(bot|you)\b|player\s*\d+\b|nobody$")


def clean_name(name: str) -> str | None:
    """A name typed for a seat: control characters made spaces, runs of spaces made one,
    trimmed; ``None`` when empty, longer than ``NAME_MAX`` or read as a label ("Bot...",
    "Player N", "Nobody", "You")."""
    name = " ".join("".join(" " if unicodedata.category(ch)[0] == "C" else ch
                            for ch in name).split())
    if not name or len(name) > NAME_MAX:
        return None
    if _LABELS.match(unicodedata.normalize("NFKC", name).casefold()):
        return None
    return name


class SeatNames:
    """The name of each seat from one seat's eyes (``you``: that seat is "You"; ``None``:
    nobody's). ``bots``: seat -> bot name; ``names``: seat -> a person's name. Called with a
    seat (0-based) it gives the name to show; ``None`` is "Nobody"."""

    def __init__(self, players: int, bots: Mapping[int, str] | None = None,
                 names: Mapping[int, str] | None = None, you: int | None = None) -> None:
        self.players = players
        self.bots = dict(bots or {})
        self.names = {s: n for s, n in (names or {}).items() if s not in self.bots}
        self.you = you

    def label(self, seat: int) -> str:
        """The seat's name from nobody's eyes: a person's name, "Bot (KIND)" or "Player N"."""
        if seat in self.bots:
            kind = self.bots[seat]
            twin = any(s != seat and b == kind for s, b in self.bots.items())
            return f"Bot {seat + 1} ({kind})" if twin else f"Bot ({kind})"
        return self.names.get(seat) or f"Player {seat + 1}"

    def __call__(self, seat: int | None) -> str:
        if seat is None:
            return "Nobody"
        return YOU if seat == self.you else self.label(seat)

    def numbered(self) -> str:
        """Each seat's number from 1 with its name: ``1 is you, 2 is Bot (heuristic)``."""
        return ", ".join(f"{s + 1} is {lower(self(s))}" for s in range(self.players))


def lower(name: str) -> str:
    """A name inside a sentence: "you" for "You", any other name as it is."""
    return "you" if name == YOU else name
