"""All tables of one server (``TableManager``): created, loaded from the database on demand
and unloaded again when idle, abandoned ones expired, every durable write bounded in time.

* Loading: a well-formed id is looked up once however many ask at the same moment; an
  unknown or malformed id leaves nothing behind (a malformed one costs no query).
* At start only the unfinished tables with a bot seat are loaded, so their bots carry on;
  the others load when someone opens them.
* Unloading: a table nobody is connected to and whose bots have nothing to do leaves memory
  after ``idle_unload`` seconds (finished ones too); it is loaded again on demand.
* Expiry: a table still being played with no move or message for ``abandon_after_days``
  is marked abandoned: it is kept (its record can be read) but accepts no move.
* Writes: moves of all tables are stored together (group commit); a write the database
  cannot take within ``write_timeout`` seconds is refused (``Refusal("storage")``) and
  nothing is applied. ``store_error`` holds the last failure until a write succeeds.
  On SQLite the writes are done on the event loop itself, without waiting for a lock
  (``Store.at_once``; their disk sync on a thread of its own, one for all the writes
  committed before it, and none is told of a write before its sync: ``_log_synced``),
  and go to the database thread when another writer holds the lock;
  the reads go there (a new table is read back in the call that creates it). The copying
  of the write-ahead log into the database (``Store.checkpoint``) runs on that thread
  after every ``CHECKPOINT_EVERY`` writes. A write on the loop that takes longer than
  ``SLOW_WRITE`` seconds (a stalled disk: nothing else runs meanwhile, and the write
  timeout cannot cut it short) sends the writes to the thread for ``SLOW_WRITE_PAUSE``
  seconds, where the write timeout applies again.
* Many replicas (``redis_url``): ``cluster.Cluster`` links this server to the others; the
  tables with bots or clocks are loaded by whichever replica takes their lease (instead of
  all at start), and a table loaded here takes its lease when it is free.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections import Counter, OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from functools import partial
from typing import Any, Awaitable, Callable, Iterable

from regalia.bots import bot_names
from regalia.core.errors import RegaliaError
from regalia.core.records import Match
from regalia.games import GAME_NAMES, get_game
from regalia.server import gamekit
from regalia.server.botrunner import BotPool, analyse
from regalia.server.clocks import Clock, parse_presets
from regalia.server.cluster import Cluster
from regalia.server.ratelimits import RateLimits, SharedRateLimits
from regalia.server.settings import SeedSource, Settings, secure_seed
from regalia.server.store import (ABANDONED, BOT, HUMAN, Conflict, NewSeat, NotAtOnce,
                                   NotSynced, Store, TableData, TooLate, now, reason)
from regalia.server.refusal import Refusal
from regalia.server.tables import Table

log = logging.getLogger("regalia.server")

TABLE_ID = re.compile(r"[A-Za-z0-9]{8}")  # Store.new_table's ids
CREATE_FIELDS = ("game", "players", "options", "seats", "open", "clock", "name", "hints")
JANITOR_EVERY = 30.0  # seconds between two rounds of unloading and expiry
ANALYSIS_WORLDS = 100  # sampled positions per analysed decision (regalia.lab.analyse)
ANALYSES_KEPT = 256    # finished analyses kept in memory, the oldest forgotten first
MOVE_TIMES_KEPT = 10_000  # the latest moves whose times /healthz summarises
CHECKPOINT_EVERY = 200  # SQLite writes on the event loop between two checkpoints
SLOW_WRITE = 0.25  # seconds: a write on the event loop this long means a stalled disk...
SLOW_WRITE_PAUSE = 30.0  # ...and the writes go to the database thread for this long
LATE_ANSWER = 1.0  # seconds a write already under way at its deadline is waited for


def _consume(task: asyncio.Future) -> None:
    """Retrieve a finished write's exception (it was answered or logged already)."""
    if not task.cancelled():
        task.exception()


def latency_summary(seconds: Iterable[float]) -> dict[str, Any]:
    """``{"count": n, "p50": ms, "p90": ms, "p99": ms, "max": ms}`` of durations given in
    seconds (nearest-rank percentiles, milliseconds rounded to 0.1; ``None`` for no
    durations)."""
    ranked = sorted(seconds)
    n = len(ranked)

    def ms(p: float) -> float | None:
        return round(ranked[max(0, math.ceil(p * n) - 1)] * 1000, 1) if n else None
    return {"count": n, "p50": ms(0.5), "p90": ms(0.9), "p99": ms(0.99), "max": ms(1.0)}


class TableManager:
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
        # One database thread for SQLite (a single-writer database: the event loop writes
        # too, see _write_now); a few for a server.
        workers = 1 if store.engine.dialect.name == "sqlite" else 4
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="regalia-db")
        self.bots = BotPool(self.settings.bot_workers, self.settings.bot_processes)
        self.cluster: Cluster | None = None
        if redis_url:
            self.cluster = Cluster(redis_url, self, replica)
        self.limits = (SharedRateLimits(self.settings, self.cluster) if self.cluster
                       else RateLimits(self.settings))
        # game analyses: a pool of their own (one at a time), so that they never hold up a
        # table's bots; the finished ones kept
        self.analysis_pool = BotPool(1, self.settings.bot_processes)
        self.analyses: OrderedDict[tuple[str, int], list[dict[str, Any]]] = OrderedDict()
        self._analysing: dict[tuple[str, int], asyncio.Future] = {}
        self.connections: Counter[str] = Counter()  # open websockets per client address
        self._shared_connections: Counter[str] = Counter()  # of them, counted in Redis
        self.clock_presets = parse_presets(self.settings.clock_presets)
        self.moves_applied = 0
        # how long the latest moves took here, from their submission to their broadcast
        self.move_seconds: deque[float] = deque(maxlen=MOVE_TIMES_KEPT)
        self.store_error: str | None = None
        self._at_once_writes = 0  # SQLite writes on the event loop since the last checkpoint
        self._at_once_after = 0.0  # monotonic time before which writes go to the thread
        self._checkpoint: asyncio.Task | None = None
        # the disk syncs of the loop's writes (SQLite with full syncs), on a thread of their own
        self.sync_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="regalia-sync")
        self._sync_waiters: list[tuple[int, asyncio.Future]] = []  # (commits it needs, answer)
        self._sync_event = asyncio.Event()
        self._syncer: asyncio.Task | None = None
        self._commits = self._synced = 0  # the loop's commits to sync so far; of them, synced
        self._closing = False
        self._writing: list[tuple[tuple, asyncio.Future]] = []  # the batch of moves under way
        self._pending: list[tuple[tuple, asyncio.Future]] = []
        self._pending_event = asyncio.Event()
        self._writer: asyncio.Task | None = None
        self._janitor: asyncio.Task | None = None

    # -- the database ----------------------------------------------------------------

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the database thread. What it read may hold commits of the loop
        not yet synced to the disk (SQLite shows a commit at once): it is answered once
        they are, so that nobody learns of a write a power cut could still take back (when
        the sync fails, the writes waiting for it are told, ``store_error`` says it, and
        the read is answered all the same)."""
        result = await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)
        try:
            await self._log_synced()
        except NotSynced:
            pass
        return result

    async def _write_now(self, fn: Callable[..., Any], *args: Any,
                         deadline: float | None = None) -> Any:
        """The store's write ``fn(*args)``: on SQLite here and now when no other writer holds
        the lock (``Store.at_once``; then its disk sync, see ``_log_synced``), otherwise on
        the database thread (see the module doc for the checkpoints and a stalled disk),
        there started and waiting for a lock only until ``deadline`` when one is given
        (``Store.before``). Raises ``NotSynced`` when the disk sync failed."""
        if self.store.can_write_at_once and time.monotonic() >= self._at_once_after:
            done, result = self._at_once(fn, *args)
            if done:
                await self._log_synced()
                return result
        if deadline is not None:
            return await self.db(self.store.before, deadline, fn, *args)
        return await self.db(fn, *args)

    def _at_once(self, fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """``(True, fn(*args))`` done on the loop by ``Store.at_once``, or ``(False, None)``
        when it could not be done at once."""
        started = time.monotonic()
        try:
            result = self.store.at_once(fn, *args)
        except NotAtOnce:
            return False, None
        finally:
            took = time.monotonic() - started
            if took > SLOW_WRITE:
                self._at_once_after = time.monotonic() + SLOW_WRITE_PAUSE
                log.warning("a database write took %.0f ms on the event loop: writes go "
                            "to the database thread for %.0f s", took * 1000,
                            SLOW_WRITE_PAUSE)
        self._at_once_writes += 1
        if self.store.log_path is not None:
            self._commits += 1
        if self._at_once_writes >= CHECKPOINT_EVERY:
            self._start_checkpoint()
        return True, result

    async def _log_synced(self) -> None:
        """Return once the write-ahead log is synced to the disk after the commits made so
        far on the loop (``Store.sync_log`` on a thread of its own: one sync answers every
        wait for the commits made before it started, and the loop goes on); at once when
        there is nothing to sync (or no ``Store.log_path``). Raises ``NotSynced``."""
        needed = self._commits
        if self._synced >= needed:
            return
        if self._closing and (self._syncer is None or self._syncer.done()):
            try:  # the server's stop: no new syncer task is left behind
                await asyncio.to_thread(self.store.sync_log)
            except Exception as e:  # noqa: BLE001 - said as for any failed sync
                raise NotSynced(f"the disk sync failed: {e}") from None
            return
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._sync_waiters.append((needed, fut))
        self._sync_event.set()
        if self._syncer is None or self._syncer.done():
            self._syncer = loop.create_task(self._sync_loop())
        await fut  # cancelled, the sync goes on (the syncer skips a cancelled answer)

    async def _sync_loop(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self._sync_event.wait()
                self._sync_event.clear()
                if not self._sync_waiters:
                    continue
                commits = self._commits  # a sync started now covers every commit before it
                try:
                    await loop.run_in_executor(self.sync_executor, self.store.sync_log)
                    self._synced = max(self._synced, commits)
                    error = None
                except Exception as e:  # noqa: BLE001 - told to every write that waits for it
                    log.error("syncing the database's write-ahead log failed: %s", e)
                    error = NotSynced(f"the disk sync failed: {e}")
                covered = [f for n, f in self._sync_waiters if n <= commits]
                self._sync_waiters = [(n, f) for n, f in self._sync_waiters if n > commits]
                if self._sync_waiters:  # committed during this sync: the next one
                    self._sync_event.set()
                for fut in covered:
                    if not fut.done():
                        if error is None:
                            fut.set_result(None)
                        else:
                            fut.set_exception(error)
        finally:  # stopped (at the server's stop): no wait is left without an answer
            for _, fut in self._sync_waiters:
                fut.cancel()
            self._sync_waiters = []

    def _start_checkpoint(self) -> None:
        """Copy the write-ahead log back on the database thread (one at a time; a failure
        is logged and tried again after the next writes)."""
        if self._checkpoint is not None and not self._checkpoint.done():
            return
        self._at_once_writes = 0

        def done(task: asyncio.Task) -> None:
            if not task.cancelled() and task.exception() is not None:
                log.error("copying the database's write-ahead log failed: %s",
                          reason(task.exception()))
        self._checkpoint = asyncio.get_running_loop().create_task(self.db(self.store.checkpoint))
        self._checkpoint.add_done_callback(done)

    async def write(self, fn: Callable[..., Any], *args: Any, table: Table | None = None) -> Any:
        """A durable write other than a move (``fn(*args)``: one transaction of the store);
        raises ``Refusal("storage")`` when the database refuses it or does not answer within
        ``write_timeout`` seconds. A write that cannot start, or get the lock, by then is
        not done; one already committing is waited for up to ``LATE_ANSWER`` seconds more,
        so that "nothing was saved" is only said when it is so. When it may have been saved
        (no answer in time, or its disk sync failed), ``table`` (the table it changes) is
        read again from the database, which says."""
        timeout = self.settings.write_timeout
        job = asyncio.ensure_future(self._write_now(fn, *args,
                                                    deadline=time.monotonic() + timeout))
        job.add_done_callback(_consume)  # an answer that comes after the refusal
        try:
            try:
                result = await asyncio.wait_for(asyncio.shield(job), timeout)
            except asyncio.TimeoutError:  # the write's own answer is near (Store.before)
                result = await asyncio.wait_for(asyncio.shield(job), LATE_ANSWER)
        except asyncio.TimeoutError:  # a stalled disk: the write may still land
            self._failed("no answer within the write timeout")
            if table is not None:
                table.request_sync()
            raise Refusal("storage", "the server's database did not answer in time; the "
                                     "change may not have been saved: reload to see") from None
        except TooLate:
            self._failed("no answer within the write timeout")
            raise Refusal("storage", "the server's database did not answer in time; "
                                     "nothing was saved: try again later") from None
        except (Refusal, Conflict):
            raise
        except NotSynced as e:
            self._failed(str(e))
            if table is not None:
                table.request_sync()
            raise Refusal("storage", "the server's disk failed; the change may not have been "
                                     "saved: reload to see") from None
        except Exception as e:
            self._failed(reason(e))
            raise Refusal("storage", "the server's database refused the change; nothing was "
                                     "saved: try again later") from None
        self.store_error = None
        return result

    def _failed(self, why: str) -> None:
        if self.store_error != why:
            log.error("database write failed: %s", why)
        self.store_error = why

    async def append_move(self, table_id: str, ply: int, seat: int | None, action: str,
                          finished: bool, clock_state: dict[str, Any] | None = None,
                          human: bool = False) -> None:
        """Store one move durably; moves submitted while a write is under way are stored
        together in the next transaction (group commit: one disk sync for many tables).
        Returns once the move's transaction has committed (and is synced to the disk);
        raises ``Conflict``, ``NotSynced`` or the database's error (another writer's lock
        is waited for up to the store's wait; a stalled disk, until it answers). ``human``:
        see ``Store.append_move``. Cancelled, the move is stored all the same (the writer
        skips a cancelled answer; at the server's stop, the answer is a cancellation)."""
        fut = asyncio.get_running_loop().create_future()
        self._pending.append(((table_id, ply, seat, action, finished, clock_state, human), fut))
        self._pending_event.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        await fut

    async def _write_loop(self) -> None:
        while True:
            await self._pending_event.wait()
            self._pending_event.clear()
            batch = self._writing = self._pending
            self._pending = []
            if not batch:
                continue
            try:
                results = await self._write_now(self.store.append_moves, [m for m, _ in batch])
                self.store_error = None
            except Exception as e:  # the database went away, is read-only or locked, or
                self._failed(reason(e))  # the disk sync failed
                results = [e] * len(batch)
            except BaseException:  # stopped (at the server's stop): stored or not, unknown
                for _, fut in batch:
                    fut.cancel()
                raise
            finally:
                self._writing = []
            for (_, fut), res in zip(batch, results):
                if fut.done():
                    continue
                if res is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(res)

    # -- life ------------------------------------------------------------------------

    async def start(self) -> None:
        """Expire abandoned tables, then load the unfinished tables with bots (with many
        replicas: join the others; the tables come with their leases). Raises
        ``ConnectionError`` when Redis does not answer."""
        await self._expire()
        if self.cluster is not None:
            await self.cluster.start()
        else:
            await self._load_active()
        self._janitor = asyncio.get_running_loop().create_task(self._janitor_loop())

    async def _load_active(self) -> None:
        for table_id in await self.db(self.store.active_table_ids):
            try:
                await self.get(table_id)
            except Exception:
                log.exception("table %s could not be rebuilt from its move log", table_id)

    async def stop(self) -> None:
        self._closing = True
        if self._janitor is not None:
            self._janitor.cancel()
        for t in list(self.tables.values()):
            await t.stop()
        if self.cluster is not None:
            await self.cluster.stop()
        if self._writer is not None:
            for _ in range(50):  # let the moves already submitted reach the disk
                if not self._pending and not self._writing:
                    break
                await asyncio.sleep(0.02)
            self._writer.cancel()
            try:
                await self._writer
            except (asyncio.CancelledError, Exception):
                pass
        if self._syncer is not None:  # its waits left are answered (cancelled)
            self._syncer.cancel()
            await asyncio.gather(self._syncer, return_exceptions=True)
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)  # logged already
        await asyncio.to_thread(self.bots.close)
        await asyncio.to_thread(self.analysis_pool.close)
        self.executor.shutdown(wait=True)
        self.sync_executor.shutdown(wait=True)

    async def _janitor_loop(self) -> None:
        every = min(JANITOR_EVERY, max(0.05, self.settings.idle_unload / 2))
        last_expiry = time.monotonic()
        while True:
            await asyncio.sleep(every)
            try:
                await self.unload_idle()
                if time.monotonic() - last_expiry > 3600:
                    last_expiry = time.monotonic()
                    await self._expire()
            except Exception:  # pragma: no cover - tidying must never stop the server
                log.exception("unloading or expiring tables failed")

    async def unload_idle(self) -> int:
        """Unload the tables idle for ``idle_unload`` seconds; returns how many."""
        limit = time.monotonic() - self.settings.idle_unload
        gone = [t for t in self.tables.values() if t.idle() and t.last_active <= limit]
        for t in gone:
            del self.tables[t.id]
            try:
                await t.stop()
                if self.cluster is not None:  # no scan loads it again while it has nothing to do
                    await self.cluster.park(t.id)
            finally:
                self._unfollow(t.id)
        return len(gone)

    async def _expire(self) -> None:
        before = now() - timedelta(days=self.settings.abandon_after_days)
        try:
            ids = await self.db(self.store.expire_tables, before)
        except Exception as e:
            self._failed(reason(e))
            return
        for table_id in ids:
            log.info("table %s expired (abandoned)", table_id)
            if self.cluster is not None:
                self.cluster.publish(table_id, {"k": "sync"})
            t = self.tables.get(table_id)
            if t is not None:
                t.status = ABANDONED
                await t.bots.stop()
                t.broadcast_state()

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
            if self.cluster is not None and await self.cluster.follow(table_id):
                self._missed.add(table_id)  # not confirmed yet: read it again once loaded
            try:
                data = read or await self.db(self.store.load_table, table_id)
            except Exception as e:
                self._failed(reason(e))
                raise Refusal("storage", "the server's database cannot be read now; "
                                         "try again later") from None
            t = Table(self, data) if data is not None else None
            if t is not None:
                self.tables[table_id] = t
                if table_id in self._missed:  # read before that change: read it again
                    t.request_sync()
                if self.cluster is not None and t.open and not self.cluster.holds(table_id):
                    try:  # its bots and clock run here unless another replica runs them
                        await self.cluster.acquire(table_id)
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

    async def create(self, body: Any, count: Callable[[], Awaitable[None]] | None = None
                     ) -> tuple[Table, list[str | None], str]:
        """A new table from a ``POST /api/tables`` body; returns it, the seat tokens and the
        spectators' token. ``count``: awaited once the body is found valid, before the table
        is stored (the creator's rate limit: a malformed request is not counted; it raises
        ``Refusal("too_fast")`` to refuse). Raises ``Refusal`` (``bad_request``,
        ``too_fast``, ``storage``)."""
        if not isinstance(body, dict):
            raise Refusal("bad_request", "the body must be a JSON object")
        for key in body:
            if key == "seed":
                raise Refusal("bad_request", "seed: the server deals every table from a secret "
                                             "random source; it cannot be chosen")
            if key not in CREATE_FIELDS:
                raise Refusal("bad_request", f"unknown field {str(key)[:40]!r}; the fields "
                                             f"are {', '.join(CREATE_FIELDS)}")
        game, players, options, seats, is_open, clock, nickname, hints = (body.get(k) for k in CREATE_FIELDS)
        if not isinstance(game, str) or game not in GAME_NAMES:
            raise Refusal("bad_request", f"game: choose one of {', '.join(GAME_NAMES)}")
        g = get_game(game)
        if players is None and g.min_players == g.max_players:
            players = g.min_players
        if type(players) is not int or not g.min_players <= players <= g.max_players:
            how_many = (f"exactly {g.min_players}" if g.min_players == g.max_players
                        else f"{g.min_players} to {g.max_players}")
            raise Refusal("bad_request", f"players: {g.name} is for {how_many} players")
        options = {} if options is None else options
        if not isinstance(options, dict) or "players" in options:
            raise Refusal("bad_request", "options: an object of rule options")
        why = gamekit.options_problem(game, options)
        if why:
            raise Refusal("bad_request", why)
        if seats is None:  # every seat for a person
            seats = [{"kind": HUMAN}] * players
        if not isinstance(seats, list) or len(seats) != players:
            raise Refusal("bad_request", f"seats: give one entry per player ({players})")
        kinds: list[tuple[str, str | None]] = []
        for i, s in enumerate(seats):
            kind = s.get("kind") if isinstance(s, dict) else None
            extra = sorted(set(s) - {"kind", "bot"}) if isinstance(s, dict) else []
            if extra or (kind == HUMAN and "bot" in s):
                field = (extra[0] if extra else "bot")[:40]
                raise Refusal("bad_request", f"seats[{i}]: unknown field {field!r} (a seat has "
                                             "kind, and bot for a bot seat)")
            if kind == HUMAN:
                kinds.append((HUMAN, None))
            elif kind == BOT:
                name = s.get("bot", gamekit.default_bot(game))
                if not isinstance(name, str) or name not in bot_names(game):
                    raise Refusal("bad_request", f"seats[{i}].bot: one of "
                                                 f"{', '.join(bot_names(game))}")
                kinds.append((BOT, name))
            else:
                raise Refusal("bad_request", f"seats[{i}].kind: human or bot")
        if is_open is not None and type(is_open) is not bool:
            raise Refusal("bad_request", "open: true (listed in the lobby) or false")
        if clock is not None and (not isinstance(clock, str) or clock not in self.clock_presets):
            raise Refusal("bad_request", "clock: null (no clock) or one of "
                                         + ", ".join(self.clock_presets))
        clean = gamekit.clean_name(nickname) if nickname is not None else None
        if nickname is not None and clean is None:
            raise Refusal("bad_request", f"name: 1 to {gamekit.NAME_MAX} characters of text")
        if hints is not None and type(hints) is not bool:
            raise Refusal("bad_request", "hints: true (a Hint button, no medal) or false")
        if hints and not (game == "regicide" and players == 1 and kinds[0][0] == HUMAN):
            raise Refusal("bad_request", "hints: only a solo Regicide table played by a human "
                                         "may have hints")
        if kinds[0][0] != HUMAN and is_open:
            raise Refusal("bad_request", "open: the creator takes the first seat (seat 0), "
                                         "which must be a human seat")
        config = {"players": players, **options}
        seed = self.seeds()
        try:
            Match(g, config, seed)
        except (RegaliaError, TypeError, ValueError) as e:
            raise Refusal("bad_request", f"options: {e}") from None
        new = [NewSeat(kind, bot) for kind, bot in kinds]
        if new[0].kind == HUMAN:  # the creator's seat
            new[0].claimed, new[0].name = True, clean
        clock_cfg = None
        if clock is not None:
            bank, inc = self.clock_presets[clock]
            clock_cfg = Clock.new(clock, bank, inc, players).config()

        if count is not None:
            await count()
        # the table as stored, without reading it back: no other replica can have changed
        # it yet (only this answer will tell its id)
        data, tokens = await self.write(partial(self.store.new_table, game, config, seed, new,
                                                is_open=bool(is_open), clock=clock_cfg,
                                                hints=bool(hints)))
        table = await self.get(data.id, data)
        assert table is not None
        return table, tokens, data.watch_token

    async def rematch(self, old: Table, token: Any,
                      count: Callable[[], Awaitable[None]] | None = None) -> Table:
        """The rematch of a finished table, asked by one of its seated players: the same game,
        options, seats, bots, names and clock preset, a new deal from a new secret seed. Each
        human seat keeps its token, so every player's link moves with them. Asked again, the
        same rematch. ``count``: awaited before a new rematch is stored (the asker's rate
        limit; one already made, or a refusal, is not counted). Raises ``Refusal``
        (``no_access``, ``not_finished``, ``too_fast``, ``storage``)."""
        if old.seat_of_token(token) is None:
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
                clock = old.clock.config() if old.clock else None
                try:
                    stored, _ = await self.write(partial(
                        self.store.new_table, old.game.name, dict(old.config), self.seeds(),
                        seats, clock=clock, after=old.id, hints=old.hints))
                except Conflict:  # another replica stored the rematch first: read it
                    await old.sync()
                else:
                    old.announce_rematch(stored.id)
                    old.tell_others("rematch", table=stored.id)
        table = await self.get(old.next_table, stored)  # stored here: it is next_table
        if table is None:  # pragma: no cover - it was just stored
            raise Refusal("storage", "the rematch could not be loaded; try again")
        return table

    @staticmethod
    def check_analysis(table: Table, seat: Any) -> None:
        """Raises the ``Refusal`` of an analysis that cannot be made (``not_finished``,
        ``bad_request``): checked before the asker's rate counts it."""
        if not table.finished:
            raise Refusal("not_finished", "the analysis opens when the game is over")
        if table.game.name != "regicide":
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
        self.check_analysis(table, seat)
        key = (table.id, seat)
        if key in self.analyses:
            self.analyses.move_to_end(key)
            return self.analyses[key]
        job = self._analysing.get(key)
        if job is None:
            job = asyncio.ensure_future(self.analysis_pool.run(
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
        self.analyses[key] = job.result()
        while len(self.analyses) > ANALYSES_KEPT:
            self.analyses.popitem(last=False)

    async def open_tables(self) -> list[dict[str, Any]]:
        """The lobby's list of open tables with free seats (``GET /api/open``)."""
        try:
            rows = await self.db(self.store.open_tables, self.settings.open_list_max)
        except Exception as e:
            self._failed(reason(e))
            raise Refusal("storage", "the server's database cannot be read now; "
                                     "try again later") from None
        t = now()
        out = []
        for r in rows:
            out.append({
                "id": r["id"], "game": r["game"], "players": r["config"]["players"],
                "free": sum(1 for s in r["seats"] if s["kind"] == HUMAN and not s["claimed"]),
                "options": {k: v for k, v in r["config"].items() if k != "players"},
                "clock": r["clock"],
                "seats": [{"seat": s["seat"], "kind": s["kind"], "bot": s["bot"],
                           "name": s["name"] if s["claimed"] else None,
                           "free": s["kind"] == HUMAN and not s["claimed"]} for s in r["seats"]],
                "waited_s": max(0, int((t - r["created_at"]).total_seconds())),
            })
        return out

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` reports besides the store check."""
        broken = sorted(t.id for t in self.tables.values() if t.broken)
        c = self.cluster
        return {"tables": len(self.tables), "moves": self.moves_applied,
                "move_ms": latency_summary(self.move_seconds),
                "broken_tables": broken, "store_error": self.store_error,
                "connections": sum(self.connections.values()),
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
        """Count a new websocket of ``address``; ``False`` (not counted) when the address
        already has ``connections_per_address`` open, on all replicas together. When Redis
        fails, this replica's own count decides."""
        limit = self.settings.connections_per_address
        if self.connections[address] >= limit:
            return False
        if self.cluster is not None:
            try:
                if not await self.cluster.connect(address, limit):
                    return False
                self._shared_connections[address] += 1
            except Exception as e:  # noqa: BLE001 - Redis is down: count here only
                log.warning("shared connection count failed: %s", e)
        self.connections[address] += 1
        return True

    def shared_connections(self, address: str) -> int:
        """Websockets of ``address`` on this replica that Redis counted."""
        return self._shared_connections.get(address, 0)

    async def connection_closed(self, address: str) -> None:
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]
        if self._shared_connections[address] > 0:  # not one Redis never counted
            self._shared_connections[address] -= 1
            if self._shared_connections[address] <= 0:
                del self._shared_connections[address]
            try:
                await self.cluster.disconnect(address)
            except Exception as e:  # noqa: BLE001 - written again at a later heartbeat
                log.warning("shared connection count failed: %s", e)

    def _unfollow(self, table_id: str) -> None:
        """Stop listening to the table's events unless it is loaded or loading here (again):
        checked and done with no await in between."""
        if (self.cluster is not None and table_id not in self.tables
                and table_id not in self._loading):
            self.cluster.unfollow(table_id)

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
        here, if it is loaded (a table loaded later is read from the database)."""
        t = self.tables.get(event.get("t"))
        if t is not None and not t.closing:
            t.receive(event)
        elif t is None and event.get("t") in self._loading and event.get("k") != "presence":
            self._missed.add(event["t"])
