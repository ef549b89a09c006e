"""Which accounts are online (``Presence``): a signed-in browser with the lobby or a table
page open. Its friends see it (``web.friends``); nobody else is told.

An account is online for ``ttl`` seconds after each sign of life: the lobby's poll of its
friends (``note``), or a table page's websocket, which keeps it online while it is open
(``hold`` / ``release``) and for ``ttl`` seconds after it closed (a page reloaded is no
leave).

* One process (``Presence``): in memory.
* Many replicas (``SharedPresence``): a Redis key per account, ``regalia:online:ID``, set
  with a time to live of ``ttl`` seconds by the replica that saw the sign of life; the
  accounts with a websocket open on a replica have their key set again every ``ttl / 3``
  seconds. An account is online while its key lives, whichever replica set it. The key
  holds nothing but "online". When Redis fails, a replica answers from what it saw itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Iterable

from regalia.server.replicas.cluster import PREFIX, Cluster

log = logging.getLogger("regalia.server")

ONLINE = PREFIX + "online:"  # the start of every account's key
SWEEP_EVERY = 60.0  # seconds between two sweeps of the expired entries kept in memory


def online_key(account_id: int) -> str:
    return f"{ONLINE}{account_id}"


def clock() -> float:
    """Monotonic seconds (tests replace it)."""
    return time.monotonic()


class Presence:
    """The online accounts of one process (see the module docstring); ``ttl`` in seconds."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self._until: dict[int, float] = {}  # account -> when it is no longer online
        self._held: Counter[int] = Counter()  # account -> websockets open here
        self._swept = clock()

    async def start(self) -> None:
        """Start what keeps the held accounts online elsewhere (nothing in one process)."""

    async def stop(self) -> None:
        pass

    async def note(self, account_id: int) -> None:
        """A sign of life of ``account_id``: online for ``ttl`` seconds."""
        self._note_here(account_id)

    def _note_here(self, account_id: int) -> None:
        now = clock()
        self._until[account_id] = now + self.ttl
        if now - self._swept >= SWEEP_EVERY:
            self._swept = now
            for k in [k for k, t in self._until.items() if t <= now]:
                del self._until[k]

    def hold(self, account_id: int) -> None:
        """A websocket of ``account_id`` opened: online until it closes (``release``)."""
        self._held[account_id] += 1

    def release(self, account_id: int) -> None:
        """A websocket of ``account_id`` closed: online ``ttl`` seconds more, unless
        another one is open."""
        self._held[account_id] -= 1
        if self._held[account_id] <= 0:
            del self._held[account_id]
        self._note_here(account_id)

    def held(self) -> list[int]:
        """The accounts with a websocket open here."""
        return list(self._held)

    def online_here(self, ids: Iterable[int]) -> set[int]:
        """Of ``ids``, the accounts this process saw alive within ``ttl`` seconds."""
        now = clock()
        return {i for i in ids if i in self._held or self._until.get(i, 0.0) > now}

    async def online(self, ids: Iterable[int]) -> set[int]:
        """Of the accounts ``ids``, those online now."""
        return self.online_here(ids)


class SharedPresence(Presence):
    """The online accounts of all the replicas of a site, kept in the ``cluster``'s Redis
    (each call one round trip, counted in its ``round_trips``)."""

    def __init__(self, ttl: float, cluster: Cluster) -> None:
        super().__init__(ttl)
        self.cluster = cluster
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None

    @property
    def _ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._refresh_loop(),
                                                            name="regalia-presence")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    async def note(self, account_id: int) -> None:
        self._note_here(account_id)
        self.cluster.round_trips += 1
        try:
            await self.cluster.redis.set(online_key(account_id), 1, px=self._ms)
        except Exception as e:  # noqa: BLE001 - Redis is down: this replica's view only
            self.cluster.error = f"presence: {e}"

    def hold(self, account_id: int) -> None:
        if account_id not in self._held:  # its key set at once
            self._wake.set()
        super().hold(account_id)

    async def _refresh_loop(self) -> None:
        """Set again, every ``ttl / 3`` seconds (at once for a newly held account), the key
        of every account held here; a failure is logged and tried again at the next round."""
        every = max(0.05, self.ttl / 3)
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), every)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            held = self.held()
            if not held:
                continue
            try:
                async with self.cluster.redis.pipeline(transaction=False) as p:
                    for account_id in held:
                        p.set(online_key(account_id), 1, px=self._ms)
                    self.cluster.round_trips += 1
                    await p.execute()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the next round tries again
                self.cluster.error = f"presence: {e}"
                log.warning("the online accounts could not be written to Redis: %s", e)

    async def online(self, ids: Iterable[int]) -> set[int]:
        ids = list(dict.fromkeys(ids))
        here = self.online_here(ids)
        if not ids:
            return here
        self.cluster.round_trips += 1
        try:
            found = await self.cluster.redis.mget([online_key(i) for i in ids])
        except Exception as e:  # noqa: BLE001 - Redis is down: this replica's view only
            self.cluster.error = f"presence: {e}"
            return here
        return here | {i for i, v in zip(ids, found) if v is not None}
