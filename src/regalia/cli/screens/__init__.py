"""Per-game terminal screens.

A screen module offers ``HELP`` (what to type at its prompt), ``rules_now(view)`` (the
rules of the decision at hand, shown by ``help``), ``seat_name(seat)`` ("Player N"),
``describe(event) -> str``, ``cards_text(cards)`` (cards, e.g. a hand, as Rich text),
``render(view, bots)`` (a Rich renderable of a seat's view, the seats in ``bots`` marked as
bots), ``menu(view, legal) -> list`` (the actions to number),
``label(action_text) -> str``, ``complete(text, view) -> str | None`` (turns typed shorthand
into action text; ``None``: the text is no move at all), ``refusal(message) -> str`` and
``result(view)`` (the end-of-game line). ``describe``, ``render``, ``label``, ``complete``,
``refusal`` and ``result`` take a last argument ``seat_names(seat) -> str`` that names the
seats (``regalia.cli.names.SeatNames``; default ``seat_name``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rich.padding import Padding
from rich.text import Text

FRAME_WIDTH = 84
"""Columns of the table frame: the same every turn (narrower only on a narrower terminal)."""


def screen_for(game: str) -> ModuleType:
    """The screen module of ``game``."""
    return importlib.import_module(f"regalia.cli.screens.{game}")


def indented(text: str, indent: int = 2, style: str = "") -> Padding:
    """``text`` shifted right by ``indent`` columns, its wrapped lines too (a log line)."""
    return Padding(Text(text, style=style), (0, 0, 0, indent), expand=False)
