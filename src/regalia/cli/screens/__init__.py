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

A game its players ended before its rules did (``core.records.Ending``: a concession, a stop
agreed by all) is told the same way in every game: ``ending_sentence`` (its log line) and
``ending_result`` (its end-of-game line).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from typing import Any, Callable

from rich.padding import Padding
from rich.text import Text

from regalia.cli.names import YOU, lower
from regalia.core.records import CONCEDED, Ending

FRAME_WIDTH = 84
"""Columns of the table frame: the same every turn (narrower only on a narrower terminal)."""


def screen_for(game: str) -> ModuleType:
    """The screen module of ``game``."""
    return importlib.import_module(f"regalia.cli.screens.{game}")


def indented(text: str, indent: int = 2, style: str = "") -> Padding:
    """``text`` shifted right by ``indent`` columns, its wrapped lines too (a log line)."""
    return Padding(Text(text, style=style), (0, 0, 0, indent), expand=False)


def ending_sentence(ending: Ending, seat_names: Callable[[int | None], str]) -> str:
    """The log's line of a game its players ended: "Ann conceded.", or who proposed to stop
    and that everyone agreed."""
    who = seat_names(ending.seat)
    if ending.how == CONCEDED:
        return f"{who} conceded."
    return f"{who} proposed to stop and every player agreed: the game is stopped by agreement."


def ending_result(ending: Ending, seat_names: Callable[[int | None], str], players: int,
                  view: dict[str, Any] | None = None) -> Text:
    """The end-of-game line of a game its players ended: conceded at two players, "Bea
    wins: Ann conceded" (green when you won, red when you conceded); stopped, a defeat
    (with the enemies defeated, from ``view``, when it tells them)."""
    if ending.how == CONCEDED and players == 2:
        winner, loser = seat_names(1 - ending.seat), seat_names(ending.seat)
        return Text(f"{winner} {'win' if winner == YOU else 'wins'}: {lower(loser)} conceded",
                    style="bold red" if loser == YOU else "bold green")
    if ending.how == CONCEDED:
        return Text(f"{seat_names(ending.seat)} conceded.", style="bold red")
    defeated = (view or {}).get("enemies_defeated")
    extra = f", {defeated} of 12 enemies defeated" if defeated is not None else ""
    return Text(f"Defeat: the game was stopped by agreement{extra}.", style="bold red")
