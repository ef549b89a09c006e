"""The games. ``get_game(name)`` returns a game's rules object (the Game protocol)."""

from __future__ import annotations

from regalia.core.game import Game


def get_game(name: str) -> Game:
    """The rules object of ``name`` (``"regicide"`` or ``"ribauds"``); ``KeyError`` otherwise."""
    try:
        return _LOADED[name]
    except KeyError:
        pass
    if name == "regicide":
        from regalia.games.regicide import REGICIDE as game
    elif name == "ribauds":
        from regalia.games.ribauds import RIBAUDS as game
    else:
        raise KeyError(f"unknown game {name!r}: choose regicide or ribauds")
    _LOADED[name] = game
    return game


_LOADED: dict[str, Game] = {}  # each game's rules object once imported (a server asks often)

GAME_NAMES = ("regicide", "ribauds")
TITLES = {"regicide": "Regicide", "ribauds": "Le Roy des Ribauds"}  # the names players read
