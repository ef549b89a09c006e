"""Bots at the tables: where they think and the loop that plays each table's bot seats.

``BotPool``: every bot decision of the server runs in one bounded pool of worker processes
(or threads), never on the event loop. A table has at most one decision in the pool or
waiting for it. The bot moves a person is waiting for (a table where a human player is
connected) are served first, then hints (at most a share of the workers at once, one per
asker at a time, a bounded queue beyond which a hint is refused as ``busy``), then the
others (tables of bots only, watched or not, or whose players are away); each kind in
arrival order, so each table gets a fair share among its kind, many tables of bots or many
hints cannot slow a person's game, and a human's move never waits behind bots or hints.

``BotLoop``: one task per table that plays its bot seats (bot seats and human seats handed
to a bot): Regicide's Jester-window wishes first, then the seat to act. The loop never dies
from an exception: it logs it and carries on; after ``MAX_FAILURES`` failures in a row the
table is marked broken (its players receive an ``error`` message, ``/healthz`` reports it).

Bots receive their seat's view, the legal actions, a random seed drawn from the table's own
secret source (never from the game's seed) and the time budget.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import os
import random
import threading
import time
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from regalia.bots import make_bot
from regalia.games import get_game
from regalia.server.refusal import Refusal
from regalia.server.tables import gamekit

log = logging.getLogger("regalia.server")

MAX_FAILURES = 5

# -------------------------------------------------------------------- in the worker

_BOTS: dict[tuple[str, str], Any] = {}


def _bot(game: str, name: str) -> Any:
    key = (game, name)
    if key not in _BOTS:
        try:
            _BOTS[key] = make_bot(game, name)
        except KeyError:
            _BOTS[key] = make_bot(game, "random")
    return _BOTS[key]


def decide(game: str, name: str, view: dict[str, Any], legal: list[int], seed: int,
           budget: float | None) -> int:
    """The bot's action code for ``view`` (runs in a worker); a failing bot plays at
    random among ``legal``."""
    rng = random.Random(seed)
    try:
        a = _bot(game, name).act(view, legal, rng, budget)
        if a in legal:
            return a
        log.warning("bot %s chose an illegal action; playing at random", name)
    except Exception:
        log.exception("bot %s failed; playing at random", name)
    return legal[rng.randrange(len(legal))]


def hint_of(game: str, name: str, view: dict[str, Any], legal: list[int], seed: int,
            budget: float | None) -> dict[str, Any]:
    """A hint for the seat whose ``view`` this is, in a worker, from that view only: the bot
    ``name``'s action (``decide``); for the games that can be analysed, its win chance and
    the next best move's, measured on the same sampled positions
    (``regalia.lab.analyse.hint_chances``, which suggests the next best instead when it
    finds it better beyond the sampling noise); the reason for the move suggested
    (``Game.hint_reason``). Returns ``{"action": CODE, "why": {"key", ...} | None, "win":
    0..1 | None, "next": CODE | None, "next_win": 0..1 | None, "worlds": N, "lead_range":
    [low, high] | None}``; a reason or chances that fail are logged and left out
    (``None``), the action stays."""
    action = decide(game, name, view, legal, seed, budget)
    g = get_game(game)
    out: dict[str, Any] = {"action": action, "why": None, "win": None, "next": None,
                           "next_win": None, "worlds": 0, "lead_range": None}
    if g.analysable:
        from regalia.lab.analyse import hint_chances

        try:
            c = hint_chances(view, legal, action, random.Random(f"hint:{seed}"))
        except Exception:
            log.exception("the chances of a hint of %s failed", game)
        else:
            out.update(action=c.move, win=c.win, next=c.next, next_win=c.next_win,
                       worlds=c.worlds,
                       lead_range=None if c.lead_range is None else list(c.lead_range))
    try:
        out["why"] = g.hint_reason(view, out["action"])
    except Exception:
        log.exception("the reason for a hint of %s failed", game)
    return out


def analyse(record: dict[str, Any], seat: int, worlds: int) -> list[dict[str, Any]]:
    """``regalia.lab.analyse.analyse_record`` of a record (as JSON) for ``seat``, in a worker:
    the decisions as JSON."""
    from regalia.core.records import GameRecord
    from regalia.lab.analyse import analyse_record

    return [d.to_json() for d in analyse_record(GameRecord.from_json(record), seat, worlds)]


def solve_deal(seed: int, config: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The solver's verdict on the solo Regicide deal of ``seed`` and ``config`` (``{"players":
    1, ...rule options}``), in a worker: ``regalia.lab.solve.Solver.solve`` with its medals
    (rules 1.14) within ``seconds`` (compiling its kernels, on a fresh install, comes
    before), as ``Solution.to_json()`` plus ``"limit": seconds``. A winning line is replayed
    through ``Match`` first: one that does not win with the medal stated is logged and
    answered as ``"undecided"``, without a line."""
    from regalia.core.records import Match
    from regalia.lab.solve import Deal, Solver, UNDECIDED, WON

    options = {k: v for k, v in config.items() if k != "players"}
    sol = Solver().solve(Deal.from_seed(seed, options), seconds, medals=True)
    out = sol.to_json()
    if sol.result == WON:
        g = get_game("regicide")
        m = Match(g, {"players": 1, **options}, seed)
        try:
            for action in sol.line:
                m.play(action)
            ok = (g.outcome(m.state) or {}).get("medal") == sol.medal
        except Exception:  # noqa: BLE001 - an illegal step: the line is not shown
            ok = False
        if not ok:
            log.error("the solver's line of seed %s does not win as stated", seed)
            out.update(result=UNDECIDED, medal=None, medal_proven=False, line=[])
    out["limit"] = seconds
    return out


def _warm_analysis() -> None:
    """Run the analysis's kernels once on a tiny input (the seat's sampled positions and
    the policy's playouts), so that a player's first analysis does not wait for their
    compilation (several seconds on a fresh install, numba's cache being empty)."""
    from regalia.core.records import Match
    from regalia.games import get_game
    from regalia.lab.analyse import decision_chances

    g = get_game("regicide")
    st = Match(g, {"players": 2}, 0).state
    legal = list(g.legal_actions(st))
    decision_chances(g.view(st, g.current_seat(st)), legal, legal[0], random.Random(0),
                     worlds=2, candidates=2)


def _warm_bots() -> None:
    """Let the compiled Regicide bots (the levels ``medium``, ``hard`` and ``strongest``:
    the tuned policy and the sampled search) decide once on a new deal, so that a table's
    first bot move does not wait for their compilation (several seconds on a fresh install,
    numba's cache being empty; loading the cache takes a fraction of a second)."""
    from regalia.core.records import Match

    g = get_game("regicide")
    st = Match(g, {"players": 2}, 0).state
    seat = g.current_seat(st)
    view, legal = g.view(st, seat), list(g.legal_actions(st))
    for level in ("medium", "hard"):  # (``strongest`` runs the same kernels as ``hard``)
        _bot("regicide", level).act(view, legal, random.Random(0), 0.01)


def decide_wish(game: str, name: str, view: dict[str, Any], seed: int) -> str | None:
    """The bot's Jester-window wish (``"yes"``, ``"no"`` or ``None``), in a worker."""
    wish = getattr(_bot(game, name), "wish", None)
    return wish(view, random.Random(seed)) if wish is not None else None


def _start_worker(server_pid: int) -> None:
    """In each worker process: leave when the server is gone (even after ``kill -9``, which
    gives the pool no chance to stop its workers), then load or compile the bots' and the
    analysis's kernels (``_warm_bots``, ``_warm_analysis``)."""

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(server_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # pragma: no cover - alive, another user's process
                pass

    threading.Thread(target=watch, name="regalia-watchdog", daemon=True).start()
    try:
        from regalia.fast import regicide as F

        F.legal_list(F.new_game(2, F.new_rng(0)))
        _warm_bots()
        _warm_analysis()
    except Exception:  # pragma: no cover - warming up is only an optimisation
        pass


def _ready() -> None:
    """A task that only makes a worker process start (``BotPool.warm_soon``)."""


# -------------------------------------------------------------------- the pool

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
        """Stop the workers (waiting for the decisions under way) for good."""
        self.closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


# -------------------------------------------------------------------- one table's loop

class BotLoop:
    """The task that plays one table's bot seats (see the module docstring); ``table``:
    the ``table.Table`` that owns it (its bot jobs, seats, state, ``bot_pool`` and
    ``settings``)."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.failures = 0
        self.task: asyncio.Task | None = None
        self._window = (-1, 0.0)  # the Jester window waited for, and until when (monotonic)

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
            self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task) -> None:
        if task.cancelled() or self.table.closing:
            return
        exc = task.exception()
        if exc is not None:  # pragma: no cover - _run catches everything
            log.error("table %s: bot loop ended", self.table.id, exc_info=exc)
            self.table.mark_broken("the bots of this table stopped")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass

    async def _run(self) -> None:
        t = self.table
        while not t.closing and t.broken is None:
            await t.wake.wait()
            t.wake.clear()
            while not t.closing and t.broken is None:
                try:
                    if not await self._step():
                        break
                    self.failures = 0
                except asyncio.CancelledError:
                    raise
                except Exception:
                    self.failures += 1
                    log.exception("table %s: bot step failed (%d in a row)", t.id, self.failures)
                    if self.failures >= MAX_FAILURES:
                        t.mark_broken("the bots of this table failed repeatedly")
                        return
                    await asyncio.sleep(min(5.0, 0.05 * 2 ** self.failures))

    async def _wait_for_wishes(self, ply: int) -> bool:
        """Regicide's Jester window (rules 1.10): a bot who chooses who goes next gives the
        connected players without a wish up to ``wish_wait`` seconds from the window's
        opening to say one, and chooses as soon as each has; ``True`` when the table moved
        meanwhile (a wish came: the step starts again)."""
        t = self.table
        wait = t.settings.wish_wait
        if wait <= 0 or not self._awaited_wishes():
            return False
        window = t.window()
        if self._window[0] != window:
            self._window = (window, time.monotonic() + wait)
        while t.ply == ply and time.monotonic() < self._window[1] and self._awaited_wishes():
            await asyncio.sleep(0.1)
        return t.ply != ply

    def _awaited_wishes(self) -> list[int]:
        """The human seats connected to the table that may still say a first wish."""
        t = self.table
        connected = t.replica.presence()[0]
        return [s.index for s in t.seats if not s.by_bot and connected[s.index]
                and not gamekit.wish_said(t.state, s.index)
                and gamekit.side_texts(t.game, t.state, s.index)]

    async def _step(self) -> bool:
        """Do the next bot job of the table; ``False`` when there is none."""
        t = self.table
        job = t.bot_job()
        if job is None:
            return False
        kind, seat = job
        ply = t.ply
        if kind == "wish":
            t.wished.add((t.window(), seat))
            value = await t.bot_pool.run(decide_wish, t.game.name, t.seating.bot_name(seat),
                                     t.game.view(t.state, seat), t.bot_rng.getrandbits(64),
                                     urgent=t.seating.player_present())
            text = gamekit.wish_text(t.game.name, seat, value) if value else None
            if t.ply != ply or text not in gamekit.side_texts(t.game, t.state, seat):
                return True
        else:
            if t.settings.bot_delay > 0:
                await asyncio.sleep(t.settings.bot_delay)
            if await self._wait_for_wishes(ply):
                return True
            if t.ply != ply or t.bot_job() != job:
                return True
            g, st = t.game, t.state
            legal = list(g.legal_actions(st))
            a = await t.bot_pool.run(decide, g.name, t.seating.bot_name(seat), g.view(st, seat), legal,
                                 t.bot_rng.getrandbits(64), t.settings.bot_budget,
                                 urgent=t.seating.player_present())
            if t.ply != ply:
                return True
            text = g.action_to_text(st, a)
        try:
            await t.submit(seat, text, ply, by_bot=True)
        except Refusal as e:
            if e.code == "storage":  # the database refused: wait before trying again
                raise RuntimeError(f"bot move not stored: {e.message}") from None
            if e.code not in ("stale", "finished", "bot_seat", "not_your_turn"):
                log.warning("table %s: bot move %r refused: %s", t.id, text, e.message)
        return True
