"""The tables of one server (``TableRegistry``): created, loaded from the database on demand
and unloaded again when idle, abandoned ones expired; each table composed of the parts and
collaborators it is handed (``Table``, ``TableServices``).

* Loading: a well-formed id is looked up once however many ask at the same moment; an
  unknown or malformed id leaves nothing behind (a malformed one costs no query).
* At start only the unfinished tables with a bot seat are loaded, so their bots carry on;
  the others load when someone opens them.
* Unloading: a table nobody is connected to and whose bots have nothing to do leaves memory
  after ``idle_unload`` seconds (finished ones too), or at once when another replica
  stores a change to it and it has no bot seat and no clock; it is loaded again on demand. A
  turn-based table whose player has more than ``clocks.TURN_LOAD_AHEAD`` seconds left
  leaves too: its deadline is in the database (``turn_deadline``), and the janitor (with
  many replicas: the lease scans) loads it again before it (``_load_due``), so that a
  table waiting days for a move holds no memory and no timer meanwhile.
* Expiry: a table still being played with no move or message for ``abandon_after_days``
  is marked abandoned: it is kept (its record can be read) but accepts no move.
* Writes: ``storage.writer.Writer`` (group commit of the moves, every write bounded in
  time, ``store_error``); analyses: ``analysis.Analyses``; the lobby's open tables:
  ``lobby.Lobby``; websockets per address: ``replicas.connections.Connections``.
* Ratings: a rated game's end is rated by the replica that stored it, else by the
  catch-up (``ratings.Rater``).
* Many replicas (``redis_url``): ``replicas.cluster.Cluster`` links this server to the
  others; the tables with bots or clocks are loaded by whichever replica takes their lease
  (instead of all at start), and a table loaded here takes its lease when it is free. With
  one process the tables' peers are ``peers.SOLO``, which does nothing.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections import deque
from datetime import timedelta
from functools import partial
from typing import Any, Awaitable, Callable, Iterable

from regalia.server.refusal import Refusal
from regalia.server.replicas.cluster import Cluster
from regalia.server.replicas.connections import Connections
from regalia.server.settings import (SeedSource, Settings, parse_presets, parse_turn_presets,
                                     secure_seed)
from regalia.server.storage.accounts import AccountData
from regalia.server.storage.models import BOT, now
from regalia.server.storage.ratings import RatingStore
from regalia.server.storage.store import Store, reason
from regalia.server.storage.values import Conflict, NewSeat, TableData
from regalia.server.storage.writer import Writer
from regalia.server.tables.analysis import Analyses
from regalia.server.tables.botpool import BotPool
from regalia.server.tables.clocks import TURN_LOAD_AHEAD
from regalia.server.tables.creation import CREATE_FIELDS, check_create, creator_key
from regalia.server.tables.limits import RateLimits, SharedRateLimits
from regalia.server.tables.lobby import Lobby
from regalia.server.tables.peers import SOLO, Peers
from regalia.server.tables.ratings import SETTLE_AT_ONCE, Rater
from regalia.server.tables.table import Table, TableServices

__all__ = ["CREATE_FIELDS", "TableRegistry", "latency_summary"]

log = logging.getLogger("regalia.server")

TABLE_ID = re.compile(r"[A-Za-z0-9]{8}")  # Store.new_table's ids
JANITOR_EVERY = 30.0  # seconds between two rounds of unloading and expiry
MOVE_TIMES_KEPT = 10_000  # the latest moves whose times /healthz summarises
SETTLE_EVERY = 60.0  # seconds between two catch-ups of the janitor


def latency_summary(seconds: Iterable[float]) -> dict[str, Any]:
    """``{"count": n, "p50": ms, "p90": ms, "p99": ms, "max": ms}`` of durations given in
    seconds (nearest-rank percentiles, milliseconds rounded to 0.1; ``None`` for no
    durations)."""
    ranked = sorted(seconds)
    n = len(ranked)

    def ms(p: float) -> float | None:
        return round(ranked[max(0, math.ceil(p * n) - 1)] * 1000, 1) if n else None
    return {"count": n, "p50": ms(0.5), "p90": ms(0.9), "p99": ms(0.99), "max": ms(1.0)}


class TableRegistry:
    """The tables of one server (see the module docstring)."""

    def __init__(self, store: Store, settings: Settings | None = None,
                 seeds: SeedSource = secure_seed, redis_url: str | None = None,
                 replica: str | None = None) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.seeds = seeds
        self.tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Future] = {}
        self._missed: set[str] = set()  # tables that had another replica's event while loading
        self._dropping: set[asyncio.Task] = set()  # ``_drop``s under way
        self.writer = Writer(store, self.settings.write_timeout)
        self.bots = BotPool(self.settings.bot_workers, self.settings.bot_processes,
                            hint_share=self.settings.hint_workers or None,
                            hint_queue=self.settings.hint_queue,
                            hint_seconds=(self.settings.bot_budget or 0.5) + 0.5)
        self.cluster: Cluster | None = None
        if redis_url:
            self.cluster = Cluster(redis_url, replica, tables=lambda: self.tables, load=self.get,
                                   active_ids=partial(self.db, store.active_table_ids,
                                                      TURN_LOAD_AHEAD),
                                   on_event=self.on_event, read_again=self.read_again)
        self.peers: Peers = self.cluster or SOLO
        self.limits = (SharedRateLimits(self.settings, self.cluster) if self.cluster
                       else RateLimits(self.settings))
        self.lobby = Lobby(store, self.writer, self.settings)
        self.connections = Connections(self.settings.connections_per_address, self.cluster)
        # game analyses: a pool of their own (one at a time), so that they never hold up a
        # table's bots
        self.analyses = Analyses(BotPool(1, self.settings.bot_processes))
        self.clock_presets = parse_presets(self.settings.clock_presets)
        self.turn_presets = parse_turn_presets(self.settings.turn_presets)
        self.moves_applied = 0
        # how long the latest moves took here, from their submission to their broadcast
        self.move_seconds: deque[float] = deque(maxlen=MOVE_TIMES_KEPT)
        self.ratings = RatingStore(store)
        self.rater = Rater(self.writer, self.ratings)
        self._unbuildable: set[str] = set()  # due tables whose move log cannot be replayed
        # told when a change stored here made it a human seat's turn at a turn-based table
        # (``TableServices.your_turn``; set by the app: its push notifications)
        self.on_your_turn: Callable[[Table, int], None] | None = None
        self.services = TableServices(self.writer, self.limits, self.bots, self.settings,
                                      self.peers, self.count_move, self.rater.game_over,
                                      self._your_turn)
        self._janitor: asyncio.Task | None = None

    # -- the database ----------------------------------------------------------------

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the database thread (``Writer.db``)."""
        return await self.writer.db(fn, *args)

    @property
    def store_error(self) -> str | None:
        """The last failed write's reason, until a write succeeds (``Writer.store_error``)."""
        return self.writer.store_error

    # -- life ------------------------------------------------------------------------

    async def start(self) -> None:
        """Expire abandoned tables, then load the unfinished tables with bots (with many
        replicas: join the others; the tables come with their leases). Raises
        ``ConnectionError`` when Redis does not answer. The bot workers start meanwhile, in
        the background (``BotPool.warm_soon``: the first game's first bot move does not wait
        for them to compile the bots)."""
        self.bots.warm_soon()
        await self._expire()
        if self.cluster is not None:
            await self.cluster.start()
        else:
            await self._load_active()
        await self.settle_ratings()
        self._janitor = asyncio.get_running_loop().create_task(self._janitor_loop())

    async def _load_active(self) -> None:
        for table_id in await self.db(self.store.active_table_ids, TURN_LOAD_AHEAD):
            try:
                await self.get(table_id)
            except Exception:
                log.exception("table %s could not be rebuilt from its move log", table_id)

    async def _load_due(self) -> int:
        """Load the turn-based tables not loaded here whose player to act runs out of time
        within ``TURN_LOAD_AHEAD`` seconds (or already did, e.g. while no server ran): their
        clock's alarm then rings in time. Returns how many were loaded. With many replicas
        the lease scans do this (``Store.active_table_ids``)."""
        before = now() + timedelta(seconds=TURN_LOAD_AHEAD)
        ids = await self.db(self.store.due_turn_ids, before)
        loaded = 0
        for table_id in ids:
            if table_id in self.tables or table_id in self._unbuildable:
                continue
            try:
                loaded += await self.get(table_id) is not None
            except Refusal:
                raise
            except Exception:  # noqa: BLE001 - one table only: the others are loaded
                log.exception("table %s could not be rebuilt from its move log", table_id)
                self._unbuildable.add(table_id)
        return loaded

    def _your_turn(self, table: Table, seat: int) -> None:
        """``TableServices.your_turn``: handed to ``on_your_turn`` when one is set."""
        if self.on_your_turn is not None:
            self.on_your_turn(table, seat)

    async def stop(self) -> None:
        self.writer.start_closing()
        if self._janitor is not None:
            self._janitor.cancel()
        await self.rater.stop()
        for t in list(self.tables.values()):
            await t.stop()
        await asyncio.gather(*self._dropping, return_exceptions=True)
        if self.cluster is not None:
            await self.cluster.stop()
        await self.writer.stop()
        await asyncio.to_thread(self.bots.close)
        await asyncio.to_thread(self.analyses.pool.close)

    async def _janitor_loop(self) -> None:
        every = min(JANITOR_EVERY, max(0.05, self.settings.idle_unload / 2))
        last_expiry = last_settle = time.monotonic()
        while True:
            await asyncio.sleep(every)
            try:
                await self.unload_idle()
                if self.cluster is None:
                    await self._load_due()
                if time.monotonic() - last_settle > SETTLE_EVERY:
                    last_settle = time.monotonic()
                    await self.settle_ratings()
                if time.monotonic() - last_expiry > 3600:
                    last_expiry = time.monotonic()
                    await self._expire()
            except Exception:  # pragma: no cover - tidying must never stop the server
                log.exception("unloading or expiring tables failed")

    async def unload_idle(self) -> int:
        """Unload the tables idle for ``idle_unload`` seconds; returns how many."""
        limit = time.monotonic() - self.settings.idle_unload
        gone = [t for t in self.tables.values() if t.idle() and t.last_active <= limit]
        unloaded = 0
        for t in gone:  # each checked again: dropped (``on_event``), loaded again, opened
            if self.tables.get(t.id) is not t or not t.idle():
                continue
            del self.tables[t.id]
            unloaded += 1
            # a turn-based deadline, far away: released, the scans load it again when it
            # nears; else parked: no scan loads it while it has nothing to do
            await self._unload(t, park=t.clock.running_seat() is None)
        return unloaded

    async def _unload(self, t: Table, park: bool) -> None:
        """Stop ``t`` (out of ``tables``), hand its lease back (parked or released) and leave
        its channel unless it is loaded here again meanwhile."""
        try:
            await t.stop()
            await (self.peers.park if park else self.peers.release)(t.id)
        finally:
            self._unfollow(t.id)

    async def _drop(self, t: Table) -> None:
        """``_unload`` at another replica's change (``on_event``): released, not parked (an
        unwatched table wants no lease: ``Table.wants_lease``); failures logged."""
        try:
            await self._unload(t, park=False)
        except Exception:  # noqa: BLE001 - logged; the lease expires by itself
            log.exception("table %s: unloading it failed", t.id)

    async def _expire(self) -> None:
        before = now() - timedelta(days=self.settings.abandon_after_days)
        try:
            ids = await self.db(self.store.expire_tables, before)
        except Exception as e:
            self.writer.failed(reason(e))
            return
        for table_id in ids:
            log.info("table %s expired (abandoned)", table_id)
            self.peers.publish(table_id, {"k": "sync"})
            t = self.tables.get(table_id)
            if t is not None:
                await t.expire()

    # -- tables ----------------------------------------------------------------------

    async def get(self, table_id: str, read: TableData | None = None) -> Table | None:
        """The table, loaded if need be (``read``: the table as ``Store.new_table`` stored it);
        ``None`` for an unknown or malformed id. Raises ``Refusal("storage")`` when the
        database cannot be read."""
        if not isinstance(table_id, str) or not TABLE_ID.fullmatch(table_id):
            return None
        t = self.tables.get(table_id)
        if t is not None:
            return t
        loading = self._loading.get(table_id)
        if loading is not None:
            return await asyncio.shield(loading)
        fut = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            if await self.peers.follow(table_id):
                self._missed.add(table_id)  # not confirmed yet: read it again once loaded
            try:
                data = read or await self.db(self.store.load_table, table_id)
            except Exception as e:
                self.writer.failed(reason(e))
                raise Refusal("storage", "the server's database cannot be read now; "
                                         "try again later") from None
            t = Table(data, self.services) if data is not None else None
            if t is not None:
                self.tables[table_id] = t
                if table_id in self._missed:  # read before that change: read it again
                    t.request_sync()
                if t.wants_lease and not self.peers.holds(table_id):
                    try:  # its bots and clock run here unless another replica runs them
                        await self.peers.acquire(table_id)
                    except Exception as e:  # noqa: BLE001 - the lease round tries again
                        log.warning("table %s: its lease could not be asked for: %s",
                                    table_id, e)
                t.start()
            return t
        finally:
            del self._loading[table_id]
            self._missed.discard(table_id)
            fut.set_result(self.tables.get(table_id))
            self._unfollow(table_id)  # when there is no such table or it could not be read

    async def create(self, body: Any, count: Callable[[], Awaitable[None]] | None = None,
                     address: str | None = None, account: AccountData | None = None
                     ) -> tuple[Table, list[str | None], str]:
        """A new table from a ``POST /api/tables`` body; returns it, the seat tokens and the
        spectators' token. ``count``: awaited once the body is found valid, before the table
        is stored (the creator's rate limit: a malformed request is not counted; it raises
        ``Refusal("too_fast")`` to refuse). ``address``: the creator's; an open table is
        refused while it has ``open_tables_per_address`` listed (counted in the database,
        so on every replica). ``account``: the creator's, when signed in (a rated table
        needs one: ``check_create``). Raises ``Refusal`` (``bad_request``,
        ``rated_signed_out``, ``too_many_open``, ``too_fast``, ``storage``)."""
        spec = check_create(body, self.clock_presets, self.seeds(), account, self.turn_presets)
        creator = None
        if spec.is_open and address is not None:
            creator = creator_key(address)
            await self.lobby.check_cap(creator)
        if count is not None:
            await count()
        # the table as stored, without reading it back: no other replica can have changed
        # it yet (only this answer will tell its id)
        data, tokens = await self.writer.write(partial(
            self.store.new_table, spec.game, spec.config, spec.seed, spec.seats,
            is_open=spec.is_open, clock=spec.clock, hints=spec.hints, creator=creator,
            rated=spec.rated))
        table = await self.get(data.id, data)
        assert table is not None
        return table, tokens, data.watch_token

    async def rematch(self, old: Table, token: Any,
                      count: Callable[[], Awaitable[None]] | None = None) -> Table:
        """The rematch of a finished table, asked by one of its seated players: the same game,
        options, seats, bots, names and clock preset, a new deal from a new secret seed. Each
        human seat keeps its token, so every player's link moves with them, and its account
        (the rematch of a rated game is rated). Asked again, the same rematch. ``count``: awaited before a new rematch is stored (the asker's rate
        limit; one already made, or a refusal, is not counted). Raises ``Refusal``
        (``no_access``, ``not_finished``, ``too_fast``, ``storage``)."""
        if old.seating.seat_of_token(token) is None:
            raise Refusal("no_access", "token: the seat link of a player of this table")
        stored: TableData | None = None  # the rematch, when stored here and now
        async with old.lock:
            if not old.finished:
                raise Refusal("not_finished", "the game is not over: finish it first")
            if old.next_table is None:
                if count is not None:
                    await count()
                seats = [NewSeat(s.kind, s.bot_name, s.name, s.claimed or s.kind == BOT,
                                 s.token_hash) for s in old.seats]
                clock = old.clock.data.config() if old.clock.data else None
                try:
                    stored, _ = await self.writer.write(partial(
                        self.store.new_table, old.game.name, dict(old.config), self.seeds(),
                        seats, clock=clock, after=old.id, hints=old.hints,
                        rated=old.core.rated))
                except Conflict:  # another replica stored the rematch first: read it
                    await old.replica.sync()
                else:
                    old.talk.announce_rematch(stored.id)
                    old.replica.tell_others("rematch", table=stored.id)
        table = await self.get(old.next_table, stored)  # stored here: it is next_table
        if table is None:  # pragma: no cover - it was just stored
            raise Refusal("storage", "the rematch could not be loaded; try again")
        return table

    # -- ratings (``ratings.Rater``) ---------------------------------------------------

    async def rate(self, table_id: str, scores: list[float]) -> bool:
        """Rate the finished rated game of ``table_id`` now (``Rater.rate``)."""
        return await self.rater.rate(table_id, scores)

    async def settle_ratings(self, limit: int = SETTLE_AT_ONCE) -> int:
        """The catch-up of the rated games not rated yet (``Rater.settle_ratings``)."""
        return await self.rater.settle_ratings(limit)

    def check_analysis(self, table: Table, seat: Any) -> None:
        """Raises the ``Refusal`` of an analysis that cannot be made (``Analyses.check``):
        checked before the asker's rate counts it."""
        self.analyses.check(table, seat)

    async def analysis(self, table: Table, seat: Any) -> list[dict[str, Any]]:
        """The analysis of a finished game for ``seat`` (``Analyses.analysis``)."""
        return await self.analyses.analysis(table, seat)

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` reports besides the store check."""
        broken = sorted(t.id for t in self.tables.values() if t.broken)
        c = self.cluster
        return {"tables": len(self.tables), "moves": self.moves_applied,
                "move_ms": latency_summary(self.move_seconds),
                "broken_tables": broken, "store_error": self.store_error,
                "connections": sum(self.connections.counts.values()),
                "replica": c.name if c else None, "redis": c.status() if c else None,
                "leases": sorted(c.leases) if c else [],
                "db_round_trips": self.store.round_trips,
                "redis_round_trips": c.round_trips if c else 0}

    def count_move(self, seconds: float) -> None:
        """Count an applied move that took ``seconds`` from its submission (the table's lock
        waited for included) to its broadcast."""
        self.moves_applied += 1
        self.move_seconds.append(seconds)

    async def connection_opened(self, address: str) -> bool:
        """Count a new websocket of ``address``; ``False`` (not counted) over the cap
        (``Connections.opened``)."""
        return await self.connections.opened(address)

    def shared_connections(self, address: str) -> int:
        """Websockets of ``address`` on this replica that Redis counted."""
        return self.connections.shared(address)

    async def connection_closed(self, address: str) -> None:
        await self.connections.closed(address)

    def _unfollow(self, table_id: str) -> None:
        """Stop listening to the table's events unless it is loaded or loading here (again):
        checked and done with no await in between."""
        if table_id not in self.tables and table_id not in self._loading:
            self.peers.unfollow(table_id)

    def read_again(self, table_id: str) -> None:
        """Read the table again from the database (now if it is loaded, after its load if
        it is loading): another replica's events may have been missed before its
        subscription was confirmed."""
        t = self.tables.get(table_id)
        if t is not None:
            t.request_sync()
        elif table_id in self._loading:
            self._missed.add(table_id)

    def on_event(self, event: dict[str, Any]) -> None:
        """Another replica's event about a table (``cluster``): applied to the table's copy
        here, if it is loaded (a table loaded later is read from the database). A stored
        change to a table unwatched here (``Table.unwatched``) unloads it instead of reading
        it again."""
        t = self.tables.get(event.get("t"))
        if t is not None and not t.closing and event.get("k") in ("move", "sync") \
                and t.unwatched() and t.id not in self._loading:  # a later request loads it
            del self.tables[t.id]
            t.core.closing = True  # at once: a waiter of its load resumed since gets it again
            task = asyncio.get_running_loop().create_task(self._drop(t))
            self._dropping.add(task)
            task.add_done_callback(self._dropping.discard)
        elif t is not None and not t.closing:
            t.receive(event)
        elif t is None and event.get("t") in self._loading and event.get("k") != "presence":
            self._missed.add(event["t"])
