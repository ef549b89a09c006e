"""The write path of the server: every durable write of the tables, bounded in time, and
the reads done off the event loop (``Writer``; one per server).

* Moves of all tables are stored together (group commit, ``append_move``): the moves
  submitted while a transaction is under way go in the next one, one disk sync for many
  tables; a move is answered only once its transaction committed and was synced, so that
  nobody sees a move a crash could still take back.
* Any other write (``write``) that the database cannot take within ``write_timeout``
  seconds is refused (``Refusal("storage")``) and nothing is applied. ``store_error`` holds
  the last failure until a write succeeds.
* On SQLite the writes are done on the event loop itself, without waiting for a lock
  (``Store.at_once``; their disk sync on a thread of its own, one for all the writes
  committed before it, and none is told of a write before its sync: ``_log_synced``), and
  go to the database thread when another writer holds the lock; the reads go there
  (``db``). The copying of the write-ahead log into the database (``Store.checkpoint``)
  runs on that thread after every ``CHECKPOINT_EVERY`` writes. A write on the loop that
  takes longer than ``SLOW_WRITE`` seconds (a stalled disk: nothing else runs meanwhile,
  and the write timeout cannot cut it short) sends the writes to the thread for
  ``SLOW_WRITE_PAUSE`` seconds, where the write timeout applies again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Protocol

from regalia.server.refusal import Refusal
from regalia.server.storage.models import Conflict
from regalia.server.storage.store import NotAtOnce, NotSynced, Store, TooLate, reason

log = logging.getLogger("regalia.server")

CHECKPOINT_EVERY = 200  # SQLite writes on the event loop between two checkpoints
SLOW_WRITE = 0.25  # seconds: a write on the event loop this long means a stalled disk...
SLOW_WRITE_PAUSE = 30.0  # ...and the writes go to the database thread for this long
LATE_ANSWER = 1.0  # seconds a write already under way at its deadline is waited for


class Rereadable(Protocol):
    """What a write may have changed without saying so: a table read again from the
    database (``Replica.request_sync``, a part of each table)."""

    def request_sync(self) -> None: ...


def _consume(task: asyncio.Future) -> None:
    """Retrieve a finished write's exception (it was answered or logged already)."""
    if not task.cancelled():
        task.exception()


class Writer:
    """The writes and off-loop reads of one server (see the module docstring) on ``store``;
    ``write_timeout``: seconds before a stalled write is refused."""

    def __init__(self, store: Store, write_timeout: float = 5.0) -> None:
        self.store = store
        self.write_timeout = write_timeout
        # One database thread for SQLite (a single-writer database: the event loop writes
        # too, see _write_now); a few for a server.
        workers = 1 if store.engine.dialect.name == "sqlite" else 4
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="regalia-db")
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

    async def write(self, fn: Callable[..., Any], *args: Any, table: Rereadable | None = None) -> Any:
        """A durable write other than a move (``fn(*args)``: one transaction of the store);
        raises ``Refusal("storage")`` when the database refuses it or does not answer within
        ``write_timeout`` seconds. A write that cannot start, or get the lock, by then is
        not done; one already committing is waited for up to ``LATE_ANSWER`` seconds more,
        so that "nothing was saved" is only said when it is so. When it may have been saved
        (no answer in time, or its disk sync failed), ``table`` (the table it changes) is
        read again from the database, which says."""
        timeout = self.write_timeout
        job = asyncio.ensure_future(self._write_now(fn, *args,
                                                    deadline=time.monotonic() + timeout))
        job.add_done_callback(_consume)  # an answer that comes after the refusal
        try:
            try:
                result = await asyncio.wait_for(asyncio.shield(job), timeout)
            except asyncio.TimeoutError:  # the write's own answer is near (Store.before)
                result = await asyncio.wait_for(asyncio.shield(job), LATE_ANSWER)
        except asyncio.TimeoutError:  # a stalled disk: the write may still land
            self.failed("no answer within the write timeout")
            if table is not None:
                table.request_sync()
            raise Refusal("storage", "the server's database did not answer in time; the "
                                     "change may not have been saved: reload to see") from None
        except TooLate:
            self.failed("no answer within the write timeout")
            raise Refusal("storage", "the server's database did not answer in time; "
                                     "nothing was saved: try again later") from None
        except (Refusal, Conflict):
            raise
        except NotSynced as e:
            self.failed(str(e))
            if table is not None:
                table.request_sync()
            raise Refusal("storage", "the server's disk failed; the change may not have been "
                                     "saved: reload to see") from None
        except Exception as e:
            self.failed(reason(e))
            raise Refusal("storage", "the server's database refused the change; nothing was "
                                     "saved: try again later") from None
        self.store_error = None
        return result

    def failed(self, why: str) -> None:
        """Note a failed database operation in ``store_error`` (logged once per reason)."""
        if self.store_error != why:
            log.error("database write failed: %s", why)
        self.store_error = why

    async def append_move(self, table_id: str, ply: int, seat: int | None, action: str,
                          finished: bool, clock_state: dict[str, Any] | None = None,
                          human: bool = False, by_bot: bool = False) -> None:
        """Store one move durably; moves submitted while a write is under way are stored
        together in the next transaction (group commit: one disk sync for many tables).
        Returns once the move's transaction has committed (and is synced to the disk);
        raises ``Conflict``, ``NotSynced`` or the database's error (another writer's lock
        is waited for up to the store's wait; a stalled disk, until it answers). ``human``,
        ``by_bot``: see ``Store.append_move``. Cancelled, the move is stored all the same
        (the writer skips a cancelled answer; at the server's stop, the answer is a
        cancellation)."""
        fut = asyncio.get_running_loop().create_future()
        self._pending.append(((table_id, ply, seat, action, finished, clock_state, human, by_bot),
                              fut))
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
                self.failed(reason(e))  # the disk sync failed
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

    def start_closing(self) -> None:
        """The server stops: a sync asked from now on is done at once on a thread of its own
        (no new syncer task is left behind)."""
        self._closing = True

    async def stop(self) -> None:
        """Let the moves already submitted reach the disk (up to a second), stop the
        syncer (its waits left are answered: cancelled) and the checkpoint, and close the
        database threads."""
        self._closing = True
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
        self.executor.shutdown(wait=True)
        self.sync_executor.shutdown(wait=True)
