"""Replays of ended games (finished, or abandoned: neither changes again), built once and
kept encoded: ``Replays.body(table_id, build)`` answers the JSON body of a table's replay
from memory after its first build (the ``size`` most recently asked tables are kept), and
concurrent asks for one table wait for one build."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Awaitable, Callable


class Replays:
    """The encoded replays of the ``size`` most recently asked ended tables (bytes of JSON)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._done: OrderedDict[str, bytes] = OrderedDict()
        self._building: dict[str, asyncio.Future[bytes]] = {}

    def cached(self, table_id: str) -> bytes | None:
        """The kept body of ``table_id``'s replay, or ``None`` (it must be built)."""
        body = self._done.get(table_id)
        if body is not None:
            self._done.move_to_end(table_id)
        return body

    def forget(self, table_id: str) -> None:
        """Drop ``table_id``'s kept replay (its seats' names changed: built again when
        asked)."""
        self._done.pop(table_id, None)

    def building(self, table_id: str) -> bool:
        """Whether a build of ``table_id``'s replay is under way (an ask waits for it)."""
        return table_id in self._building

    async def body(self, table_id: str, build: Callable[[], Awaitable[bytes]]) -> bytes:
        """The body of ``table_id``'s replay: kept, being built (awaited), or ``build()``
        now and kept. A failed build is raised to every waiter and not kept."""
        body = self.cached(table_id)
        if body is not None:
            return body
        pending = self._building.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        pending = self._building[table_id] = asyncio.get_running_loop().create_future()
        try:
            body = await build()
        except BaseException as e:
            pending.set_exception(e)
            pending.exception()  # retrieved: no "never retrieved" warning without waiters
            raise
        else:
            pending.set_result(body)
            self._done[table_id] = body
            while len(self._done) > self.size:
                self._done.popitem(last=False)
            return body
        finally:
            del self._building[table_id]
