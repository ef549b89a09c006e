"""A saved game in the terminal (``regalia replay``): move by move at the keyboard, or the
whole game at once (each move and the table after it) when the output is not read by a
person at a terminal.

``ReplayScreen(record, seat)``: ``seat`` is whose eyes the game is shown through (0-based,
as in the records), ``None`` for everything, every hand included. The seats are named as
they were in the game (the record's ``names`` and ``bots``, else "Player N"; the one person
of a game against bots or solo, saved without a name, is "You" as during the game);
``seat`` is "You".
"""

from __future__ import annotations

import json
from typing import Any, Callable

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from regalia.cli.names import YOU, SeatNames
from regalia.cli.screens import ending_result, ending_sentence, indented, screen_for
from regalia.core.game import log_events
from regalia.core.records import GameRecord, Match, without_medal
from regalia.core.words import count
from regalia.games import get_game

KEYS = "Enter or n: next move, p: previous, a number: that move, q: quit"


class ReplayScreen:
    """The positions of a record, one per move.

    Raises ``IllegalAction`` when the record does not replay (an action refused at its ply).
    """

    def __init__(self, record: GameRecord, seat: int | None,
                 console: Console | None = None) -> None:
        self.record = record
        self.seat = seat
        self.game = get_game(record.game)
        self.screen = screen_for(record.game)
        self.console = console or Console(highlight=False)
        self.steps = list(Match.replay(self.game, record))
        self.last = len(self.steps) - 1
        players = len(self.game.view(self.steps[0][1], None)["hand_sizes"])
        humans = [s for s in range(players) if s not in record.bots]
        if seat is None and len(humans) == 1 and humans[0] not in record.names:
            seat_named = humans[0]  # the one person, unnamed, was "You" in the game: again
        else:
            seat_named = seat
        self.names = SeatNames(players, record.bots, record.names, seat_named)

    def sentences(self, n: int) -> list[str]:
        """The log sentences of move ``n`` (0: the deal) as ``seat`` saw them; seen by
        everyone (``seat`` None), an event shows what its own player saw, as the browser's
        replay does."""
        if n == 0:
            out = [self.screen.describe(e, self.names) for e in self.view(0)["log"]]
        else:
            plain = without_medal if self.record.no_medal else (lambda obj: obj)
            out = [self.screen.describe(
                plain(e.seen_by(e.seat if self.seat is None else self.seat)), self.names)
                for e in self.steps[n][2]]
        if n == self.last and self.record.ending is not None:  # the players ended it
            out.append(ending_sentence(self.record.ending, self.names))
        return out

    def view(self, n: int) -> dict[str, Any]:
        """The view of the position after move ``n`` as ``seat`` saw it; seen by everyone,
        its log shows each event as its own player saw it (as ``sentences`` does)."""
        state = self.steps[n][1]
        view = self.game.view(state, self.seat)
        if self.seat is None:
            view["log"] = [e.seen_by(e.seat) for e in log_events(state.log)]
        if self.record.no_medal:  # played with hints, or a bot played for a person
            view = without_medal(view)
            view["log"] = [without_medal(e) for e in view["log"]]
        return view

    def heading(self, n: int) -> str:
        """``"Move 3 of 40"``; move 0 is the deal. The move itself is told by its sentences."""
        if n:
            return f"Move {n} of {self.last}"
        return f"The deal ({count(self.last, 'move')} {'follows' if self.last == 1 else 'follow'})"

    def show(self, n: int) -> None:
        """Print move ``n``: its heading, its log sentences, the table after it."""
        state = self.steps[n][1]
        view = self.view(n)
        self.console.print(Text(self.heading(n), style="bold cyan"))
        for line in self.sentences(n):
            self.console.print(indented(line))
        self.console.print(self.screen.render(view, self.record.bots, self.names))
        if self.seat is None:
            for s in range(len(view["hand_sizes"])):
                who = self.names(s)
                line = Text("Your hand: " if who == YOU else f"{who}'s hand: ", style="bold")
                line.append_text(self.screen.cards_text(self.game.view(state, s)["hand"]))
                self.console.print(line)
        if n == self.last and self.record.ending is not None:
            self.console.print(ending_result(self.record.ending, self.names,
                                             self.names.players, view))
        elif self.game.is_terminal(state):
            self.console.print(self.screen.result(view, self.names))

    def print_all(self) -> None:
        """The whole game at once: a line on the record, then what stepping through it shows,
        the deal and each move, each with its sentences and the table after it."""
        config = "".join(f"{k} {json.dumps(v)}, " for k, v in self.record.config.items())
        self.console.print(f"[bold]{self.record.game}[/bold] record: {escape(config)}seed "
                           f"{self.record.seed}, "
                           f"{count(self.last, 'move')}"
                           + (", played with hints (no medal)" if self.record.hints else "")
                           + (", a bot played for a person (no medal)"
                              if self.record.bot_moves else "")
                           + ({"conceded": ", ended by a concession",
                               "stopped": ", stopped by agreement"}[self.record.ending.how]
                              if self.record.ending else ""))
        for n in range(self.last + 1):
            self.show(n)

    def step(self, read: Callable[[str], str]) -> None:
        """Move by move at the keyboard, from the deal: ``read(prompt)`` gives each answer
        (Enter or n: next, p: previous, a number: that move, q or end of input: quit)."""
        n = 0
        self.show(n)
        while True:
            try:
                answer = read(f"({n}/{self.last}) {KEYS}: ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                return
            if answer in ("q", "quit", "exit"):
                return
            if answer in ("", "n", "next"):
                target = n + 1
            elif answer in ("p", "prev", "previous"):
                target = n - 1
            elif answer.isdigit():
                target = int(answer)
            else:
                self.console.print(f"[red]{answer!r} is not a replay key: {KEYS}.[/red]")
                continue
            if not 0 <= target <= self.last:
                if target == self.last + 1:
                    why = "that was the last move"
                elif target == -1:
                    why = "this is the deal, the first position"
                else:
                    why = f"there is no move {target}"
                self.console.print(f"[yellow]{why.capitalize()}: the moves are 0 (the deal) "
                                   f"to {self.last}.[/yellow]")
                continue
            n = target
            self.show(n)
