"""The games. ``get_game(name)`` returns a game's rules object (the Game protocol)."""

from __future__ import annotations

from regalia.core.game import Game


def get_game(name: str) -> Game:
    """The rules object of ``name`` (``"regicide"`` or ``"ribauds"``); ``KeyError`` otherwise."""
    if name == "regicide":
        from regalia.games.regicide import REGICIDE

        return REGICIDE
    if name == "ribauds":
        from regalia.games.ribauds import RIBAUDS

        return RIBAUDS
    raise KeyError(f"unknown game {name!r}: choose regicide or ribauds")


GAME_NAMES = ("regicide", "ribauds")
TITLES = {"regicide": "Regicide", "ribauds": "Le Roy des Ribauds"}  # the names players read
