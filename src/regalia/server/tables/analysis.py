"""Game analyses of finished tables (``Analyses``): each decision of a player with the win
chance of the move played and of the best move, worked out in a bot pool of its own so that
it never holds up a table's bots; the finished ones kept in memory."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from functools import partial
from typing import Any

from regalia.server.refusal import Refusal
from regalia.server.tables.botpool import BotPool
from regalia.server.tables.botwork import analyse
from regalia.server.tables.table import Table

log = logging.getLogger("regalia.server")

ANALYSIS_WORLDS = 100  # sampled positions per analysed decision (regalia.lab.analyse)
ANALYSES_KEPT = 256    # finished analyses kept in memory, the oldest forgotten first


class Analyses:
    """The analyses of one server, worked out in ``pool`` (one at a time); ``kept``: the
    finished ones by ``(table id, seat)``."""

    def __init__(self, pool: BotPool) -> None:
        self.pool = pool
        self.kept: OrderedDict[tuple[str, int], list[dict[str, Any]]] = OrderedDict()
        self._analysing: dict[tuple[str, int], asyncio.Future] = {}

    def __contains__(self, key: tuple[str, int]) -> bool:
        """The analysis of ``(table id, seat)`` is kept (asking for it costs nothing)."""
        return key in self.kept

    @staticmethod
    def check(table: Table, seat: Any) -> None:
        """Raises the ``Refusal`` of an analysis that cannot be made (``not_finished``,
        ``bad_request``): checked before the asker's rate counts it."""
        if not table.finished:
            raise Refusal("not_finished", "the analysis opens when the game is over")
        if not table.game.analysable:
            raise Refusal("bad_request", "analysis is for Regicide games")
        if type(seat) is not int or not 0 <= seat < len(table.seats):
            raise Refusal("bad_request",
                          f"seat: 0 to {len(table.seats) - 1} (seats count from 0)")

    async def analysis(self, table: Table, seat: Any) -> list[dict[str, Any]]:
        """The analysis of a finished Regicide game for ``seat`` (0-based): each decision of
        that player with the win chance of the move played and of the best move, from that
        player's view only (``regalia.lab.analyse``, ``ANALYSIS_WORLDS`` sampled positions),
        the three costliest (from 5 points) marked. Worked out once, in a pool of its own
        (askers of the same one meanwhile wait for it; it is kept even if they all left),
        and kept for the ``ANALYSES_KEPT`` latest. Raises ``Refusal`` (``not_finished``,
        ``bad_request``, ``analysis_failed``)."""
        self.check(table, seat)
        key = (table.id, seat)
        if key in self.kept:
            self.kept.move_to_end(key)
            return self.kept[key]
        job = self._analysing.get(key)
        if job is None:
            job = asyncio.ensure_future(self.pool.run(
                analyse, table.match.record().to_json(), seat, ANALYSIS_WORLDS))
            self._analysing[key] = job
            job.add_done_callback(partial(self._analysed, key))
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - said to the asker, logged by _analysed
            raise Refusal("analysis_failed", "the analysis could not be worked out; try "
                                             "again later") from e


    def _analysed(self, key: tuple[str, int], job: asyncio.Future) -> None:
        """An analysis job ended: keep its result (whoever still waits), or log its failure."""
        self._analysing.pop(key, None)
        if job.cancelled():
            return
        if job.exception() is not None:
            log.error("analysis of table %s seat %s failed: %r", key[0], key[1], job.exception())
            return
        self.kept[key] = job.result()
        while len(self.kept) > ANALYSES_KEPT:
            self.kept.popitem(last=False)

