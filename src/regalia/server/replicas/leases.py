"""The leases of one replica (``Leases``, a part of the ``cluster.Cluster``): a table's bots
and clock run on the one replica that holds its lease, a Redis key set with ``NX`` and a
time to live of ``LEASE_TTL`` seconds, renewed every ``LEASE_RENEW`` (``renew``). When that
replica dies its leases expire, and another replica's scan (every ``SCAN_EVERY`` seconds,
``scan``: the database's unfinished tables with bots or clocks whose lease nobody holds)
takes the table over; a move cannot be played twice, the database refuses a second move
at a ply. A table unloaded because it is idle leaves its lease *parked* (``park``): the
scans leave it alone, and whichever replica loads it next takes the lease. A table with
neither bots nor a clock takes no lease, until a seat of it is handed over to a bot."""

from __future__ import annotations

import logging
import time
from typing import Any, Awaitable, Callable, Mapping, Protocol

from regalia.server.refusal import Refusal

log = logging.getLogger("regalia.server")

PREFIX = "regalia:"              # the start of every Redis key and channel of the site
LEASE_TTL = 2.5                  # seconds a lease lives without renewal
LEASE_RENEW = 0.8                # seconds between two renewals of the leases held
SCAN_EVERY = 1.0                 # seconds between two scans for tables nobody runs
# Renew or release a lease only if this replica holds it (compare and act, atomically).
RENEW = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
         "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end")
RELEASE = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
           "return redis.call('del', KEYS[1]) else return 0 end")
PARKED = "parked"                # the lease value of a table unloaded while idle
PARK_TTL = 7 * 86400             # seconds a parked lease is kept (then a scan loads it again)
# Take a lease that is free, parked or already this replica's (ARGV: instance, ttl ms).
ACQUIRE = ("local v = redis.call('get', KEYS[1]) "
           f"if (not v) or v == '{PARKED}' or v == ARGV[1] then "
           "return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) else return false end")
PARK = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
        f"return redis.call('set', KEYS[1], '{PARKED}', 'PX', ARGV[2]) else return 0 end")


class LeasedTable(Protocol):
    """What the cluster needs of a table loaded here: whether its lease is wanted (open,
    with bots or a clock to run), and to be told of its lease and of the heartbeat."""

    wants_lease: bool

    def lease_gained(self) -> None: ...

    def lease_lost(self) -> None: ...

    def presence_beat(self) -> None: ...


def lease_key(table_id: str) -> str:
    return f"{PREFIX}lease:{table_id}"


class Leases:
    """The leases this replica holds (``held``: table ids) and its last successful renewal
    (``renewed``, monotonic seconds). Handed to it: ``redis`` (the cluster's client), this
    replica's ``instance`` name, ``count()`` (a Redis round trip made), ``tables()`` (the
    tables loaded here by id), ``load(id)`` (load a table; ``None``: no such table) and
    ``active_ids()`` (the unfinished tables with bots or clocks, from the database)."""

    def __init__(self, redis: Any, instance: str, *, count: Callable[[], None],
                 tables: Callable[[], Mapping[str, LeasedTable]],
                 load: Callable[[str], Awaitable[Any]],
                 active_ids: Callable[[], Awaitable[list[str]]]) -> None:
        self.redis = redis
        self.instance = instance
        self.count = count
        self.tables = tables
        self.load = load
        self.active_ids = active_ids
        self.held: set[str] = set()
        self.renewed = time.monotonic()
        self._unbuildable: set[str] = set()  # tables whose move log cannot be replayed

    def holds(self, table_id: str) -> bool:
        """This replica holds the table's lease, and its last renewal is recent enough
        that the lease cannot have expired meanwhile (after a stall of this process longer
        than that, the bots and clocks wait for the next renewal)."""
        return table_id in self.held and self.fresh()

    def fresh(self) -> bool:
        return time.monotonic() - self.renewed < LEASE_TTL * 0.8

    async def acquire(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it (free or parked), or this replica
        already does."""
        self.count()
        got = await self.redis.eval(ACQUIRE, 1, lease_key(table_id), self.instance,
                                    int(LEASE_TTL * 1000))
        if got:
            self.held.add(table_id)
        return bool(got)

    async def release(self, table_id: str) -> None:
        if table_id in self.held:
            self.held.discard(table_id)
            self.count()
            await self.redis.eval(RELEASE, 1, lease_key(table_id), self.instance)

    async def park(self, table_id: str) -> None:
        """Hand back the lease of a table unloaded while idle, parked (``PARKED``)."""
        if table_id in self.held:
            self.held.discard(table_id)
            self.count()
            await self.redis.eval(PARK, 1, lease_key(table_id), self.instance, PARK_TTL * 1000)

    async def renew(self) -> None:
        """Renew the leases held (dropping those lost), and take the free leases of the
        tables loaded here that want one."""
        tables = self.tables()
        held = [i for i in self.held if i in tables and tables[i].wants_lease]
        for table_id in self.held - set(held):  # unloaded, over or nothing to run: handed back
            await self.release(table_id)
        wanted = [i for i, t in tables.items() if t.wants_lease and i not in self.held]
        if not held and not wanted:
            self.renewed = time.monotonic()
            return
        ttl = int(LEASE_TTL * 1000)
        sent = time.monotonic()  # a renewed lease lives at least LEASE_TTL from here
        try:
            async with self.redis.pipeline(transaction=False) as p:
                for table_id in held:
                    p.eval(RENEW, 1, lease_key(table_id), self.instance, ttl)
                for table_id in wanted:
                    p.eval(ACQUIRE, 1, lease_key(table_id), self.instance, ttl)
                self.count()
                results = await p.execute()
        except Exception:
            if time.monotonic() - self.renewed > LEASE_TTL * 0.8:  # they may be expiring
                for table_id in list(self.held):
                    self._lost(table_id)
            raise
        stale, self.renewed = not self.fresh(), sent
        for table_id, ok in zip(held, results):
            if not ok:
                log.warning("table %s: lease lost; another replica runs its bots", table_id)
                self._lost(table_id)
            elif stale and table_id in tables:  # the bots and the clock waited for it
                tables[table_id].lease_gained()
        for table_id, ok in zip(wanted, results[len(held):]):
            if ok and table_id in tables:
                self.held.add(table_id)
                tables[table_id].lease_gained()

    def _lost(self, table_id: str) -> None:
        self.held.discard(table_id)
        t = self.tables().get(table_id)
        if t is not None:
            t.lease_lost()

    async def scan(self) -> None:
        """Take over the unfinished tables with bots or clocks whose lease nobody holds (a
        replica died, or stopped): take the lease first, then load the table."""
        loaded = self.tables()
        ids = [i for i in await self.active_ids()
               if i not in loaded and i not in self._unbuildable]
        if not ids:
            return
        ttl = int(LEASE_TTL * 1000)
        async with self.redis.pipeline(transaction=False) as p:
            for table_id in ids:
                p.set(lease_key(table_id), self.instance, nx=True, px=ttl)
            self.count()
            results = await p.execute()
        for table_id, ok in zip(ids, results):
            if not ok:
                continue
            self.held.add(table_id)
            log.info("table %s: taking over its bots and clock", table_id)
            try:
                if await self.load(table_id) is None:
                    await self.release(table_id)
            except Refusal:  # the database cannot be read: the next scan tries again
                await self.release(table_id)
                raise
            except Exception:  # noqa: BLE001 - this table only: the others are taken over
                log.exception("table %s could not be rebuilt from its move log", table_id)
                self._unbuildable.add(table_id)
                await self.release(table_id)
