"""Bots: each receives only its seat's view, the legal actions, a random source and a time
budget, and returns an action (design.md, "bots"). ``make_bot(game, name)`` builds one.

Regicide (``regicide``, ``regicide_search``, ``regicide_ismcts``, ``regicide_knowledge``):
``random``, ``simple`` (the first hand-written heuristic), ``heuristic`` (the tuned
compiled policy of ``regalia.sim.regicide_policy``), ``montecarlo`` (determinized flat
Monte Carlo with policy rollouts on the compiled fast path), ``ismcts`` (information-set
Monte Carlo tree search on the same rollouts), and ``montecarlo-medal``/``ismcts-medal``
(the same, aiming at the best solo medal rather than at any win). Le Roy des Ribauds
(``ribauds``): ``random``, ``heuristic``, ``tactical`` and ``ismcts`` (information-set
MCTS).
"""

from __future__ import annotations

from regalia.bots.base import Bot, RandomBot, bot_names, default_bot, make_bot

__all__ = ["Bot", "RandomBot", "bot_names", "default_bot", "make_bot"]
