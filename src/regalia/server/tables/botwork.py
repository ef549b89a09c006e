"""What runs in a bot worker process (the pool: ``botpool.BotPool``): a bot's decision
(``decide``) and Jester-window wish (``decide_wish``), a hint (``hint_of``), a finished
game's analysis (``analyse``), the daily deal's solver (``solve_deal``), and each worker's
start (``_start_worker``: it leaves when the server is gone, and loads or compiles the
bots' and the analysis's kernels first). The bots are made once per worker (``_BOTS``).
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from typing import Any

from regalia.bots import make_bot
from regalia.games import get_game

log = logging.getLogger("regalia.server")

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
