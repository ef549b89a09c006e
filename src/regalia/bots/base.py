"""The bot interface and the registry of bots by game and name.

``BOTS`` is the one table of every game's bots (name -> ``"module:attribute"`` of a factory
and a one-line description); ``make_bot(game, name)`` imports a bot's module when it builds
one (``KeyError`` for a name not in the table), so ``bot_names`` and ``bot_descriptions``
import no bot module. ``make_bot`` also builds a level (``levels.LEVELS``: ``easy``,
``medium``, ``hard``, ``strongest``, a bot with given parameters); ``bot_choices`` lists
every name a seat's bot may be given: the levels, then the bots.
"""

from __future__ import annotations

import importlib
import random
from typing import Any, Callable, Mapping, Protocol, Sequence

from regalia.bots.levels import level_names, level_of


class Bot(Protocol):
    """A player program.

    ``act(view, legal, rng, budget)`` returns one of ``legal`` (action codes of the game),
    deciding from ``view`` (the seat's view dict, ``Game.view``) alone; ``budget`` is the
    thinking time in seconds (``None``: the bot's default). ``wish(view, rng)`` answers the
    Regicide Jester window (rules 1.10): ``"yes"``, ``"no"`` or ``None`` (say nothing).
    """

    name: str

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: random.Random,
            budget: float | None = None) -> int: ...

    def wish(self, view: dict[str, Any], rng: random.Random) -> str | None: ...


class RandomBot:
    """Chooses uniformly among the legal actions; states no wish."""

    name = "random"

    def act(self, view, legal, rng, budget=None):
        return legal[rng.randrange(len(legal))]

    def wish(self, view, rng):
        return None


# The bots of each game besides ``random`` (every game has it): name -> (the
# ``"module:attribute"`` that builds one when called with no arguments, what it plays in
# one line). A bot's module is imported only when ``make_bot`` builds one, so listing the
# bots imports no bot and compiles nothing.
BOTS: dict[str, dict[str, tuple[str, str]]] = {
    "regicide": {
        "simple": ("regalia.bots.regicide.heuristic:SimpleBot",
                   "the first hand-written heuristic: one-step look-ahead on public numbers"),
        "heuristic": ("regalia.bots.regicide.heuristic:HeuristicBot",
                      "the compiled one-step look-ahead policy, weights tuned by self-play"),
        "montecarlo": ("regalia.bots.regicide.montecarlo:MonteCarloBot",
                       "determinized flat Monte Carlo with policy rollouts"),
        "montecarlo-medal": ("regalia.bots.regicide.montecarlo:montecarlo_medal",
                             "montecarlo, aiming at the best solo medal"),
        "montecarlo-choices": ("regalia.bots.regicide.montecarlo:montecarlo_choices",
                               "montecarlo, also searching who goes next after a Jester"),
        "ismcts": ("regalia.bots.regicide.ismcts:ISMCTSBot",
                   "information-set Monte Carlo tree search with policy rollouts"),
        "ismcts-medal": ("regalia.bots.regicide.ismcts:ismcts_medal",
                         "ismcts, aiming at the best solo medal"),
    },
    "ribauds": {
        "heuristic": ("regalia.bots.ribauds.play:HeuristicBot",
                      "wins at once when it surely can, else leaves the fewest threats"),
        "tactical": ("regalia.bots.ribauds.play:TacticalBot",
                     "the heuristic, also seeing through a card's effect in the same turn"),
        "ismcts": ("regalia.bots.ribauds.play:ISMCTSBot",
                   "information-set Monte Carlo tree search"),
    },
}
RANDOM_DESCRIPTION = "chooses uniformly among the legal actions"


# The bot a table seats when nobody says which: the strongest by the measurements in the
# README ("Bots and evaluation").
TABLE_BOTS = {"regicide": "montecarlo", "ribauds": "ismcts"}


def default_bot(game: str) -> str:
    """The bot that takes a seat at a ``game`` table unless another is asked for."""
    return TABLE_BOTS.get(game, "random")


def bot_names(game: str) -> list[str]:
    """Names of the bots available for ``game``."""
    return sorted({"random"} | set(BOTS.get(game, {})))


def bot_descriptions(game: str) -> dict[str, str]:
    """What each bot of ``game`` plays, in one line, by name (in ``bot_names`` order)."""
    table = BOTS.get(game, {})
    return {n: table[n][1] if n in table else RANDOM_DESCRIPTION for n in bot_names(game)}


def bot_choices(game: str) -> list[str]:
    """Every name a bot of ``game`` may be asked by: its levels (weakest first), then its
    bots (``bot_names``)."""
    return level_names(game) + bot_names(game)


def unknown_bot(game: str, name: object) -> str:
    """The sentence refusing ``name`` as a bot of ``game``, listing the allowed names (a
    long name is cut to 40 characters)."""
    levels = level_names(game)
    shown = repr(name[:40]) if isinstance(name, str) else "that"
    choose = (f"choose a level ({', '.join(levels)}) or a bot ({', '.join(bot_names(game))})"
              if levels else f"the bots are {', '.join(bot_names(game))}")
    return f"unknown {game} bot {shown}; {choose}"


def make_bot(game: str, name: str) -> Bot:
    """A new bot ``name`` for ``game``: a level of ``levels.LEVELS`` (its bot built with the
    level's parameters) or a bot of ``BOTS``; its ``name`` is the name asked for. Raises
    ``KeyError`` listing the levels and the bots (``unknown_bot``)."""
    level = level_of(game, name)
    if level is not None:
        bot = _build(game, level.bot, level.params)
    elif name == "random" or name in BOTS.get(game, {}):
        bot = _build(game, name, {})
    else:
        raise KeyError(unknown_bot(game, name))
    bot.name = name  # the name it was asked by: a "-medal" variant or a level keeps it
    return bot


def _build(game: str, name: str, params: Mapping[str, Any]) -> Bot:
    """Bot ``name`` of ``game`` (``random`` or one of ``BOTS``), its factory called with
    ``params``."""
    if name == "random":
        return RandomBot(**params)
    module, _, attr = BOTS[game][name][0].partition(":")
    factory: Callable[..., Bot] = getattr(importlib.import_module(module), attr)
    return factory(**params)
