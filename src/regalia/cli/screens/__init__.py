"""Per-game terminal screens.

A screen module offers ``seat_name(seat)``, ``describe(event) -> str``, ``render(view)``
(a Rich renderable of a seat's view), ``menu(view, legal) -> list`` (the actions to number,
at most ``MENU_LIMIT``), ``label(action_text) -> str``, ``complete(text, view) -> str``
(turns typed shorthand into action text) and ``result(view)`` (the end-of-game line).
"""

from __future__ import annotations

import importlib
from types import ModuleType


def screen_for(game: str) -> ModuleType:
    """The screen module of ``game``."""
    return importlib.import_module(f"regalia.cli.screens.{game}")
