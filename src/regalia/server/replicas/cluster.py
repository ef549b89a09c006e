"""Many server processes, one site (``regalia serve --redis-url``): the replicas share the
database (the tables, their move logs and seats) and one Redis (``Cluster``).

What Redis carries (redis-py's asyncio client), all under the ``regalia:`` prefix:

* **Table events**, published on the table's pub/sub channel (``regalia:table:ID``; a
  replica subscribes to the channels of the tables it has loaded, before it reads them from
  the database, and leaves them when it unloads them) after the change was stored, each
  holding only what every player of the table may see (Redis is not told a face-down
  card): a move (``{"k": "move", "ply"}``: every replica that holds the table reads the
  moves it lacks from the database, and the clocks, and applies them with the engine), talk
  (``"talk"``), a rematch (``"rematch"``), a connection count (``"presence"``: which seats
  are connected to that replica), an answer to a proposal to stop (``"stop"``, with the
  seats that agreed: ``tables.endings``) and ``"sync"`` for every other change (seats,
  clocks, expiry, a game's ending: the receivers read the table again from the database,
  which is the truth). A
  replica that misses events (a gap in the plies, a lost Redis connection) reads the table
  again from the database. Moves of one table are serialised by the database: the unique
  (table, ply) row refuses a second move at a ply, and its submitter gets the usual
  ``stale`` answer.
* **Leases** (``leases.Leases``): a table's bots and clock run on the one replica that
  holds its lease (a key set with ``NX`` and a time to live of ``LEASE_TTL`` seconds,
  renewed every ``LEASE_RENEW``). When that replica dies its leases expire, and another
  replica's scan (every ``SCAN_EVERY`` seconds) takes the table over. A table unloaded
  because it is idle (nobody connected, no bot to play, no clock running) leaves its lease
  *parked*: the scans leave it alone, and whichever replica loads it next takes the lease.
* **Shared limits**: the rate limits (``limits``' Redis storage) and the websockets per
  client address (``connections``: a hash of counts per replica; the counts of replicas
  that stopped beating their heart are ignored).

Every background task here logs its failures and carries on (``_forever``): none dies
silently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from typing import Any, Awaitable, Callable, Mapping

import orjson

from regalia.server.replicas.leases import (LEASE_RENEW, PREFIX, RELEASE, SCAN_EVERY,
                                            LeasedTable, Leases, lease_key)

log = logging.getLogger("regalia.server")

FOLLOW_WAIT = 2.0                # seconds to wait for Redis to confirm a table's subscription
SUBSCRIBER_POLL = 1.0            # seconds the subscriber waits at most for a message before
                                 # it looks at the (un)subscriptions asked (it is woken sooner)
TABLE_CHANNELS = PREFIX + "table:"  # the start of every table channel's name
_TABLE_CHANNELS = TABLE_CHANNELS.encode()  # as the subscription's messages name them
HEARTBEAT = 2.0                  # seconds between two heartbeats (replicas, presence)
REPLICA_ALIVE = 10.0             # a replica that has not beaten for this long is dead
PRESENCE_TTL = 3 * HEARTBEAT + 1  # seconds another replica's connection counts are kept

def table_channel(table_id: str) -> str:
    """The pub/sub channel of a table's events."""
    return TABLE_CHANNELS + table_id


def default_replica_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class Cluster:
    """This replica's link to the others (see the module docstring). ``leases``: the ids of
    the tables whose bots and clock run here; ``round_trips``: Redis round trips so far.

    What it needs of the server is handed to it: ``tables()``, the tables loaded here by
    id; ``load(id)``, load a table (``None``: no such table; raises ``Refusal`` when the
    database cannot be read); ``active_ids()``, the ids of the unfinished tables with bots
    or clocks (read from the database); ``on_event(event)``, another replica's event about
    a table; ``read_again(id)``, a table whose events may have been missed. ``on_beat``:
    coroutine functions awaited at every heartbeat."""

    def __init__(self, url: str, name: str | None = None, *,
                 tables: Callable[[], Mapping[str, LeasedTable]],
                 load: Callable[[str], Awaitable[Any]],
                 active_ids: Callable[[], Awaitable[list[str]]],
                 on_event: Callable[[dict[str, Any]], None],
                 read_again: Callable[[str], None]) -> None:
        try:
            import redis.asyncio as aioredis
        except ImportError:  # pragma: no cover - the core install has no Redis client
            raise ImportError("--redis-url needs the redis package: pip install -e "
                              "'.[cluster]'") from None

        self.url = url
        self.tables = tables
        self.on_event = on_event
        self.read_again = read_again
        self.on_beat: list[Callable[[], Awaitable[None]]] = []
        self.name = name or default_replica_name()
        self.instance = f"{self.name}:{secrets.token_hex(4)}"  # unique even after a restart
        self.redis = aioredis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5,
                                             health_check_interval=30)
        self.round_trips = 0
        self.leasing = Leases(self.redis, self.instance, count=self._count, tables=tables,
                              load=load, active_ids=active_ids)
        self.error: str | None = None
        self.live: set[str] = {self.instance}  # replicas whose heart beats
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()  # (channel, event)
        self._unsent: list[tuple[str, bytes]] = []  # a batch whose round trip failed: sent again first
        self._tasks: list[asyncio.Task] = []
        self._stopping = False
        # this replica's own channel: always subscribed (the subscription stays open when no
        # table is loaded); a message on it wakes the subscriber to send (un)subscriptions
        self.own_channel = f"{PREFIX}replica:{self.instance}"
        self._own = self.own_channel.encode()
        self.followed: set[str] = set()  # the tables whose channel this replica listens to
        self.listening = False  # the subscriber runs and takes requests
        self._requests: asyncio.Queue[tuple[str, str]] = asyncio.Queue()  # (un)subscriptions
        self._waiting: dict[bytes, list[asyncio.Future]] = {}  # channel -> follows, oldest first

    # -- life ------------------------------------------------------------------------

    async def start(self) -> None:
        """Check that Redis answers (raises ``ConnectionError`` with the reason) and start
        the background tasks."""
        try:
            await self.redis.ping()
        except Exception as e:  # noqa: BLE001 - said in one line by ``regalia serve``
            raise ConnectionError(f"Redis at {self.safe_url()} does not answer: {e}") from None
        await self._beat()
        loop = asyncio.get_running_loop()
        for name, job, every in (("publisher", self._publish_loop, 0.0),
                                 ("subscriber", self._subscribe_loop, 0.0),
                                 ("leases", self.leasing.renew, LEASE_RENEW),
                                 ("scan", self.leasing.scan, SCAN_EVERY),
                                 ("heartbeat", self._heartbeat, HEARTBEAT)):
            self._tasks.append(loop.create_task(self._forever(name, job, every),
                                                name=f"regalia-cluster-{name}"))

    async def stop(self) -> None:
        """Stop the tasks, hand back the leases held (another replica takes the tables
        over at its next scan) and close the connection."""
        self._stopping = True  # a task whose cancellation got lost ends after its round
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        try:
            await self._flush()
            async with self.redis.pipeline(transaction=False) as p:
                for table_id in self.leases:
                    p.eval(RELEASE, 1, lease_key(table_id), self.instance)
                p.zrem(PREFIX + "replicas", self.instance)
                await p.execute()
        except Exception as e:  # noqa: BLE001 - the leases expire by themselves
            log.warning("could not hand back the leases at stop: %s", e)
        self.leases.clear()
        await self.redis.aclose()

    async def _forever(self, name: str, job: Callable[[], Awaitable[None]], every: float) -> None:
        """Run ``job`` again and again (``every`` seconds apart); a failure is logged, kept
        in ``error`` (``/healthz``) and retried after a pause: the task never dies."""
        pause = 0.1
        while not self._stopping:
            try:
                await job()
                pause = 0.1
                if every:
                    await asyncio.sleep(every)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001
                why = f"{name}: {e.__class__.__name__}: {e}"
                if why != self.error:
                    log.error("cluster %s failed: %s", name, e)
                self.error = why
                await asyncio.sleep(pause)
                pause = min(2.0, pause * 2)

    def _count(self) -> None:
        """A Redis round trip made (``round_trips``)."""
        self.round_trips += 1

    @property
    def leases(self) -> set[str]:
        """The ids of the tables whose lease this replica holds (``Leases.held``)."""
        return self.leasing.held

    def holds(self, table_id: str) -> bool:
        """This replica holds the table's lease, and recently renewed it (``Leases``)."""
        return self.leasing.holds(table_id)

    async def acquire(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it (free or parked), or this replica
        already does."""
        return await self.leasing.acquire(table_id)

    async def park(self, table_id: str) -> None:
        """Hand back the lease of a table unloaded while idle, parked."""
        await self.leasing.park(table_id)

    async def release(self, table_id: str) -> None:
        """Hand back the lease of a table unloaded while a turn-based clock runs, free (not
        parked): the scans take it over when its deadline nears."""
        await self.leasing.release(table_id)

    def safe_url(self) -> str:
        from urllib.parse import urlsplit

        u = urlsplit(self.url)
        return f"{u.scheme}://{u.hostname}:{u.port or 6379}{u.path}"

    def status(self) -> str:
        return "ok" if self.error is None else f"failing: {self.error}"

    # -- table events ----------------------------------------------------------------

    def publish(self, table_id: str, event: dict[str, Any]) -> None:
        """Send ``event`` about the table to the other replicas (in order, soon: the
        publisher task sends what is queued in one round trip)."""
        self._outbox.put_nowait((table_channel(table_id),
                                 orjson.dumps({**event, "t": table_id, "r": self.instance})))

    async def _publish_loop(self) -> None:
        await self._flush(None if self._unsent else await self._outbox.get())

    async def _flush(self, first: tuple[str, bytes] | None = None) -> None:
        batch, self._unsent = self._unsent, []
        if first is not None:
            batch.append(first)
        while not self._outbox.empty():
            batch.append(self._outbox.get_nowait())
        if not batch:
            return
        # A batch that cannot be sent is sent again (in order, before the later events):
        # the other replicas may wait for it (the move that makes it their player's turn).
        try:
            async with self.redis.pipeline(transaction=False) as p:
                for channel, data in batch:
                    p.publish(channel, data)
                self.round_trips += 1
                await p.execute()
        except BaseException:
            self._unsent = batch
            raise
        self.error = None

    async def follow(self, table_id: str) -> bool:
        """Listen to the table's channel; called before the table is read from the database.
        Returns once Redis confirmed the subscription (``False``: every event stored after
        the read will arrive), or ``True`` when it did not within ``FOLLOW_WAIT`` seconds:
        the table must be read again after its load. Without a running subscriber it
        returns ``False`` at once: the subscriber subscribes every followed table when it
        starts, and reads each again once Redis confirmed it."""
        self.followed.add(table_id)
        if not self.listening:
            return False
        confirmed = asyncio.get_running_loop().create_future()
        channel = table_channel(table_id).encode()
        waiting = self._waiting.setdefault(channel, [])
        waiting.append(confirmed)
        self._ask("subscribe", table_id)
        try:
            await asyncio.wait_for(asyncio.shield(confirmed), FOLLOW_WAIT)
            return False
        except asyncio.TimeoutError:
            log.warning("table %s: Redis did not confirm its subscription in time", table_id)
            return True
        finally:
            if confirmed in waiting:  # not confirmed: a late confirmation reads it again
                waiting.remove(confirmed)
            if not waiting and self._waiting.get(channel) is waiting:
                del self._waiting[channel]

    def unfollow(self, table_id: str) -> None:
        """Stop listening to the table's channel. The caller checks, with no await in
        between, that the table is neither loaded nor loading here."""
        self.followed.discard(table_id)
        if self.listening:
            self._ask("unsubscribe", table_id)

    def _ask(self, command: str, table_id: str) -> None:
        """Queue an (un)subscription for the subscriber and wake it: an empty message on
        this replica's own channel, sent by the publisher."""
        self._requests.put_nowait((command, table_id))
        self._outbox.put_nowait((self.own_channel, b"{}"))

    async def _subscribe_loop(self) -> None:
        """The one task that uses the subscription: it subscribes this replica's own channel
        and every followed table, then sends the (un)subscriptions ``follow`` and
        ``unfollow`` queue (they wake it through its own channel), and hands each event to
        ``on_event``. A table whose subscription Redis
        confirms without a ``follow`` waiting for it (every table when the subscription is
        new or came back after a failure, or a ``follow`` that gave up) is read again from
        the database: events stored before may have been missed."""
        async with self.redis.pubsub() as ps:
            subscribed = set(self.followed)
            await ps.subscribe(self.own_channel, *(table_channel(i) for i in subscribed))
            self.round_trips += 1
            self.listening = True
            for table_id in self.followed - subscribed:  # followed during that round trip
                self._requests.put_nowait(("subscribe", table_id))
            try:
                while True:
                    while not self._requests.empty():
                        command, table_id = self._requests.get_nowait()
                        self.round_trips += 1
                        await (ps.subscribe if command == "subscribe" else ps.unsubscribe)(
                            table_channel(table_id))
                    msg = await ps.get_message(timeout=SUBSCRIBER_POLL)
                    if msg is not None:
                        self._received(msg)
            finally:
                self.listening = False
                while not self._requests.empty():  # the next subscriber subscribes them all
                    self._requests.get_nowait()
                for waiting in self._waiting.values():
                    for confirmed in waiting:
                        if not confirmed.done():
                            confirmed.set_exception(asyncio.TimeoutError())
                self._waiting.clear()

    def _received(self, msg: dict[str, Any]) -> None:
        """A message of the subscription: an event for ``on_event``, or Redis confirming a
        table's subscription."""
        kind = msg.get("type")
        if kind == "subscribe":
            channel = msg["channel"]
            waiting = self._waiting.get(channel)
            if waiting:
                waiting.pop(0).set_result(None)
            elif channel.startswith(_TABLE_CHANNELS):
                self.read_again(channel[len(_TABLE_CHANNELS):].decode())
            return
        if kind != "message" or msg["channel"] == self._own:
            return
        try:
            event = orjson.loads(msg["data"])
            if event.get("r") != self.instance:
                self.on_event(event)
        except Exception:  # noqa: BLE001 - one bad event must not stop the others
            log.exception("a table event could not be applied: %r", msg.get("data"))

    # -- heartbeat, presence and connection caps -------------------------------------

    async def _beat(self) -> None:
        now = time.time()
        async with self.redis.pipeline(transaction=False) as p:
            p.zadd(PREFIX + "replicas", {self.instance: now})
            p.zremrangebyscore(PREFIX + "replicas", 0, now - 10 * REPLICA_ALIVE)
            p.zrangebyscore(PREFIX + "replicas", now - REPLICA_ALIVE, "+inf")
            self.round_trips += 1
            *_, live = await p.execute()
        self.live = {x.decode() for x in live} | {self.instance}

    async def _heartbeat(self) -> None:
        """Say this replica lives; tell the others again which seats are connected here
        (their copies forget counts not repeated within ``PRESENCE_TTL``); write again the
        connection counts a failed ``disconnect`` left too high (``on_beat``)."""
        await self._beat()
        for t in list(self.tables().values()):
            t.presence_beat()
        for hook in self.on_beat:
            await hook()
