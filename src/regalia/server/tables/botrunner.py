"""The loop that plays each table's bot seats (``BotLoop``): one task per table that plays
its bot seats (bot seats and human seats handed to a bot): Regicide's Jester-window wishes
first, then the seat to act. The loop never dies from an exception: it logs it and carries
on; after ``MAX_FAILURES`` failures in a row the table is marked broken (its players
receive an ``error`` message, ``/healthz`` reports it).

Its decisions run in the table's bot pool (``botpool.BotPool``; what runs there:
``botwork``). Bots receive their seat's view, the legal actions, a random seed drawn from
the table's own secret source (never from the game's seed) and the time budget.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from regalia.server.refusal import Refusal
from regalia.server.tables import gamekit
from regalia.server.tables.botwork import decide, decide_wish

log = logging.getLogger("regalia.server")

MAX_FAILURES = 5


class BotLoop:
    """The task that plays one table's bot seats (see the module docstring); ``table``:
    the ``table.Table`` that owns it (its bot jobs, seats, state, ``bot_pool`` and
    ``settings``)."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.failures = 0
        self.task: asyncio.Task | None = None
        self._window = (-1, 0.0)  # the Jester window waited for, and until when (monotonic)

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
            self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task) -> None:
        if task.cancelled() or self.table.closing:
            return
        exc = task.exception()
        if exc is not None:  # pragma: no cover - _run catches everything
            log.error("table %s: bot loop ended", self.table.id, exc_info=exc)
            self.table.mark_broken("the bots of this table stopped")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass

    async def _run(self) -> None:
        t = self.table
        while not t.closing and t.broken is None:
            await t.wake.wait()
            t.wake.clear()
            while not t.closing and t.broken is None:
                try:
                    if not await self._step():
                        break
                    self.failures = 0
                except asyncio.CancelledError:
                    raise
                except Exception:
                    self.failures += 1
                    log.exception("table %s: bot step failed (%d in a row)", t.id, self.failures)
                    if self.failures >= MAX_FAILURES:
                        t.mark_broken("the bots of this table failed repeatedly")
                        return
                    await asyncio.sleep(min(5.0, 0.05 * 2 ** self.failures))

    async def _wait_for_wishes(self, ply: int) -> bool:
        """Regicide's Jester window (rules 1.10): a bot who chooses who goes next gives the
        connected players without a wish up to ``wish_wait`` seconds from the window's
        opening to say one, and chooses as soon as each has; ``True`` when the table moved
        meanwhile (a wish came: the step starts again)."""
        t = self.table
        wait = t.settings.wish_wait
        if wait <= 0 or not self._awaited_wishes():
            return False
        window = t.window()
        if self._window[0] != window:
            self._window = (window, time.monotonic() + wait)
        while t.ply == ply and time.monotonic() < self._window[1] and self._awaited_wishes():
            await asyncio.sleep(0.1)
        return t.ply != ply

    def _awaited_wishes(self) -> list[int]:
        """The human seats connected to the table that may still say a first wish."""
        t = self.table
        connected = t.replica.presence()[0]
        return [s.index for s in t.seats if not s.by_bot and connected[s.index]
                and not gamekit.wish_said(t.state, s.index)
                and gamekit.side_texts(t.game, t.state, s.index)]

    async def _step(self) -> bool:
        """Do the next bot job of the table; ``False`` when there is none."""
        t = self.table
        job = t.bot_job()
        if job is None:
            return False
        kind, seat = job
        ply = t.ply
        if kind == "wish":
            t.wished.add((t.window(), seat))
            value = await t.bot_pool.run(decide_wish, t.game.name, t.seating.bot_name(seat),
                                     t.game.view(t.state, seat), t.bot_rng.getrandbits(64),
                                     urgent=t.seating.player_present())
            text = gamekit.wish_text(t.game.name, seat, value) if value else None
            if t.ply != ply or text not in gamekit.side_texts(t.game, t.state, seat):
                return True
        else:
            if t.settings.bot_delay > 0:
                await asyncio.sleep(t.settings.bot_delay)
            if await self._wait_for_wishes(ply):
                return True
            if t.ply != ply or t.bot_job() != job:
                return True
            g, st = t.game, t.state
            legal = list(g.legal_actions(st))
            a = await t.bot_pool.run(decide, g.name, t.seating.bot_name(seat), g.view(st, seat), legal,
                                 t.bot_rng.getrandbits(64), t.settings.bot_budget,
                                 urgent=t.seating.player_present())
            if t.ply != ply:
                return True
            text = g.action_to_text(st, a)
        try:
            await t.submit(seat, text, ply, by_bot=True)
        except Refusal as e:
            if e.code == "storage":  # the database refused: wait before trying again
                raise RuntimeError(f"bot move not stored: {e.message}") from None
            if e.code not in ("stale", "finished", "bot_seat", "not_your_turn"):
                log.warning("table %s: bot move %r refused: %s", t.id, text, e.message)
        return True
