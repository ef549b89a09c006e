"""Game records: a game is its config, its seed and its action list (design.md, "records").

``Match`` is a game being played: it owns the one seeded random source, the state and the
action list. ``GameRecord`` is the JSON form saved to disk, replayed to the identical state.

Record JSON::

    {"format": "regalia-record/1", "game": "regicide", "config": {"players": 2},
     "seed": 42, "actions": ["play 5C", "discard 9D"], "bots": {"1": "heuristic"},
     "names": {"0": "Ann"}}

``bots`` (optional, written only when some seat is a bot) names the bot of each bot seat,
seats 0-based as in every format, so that a game played at the terminal can be resumed with
the same bots. ``names`` (optional, written only when some human seat was named, e.g. with
``regalia play --name``) gives the name of each named human seat, seats 0-based likewise,
so that resuming and replaying the game name its players as it was played. ``hints`` (optional, written only when true): a solo game played with the Hint
button. ``bot_moves`` (optional, written only when some): the moves (0-based indexes in
``actions``) a bot played for a person (a seat handed to a bot, a time-out, a player who
left). Either way the game earns no medal. ``ending`` (optional, written only when the
players ended the game before its rules did, after the last action; ``Ending``):
``{"how": "conceded", "seat": 1}`` (that seat resigned: the others win) or ``{"how":
"stopped", "seat": 0}`` (every player agreed to stop, as that seat proposed: a loss for
all).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from regalia.core.errors import InvalidPosition
from regalia.core.game import Event, Game
from regalia.core.rng import DrawOnUse

RECORD_FORMAT = "regalia-record/1"


CONCEDED = "conceded"
STOPPED = "stopped"
ENDINGS = (CONCEDED, STOPPED)


@dataclass(frozen=True)
class Ending:
    """How the players ended a game before its rules did (``Game.early_end``), after its
    last action: ``how`` is ``CONCEDED`` (``seat`` resigned; the others win) or ``STOPPED``
    (every player agreed to stop, as ``seat`` proposed; a loss for all). It is no action of
    the rules: the game's state stays as the last action left it."""

    how: str
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"how": self.how, "seat": self.seat}

    @classmethod
    def from_json(cls, obj: Any) -> "Ending":
        """Ending from ``{"how", "seat"}``; raises ``InvalidPosition`` naming the problem."""
        if (not isinstance(obj, dict) or set(obj) != {"how", "seat"}
                or obj["how"] not in ENDINGS or type(obj["seat"]) is not int or obj["seat"] < 0):
            raise InvalidPosition('ending: must be {"how": "conceded" or "stopped", "seat": '
                                  'a seat number (0-based)}')
        return cls(obj["how"], obj["seat"])

    def returns(self, players: int) -> list[float]:
        """Per-seat result (1 win, 0 loss): conceded, every other seat wins; stopped, all
        lose."""
        return [1.0 if self.how == CONCEDED and k != self.seat else 0.0 for k in range(players)]


def without_medal(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """A view, outcome or log entry with its solo medal removed (a game played with hints,
    or one a bot played any part of for a person, earns none)."""
    return {**obj, "medal": None} if obj and obj.get("medal") else obj


@dataclass
class GameRecord:
    """A finished or unfinished game: ``game`` name, ``config``, ``seed``, action texts,
    the bot name of each bot seat (``bots``: seat -> name, 0-based seats), ``hints``: a
    solo game played with the Hint button, and ``bot_moves``: the indexes of the actions a
    bot played for a person; either earns no medal (``no_medal``). ``names``: seat -> the
    name of a named human seat (0-based seats). ``ending``: how the players ended the game
    before its rules did (``Ending``), or ``None``."""

    game: str
    config: dict[str, Any]
    seed: int
    actions: list[str] = field(default_factory=list)
    bots: dict[int, str] = field(default_factory=dict)
    hints: bool = False
    bot_moves: list[int] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    ending: Ending | None = None

    @property
    def no_medal(self) -> bool:
        """The game earns no medal: played with hints, or a bot played for a person."""
        return self.hints or bool(self.bot_moves)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-able dict (``bots`` only when some seat is a bot, ``names``
        only when some seat is named, ``hints`` only when true)."""
        out = {"format": RECORD_FORMAT, "game": self.game, "config": self.config,
               "seed": self.seed, "actions": list(self.actions)}
        if self.bots:
            out["bots"] = {str(seat): name for seat, name in sorted(self.bots.items())}
        if self.hints:
            out["hints"] = True
        if self.bot_moves:
            out["bot_moves"] = sorted(self.bot_moves)
        if self.names:
            out["names"] = {str(seat): name for seat, name in sorted(self.names.items())}
        if self.ending is not None:
            out["ending"] = self.ending.to_json()
        return out

    @classmethod
    def from_json(cls, obj: Any) -> "GameRecord":
        """Record from a dict; raises ``InvalidPosition`` naming a bad field."""
        if not isinstance(obj, dict):
            raise InvalidPosition("record: must be a JSON object")
        if obj.get("format") != RECORD_FORMAT:
            if "format" not in obj and "phase" in obj:
                raise InvalidPosition("this is a position (one moment of a game), not a game "
                                      "record: a record is what 'regalia play --save' writes "
                                      f"(format {RECORD_FORMAT!r})")
            raise InvalidPosition(f"format: expected {RECORD_FORMAT!r}")
        extra = set(obj) - {"format", "game", "config", "seed", "actions", "bots", "hints",
                            "bot_moves", "names", "ending"}
        if extra:
            raise InvalidPosition(f"{sorted(extra)[0]}: unknown field of a game record")
        if not isinstance(obj.get("game"), str):
            raise InvalidPosition("game: must be a game name")
        if not isinstance(obj.get("config"), dict):
            raise InvalidPosition("config: must be an object")
        if type(obj.get("seed")) is not int:
            raise InvalidPosition("seed: must be an integer")
        acts = obj.get("actions")
        if not isinstance(acts, list) or not all(isinstance(a, str) for a in acts):
            raise InvalidPosition("actions: must be a list of action texts")
        bots = obj.get("bots", {})
        if not isinstance(bots, dict) or not all(
                isinstance(k, str) and k.isdigit() and isinstance(v, str) for k, v in bots.items()):
            raise InvalidPosition('bots: must map seat numbers (0-based) to bot names, '
                                  'e.g. {"1": "heuristic"}')
        names = obj.get("names", {})
        if not isinstance(names, dict) or not all(
                isinstance(k, str) and k.isdigit() and isinstance(v, str) and v.strip()
                for k, v in names.items()):
            raise InvalidPosition('names: must map seat numbers (0-based) to players\' names, '
                                  'e.g. {"0": "Ann"}')
        if type(obj.get("hints", False)) is not bool:
            raise InvalidPosition("hints: must be true or false")
        by_bot = obj.get("bot_moves", [])
        if not isinstance(by_bot, list) or not all(
                type(i) is int and 0 <= i < len(acts) for i in by_bot):
            raise InvalidPosition("bot_moves: must list the indexes (0-based) of the actions a "
                                  "bot played for a person, e.g. [3, 4]")
        ending = Ending.from_json(obj["ending"]) if "ending" in obj else None
        players = obj["config"].get("players")
        if ending is not None and type(players) is int and ending.seat >= players:
            raise InvalidPosition(f"ending: seat {ending.seat} does not exist (seats 0 to "
                                  f"{players - 1})")
        return cls(obj["game"], dict(obj["config"]), obj["seed"], list(acts),
                   {int(k): v for k, v in bots.items()}, obj.get("hints", False), list(by_bot),
                   {int(k): v for k, v in names.items()}, ending)

    def save(self, path: str | Path) -> None:
        """Write the record as JSON to ``path``."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        """Read a record file; raises ``InvalidPosition`` (bad content) or ``OSError``."""
        try:
            obj = json.loads(Path(path).read_text())
        except json.JSONDecodeError as e:
            raise InvalidPosition(f"record: not JSON ({e})") from None
        return cls.from_json(obj)


class Match:
    """A game in progress: ``game``, ``config``, ``seed``, ``rng``, ``state``, ``actions``.

    The one random source is ``random.Random(seed)``, used first for the deal and then for
    every chance event, so replaying the action texts from the seed rebuilds the same state.
    """

    def __init__(self, game: Game, config: dict[str, Any], seed: int) -> None:
        self.game = game
        self.config = dict(config)
        self.seed = seed
        self.rng = random.Random(seed)
        self.state = game.new_game(dict(config), self.rng)
        self.actions: list[str] = []

    def play(self, action: int | str, text: str | None = None) -> list[Event]:
        """Apply an action (code or text) and record it; returns its events. ``text``: the
        code's text (``Game.action_to_text``) when the caller has it already (the server
        reads every submitted action so), else it is written here.

        Raises ``IllegalAction`` and changes nothing (the random source included) when refused.
        A move that draws replaces ``rng`` by a new generator (``rng.DrawOnUse``): the old
        one is never drawn from again.
        """
        g = self.game
        a = g.action_from_text(self.state, action) if isinstance(action, str) else action
        if text is None or isinstance(action, str):
            text = g.action_to_text(self.state, a)
        source = DrawOnUse(self.rng)
        self.state, events = g.apply(self.state, a, source)
        if source.copy is not None:
            self.rng = source.copy
        self.actions.append(text)
        return events

    def record(self) -> GameRecord:
        """The game so far as a ``GameRecord``."""
        return GameRecord(self.game.name, dict(self.config), self.seed, list(self.actions))

    @classmethod
    def from_record(cls, game: Game, record: GameRecord) -> "Match":
        """Rebuild a match of ``game`` (the rules object named by ``record.game``) by
        replaying a record; raises ``IllegalAction`` on a bad action."""
        m = cls(game, record.config, record.seed)
        for text in record.actions:
            m.play(text)
        return m

    @staticmethod
    def replay(game: Game, record: GameRecord) -> Iterator[tuple[str | None, Any, list[Event]]]:
        """Yield ``(action_text, state, events)`` of ``record`` played by ``game`` (the rules
        object named by ``record.game``): first ``(None, initial, [])``, then one per action
        of the record, in order."""
        m = Match(game, record.config, record.seed)
        yield None, m.state, []
        for text in record.actions:
            events = m.play(text)
            yield text, m.state, events

