"""Where the bots think (``BotPool``): every bot decision of the server runs in one bounded
pool of worker processes (or threads), never on the event loop. A table has at most one
decision in the pool or waiting for it. The bot moves a person is waiting for (a table
where a human player is connected) are served first, then hints (at most a share of the
workers at once, one per asker at a time, a bounded queue beyond which a hint is refused
as ``busy``), then the others (tables of bots only, watched or not, or whose players are
away); each kind in arrival order (``Slots``), so each table gets a fair share among its
kind, many tables of bots or many hints cannot slow a person's game, and a human's move
never waits behind bots or hints. What runs in a worker: ``botwork``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import os
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from regalia.server.refusal import Refusal
from regalia.server.tables.botwork import _ready, _start_worker

log = logging.getLogger("regalia.server")

URGENT, HINT, OTHER = 0, 1, 2
"""The kinds of bot-pool jobs, in the order they are served: a bot move a person waits for,
a hint, the rest (tables of bots only, or whose players are away)."""


class Slots:
    """``n`` slots for three kinds of jobs (``URGENT``, ``HINT``, ``OTHER``): a freed slot
    goes to those waiting for an urgent job first, then to a hint while fewer than
    ``hint_share`` hints hold a slot, then to the others; each kind first come, first served
    (an ``asyncio.Semaphore`` with three queues). A freed slot goes straight to a waiter,
    so a free slot means nobody is waiting but hints at their share (the queues may still
    hold cancelled waiters, skipped when reached). With one slot, a decision a person waits
    for waits for at most the one job in progress, however many hints are queued."""

    def __init__(self, n: int, hint_share: int | None = None) -> None:
        self.free = n
        self.hint_share = n if hint_share is None else max(1, min(n, hint_share))
        self.hints = 0  # hints holding a slot
        self.waiting: tuple[deque, deque, deque] = (deque(), deque(), deque())

    def _take(self, kind: int) -> None:
        self.free -= 1
        if kind == HINT:
            self.hints += 1

    async def acquire(self, kind: int) -> None:
        if self.free > 0 and (kind != HINT or self.hints < self.hint_share):
            self._take(kind)
            return
        fut = asyncio.get_running_loop().create_future()
        self.waiting[kind].append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # handed a slot meanwhile: pass it on
                self.release(kind)
            raise

    def release(self, kind: int) -> None:
        self.free += 1
        if kind == HINT:
            self.hints -= 1
        for k, queue in enumerate(self.waiting):
            if k == HINT and self.hints >= self.hint_share:
                continue
            while queue:
                fut = queue.popleft()
                if not fut.done():  # (a cancelled waiter is skipped)
                    self._take(k)
                    fut.set_result(None)
                    return

    def hints_waiting(self) -> int:
        """Hints waiting for a slot (cancelled waiters aside)."""
        return sum(1 for fut in self.waiting[HINT] if not fut.done())


class BotPool:
    """``workers`` bot decisions at once, in processes (``processes``) or threads (``Slots``
    decides who is next). Hints (``hint``) take at most ``hint_share`` workers at once
    (``None``: half of them, at least one), one per asker at a time; beyond ``hint_queue``
    hints waiting for a worker a new one is refused (``busy``)."""

    def __init__(self, workers: int, processes: bool, hint_share: int | None = None,
                 hint_queue: int = 8, hint_seconds: float | None = None) -> None:
        self.workers = workers
        self.processes = processes
        self.slots = Slots(workers, max(1, workers // 2) if hint_share is None else hint_share)
        self.hint_queue = hint_queue
        self.hint_seconds = hint_seconds or 1.0  # about how long one hint takes
        self.hint_askers: set[str] = set()  # those with a hint waiting or worked out
        self._executor: Executor | None = None
        self.closed = False
        self._warming: asyncio.Task | None = None

    def warm_soon(self) -> None:
        """Start the worker processes in the background (each loads the compiled kernels,
        several seconds), once, so that a table's first bot move or hint does not wait
        for them: the server calls it when it starts (``TableRegistry.start``), and a table
        with bots or hints when it starts."""
        if self.processes and self._warming is None and not self.closed:
            self._warming = asyncio.get_running_loop().create_task(self._warm())

    async def _warm(self) -> None:
        try:
            await asyncio.gather(*(self.run(_ready) for _ in range(self.workers)))
        except Exception as e:  # noqa: BLE001 - the first decision starts them instead
            if self.closed:  # stopped on purpose by close() (the server stops)
                log.info("the bot workers' start was cut short: the server stops")
            else:
                log.warning("the bot workers could not be started ahead: %r", e)

    def _pool(self) -> Executor:
        if self.closed:
            raise RuntimeError("the bot pool is closed")
        if self._executor is None:
            if self.processes:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("forkserver"),
                    initializer=_start_worker, initargs=(os.getpid(),))
            else:
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="regalia-bot")
        return self._executor

    async def run(self, fn: Any, *args: Any, urgent: bool = False) -> Any:
        """``fn(*args)`` in a worker when a slot is free (``urgent``: a person waits for
        it, served first); its result, or its exception."""
        return await self._run(URGENT if urgent else OTHER, fn, *args)

    async def hint(self, asker: str, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` as a hint asked by ``asker`` (a client's address): after the
        decisions a person waits for, before the tables of bots only, at most
        ``hint_share`` at once. Raises ``Refusal("busy")`` (nothing counted) while
        ``asker`` has a hint under way, or when ``hint_queue`` hints wait already (the
        message says about how long to wait)."""
        self.check_hint(asker)
        self.hint_askers.add(asker)
        try:
            return await self._run(HINT, fn, *args)
        finally:
            self.hint_askers.discard(asker)

    def check_hint(self, asker: str) -> None:
        """Raises the ``Refusal("busy")`` that ``hint`` would raise now."""
        if asker in self.hint_askers:
            raise Refusal("busy", "a hint you asked for is still being worked out: wait for "
                                  "it before asking another")
        waiting = self.slots.hints_waiting()
        if waiting >= self.hint_queue:
            rounds = waiting // self.slots.hint_share + 1
            wait = max(1, math.ceil(rounds * self.hint_seconds))
            raise Refusal("busy", f"the server is busy: {waiting} hints are waiting to be "
                                  f"worked out (at most {self.hint_queue}); try again in "
                                  f"about {wait} s")

    async def _run(self, kind: int, fn: Any, *args: Any) -> Any:
        await self.slots.acquire(kind)
        try:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._pool(), fn, *args)
            except BrokenProcessPool:  # a worker died (killed, out of memory): start anew
                if self.closed:
                    raise
                log.error("a bot worker process died; starting new ones")
                self._drop()
                return await loop.run_in_executor(self._pool(), fn, *args)
        finally:
            self.slots.release(kind)

    def _drop(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        """Stop the workers for good, waiting for the decisions under way; workers still
        starting (``warm_soon``: loading the compiled kernels, or compiling them after a
        fresh install, 15-20 s) are stopped at once instead, so that a server stopped
        meanwhile does not wait for the compiler (numba writes its cache files whole, so
        a compile cut short leaves none)."""
        self.closed = True
        ex, self._executor = self._executor, None
        if ex is None:
            return
        if isinstance(ex, ProcessPoolExecutor) and self._warming is not None \
                and not self._warming.done():
            workers = list((ex._processes or {}).values())  # (no public way before 3.14)
            ex.shutdown(wait=False, cancel_futures=True)
            for proc in workers:
                proc.terminate()
            for proc in workers:
                proc.join(5)
            return
        ex.shutdown(wait=True, cancel_futures=True)
