"""The database threads of a server (``DatabaseThreads``): calls run off the event loop by
priority, the moves' transactions first, and with SQLite's full syncs one disk sync for
the calls run one after the other, no call answered before it (``writer``'s module
docstring says why)."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from concurrent.futures import Executor, Future
from typing import Any, Callable

MOVES, OTHERS = 0, 1  # the database threads' priorities: the moves' transactions go first
# A grouped disk sync (SQLite's full syncs: ``DatabaseThreads``'s ``sync``) waits for the
# calls queued behind the first one held, but for no more than these:
HOLD_CALLS = 32      # calls answered by one sync at most
HOLD_SECONDS = 0.01  # seconds the first of them waits at most for the calls run after it


def _settle(fut: Future, ok: bool, value: Any) -> None:
    if ok:
        fut.set_result(value)
    else:
        fut.set_exception(value)


class DatabaseThreads(Executor):
    """``workers`` threads that run the calls submitted to them, the lowest priority first
    (``submit_first``: ``MOVES`` or ``OTHERS``; ``submit``: ``OTHERS``), in the order of
    submission within one priority. The standard library's thread pool has one queue in
    the order of submission only. ``shutdown`` lets every call already submitted run; the
    threads are daemons, so a call stalled on a dead disk does not keep a stopped server's
    process alive. ``sync`` (one thread only; ``ValueError`` otherwise): the disk sync run
    before answering the calls run since the last one, held meanwhile while more calls
    wait (up to ``HOLD_CALLS`` calls or ``HOLD_SECONDS``); its exception, when it fails, is
    the answer of each of them that succeeded."""

    def __init__(self, workers: int, name: str,
                 sync: Callable[[], None] | None = None) -> None:
        if sync is not None and workers != 1:
            raise ValueError("a grouped disk sync needs one database thread")
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()
        self._closed = False
        self._sync = sync
        self._threads = [threading.Thread(target=self._work, name=f"{name}_{k}", daemon=True)
                         for k in range(workers)]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        return self.submit_first(OTHERS, fn, *args, **kwargs)

    def submit_first(self, priority: int, fn: Callable[..., Any], /, *args: Any,
                     **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` on a thread, after the calls waiting with a lower
        ``priority``; its future. Raises ``RuntimeError`` after ``shutdown``."""
        if self._closed:
            raise RuntimeError("the database threads are shut down")
        fut: Future = Future()
        self._queue.put((priority, next(self._order), fut, fn, args, kwargs))
        return fut

    def _work(self) -> None:
        held: list[tuple[Future, bool, Any]] = []  # answers waiting for the disk sync
        since = 0.0  # when the first of them was held (monotonic)
        while True:
            if held and (self._queue.empty() or len(held) >= HOLD_CALLS
                         or time.monotonic() - since > HOLD_SECONDS):
                self._answer(held)
                held = []
            _, _, fut, fn, args, kwargs = self._queue.get()
            if fut is None:  # shut down
                self._answer(held)
                return
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                outcome: tuple[bool, Any] = (True, fn(*args, **kwargs))
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                outcome = (False, e)
            if self._sync is None:
                _settle(fut, *outcome)
                continue
            if not held:
                since = time.monotonic()
            held.append((fut, *outcome))

    def _answer(self, held: list[tuple[Future, bool, Any]]) -> None:
        """Sync the disk once for the calls run since the last sync (``sync``: it does
        nothing when none committed), then answer them: nobody learns of a commit, nor reads
        what it wrote, before it is on the disk. A failed sync is each call's answer (what
        it wrote or read may be lost)."""
        if not held:
            return
        try:
            self._sync()  # type: ignore[misc]
        except BaseException as e:  # noqa: BLE001 - handed to the callers
            for fut, ok, _ in held:
                if ok:
                    fut.set_exception(e)
                else:
                    _settle(fut, ok, _)
            return
        for fut, ok, value in held:
            _settle(fut, ok, value)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closed = True
        for _ in self._threads:  # after every call already submitted
            self._queue.put((OTHERS + 1, next(self._order), None, None, (), {}))
        if wait:
            for t in self._threads:
                t.join()
