"""Terminal play with Rich: humans at one keyboard (hot seat) and bots.

``TerminalTable(match, bots).run()`` plays a ``Match`` to its end. Each human sees only their
own seat's view; between two different human seats a hand-over screen hides the last hand.
Bad input gets a message and a new prompt, never a traceback. In a game a player may
concede (``Game.early_end``: Le Roy des Ribauds), ``concede`` at a human's prompt resigns,
once confirmed: the opponent wins, and the record says so (``ending``). The per-game drawing
lives in ``regalia.cli.screens``.
"""

from __future__ import annotations

import random
import secrets
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Callable

from rich.console import Console
from rich.markup import escape

from regalia.cli.names import YOU, SeatNames, lower
from regalia.cli.screens import ending_result, ending_sentence, indented, screen_for
from regalia.core.errors import RegaliaError
from regalia.core.game import Event
from regalia.core.records import CONCEDED, Ending, Match
from regalia.games import TITLES


def program() -> str:
    """The command as the user typed it, for the commands this program prints: the path
    typed (e.g. ``.venv/bin/regalia``, which works where ``regalia`` is not on the PATH)
    when it was ``regalia``, else ``regalia``."""
    typed = sys.argv[0] if sys.argv else ""
    return shlex.quote(typed) if Path(typed).name == "regalia" else "regalia"


def kept_dir() -> Path:
    """Where ``regalia play`` keeps the unfinished games started without ``--save``: the
    user's data directory (``$XDG_DATA_HOME/regalia/unfinished`` on Linux, as
    ``platformdirs`` finds it)."""
    from platformdirs import user_data_path

    return user_data_path("regalia", appauthor=False) / "unfinished"


def new_kept_file(game: str) -> Path:
    """A new file in ``kept_dir()`` for a game of ``game`` started now (not created yet)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = kept_dir() / f"{game}-{stamp}.json"
    n = 2
    while path.exists():
        path = kept_dir() / f"{game}-{stamp}-{n}.json"
        n += 1
    return path


def kept_games(game: str | None = None) -> list[Path]:
    """The unfinished games kept in ``kept_dir()`` (of ``game`` only, when given: their
    file names start with it, ``new_kept_file``), the newest first."""
    try:
        files = [p for p in kept_dir().glob(f"{game}-*.json" if game else "*.json")
                 if p.is_file()]
    except OSError:
        return []
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


def is_kept(path: Path) -> bool:
    """``path`` is a file ``regalia play`` kept by itself (in ``kept_dir()``)."""
    try:
        return Path(path).resolve().parent == kept_dir().resolve()
    except OSError:
        return False


class Quit(Exception):
    """The human asked to leave the game."""


class NotUnderstood(RegaliaError):
    """Typed text that is no move at all (neither a menu number, nor the menu's words, nor
    a move's verb or cards)."""


class TerminalTable:
    """One game at the terminal.

    ``match``: the game; ``bots``: seat -> bot (other seats are humans); ``read``: the input
    function (``Console.input`` by default, replaced in tests); ``delay``: pause after bot
    moves (seconds); ``save``: where to write the game record at the end; ``keep``: where
    to keep the game while it is unfinished when there is no ``save`` (written after every
    move and when the game is left, removed once the game is over); ``names``: seat -> the
    name of a human seat (kept in the record). The seats are named as ``SeatNames`` says:
    the one human of a game against bots (or solo) is "You".
    """

    def __init__(self, match: Match, bots: dict[int, Any], console: Console | None = None,
                 read: Callable[[str], str] | None = None, delay: float = 0.0,
                 save: Path | None = None, bot_seed: int | None = None,
                 keep: Path | None = None, names: dict[int, str] | None = None) -> None:
        self.match = match
        self.game = match.game
        self.bots = bots
        self.console = console or Console(highlight=False)
        self.read = read or (lambda prompt: self.console.input(prompt))
        self.delay = delay
        self.save = save
        self.keep = None if save else keep
        self.screen = screen_for(self.game.name)
        # The bots' own source: never derived from the game's seed (that would tell a
        # program the deal); tests may fix it with ``bot_seed``.
        self.bot_rng = random.Random(bot_seed if bot_seed is not None else secrets.randbits(64))
        self.players = match.state.players if hasattr(match.state, "players") else 2
        self.humans = [s for s in range(self.players) if s not in bots]
        kinds = {s: getattr(b, "name", "bot") for s, b in bots.items()}
        self.names = SeatNames(self.players, kinds, names,
                               self.humans[0] if len(self.humans) == 1 else None)
        self.shown: int | None = None  # the human seat whose screen is up
        self.ending: Ending | None = None  # a player conceded

    def over(self) -> bool:
        """The game is over: its rules ended it, or a player conceded."""
        return self.ending is not None or self.game.is_terminal(self.match.state)

    # ------------------------------------------------------------------ main loop

    def run(self) -> None:
        """Play until the game ends or a human quits; then show the result."""
        self._opening()
        try:
            while not self.over():
                self._side_window()
                seat = self.game.current_seat(self.match.state)
                if seat in self.bots:
                    self._bot_turn(seat)
                else:
                    self._human_turn(seat)
                self._keep()
        except Quit:
            self.console.print("[bold]Game left unfinished.[/bold]")
            if self.keep and self._keep():
                # the path and the command never wrapped (copied as they are)
                self.console.print(f"It is kept in {escape(str(self.keep))}; resume it with:",
                                   soft_wrap=True, highlight=False)
                self.console.print(f"  {program()} play --load {escape(shlex.quote(str(self.keep)))}",
                                   soft_wrap=True, highlight=False)
            elif not self.save:
                self.console.print("It was not saved: a game started with --save FILE (e.g. "
                                   f"{program()} play {self.game.name} --save game.json) can "
                                   f"be resumed later with: {program()} play --load FILE.")
        else:
            self._finish()
            if self.keep:  # over: nothing to resume (a record is kept only with --save)
                self.keep.unlink(missing_ok=True)
        if self.save:
            record = self.match.record()
            record.bots = {seat: bot.name for seat, bot in self.bots.items()}
            record.names = dict(self.names.names)
            record.ending = self.ending
            record.save(self.save)
            verb, command = (("replay", f"{program()} replay") if self.over()
                             else ("resume", f"{program()} play --load"))
            self.console.print(f"Game record saved; {verb} it with:")
            # the command on a line of its own, never wrapped (copied as it is)
            self.console.print(f"  {command} {self.save}", soft_wrap=True, highlight=False)

    def _keep(self) -> bool:
        """Write the unfinished game to ``self.keep`` (if any); whether it was written."""
        if not self.keep or self.over():
            return False
        record = self.match.record()
        record.bots = {seat: bot.name for seat, bot in self.bots.items()}
        record.names = dict(self.names.names)
        try:
            self.keep.parent.mkdir(parents=True, exist_ok=True)
            part = self.keep.with_name(self.keep.name + ".part")  # never half a file
            record.save(part)
            part.replace(self.keep)
        except OSError as e:
            self.console.print(f"[red]The game could not be kept in {escape(str(self.keep))}: "
                               f"{escape(str(e))}[/red]")
            self.keep = None
            return False
        return True

    def _opening(self) -> None:
        """One line before the first move: who sits where and who is to act (a bot that
        starts moves before anyone sees the table)."""
        if self.game.is_terminal(self.match.state):
            return
        who = []
        for k in range(self.players):
            if k in self.bots:
                who.append(self.names.label(k))
            elif len(self.humans) == 1:  # "You", as in the log; a name given: "Ann (you)"
                name = self.names.names.get(k)
                who.append(f"{name} (you)" if name else YOU)
            else:
                who.append(self.names.label(k) + " (human)")
        first = self.names(self.game.current_seat(self.match.state))
        n = len(self.match.actions)
        start = (f"{first} {'start' if first == YOU else 'starts'}" if not n
                 else f"Resumed after {n} move{'s' if n > 1 else ''}; {lower(first)} "
                      f"{'are' if first == YOU else 'is'} to act")
        self.console.print(f"[bold]{TITLES.get(self.game.name, self.game.name)}[/bold]: "
                           f"{escape(', '.join(who))}. {escape(start)}.")

    def _viewer(self) -> int | None:
        """Whose eyes the screen belongs to: the shown human, the only human, or nobody."""
        if self.shown is not None:
            return self.shown
        return self.humans[0] if len(self.humans) == 1 else None

    def _apply(self, action: int) -> list[Event]:
        events = self.match.play(action)
        viewer = self._viewer()
        for e in events:
            self.console.print(indented(self.screen.describe(e.seen_by(viewer), self.names)))
        return events

    def _bot_turn(self, seat: int) -> None:
        state = self.match.state
        view = self.game.view(state, seat)
        legal = self.game.legal_actions(state)
        # said before it thinks: a search bot's first move may take a while
        self.console.print(f"[dim]{escape(self.names(seat))} thinks...[/dim]")
        action = self.bots[seat].act(view, legal, self.bot_rng)
        self._apply(action)
        if self.delay:
            time.sleep(self.delay)

    def _hand_over(self, seat: int) -> None:
        if len(self.humans) > 1 and self.shown != seat:
            self.console.clear()
            self.console.print(f"[bold]Pass the keyboard to {escape(self.names(seat))}.[/bold] "
                               "Nobody else should look at the screen.")
            self._ask("Press Enter when ready. ")
            self.console.clear()
        self.shown = seat

    def _ask(self, prompt: str) -> str:
        try:
            return self.read(prompt)
        except (EOFError, KeyboardInterrupt):
            raise Quit() from None

    def _human_turn(self, seat: int) -> None:
        self._hand_over(seat)
        while True:
            state = self.match.state
            view = self.game.view(state, seat)
            self.console.print(self.screen.render(view, self.bots, self.names))
            legal = list(self.game.legal_actions(state))
            menu = self.screen.menu(view, legal)
            for i, a in enumerate(menu, 1):
                self.console.print(f"  [bold cyan]{i:>2}[/bold cyan]  "
                                   f"{escape(self.screen.label(self.game.action_to_text(state, a), self.names))}")
            if len(menu) < len(legal):
                self.console.print(f"  [dim]... {len(legal) - len(menu)} more: type the "
                                   "cards yourself[/dim]")
            while True:
                who = self.names(seat)
                answer = self._ask("Your move: " if who == YOU else f"{escape(who)}, your move: ").strip()
                if not answer:
                    continue
                low = answer.lower()
                if low in ("q", "quit", "exit"):
                    raise Quit()
                if low == "concede":
                    if self._concede(seat):
                        return
                    continue
                if low in ("h", "help", "?", "rules"):
                    self.console.print(self.screen.HELP)
                    self.console.print(self.screen.rules_now(view), style="yellow")
                    continue
                if low == "log":
                    for e in view["log"]:
                        self.console.print(indented(self.screen.describe(e, self.names)))
                    continue
                try:
                    action = self._parse(answer, menu, legal, view)
                    self._apply(action)
                except NotUnderstood:
                    self.console.print(f"[red]Not understood: {escape(repr(answer))}.[/red] Type "
                                       f"a number from the menu (1 to {len(menu)}), a move as "
                                       "the menu writes it, or 'help' to see what you can type.")
                    continue
                except RegaliaError as e:
                    self.console.print(f"[red]{escape(self.screen.refusal(str(e), self.names))}[/red]")
                    continue
                return

    def _concede(self, seat: int) -> bool:
        """``seat`` typed ``concede``: in a game a player may concede, once confirmed, the
        game ends and the opponent wins (whether it ended). Raises ``Quit`` at the end of
        the input."""
        if self.game.early_end != "concede":
            self.console.print("[red]Nobody concedes in this cooperative game: 'quit' leaves "
                               "it unfinished.[/red]")
            return False
        if self._ask("Concede the game? Your opponent wins. (y = yes) ").strip().lower() \
                not in ("y", "yes"):
            self.console.print("Not conceded: the game goes on.")
            return False
        self.ending = Ending(CONCEDED, seat)
        self.console.print(indented(ending_sentence(self.ending, self.names)))
        return True

    def _parse(self, answer: str, menu: list[int], legal: list[int],
               view: dict[str, Any]) -> int:
        """The action typed: a menu number, a move in the menu's own words, or notation
        (completed by the screen). Raises ``NotUnderstood`` when it is none of these and
        ``RegaliaError`` (the engine's refusal) when it is a move not allowed now."""
        if answer.lstrip("-").isdigit():  # a menu number (a negative one is off the menu too)
            n = int(answer)
            if not 1 <= n <= len(menu):
                raise RegaliaError(f"{n} is not on the menu: choose 1 to {len(menu)}")
            return menu[n - 1]
        typed = " ".join(answer.lower().split())
        for a in legal:
            words = self.screen.label(self.game.action_to_text(self.match.state, a), self.names)
            if " ".join(words.lower().split()) == typed:
                return a
        text = self.screen.complete(answer, view, self.names)
        if text is None:
            raise NotUnderstood(answer)
        return self.game.action_from_text(self.match.state, text)

    def _side_window(self) -> None:
        """Regicide's Jester window: every other seat may say whether it wants to go next."""
        side = getattr(self.game, "side_actions", None)
        state = self.match.state
        if side is None or not side(state):
            return
        asked = set()
        for seat in range(state.players):
            if seat == state.current or seat in asked:
                continue
            asked.add(seat)
            if seat in self.bots:
                wish = self.bots[seat].wish(self.game.view(state, seat), self.bot_rng)
            else:
                who = self.names(seat)
                answer = self._ask(("Would" if who == YOU else f"{escape(who)}: would")
                                   + " you like to go next? (y = yes, n = rather not, Enter = "
                                   "say nothing) ").strip().lower()
                wish = {"y": "yes", "yes": "yes", "n": "no", "no": "no"}.get(answer)
            if wish:
                self._apply(self.game.action_from_text(state, f"prefer {seat} {wish}"))
                state = self.match.state

    def _finish(self) -> None:
        state = self.match.state
        viewer = self._viewer()
        view = self.game.view(state, viewer)
        self.console.print(self.screen.render(view, self.bots, self.names))
        if self.ending is not None:
            self.console.print(ending_result(self.ending, self.names, self.players, view))
        else:
            self.console.print(self.screen.result(view, self.names))
