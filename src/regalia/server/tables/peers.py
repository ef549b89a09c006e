"""A table's side of a many-replica site (``replicas.cluster``), the ``Replica`` part of a
table: what it tells the other replicas after each stored change, how it applies what they
tell it, its lease (whether its bots and clock run here), and which seats are connected
anywhere. The part reaches the other replicas through its ``Peers`` (the ``Cluster``); with
one process (no ``--redis-url``) they are ``SOLO``, which does nothing: the table runs its
bots and clock and knows all its connections."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, Protocol

from regalia.server.replicas.cluster import PRESENCE_TTL
from regalia.server.storage.values import TableData
from regalia.server.storage.writer import Writer
from regalia.server.tables.core import Move, TableCore

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

    async def release(self, table_id: str) -> None: ...


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

    async def release(self, table_id: str) -> None:
        pass


SOLO = Solo()


class Replica:
    """The replication of a table, a part of it: it publishes the table's stored changes
    (``tell_others``), applies the other replicas' events (``receive``), reads the table
    again from the database when this copy may have missed one (``request_sync``), and
    counts the connections to every replica (``presence``).

    Handed to it: the table's ``core``, its ``peers``, the ``writer`` (the database reads)
    and callbacks into the table's other parts: ``local_presence()`` (the connections here:
    per seat, and spectators), ``seats_changed()`` (send the seat list soon),
    ``broadcast(msg)``, ``commit(move)`` (apply a stored move, ``TableCore.try_move``'s,
    and the clocks it carries), ``stored_clock(config, state)`` (take the stored clocks;
    whether they changed), ``heard(body)`` and ``missed_talk(bodies)`` (talk said through
    another replica), ``rematch(table_id)`` and ``show_change()`` (another replica's change
    is in this copy: tell the connections, re-arm the clock and the bots) and
    ``stop_heard(event)`` (a proposal to stop answered through another replica)."""

    def __init__(self, core: TableCore, peers: Peers, writer: Writer, *,
                 local_presence: Callable[[], tuple[list[int], int]],
                 seats_changed: Callable[[], None],
                 broadcast: Callable[[dict[str, Any]], None],
                 commit: Callable[[Move], None],
                 stored_clock: Callable[[dict[str, Any] | None, dict[str, Any] | None], bool],
                 heard: Callable[[dict[str, Any]], None],
                 missed_talk: Callable[[list[dict[str, Any]]], None],
                 rematch: Callable[[str], None],
                 stop_heard: Callable[[dict[str, Any]], None],
                 show_change: Callable[[], None]) -> None:
        self.core = core
        self.peers = peers
        self.writer = writer
        self.local_presence = local_presence
        self.seats_changed = seats_changed
        self.broadcast = broadcast
        self.commit = commit
        self.stored_clock = stored_clock
        self.heard = heard
        self.missed_talk = missed_talk
        self.rematch = rematch
        self.stop_heard = stop_heard
        self.show_change = show_change
        # replica -> (seat counts, spectators, when)
        self.remote: dict[str, tuple[list[int], int, float]] = {}
        self._sync_task: asyncio.Task | None = None
        self._sync_again = False
        self._presence_sent: tuple[list[int], int] | None = None

    @property
    def runs_bots(self) -> bool:
        """This replica plays the table's bots and runs its clock (always, with one
        process; with many, while it holds the table's lease)."""
        return self.peers.holds(self.core.id)

    def tell_others(self, kind: str, **fields: Any) -> None:
        """Publish a stored change to the other replicas (nothing with one process)."""
        self.peers.publish(self.core.id, {"k": kind, **fields})

    def stop(self) -> None:
        if self._sync_task is not None:
            self._sync_task.cancel()

    # -- other replicas' events ------------------------------------------------------

    def receive(self, event: dict[str, Any]) -> None:
        """Apply another replica's event (``cluster`` module docstring) and tell this
        replica's connections."""
        kind = event.get("k")
        core = self.core
        if kind == "move":  # a move was stored at ``ply``: the database holds what it was
            if event["ply"] >= core.ply:  # (not read here meanwhile)
                self.request_sync()
        elif kind == "talk":
            self.heard(event["body"])
        elif kind == "rematch":
            self.rematch(event["table"])
        elif kind == "stop":
            self.stop_heard(event)
        elif kind == "presence":
            self.remote[event["r"]] = (list(event["seats"]), int(event["spectators"]),
                                       time.monotonic())
            self.seats_changed()
        elif kind == "sync":
            self.request_sync(event.get("msg"))

    def request_sync(self, then: dict[str, Any] | None = None) -> None:
        """Read the table again from the database soon (one read at a time; asked again
        meanwhile, once more after it), then send ``then`` to the connections."""
        if self.core.closing:
            return
        if self._sync_task is not None and not self._sync_task.done():
            self._sync_again = True
            if then is not None:  # said after the read under way, which may precede it
                self._sync_task.add_done_callback(lambda _: self.broadcast(then))
            return
        self._sync_task = asyncio.get_running_loop().create_task(self._sync_loop(then))

    async def sync_now(self, timeout: float) -> None:
        """``request_sync``, then wait (at most ``timeout`` seconds) until this copy shows
        what the database holds (a change stored from outside the table's parts)."""
        self.request_sync()
        task = self._sync_task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except asyncio.TimeoutError:
                pass  # it goes on; the next reader may see the old copy meanwhile

    async def _sync_loop(self, then: dict[str, Any] | None) -> None:
        while True:
            self._sync_again = False
            try:
                async with self.core.lock:  # never between a local change's write and its apply
                    await self.sync()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - logged; the next event asks again
                log.error("table %s: reading it again from the database failed: %s",
                          self.core.id, e)
                await asyncio.sleep(1.0)
                self._sync_again = True
            if then is not None:
                self.broadcast(then)
                then = None
            if not self._sync_again or self.core.closing:
                return

    async def sync(self) -> None:
        """Catch up with the database: the moves stored since this copy's ply and the
        game's ending (the players ended it), then the seats, clocks, status and latest talk
        as stored (another replica changed them)."""
        data: TableData | None = await self.writer.db(self.writer.store.load_table,
                                                      self.core.id)
        if data is None:
            return
        core = self.core
        changed = False
        bot_moves = set(data.bot_moves)
        for ply, seat, action in data.moves[core.ply:]:
            if ply != core.ply:  # pragma: no cover - the store keeps plies contiguous
                break
            move = core.try_move(seat, action)
            move.by_bot = ply in bot_moves
            self.commit(move)
            changed = True
        if data.ending is not None and core.ending is None and core.ply == len(data.moves):
            core.end(data.ending)
            changed = True
        for s, d in zip(core.seats, data.seats):
            new = (d.kind, d.bot, d.token_hash, d.bot_replaces, d.name, d.claimed, d.account_id)
            if new != (s.kind, s.bot_name, s.token_hash, s.bot_replaces, s.name, s.claimed,
                       s.account_id):
                (s.kind, s.bot_name, s.token_hash, s.bot_replaces, s.name, s.claimed,
                 s.account_id) = new
                changed = True
        if self.stored_clock(data.clock, data.clock_state):
            changed = True
        if (data.status, data.next_table) != (core.status, core.next_table):
            core.status, core.next_table, changed = data.status, data.next_table, True
        self.missed_talk(data.messages)
        if changed:
            self.show_change()

    # -- connections anywhere --------------------------------------------------------

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
        counts, spectators = self.local_presence()
        if counts.count(0) < len(counts) or spectators:
            self._presence_sent = (counts, spectators)
            self.tell_others("presence", seats=counts, spectators=spectators)
        before = len(self.remote)
        self.presence()
        if len(self.remote) != before:
            self.seats_changed()
