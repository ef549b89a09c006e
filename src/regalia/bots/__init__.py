"""Bots: each receives only its seat's view, the legal actions, a random source and a time
budget, and returns an action (design.md, "bots"). ``make_bot(game, name)`` builds one."""

from __future__ import annotations

from regalia.bots.base import Bot, RandomBot, bot_names, make_bot

__all__ = ["Bot", "RandomBot", "bot_names", "make_bot"]
