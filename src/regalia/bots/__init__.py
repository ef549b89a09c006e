"""Bots: each receives only its seat's view, the legal actions, a random source and a time
budget, and returns an action (design.md, "bots"). ``make_bot(game, name)`` builds one from
the registry table ``base.BOTS``, importing the bot's module only then; ``bot_names`` and
``bot_descriptions`` list them without importing any.

Regicide (``regicide/``): ``random``, ``simple`` (the first hand-written heuristic) and
``heuristic`` (the tuned compiled policy of ``regicide.policy``) in ``regicide.heuristic``,
``montecarlo`` (determinized flat Monte Carlo with policy rollouts on the compiled fast path)
in ``regicide.montecarlo``, ``ismcts`` (information-set Monte Carlo tree search on the same
rollouts) in ``regicide.ismcts``, and ``montecarlo-medal``/``ismcts-medal`` (the same, aiming
at the best solo medal rather than at any win); what a seat knows and the positions sampled
from it are ``regicide.belief``. Le Roy des Ribauds (``ribauds/``): ``random``,
``heuristic``, ``tactical`` and ``ismcts`` (information-set MCTS) in ``ribauds.play``, from
the positions ``ribauds.belief`` samples.

Levels for people (``levels``): ``easy``, ``medium``, ``hard`` and ``strongest``, each a bot
of the game with given parameters; ``make_bot`` builds them too, ``bot_choices`` lists the
levels and the bots, ``level_names``, ``level_descriptions`` and ``default_level`` (the
level offered first) describe them.
"""

from __future__ import annotations

from regalia.bots.base import (
    Bot,
    RandomBot,
    bot_choices,
    bot_descriptions,
    bot_names,
    default_bot,
    make_bot,
    unknown_bot,
)
from regalia.bots.levels import LEVEL_NAMES, default_level, level_descriptions, level_names

__all__ = ["LEVEL_NAMES", "Bot", "RandomBot", "bot_choices", "bot_descriptions", "bot_names",
           "default_bot", "default_level", "level_descriptions", "level_names", "make_bot",
           "unknown_bot"]
