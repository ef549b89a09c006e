"""The bot interface and the registry of bots by game and name."""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol, Sequence


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


_REGISTRY: dict[tuple[str, str], Callable[[], Bot]] = {}


def register(game: str, name: str, factory: Callable[[], Bot]) -> None:
    """Make ``make_bot(game, name)`` build a bot with ``factory()``."""
    _REGISTRY[(game, name)] = factory


def _load(game: str) -> None:
    if game == "regicide":
        import regalia.bots.regicide  # noqa: F401  (registers its bots)
    elif game == "ribauds":
        try:
            import regalia.bots.ribauds  # noqa: F401
        except ImportError:
            pass


# The bot a table seats when nobody says which: the strongest by the measurements in the
# README ("Bots and evaluation").
TABLE_BOTS = {"regicide": "montecarlo", "ribauds": "ismcts"}


def default_bot(game: str) -> str:
    """The bot that takes a seat at a ``game`` table unless another is asked for."""
    return TABLE_BOTS.get(game, "random")


def bot_names(game: str) -> list[str]:
    """Names of the bots available for ``game``."""
    _load(game)
    return sorted({"random"} | {n for g, n in _REGISTRY if g == game})


def make_bot(game: str, name: str) -> Bot:
    """A new bot ``name`` for ``game``; raises ``KeyError`` listing the available names."""
    if name == "random":
        return RandomBot()
    _load(game)
    try:
        factory = _REGISTRY[(game, name)]
    except KeyError:
        raise KeyError(f"unknown {game} bot {name!r}; the bots are "
                       f"{', '.join(bot_names(game))}") from None
    bot = factory()
    bot.name = name  # the name it was asked by: a "-medal" variant keeps its suffix
    return bot
