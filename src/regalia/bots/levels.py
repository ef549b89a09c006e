"""Bot levels for people: ``easy``, ``medium``, ``hard`` and ``strongest``.

A level is a named configuration of one of the game's bots (``base.BOTS``, or ``random``):
the bot and the keyword arguments its factory is called with. People choose a level (the
lobby, ``regalia play``); the bots' own names stay for those who study them, and both are
accepted wherever a bot is named (``base.make_bot``, a table's seat, ``regalia eval``).
The strength of each level is measured in the README ("Bots and evaluation", "Levels"):
easy < medium < hard <= strongest in each game.

Le Roy des Ribauds (two players, against each other):

* ``easy``: ``random``, a legal action at random. (A random player that only takes the
  wins it is sure of, ``ismcts`` with one iteration, no prior and no safety check, was
  measured first: it won half of its games against ``heuristic``, which sees fewer sure
  wins, so it is no easier than ``medium``.)
* ``medium``: ``heuristic``: wins at once when it surely can, otherwise plays the action
  after which the opponent can win at once in the fewest sampled positions.
* ``hard``: ``ismcts`` with a fixed 40 iterations per decision (a few tens of milliseconds,
  whatever the machine and the site's thinking time).
* ``strongest``: ``ismcts`` as the tables seat it by default: as many iterations as the
  site's thinking time per decision allows (``regalia serve --bot-budget``, 0.5 s by
  default; 0.2 s in the terminal).

Regicide (cooperative: a bot is the people's partner, so a stronger level makes the game
easier to win):

* ``easy``: ``simple``, the first hand-written heuristic (one-step look-ahead on public
  numbers).
* ``medium``: ``heuristic``, the tuned compiled one-step policy; plays at once.
* ``hard``: ``montecarlo`` with a fixed 16 sampled positions per decision.
* ``strongest``: ``montecarlo`` as the tables seat it by default, for the site's thinking
  time per decision (1 s in the terminal).

``DEFAULT_LEVELS`` is the level the lobby's form and ``regalia play`` offer first: ``medium``
in Le Roy des Ribauds, where the bot is the person's opponent (a newcomer should not meet
the strongest first), ``strongest`` in Regicide, where the bot is their partner.

This module is data only and imports no bot: ``base.make_bot`` builds a level's bot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

LEVEL_NAMES: tuple[str, ...] = ("easy", "medium", "hard", "strongest")
"""The levels of every game, weakest first."""


@dataclass(frozen=True)
class Level:
    """One level of a game: ``bot`` (a name of ``base.BOTS`` or ``random``), ``params`` (the
    keyword arguments its factory is called with), ``description`` (what it plays, in one
    line, for people)."""

    bot: str
    params: Mapping[str, Any]
    description: str


LEVELS: dict[str, dict[str, Level]] = {
    "ribauds": {
        "easy": Level("random", {}, "plays at random"),
        "medium": Level("heuristic", {}, "takes a sure win, avoids handing you one"),
        "hard": Level("ismcts", {"iterations": 40}, "a short search; answers at once"),
        "strongest": Level("ismcts", {}, "the full search; thinks longest per move"),
    },
    "regicide": {
        "easy": Level("simple", {}, "a plain partner: one step ahead on public numbers"),
        "medium": Level("heuristic", {}, "a tuned one-step partner; plays at once"),
        "hard": Level("montecarlo", {"iterations": 16},
                      "a short search: 16 sampled deals per move"),
        "strongest": Level("montecarlo", {}, "the full search; thinks longest per move"),
    },
}
"""The levels by game and name. The descriptions are the English texts of the lobby's
``botlevel.GAME.LEVEL`` (``static/i18n``), which translates them."""

DEFAULT_LEVELS: dict[str, str] = {"ribauds": "medium", "regicide": "strongest"}

LEVEL_RATINGS: dict[str, dict[str, tuple[float, float]]] = {
    "ribauds": {
        "easy": (12.327, 3.172),
        "medium": (25.000, 2.033),
        "hard": (31.158, 1.671),
        "strongest": (33.190, 1.778),
    },
}
"""The levels' fixed published ratings, ``(mu, sigma)`` in OpenSkill's units, by game and
level (``regalia.lab.ratings``: the model and the number shown, here 1567, 1954, 2127 and
2169), for the games people play rated. The bots never play rated games: these are
reference points ("where you stand").

Fitted on 2026-12-06 with the code of beabc9d (openskill 6.2.0) by
``benchmarks/fit_level_ratings.py`` (its output: ``benchmarks/results/level_ratings.txt``)
from the levels' measured games (``benchmarks/results/levels/``: medium against easy, hard
against medium, strongest against hard, 200 games each): ``sigma`` is each level's after
OpenSkill rated those games in their order, ``mu`` the values for which OpenSkill's
``predict_win`` gives each measured win rate (96.5%, 83.0%, 62.5%), ``medium`` at a
newcomer's 25 (a person is first believed as strong as the level the lobby suggests)."""


def level_names(game: str) -> list[str]:
    """The levels of ``game``, weakest first (none for a game without levels)."""
    return [n for n in LEVEL_NAMES if n in LEVELS.get(game, {})]


def level_of(game: str, name: str) -> Level | None:
    """The level ``name`` of ``game``, or ``None`` when ``name`` is no level of it."""
    return LEVELS.get(game, {}).get(name)


def level_descriptions(game: str) -> dict[str, str]:
    """What each level of ``game`` plays, in one line, by name (weakest first)."""
    return {n: LEVELS[game][n].description for n in level_names(game)}


def default_level(game: str) -> str | None:
    """The level offered first for a bot seat of ``game`` (``DEFAULT_LEVELS``), or ``None``
    for a game without levels."""
    name = DEFAULT_LEVELS.get(game)
    return name if name in LEVELS.get(game, {}) else None
