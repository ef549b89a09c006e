"""A table's side of a many-replica site (``replicas.cluster``): what it tells the other
replicas after each stored change, how it applies what they tell it, its lease (whether its
bots and clock run here), and which seats are connected anywhere. The table reaches the
other replicas through its ``Peers`` (the ``Cluster``); with one process (no
``--redis-url``) they are ``SOLO``, which does nothing: the table runs its bots and clock
and knows all its connections."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

from regalia.server.replicas.cluster import PRESENCE_TTL
from regalia.server.tables.clocks import Clock

log = logging.getLogger("regalia.server")


class Peers(Protocol):
    """The other replicas as a table and the registry reach them (``Cluster``, or
    ``SOLO``)."""

    def holds(self, table_id: str) -> bool: ...

    def publish(self, table_id: str, event: dict[str, Any]) -> None: ...

    async def follow(self, table_id: str) -> bool: ...

    def unfollow(self, table_id: str) -> None: ...

    async def acquire(self, table_id: str) -> bool: ...

    async def park(self, table_id: str) -> None: ...


class Solo:
    """The peers of one process: none. Every table's lease is held here, nothing is
    published, no subscription is needed."""

    def holds(self, table_id: str) -> bool:
        return True

    def publish(self, table_id: str, event: dict[str, Any]) -> None:
        pass

    async def follow(self, table_id: str) -> bool:
        return False

    def unfollow(self, table_id: str) -> None:
        pass

    async def acquire(self, table_id: str) -> bool:
        return True

    async def park(self, table_id: str) -> None:
        pass


SOLO = Solo()


class Replicated:
    """The replication of a ``Table`` (a mixin: it uses the table's ``peers``, ``writer``, ``conns``,
    ``seats``, ``match`` and its move, clock and broadcast methods)."""

    remote: dict[str, tuple[list[int], int, float]]  # replica -> (seat counts, spectators, when)
    _sync_task: asyncio.Task | None
    _sync_again: bool
    _presence_sent: tuple[list[int], int] | None

    def init_replication(self) -> None:
        self.remote = {}
        self._sync_task = None
        self._sync_again = False
        self._presence_sent = None

    @property
    def runs_bots(self) -> bool:
        """This replica plays the table's bots and runs its clock (always, with one
        process; with many, while it holds the table's lease)."""
        return self.peers.holds(self.id)

    def tell_others(self, kind: str, **fields: Any) -> None:
        """Publish a stored change to the other replicas (nothing with one process)."""
        self.peers.publish(self.id, {"k": kind, **fields})

    def lease_gained(self) -> None:
        self.arm_clock()
        self.wake.set()

    def lease_lost(self) -> None:
        self.arm_clock()  # stops the alarm; the bot loop finds no job any more

    # -- other replicas' events ------------------------------------------------------

    def receive(self, event: dict[str, Any]) -> None:
        """Apply another replica's event (``cluster`` module docstring) and tell this
        replica's connections."""
        kind = event.get("k")
        if kind == "move":
            ply = event["ply"]
            if ply < self.ply:  # already here (read from the database meanwhile)
                return
            if ply > self.ply:  # moves were missed: the database has them
                self.request_sync()
                return
            try:
                move = self._try(event["seat"], event["action"])
            except Exception:  # noqa: BLE001 - this copy differs: the database decides
                log.exception("table %s: another replica's move at ply %s does not apply "
                              "here; reading the table again", self.id, ply)
                self.request_sync()
                return
            if event.get("clock") is not None and self.clock is not None:
                move.clock = Clock.load(self.clock.config(), event["clock"], len(self.seats))
            self._commit(move)
            self._show_change()
        elif kind == "talk":
            self.messages.append(event["body"])
            del self.messages[:-100]
            self.broadcast({"type": "talk", **event["body"]})
        elif kind == "rematch":
            self.announce_rematch(event["table"])
        elif kind == "presence":
            self.remote[event["r"]] = (list(event["seats"]), int(event["spectators"]),
                                       time.monotonic())
            self._seats_changed()
        elif kind == "sync":
            self.request_sync(event.get("msg"))

    def request_sync(self, then: dict[str, Any] | None = None) -> None:
        """Read the table again from the database soon (one read at a time; asked again
        meanwhile, once more after it), then send ``then`` to the connections."""
        if self.closing:
            return
        if self._sync_task is not None and not self._sync_task.done():
            self._sync_again = True
            if then is not None:  # said after the read under way, which may precede it
                self._sync_task.add_done_callback(lambda _: self.broadcast(then))
            return
        self._sync_task = asyncio.get_running_loop().create_task(self._sync_loop(then))

    async def _sync_loop(self, then: dict[str, Any] | None) -> None:
        while True:
            self._sync_again = False
            try:
                async with self.lock:  # never between a local change's write and its apply
                    await self.sync()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - logged; the next event asks again
                log.error("table %s: reading it again from the database failed: %s",
                          self.id, e)
                await asyncio.sleep(1.0)
                self._sync_again = True
            if then is not None:
                self.broadcast(then)
                then = None
            if not self._sync_again or self.closing:
                return

    async def sync(self) -> None:
        """Catch up with the database: the moves stored since this copy's ply, then the
        seats, clocks, status and latest talk as stored (another replica changed them)."""
        data = await self.writer.db(self.writer.store.load_table, self.id)
        if data is None:
            return
        changed = False
        for ply, seat, action in data.moves[self.ply:]:
            if ply != self.ply:  # pragma: no cover - the store keeps plies contiguous
                break
            self._commit(self._try(seat, action))
            changed = True
        for s, d in zip(self.seats, data.seats):
            new = (d.kind, d.bot, d.token_hash, d.bot_replaces, d.name, d.claimed)
            if new != (s.kind, s.bot_name, s.token_hash, s.bot_replaces, s.name, s.claimed):
                (s.kind, s.bot_name, s.token_hash, s.bot_replaces, s.name, s.claimed) = new
                changed = True
        if data.clock:
            clock = Clock.load(data.clock, data.clock_state, len(self.seats))
            if self.clock is None or clock.to_json() != self.clock.to_json():
                self.set_clock(clock)
                changed = True
        if (data.status, data.next_table) != (self.status, self.next_table):
            self.status, self.next_table, changed = data.status, data.next_table, True
        for body in data.messages:  # talk whose event this copy missed (e.g. while loading)
            if body not in self.messages:
                self.messages.append(body)
                self.broadcast({"type": "talk", **body})
        del self.messages[:-100]
        if changed:
            self._show_change()

    def _show_change(self) -> None:
        """Another replica's change is now in this copy: tell the connections here, and
        re-arm the clock and the bots (when this replica runs them)."""
        self.last_active = time.monotonic()
        self.broadcast_state()
        self.arm_clock()
        self.wake.set()

    # -- connections anywhere --------------------------------------------------------

    def local_presence(self) -> tuple[list[int], int]:
        """Connections to this replica: per seat, and spectators."""
        counts = [0] * len(self.seats)
        spectators = 0
        for c in self.conns:
            if c.seat is None:
                spectators += 1
            else:
                counts[c.seat] += 1
        return counts, spectators

    def presence(self) -> tuple[list[int], int]:
        """Connections to every replica: per seat, and spectators (other replicas' counts
        as they last said them, forgotten after ``cluster.PRESENCE_TTL`` seconds)."""
        counts, spectators = self.local_presence()
        if self.remote:
            now = time.monotonic()
            for replica, (seats, watching, when) in list(self.remote.items()):
                if now - when > PRESENCE_TTL:
                    del self.remote[replica]
                    continue
                for k, n in enumerate(seats[:len(counts)]):
                    counts[k] += n
                spectators += watching
        return counts, spectators

    def presence_changed(self) -> None:
        """Tell the other replicas this replica's connections, when they changed."""
        now = self.local_presence()
        if now != self._presence_sent:
            self._presence_sent = now
            self.tell_others("presence", seats=now[0], spectators=now[1])

    def presence_beat(self) -> None:
        """Every heartbeat: repeat this replica's counts (when it has connections) and drop
        the counts of replicas that stopped repeating theirs."""
        if self.conns:
            counts, spectators = self.local_presence()
            self._presence_sent = (counts, spectators)
            self.tell_others("presence", seats=counts, spectators=spectators)
        before = len(self.remote)
        self.presence()
        if len(self.remote) != before:
            self._seats_changed()
