"""Rating the rated games (``Rater``, a part of the table registry): the end of a rated
game is rated by the replica that stored it, right after (``rate``); a game whose end was
stored but not rated (a crash, a database that refused) is rated by the catch-up
(``settle_ratings``: at start, at each janitor round, before a leaderboard or a profile is
read). ``storage.ratings.RatingStore.apply`` rates a game once however often it is asked,
on any replica.
"""

from __future__ import annotations

import asyncio
import logging

from regalia.server.refusal import Refusal
from regalia.server.storage.ratings import RatingStore
from regalia.server.storage.store import reason
from regalia.server.storage.values import Conflict
from regalia.server.storage.writer import Writer
from regalia.server.tables import gamekit

log = logging.getLogger("regalia.server")

SETTLE_AT_ONCE = 20  # rated games the catch-up rates at most per round


class Rater:
    """The rated games of one server: rated through ``writer`` with ``ratings`` (the
    ``RatingStore``); those being rated in a task of their own, and those whose record the
    rules refuse (never asked for again)."""

    def __init__(self, writer: Writer, ratings: RatingStore) -> None:
        self.writer = writer
        self.ratings = ratings
        self._rating: set[asyncio.Task] = set()  # rated games being rated
        self._unratable: set[str] = set()  # rated games whose record the rules refuse

    def game_over(self, table_id: str, scores: list[float]) -> None:
        """A rated game's end was stored here (``TableServices.game_over``): rated in a task
        of its own (``rate``), so that no table waits for it."""
        task = asyncio.get_running_loop().create_task(self.rate(table_id, scores))
        self._rating.add(task)
        task.add_done_callback(self._rating.discard)

    async def rate(self, table_id: str, scores: list[float]) -> bool:
        """Rate the finished rated game of ``table_id`` (``RatingStore.apply``: once, however
        often asked); ``scores`` per seat (1 won, 0 lost). Returns whether this call rated
        it; a refusal of the database is logged (the catch-up tries again:
        ``settle_ratings``)."""
        try:
            changes = await self.writer.write(self.ratings.apply, table_id, scores)
        except (Refusal, Conflict) as e:
            log.warning("table %s: its rated game could not be rated yet: %s", table_id,
                        getattr(e, "message", e))
            return False
        if changes:
            log.info("table %s rated: %s", table_id, ", ".join(
                f"seat {c.seat} {c.before.shown} -> {c.after.shown}" for c in changes))
        return bool(changes)

    async def settle_ratings(self, limit: int = SETTLE_AT_ONCE) -> int:
        """The catch-up: rate the finished rated games whose end was stored but that were
        not rated (the replica that stored it stopped first, or the database refused),
        their results worked out from their records, at most ``limit`` of them (the oldest
        first). Returns how many it rated; the database's refusals are logged."""
        try:
            todo = await self.writer.db(self.ratings.pending, limit, sorted(self._unratable))
        except Exception as e:  # noqa: BLE001 - the next round tries again
            log.warning("the rated games still to rate cannot be read: %s", reason(e))
            return 0
        done = 0
        for record in todo:
            try:
                out = await asyncio.to_thread(gamekit.record_outcome, record)
            except Exception as e:  # noqa: BLE001 - one bad record stops no other
                log.error("table %s: its result cannot be worked out (not rated): %s",
                          record["id"], e)
                self._unratable.add(record["id"])
                continue
            done += await self.rate(record["id"], [float(r) for r in out["returns"]])
        return done

    async def stop(self) -> None:
        """Wait for the rated games being rated: a second at most (else: the catch-up)."""
        if self._rating:
            await asyncio.wait(list(self._rating), timeout=1.0)
