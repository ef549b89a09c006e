"""The game-independent core: the Game protocol, errors, events and game records.

The lowest layer: it imports no other Regalia package (a record replays with the ``Game``
it is handed).
"""

from regalia.core.errors import IllegalAction, InvalidPosition, RegaliaError
from regalia.core.game import Event, Game
from regalia.core.records import GameRecord, Match

__all__ = ["Event", "Game", "GameRecord", "IllegalAction", "InvalidPosition", "Match", "RegaliaError"]
