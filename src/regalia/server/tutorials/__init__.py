"""The tutorials: a scripted first game of each game, played by the real engine, for the
page ``/tutorial/{game}`` (the table page with a coach beside the board).

Each game's script is one data file beside this module (``regicide.json``,
``ribauds.json``): the position it starts from (formats.md: a hand-picked deal), the seed of
its chance events (a Hearts heal's shuffle, a Reine's pick), the learner's seat and its
steps, in order. A step is

* a note: ``{"coach": KEY}``: words of the coach, read before going on (no move);
* one of the learner's moves: ``{"move": TEXT, "coach": KEY, "shows": KEY, "lesson":
  NAME, "say": {...}}``: the coach's words, what the move shows (said when the learner
  tries another move: "try X: it shows Y"), the rule it teaches (the tests check that the
  rule happens at that step) and the words' parameters (cards, slots);
* a move of the scripted opponent: ``{"by": SEAT, "move": TEXT}``, applied through the
  engine as soon as it is that seat's turn.

``play(game, moves)`` is ``POST /api/tutorials/{game}``: nothing is stored; the learner's
moves so far come with each request and are replayed from the script's position (a few
dozen moves, each checked against its step), the opponent's moves applied between them.
After the script's last step the game goes on with any legal move of the learner, while it
is the learner's turn (a solo Regicide game can be played to its end). The answer holds the
table page's ``welcome``, the script as the page shows it and the ``state`` messages the
page needs (the one after the learner's latest move, then one after each scripted move that
followed it), each shaped as a table's (``Table.state_message``).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from regalia.core.errors import IllegalAction, RegaliaError
from regalia.core.game import Game
from regalia.games import GAME_NAMES, get_game
from regalia.server.refusal import Refusal
from regalia.server.tables import gamekit

HERE = Path(__file__).resolve().parent
MAX_MOVES = 400  # the learner's moves one request may replay (a whole solo game is fewer)
OPPONENT = "tutorial"  # the scripted opponent's name as a bot (the page says "Bot (tutorial)")


@dataclass(frozen=True)
class Step:
    """One step of a script (see the module docstring): ``move`` is ``None`` for a note;
    ``by`` is the seat that makes the move."""

    by: int
    move: str | None = None
    coach: str | None = None
    shows: str | None = None
    lesson: str | None = None
    say: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """The step as the page reads it."""
        out: dict[str, Any] = {"by": self.by, "move": self.move, "coach": self.coach,
                               "shows": self.shows, "say": self.say}
        if self.lesson:
            out["lesson"] = self.lesson
        return out


@dataclass(frozen=True)
class Script:
    """A game's tutorial: its ``position`` (JSON, formats.md) and ``seed``, the learner's
    ``seat``, the ``steps`` and the text key of the closing ``summary``."""

    game: str
    seat: int
    seed: int
    position: dict[str, Any]
    steps: tuple[Step, ...]
    summary: str

    @property
    def moves(self) -> list[Step]:
        """The steps that are moves (the learner's and the opponent's), in order."""
        return [s for s in self.steps if s.move is not None]

    def start(self) -> tuple[Game, Any, random.Random]:
        """The game, the position the tutorial starts from and its random source."""
        g = get_game(self.game)
        return g, g.from_json(self.position), random.Random(self.seed)

    def public(self) -> dict[str, Any]:
        """The script as the page reads it (no position: the page sees the view only)."""
        return {"game": self.game, "seat": self.seat, "summary": self.summary,
                "steps": [s.public() for s in self.steps]}


@cache
def script(game: str) -> Script:
    """The tutorial of ``game`` (read once from its data file). Raises ``KeyError`` for a
    game without one."""
    if game not in GAME_NAMES:
        raise KeyError(game)
    obj = json.loads((HERE / f"{game}.json").read_text(encoding="utf-8"))
    seat = obj["seat"]
    steps = tuple(Step(by=s.get("by", seat), move=s.get("move"), coach=s.get("coach"),
                       shows=s.get("shows"), lesson=s.get("lesson"), say=s.get("say", {}))
                  for s in obj["steps"])
    return Script(obj["game"], seat, obj["seed"], obj["position"], steps, obj["summary"])


def canonical(g: Game, state: Any, text: str) -> str | None:
    """``text`` in the engine's canonical notation for ``state``, or ``None`` when it is not
    readable there."""
    try:
        return g.action_to_text(state, g.action_from_text(state, text.strip()))
    except (RegaliaError, ValueError):
        return None


def play(game: str, moves: list[str]) -> dict[str, Any]:
    """``POST /api/tutorials/{game}`` (module docstring): ``{"game", "welcome", "script",
    "done" (the script's moves applied, both seats'), "states"}``. Raises ``Refusal``:
    ``not_found`` (no such tutorial), ``off_script`` (a move the script does not ask for
    at its step, or a move after the script while it is not the learner's turn or the game
    is over), ``illegal`` (a move after the script that the rules refuse)."""
    try:
        sc = script(game)
    except KeyError:
        raise Refusal("not_found", f"no tutorial for {str(game)[:40]!r}; the tutorials are "
                                   + ", ".join(GAME_NAMES)) from None
    if len(moves) > MAX_MOVES:
        raise Refusal("bad_request", f"moves: at most {MAX_MOVES}")
    g, state, rng = sc.start()
    states = [state]
    mine = 0  # the ply after the learner's latest move
    left = list(moves)
    done = 0
    for step in sc.moves:
        if step.by == sc.seat:
            if not left:
                break
            text = left.pop(0)
            if canonical(g, state, text) != step.move:
                raise Refusal("off_script", f"move {len(moves) - len(left)}: this step of "
                                            f"the tutorial asks for {step.move!r}, not "
                                            f"{text[:40]!r}")
        state, _ = g.apply_text(state, step.move, rng)  # the script's moves are tested legal
        states.append(state)
        done += 1
        if step.by == sc.seat:
            mine = len(states) - 1
    for text in left:  # after the script: the learner plays on
        if g.is_terminal(state) or g.current_seat(state) != sc.seat:
            raise Refusal("off_script", "the tutorial's script is over and it is not your "
                                        "turn: start the tutorial again")
        try:
            state, _ = g.apply_text(state, text.strip(), rng)
        except RegaliaError as e:
            reason = e.reason() if isinstance(e, IllegalAction) else None
            raise Refusal("illegal", str(e), reason) from None
        states.append(state)
        mine = len(states) - 1
    return {"game": g.name, "welcome": welcome(g, sc, state), "script": sc.public(), "done": done,
            "states": [state_message(g, sc, st, ply) for ply, st in enumerate(states)
                       if ply >= mine]}


def welcome(g: Game, sc: Script, state: Any) -> dict[str, Any]:
    """The table page's ``welcome`` for the learner (``tutorial``: the page shows the
    coach, no table chrome)."""
    players = g.view(state, None, log=False)["players"]
    return {"type": "welcome", "table": None, "game": g.name, "seat": sc.seat,
            "players": players, "options": {}, "talk": g.talk, "sayings": [],
            "early_end": g.early_end, "spectate": None, "open": False, "tutorial": True}


def state_message(g: Game, sc: Script, state: Any, ply: int) -> dict[str, Any]:
    """The ``state`` message of ``state`` for the learner's seat, as a table sends it
    (``Table.state_message``): the view, the whole log, the legal actions on the learner's
    turn, the seats (the learner's, and a bot's for the scripted opponent)."""
    seat = sc.seat
    view = g.view(state, seat)
    log = view.pop("log", [])
    current = g.current_seat(state)
    legal: list[str] = []
    discards = None
    if current == seat:
        legal, discards = gamekit.legal_message(g, state)
    seats = [{"seat": k, "kind": "human" if k == seat else "bot",
              "bot": None if k == seat else OPPONENT, "bot_replaces": False,
              "connected": k == seat, "name": None, "claimed": k == seat,
              "name_fixed": False, "timed_out": False} for k in range(view["players"])]
    return {"type": "state", "table": None, "game": g.name, "ply": ply, "seat": seat,
            "current": current, "finished": g.is_terminal(state),
            "outcome": gamekit.outcome(g, state), "view": view, "legal": legal,
            "discards": discards, "side": [], "log_start": 0, "log": log, "seats": seats,
            "broken": None, "expired": False, "waiting": False, "open": False,
            "clock": None, "next_table": None, "hints": False, "bot_played": False,
            "stop": None}
