"""Websockets per client address, capped on all the replicas of a site together
(``Connections``; ``Settings.connections_per_address``).

With one process the counts are this process's own. With many (a ``Cluster``), each
replica's count of an address is also kept in Redis (a hash of counts per replica; the
counts of replicas that stopped beating their heart are ignored), and a new websocket is
refused when all the replicas together already have the limit open. When Redis fails, this
replica's own count decides; a count a failed call may have left wrong is written again at
the next heartbeat that reaches Redis.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from contextlib import contextmanager
from typing import Iterator

from regalia.server.replicas.cluster import PREFIX, REPLICA_ALIVE, Cluster

log = logging.getLogger("regalia.server")


class Connections:
    """The open websockets of this replica per client address (``counts``), at most
    ``limit`` per address on all replicas together (``cluster``: counted in its Redis too;
    ``None`` with one process)."""

    def __init__(self, limit: int, cluster: Cluster | None = None) -> None:
        self.limit = limit
        self.cluster = cluster
        self.counts: Counter[str] = Counter()  # open websockets per client address
        self._shared: Counter[str] = Counter()  # of them, counted in Redis
        self._recount: set[str] = set()  # addresses whose count in Redis may be wrong
        self._counting: Counter[str] = Counter()  # connect/disconnect calls under way
        self._counted: set[str] = set()  # addresses to recount that a call counted meanwhile
        if cluster is not None:
            cluster.on_beat.append(self._write_counts_again)

    async def opened(self, address: str) -> bool:
        """Count a new websocket of ``address``; ``False`` (not counted) when the address
        already has ``limit`` open, on all replicas together. When Redis fails, this
        replica's own count decides."""
        if self.counts[address] >= self.limit:
            return False
        if self.cluster is not None:
            try:
                if not await self.connect(address, self.limit):
                    return False
                self._shared[address] += 1
            except Exception as e:  # noqa: BLE001 - Redis is down: count here only
                log.warning("shared connection count failed: %s", e)
        self.counts[address] += 1
        return True

    def shared(self, address: str) -> int:
        """Websockets of ``address`` on this replica that Redis counted."""
        return self._shared.get(address, 0)

    async def closed(self, address: str) -> None:
        """Count a websocket of ``address`` less (here, and in Redis when it counted it)."""
        self.counts[address] -= 1
        if self.counts[address] <= 0:
            del self.counts[address]
        if self._shared[address] > 0:  # not one Redis never counted
            self._shared[address] -= 1
            if self._shared[address] <= 0:
                del self._shared[address]
            try:
                await self.disconnect(address)
            except Exception as e:  # noqa: BLE001 - written again at a later heartbeat
                log.warning("shared connection count failed: %s", e)

    async def _write_counts_again(self) -> None:
        """Write this replica's count of each address in ``_recount`` (its own number of
        websockets counted in Redis). An address is left for the next heartbeat while a
        ``connect`` or ``disconnect`` of it is under way, or when one started during the
        write: the number written may not hold that call's change."""
        for address in list(self._recount):
            if self._counting[address]:
                continue
            self._counted.discard(address)
            n = self.shared(address)
            key = f"{PREFIX}conns:{address}"
            self.cluster.round_trips += 1
            await (self.cluster.redis.hset(key, self.cluster.instance, n) if n else
                   self.cluster.redis.hdel(key, self.cluster.instance))
            if address not in self._counted:
                self._recount.discard(address)
            self._counted.discard(address)

    @contextmanager
    def _counting_call(self, address: str) -> Iterator[None]:
        """A ``connect`` or ``disconnect`` of ``address`` under way (``_write_counts_again``);
        one that fails may or may not have counted in Redis: the count is written again."""
        self._counting[address] += 1
        if address in self._recount:
            self._counted.add(address)
        try:
            yield
        except Exception:
            self._recount.add(address)
            raise
        finally:
            self._counting[address] -= 1
            if not self._counting[address]:
                del self._counting[address]

    async def connect(self, address: str, limit: int) -> bool:
        """Count one more websocket of ``address`` unless all replicas together already
        have ``limit`` open (then ``False``, nothing counted)."""
        key = f"{PREFIX}conns:{address}"
        with self._counting_call(address):
            async with self.cluster.redis.pipeline(transaction=False) as p:
                p.hincrby(key, self.cluster.instance, 1)
                p.expire(key, 86400)
                p.hgetall(key)
                p.zrangebyscore(PREFIX + "replicas", time.time() - REPLICA_ALIVE, "+inf")
                self.cluster.round_trips += 1
                _, _, counts, live = await p.execute()
        self.cluster.live = {x.decode() for x in live} | {self.cluster.instance}
        total = sum(int(v) for k, v in counts.items() if k.decode() in self.cluster.live)
        if total > limit:
            await self.disconnect(address)
            return False
        return True

    async def disconnect(self, address: str) -> None:
        """Count one websocket of ``address`` less; when Redis fails, the count is written
        again at the next heartbeat that reaches it."""
        self.cluster.round_trips += 1
        with self._counting_call(address):
            await self.cluster.redis.hincrby(f"{PREFIX}conns:{address}", self.cluster.instance, -1)
