"""The write path of the server: every durable write of the tables, bounded in time, and
every database call done off the event loop (``Writer``; one per server).

* Every call of the store runs on the database thread (``db``): one thread for SQLite (the
  single writer: its calls run one after the other), a few for a server. The event loop
  never waits for the database, so a stalled disk stops the writes, never the pings, pages
  and ``/healthz``. The moves' transactions go first (``DatabaseThreads``): a move waits
  for the call under way, not for the tables being created and the seats being claimed
  meanwhile (a burst of those delayed the first moves of new tables by 50-250 ms). Calls
  on one table are ordered by the table's lock, so only calls of other tables are passed.
* Moves of all tables are stored together (group commit, ``append_move``): the moves
  submitted while a transaction is under way go in the next one, one commit for many
  tables; a move is answered only once its transaction committed and is on the disk, so
  that nobody sees a move a crash could still take back.
* With SQLite's full syncs, the disk is synced once for the calls run one after the other
  (group sync, ``DatabaseThreads``'s ``sync``: commits with ``synchronous=NORMAL``, then one
  ``fsync`` of the write-ahead log, ``Store.sync_log``): no call is answered before the sync
  that follows it, so nobody learns of a commit, or reads what it wrote, before it is on the
  disk, as with a sync at each commit; a table's creation, its seats' claims and the moves
  of the tables meanwhile share one sync instead of one each.
* Every write is bounded by ``write_timeout`` seconds. A move not yet sent to the database
  by then is dropped and refused (``TooLate``: nothing saved); one whose transaction is
  under way and does not answer in time is refused as maybe saved (``NotSynced``), and its
  table is read again from the database (the read waits behind that transaction, so it
  shows the truth). Any other write (``write``) that the database cannot take in time is
  refused (``Refusal("storage")``), saying whether it may have been saved.
* Health (``failing``, for ``/healthz``): ``store_error`` holds the last failure (a write,
  a move or a read refused, or no answer in time) and its time, until a write or a probe
  started after it succeeds: while it is set, a probe (``Store.probe_write``, a commit that
  changes nothing) runs on the database thread every ``PROBE_EVERY`` seconds, so health
  comes back within seconds of the database, moves or not; a call under way on the
  database thread for longer than ``write_timeout`` is reported too.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Protocol

from regalia.server.refusal import Refusal
from regalia.core.records import Ending
from regalia.server.storage.models import ending_action
from regalia.server.storage.store import NotSynced, Store, TooLate, io_error, reason
from regalia.server.storage.threads import MOVES, OTHERS, DatabaseThreads
from regalia.server.storage.values import Conflict

log = logging.getLogger("regalia.server")

LATE_ANSWER = 1.0  # seconds a write already under way at its deadline is waited for
LOCK_MARGIN = 0.2  # the share of write_timeout a batch of moves ends its lock wait early
PROBE_EVERY = 1.0  # seconds between two probes of the database while it fails
NO_ANSWER = "no answer within the write timeout"


class Rereadable(Protocol):
    """What a write may have changed without saying so: a table read again from the
    database (``Replica.request_sync``, a part of each table)."""

    def request_sync(self) -> None: ...


def _consume(task: asyncio.Future) -> None:
    """Retrieve a finished write's exception (it was answered or logged already)."""
    if not task.cancelled():
        task.exception()


def _unsure(e: Exception) -> Exception:
    """``e``, a failed write's exception, as the submitter is told it: ``NotSynced`` when
    the write may have been saved all the same (an I/O error at its commit)."""
    return NotSynced(f"the disk failed: {reason(e)}") if io_error(e) else e


class Writer:
    """The writes and reads of one server on ``store``, off the event loop (see the module
    docstring); ``write_timeout``: seconds before a stalled write is refused."""

    def __init__(self, store: Store, write_timeout: float = 5.0) -> None:
        self.store = store
        self.write_timeout = write_timeout
        if store.group_syncs():  # SQLite's full syncs: one for the calls run meanwhile
            self.executor = DatabaseThreads(1, "regalia-db",
                                            sync=lambda: self._timed(store.sync_log, ()))
        else:
            workers = 1 if store.engine.dialect.name == "sqlite" else 4
            self.executor = DatabaseThreads(workers, "regalia-db")
        self.store_error: str | None = None
        self.store_error_at: float | None = None  # time.time() of the last failure
        self._failed_at = 0.0  # its time.monotonic()
        self._running: dict[int, float] = {}  # database thread -> monotonic start of its call
        self._prober: asyncio.Task | None = None
        self._closing = False
        # the moves: (move, answer, monotonic time submitted)
        self._writing: list[tuple[tuple, asyncio.Future, float]] = []  # the batch under way
        self._pending: list[tuple[tuple, asyncio.Future, float]] = []
        self._pending_event = asyncio.Event()
        self._writer: asyncio.Task | None = None
        self._watch: asyncio.TimerHandle | None = None  # the next check of the moves' deadlines

    # -- the database ----------------------------------------------------------------

    async def db(self, fn: Callable[..., Any], *args: Any, priority: int = OTHERS) -> Any:
        """``fn(*args)``, a call of the store, on the database thread (after the calls
        waiting with a lower ``priority``: ``MOVES`` or ``OTHERS``)."""
        return await asyncio.wrap_future(
            self.executor.submit_first(priority, self._timed, fn, args))

    def _timed(self, fn: Callable[..., Any], args: tuple) -> Any:
        """On the database thread: ``fn(*args)``, its start kept for ``failing``."""
        me = threading.get_ident()
        self._running[me] = time.monotonic()
        try:
            return fn(*args)
        finally:
            del self._running[me]

    def busy_for(self) -> float:
        """Seconds the oldest call under way on the database thread has run (0: none)."""
        started = list(self._running.values())
        return time.monotonic() - min(started) if started else 0.0

    async def _write_now(self, fn: Callable[..., Any], *args: Any, deadline: float) -> Any:
        """The store's write ``fn(*args)`` on the database thread, started and waiting for a
        lock only until ``deadline`` (``Store.before``). Raises ``NotSynced`` when its commit
        failed on the disk (it may be stored)."""
        try:
            return await self.db(self.store.before, deadline, fn, *args)
        except Exception as e:
            raise _unsure(e) from e

    async def write(self, fn: Callable[..., Any], *args: Any, table: Rereadable | None = None) -> Any:
        """A durable write other than a move (``fn(*args)``: one transaction of the store);
        raises ``Refusal("storage")`` when the database refuses it or does not answer within
        ``write_timeout`` seconds. A write that cannot start, or get the lock, by then is
        not done; one already committing is waited for up to ``LATE_ANSWER`` seconds more,
        so that "nothing was saved" is only said when it is so. When it may have been saved
        (no answer in time, or its commit failed on the disk), ``table`` (the table it
        changes) is read again from the database, which says."""
        timeout = self.write_timeout
        started = time.monotonic()
        job = asyncio.ensure_future(self._write_now(fn, *args, deadline=started + timeout))
        job.add_done_callback(_consume)  # an answer that comes after the refusal
        try:
            try:
                result = await asyncio.wait_for(asyncio.shield(job), timeout)
            except asyncio.TimeoutError:  # the write's own answer is near (Store.before)
                result = await asyncio.wait_for(asyncio.shield(job), LATE_ANSWER)
        except asyncio.TimeoutError:  # a stalled disk: the write may still land
            self.failed(NO_ANSWER)
            if table is not None:
                table.request_sync()
            raise Refusal("storage", "the server's database did not answer in time; the "
                                     "change may not have been saved: reload to see") from None
        except TooLate:
            self.failed(NO_ANSWER)
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
        self._succeeded(started)
        return result

    # -- health ----------------------------------------------------------------------

    def failed(self, why: str) -> None:
        """Note a failed database operation in ``store_error`` (logged once per reason), and
        probe the database until a write succeeds again."""
        if self.store_error != why:
            log.error("database write failed: %s", why)
        self.store_error = why
        self.store_error_at = time.time()
        self._failed_at = time.monotonic()
        if self._closing or (self._prober is not None and not self._prober.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - called outside the server's loop
            return
        self._prober = loop.create_task(self._probe_loop())

    def _succeeded(self, started: float) -> None:
        """A write started at ``started`` (monotonic) succeeded: the failures noted before
        it are over."""
        if self.store_error is not None and started >= self._failed_at:
            log.warning("database writes succeed again (after: %s)", self.store_error)
            self.store_error = self.store_error_at = None

    async def _probe_loop(self) -> None:
        """While ``store_error`` is set: every ``PROBE_EVERY`` seconds a write that changes
        nothing, on the database thread (one at a time: a stalled one is waited for)."""
        while self.store_error is not None and not self._closing:
            await asyncio.sleep(PROBE_EVERY)
            if self.store_error is None or self._closing:
                return
            started = time.monotonic()
            try:
                await self.db(self.store.probe_write)
            except Exception as e:  # noqa: BLE001 - still failing: said in store_error
                self.failed(str(e))  # (this probe goes on)
                continue
            self._succeeded(started)

    def failing(self) -> str | None:
        """Why the store is failing now (``None``: it is not): the last failure and its time,
        or the database thread's call under way for longer than ``write_timeout``."""
        if self.store_error is not None:
            at = datetime.fromtimestamp(self.store_error_at or time.time(), timezone.utc)
            return f"{self.store_error} (at {at.isoformat(timespec='seconds')})"
        busy = self.busy_for()
        if busy > self.write_timeout:
            return f"no answer from the database for {busy:.0f} s"
        return None

    # -- moves -----------------------------------------------------------------------

    async def append_move(self, table_id: str, ply: int, seat: int | None, action: str,
                          finished: bool, clock_state: dict[str, Any] | None = None,
                          human: bool = False, by_bot: bool = False) -> None:
        """Store one move durably; moves submitted while a write is under way are stored
        together in the next transaction (group commit: one disk sync for many tables).
        Returns once the move's transaction has committed (and is synced to the disk);
        raises ``Conflict``, the database's error, ``TooLate`` (no answer within
        ``write_timeout``, the move not yet sent to the database: nothing stored) or
        ``NotSynced`` (no answer in time from its transaction, or an I/O error at its
        commit: it may be stored). ``human``, ``by_bot``: see ``Store.append_move``.
        Cancelled, the move is stored all the same (the writer skips a cancelled answer; at
        the server's stop, the answer is a cancellation)."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        submitted = time.monotonic()
        self._pending.append(((table_id, ply, seat, action, finished, clock_state, human,
                               by_bot), fut, submitted))
        self._pending_event.set()
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_loop())
        if self._watch is None:
            self._watch = loop.call_later(self.write_timeout, self._overdue)
        await fut

    async def append_ending(self, table_id: str, ply: int, ending: Ending,
                            clock_state: dict[str, Any] | None = None) -> None:
        """Store the players' ending of a game (a concession, a stop agreed by all) as its
        ending row at ``ply``, the number of moves played (``models``), marking the table
        finished; as ``append_move`` (stored with the moves, the same refusals: ``Conflict``
        when a move took that ply first)."""
        await self.append_move(table_id, ply, ending.seat, ending_action(ending), True,
                               clock_state)

    def _overdue(self) -> None:
        """The moves' deadlines: a move still waiting for its transaction is dropped and
        refused (nothing stored); one in the transaction under way is refused as maybe
        stored. Then the next check is set for the oldest move left."""
        self._watch = None
        now = time.monotonic()
        limit = now - self.write_timeout
        late = [e for e in self._pending if e[2] <= limit]
        if late:
            self._pending = [e for e in self._pending if e[2] > limit]
            for _, fut, _ in late:
                if not fut.done():
                    fut.set_exception(TooLate("the database did not answer within the "
                                              "write timeout; nothing was saved"))
        stalled = [fut for _, fut, submitted in self._writing
                   if submitted <= limit and not fut.done()]
        for fut in stalled:
            fut.set_exception(NotSynced(NO_ANSWER))
        if late or stalled:
            self.failed(NO_ANSWER)
        waiting = [t for _, f, t in self._pending + self._writing if not f.done()]
        if waiting:
            self._watch = asyncio.get_running_loop().call_later(
                max(0.0, min(waiting) + self.write_timeout - now), self._overdue)

    async def _write_loop(self) -> None:
        while True:
            await self._pending_event.wait()
            self._pending_event.clear()
            batch = self._writing = self._pending
            self._pending = []
            if not batch:
                continue
            started = time.monotonic()
            # another writer's lock is waited for until a little before the oldest move's
            # deadline ("nothing was saved" is then said before it), or briefly
            deadline = max(min(t for _, _, t in batch) + self.write_timeout * (1 - LOCK_MARGIN),
                           started + self.write_timeout * LOCK_MARGIN)
            try:
                results = await self.db(self.store.before, deadline, self.store.append_moves,
                                        [m for m, _, _ in batch], priority=MOVES)
            except Exception as e:  # the database went away, is read-only or locked, or
                results = [e] * len(batch)  # the disk failed
            except BaseException:  # stopped (at the server's stop): stored or not, unknown
                for _, fut, _ in batch:
                    fut.cancel()
                raise
            finally:
                self._writing = []
            error = next((r for r in results if r is not None
                          and not isinstance(r, Conflict)), None)
            if error is None:
                self._succeeded(started)
            else:
                self.failed(reason(error))
            for (_, fut, _), res in zip(batch, results):
                if fut.done():
                    continue
                if res is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(res if isinstance(res, Conflict) else _unsure(res))

    # -- the server's stop -----------------------------------------------------------

    def start_closing(self) -> None:
        """The server stops: no more probes."""
        self._closing = True

    async def stop(self) -> None:
        """Let the moves already submitted reach the disk (up to a second), stop the writer
        and the probes, and close the database threads (without stopping the loop)."""
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
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self._prober is not None:
            self._prober.cancel()
            await asyncio.gather(self._prober, return_exceptions=True)
        await asyncio.to_thread(self.executor.shutdown, True)
