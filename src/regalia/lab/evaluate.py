"""Evaluation of bots on the published deal sets (``regalia eval``).

One task is one game: a deal seed, the player count and which bot sits where. Tasks run in
the calling process (``workers=1``), on a process pool (``workers>1``) or on a Ray cluster
(``ray_address``); each returns a plain dict, and ``summarize_*`` turn the dicts into the
published figures: win rate with a Wilson 95% interval, the solo medal split, the
distribution of enemies defeated, mean and 95th-percentile decision time, and for Le Roy
des Ribauds the win rates of a bot pair over both seat orders.

Every bot gets only its seat's view, the legal actions, its own random source and the time
budget. The bots' random sources are drawn from ``secrets``, never from the deal's seed:
a source derived from the published deal seeds would let a program find the deal among
them and rebuild the hidden cards. Bot decisions are therefore not repeatable
run to run; the figures are statistics over many deals.
"""

from __future__ import annotations

import json
import math
import random
import secrets
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

# ----------------------------------------------------------------------------- statistics


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default); ``(0, 1)`` when ``n`` is 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if wins == 0 else max(0.0, min(p, centre - half))
    hi = 1.0 if wins == n else min(1.0, max(p, centre + half))
    return lo, hi


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    k = (len(xs) - 1) * q / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


# ----------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class Task:
    """One game to play: ``game``, ``players``, deal ``seed``, ``bots`` by seat (names),
    ``budget`` seconds per decision (``None``: the bots' default), ``iterations`` (search
    bots: sampled positions per decision instead of a time budget), ``index`` in the run,
    ``makers``: bots not in the registry, name -> a picklable no-argument callable that
    builds one (an outside policy: ``regalia eval --policy``)."""

    game: str
    players: int
    seed: int
    bots: tuple[str, ...]
    budget: float | None = None
    iterations: int | None = None
    index: int = 0
    options: dict = field(default_factory=dict, hash=False, compare=False)
    makers: dict = field(default_factory=dict, hash=False, compare=False)


def _make(game: str, name: str, task: Task):
    from regalia.bots import make_bot

    maker = task.makers.get(name)
    bot = maker() if maker is not None else make_bot(game, name)
    if task.iterations is not None and hasattr(bot, "iterations"):
        bot.iterations = task.iterations
    if task.budget is not None and hasattr(bot, "budget"):
        bot.budget = task.budget
    return bot


def bot_rngs(seats: int) -> list[random.Random]:
    """One random source per seat, each from the system's secret source (independent of
    the deal)."""
    return [random.Random(secrets.randbits(64)) for _ in range(seats)]


def play_task(task: Task) -> dict[str, Any]:
    """Play one game; returns a JSON-able result dict (see ``play_regicide``/``play_ribauds``)."""
    if task.game == "regicide":
        return play_regicide(task)
    if task.game == "ribauds":
        return play_ribauds(task)
    raise KeyError(f"unknown game {task.game!r}")


def play_regicide(task: Task) -> dict[str, Any]:
    """One Regicide game. Between a Jester and the chosen player's turn every other seat's
    bot may state its wish (rules 1.10) before the Jester's player chooses."""
    from regalia.core.records import Match
    from regalia.games.regicide import REGICIDE as G
    from regalia.games.regicide import actions as A

    match = Match(G, {"players": task.players, **task.options}, task.seed)
    bots = [_make("regicide", task.bots[q % len(task.bots)], task) for q in range(task.players)]
    rngs = bot_rngs(task.players)
    times: list[float] = []
    cpu = 0.0  # process time of the decisions (wall time counts other jobs on the machine)
    while not G.is_terminal(match.state):
        s = match.state
        seat = s.current
        if s.phase == "choose":
            for q in range(task.players):
                if q == seat:
                    continue
                wish = bots[q].wish(G.view(s, q), rngs[q])
                if wish in ("yes", "no") and match.state.preferences[q] != wish:
                    match.play(A.prefer(q, wish == "yes"))
            s = match.state
        view = G.view(s, seat)
        legal = G.legal_actions(s)
        t0 = time.perf_counter()
        c0 = time.process_time()
        action = bots[seat].act(view, legal, rngs[seat], task.budget)
        cpu += time.process_time() - c0
        times.append(time.perf_counter() - t0)
        if action not in legal:
            raise RuntimeError(f"bot {task.bots[seat % len(task.bots)]} chose an illegal action "
                               f"{A.to_text(action)} (deal {task.seed})")
        match.play(action)
    out = G.outcome(match.state)
    return {"game": "regicide", "index": task.index, "seed": task.seed,
            "players": task.players, "bots": list(task.bots), "won": out["result"] == "won",
            "medal": out["medal"], "enemies_defeated": out["enemies_defeated"],
            "decisions": len(times), "times": times, "cpu_seconds": cpu,
            "actions": len(match.actions)}


def play_ribauds(task: Task) -> dict[str, Any]:
    """One Le Roy des Ribauds game; ``task.bots`` = (seat 0's bot, seat 1's bot)."""
    from regalia.core.records import Match
    from regalia.games.ribauds import RIBAUDS as G

    match = Match(G, {"players": 2, **task.options}, task.seed)
    bots = [_make("ribauds", task.bots[q], task) for q in range(2)]
    rngs = bot_rngs(2)
    times: list[list[float]] = [[], []]
    steps = 0
    while not G.is_terminal(match.state):
        s = match.state
        seat = G.current_seat(s)
        view = G.view(s, seat)
        legal = G.legal_actions(s)
        t0 = time.perf_counter()
        action = bots[seat].act(view, legal, rngs[seat], task.budget)
        times[seat].append(time.perf_counter() - t0)
        if action not in legal:
            raise RuntimeError(f"bot {task.bots[seat]} chose an illegal action (deal {task.seed})")
        match.play(action)
        steps += 1
        if steps > 5000:
            break
    ret = G.returns(match.state) if G.is_terminal(match.state) else [0.5, 0.5]
    winner = 0 if ret[0] > ret[1] else 1 if ret[1] > ret[0] else None
    return {"game": "ribauds", "index": task.index, "seed": task.seed, "players": 2,
            "bots": list(task.bots), "winner": winner, "times": times,
            "actions": len(match.actions)}


# ----------------------------------------------------------------------------- running


def run_tasks(tasks: list[Task], workers: int = 1, ray_address: str | None = None,
              on_result: Callable[[dict], None] | None = None) -> list[dict[str, Any]]:
    """Play every task; results in task order. ``on_result`` is called as each one ends."""
    results: list[dict[str, Any] | None] = [None] * len(tasks)

    def done(r: dict) -> None:
        results[r["index"]] = r
        if on_result:
            on_result(r)

    tasks = [replace(t, index=i) for i, t in enumerate(tasks)]
    if not tasks:
        return []
    if ray_address:
        _run_ray(tasks, ray_address, workers, done)
    elif workers <= 1:
        _warm_up(tasks[0])
        for t in tasks:
            done(play_task(t))
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=_warm_up,
                                 initargs=(tasks[0],)) as pool:
            futures = [pool.submit(play_task, t) for t in tasks]
            for f in as_completed(futures):
                done(f.result())
    return [r for r in results if r is not None]


def _warm_up(task: Task) -> None:
    """Play one game like ``task`` at 4 sampled positions (or iterations) per decision and
    drop its result, once per process before the timed games: the compiled kernels (the
    engine's, the rollout policy's, the sampler's) load there, not in a timed decision."""
    play_task(replace(task, iterations=4))


_warmed = False  # whether this process (a Ray worker) has played its warm-up game


def play_warm(task: Task) -> dict[str, Any]:
    """``play_task`` after ``_warm_up`` on ``task`` if this process has not warmed up yet:
    what a Ray worker runs, since Ray starts and reuses its worker processes itself (no
    initializer as a process pool has)."""
    global _warmed
    if not _warmed:
        _warm_up(task)
        _warmed = True
    return play_task(task)


def _run_ray(tasks: list[Task], address: str, workers: int, done: Callable) -> None:
    """Run the tasks as Ray remote functions on the cluster at ``address`` (``"local"``:
    start a local Ray instance with ``workers`` CPUs); each worker process warms up on its
    first task (``play_warm``)."""
    import ray

    started_here = False
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=max(1, workers), include_dashboard=False,
                     log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started_here = True
    try:
        remote = ray.remote(num_cpus=1)(play_warm)
        pending = [remote.remote(t) for t in tasks]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                done(ray.get(ref))
    finally:
        if started_here:
            ray.shutdown()


# ----------------------------------------------------------------------------- summaries


def summarize_regicide(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Win rate and interval, medals, enemies defeated and decision times of one player count."""
    n = len(results)
    wins = sum(1 for r in results if r["won"])
    lo, hi = wilson(wins, n)
    medals = {m: sum(1 for r in results if r["medal"] == m) for m in ("gold", "silver", "bronze")}
    enemies = [0] * 13
    for r in results:
        enemies[r["enemies_defeated"]] += 1
    times = [t for r in results for t in r["times"]]
    timed = [r for r in results if "cpu_seconds" in r]  # reports before it had none
    cpu_decisions = sum(r["decisions"] for r in timed)
    return {
        "games": n, "wins": wins, "win_rate": wins / n if n else 0.0,
        "wilson95": [lo, hi], "medals": medals, "enemies_defeated": enemies,
        "mean_enemies_defeated": (sum(r["enemies_defeated"] for r in results) / n) if n else 0,
        "decisions": len(times),
        "decision_time_mean": (sum(times) / len(times)) if times else 0.0,
        "decision_time_p95": percentile(times, 95),
        "decision_time_max": max(times) if times else 0.0,
        "decision_cpu_mean": (sum(r["cpu_seconds"] for r in timed) / cpu_decisions)
        if cpu_decisions else None,
    }


def summarize_ribauds(results: list[dict[str, Any]], bot_a: str, bot_b: str) -> dict[str, Any]:
    """Wins of ``bot_a`` against ``bot_b`` over both seat orders, with the interval."""
    n = len(results)
    wins_a = draws = 0
    by_order = {"a_first_seat": [0, 0], "a_second_seat": [0, 0]}
    times_a: list[float] = []
    times_b: list[float] = []
    for r in results:
        seat_a = 0 if r["bots"][0] == bot_a and (r["bots"][1] != bot_a or r["index"] % 2 == 0) \
            else 1
        key = "a_first_seat" if seat_a == 0 else "a_second_seat"
        by_order[key][1] += 1
        if r["winner"] is None:
            draws += 1
        elif r["winner"] == seat_a:
            wins_a += 1
            by_order[key][0] += 1
        times_a += r["times"][seat_a]
        times_b += r["times"][1 - seat_a]
    lo, hi = wilson(wins_a, n)
    return {
        "games": n, "bot": bot_a, "opponent": bot_b, "wins": wins_a, "draws": draws,
        "win_rate": wins_a / n if n else 0.0, "wilson95": [lo, hi],
        "by_seat": {k: {"games": v[1], "wins": v[0]} for k, v in by_order.items()},
        "decision_time_mean": (sum(times_a) / len(times_a)) if times_a else 0.0,
        "decision_time_p95": percentile(times_a, 95),
        "opponent_decision_time_mean": (sum(times_b) / len(times_b)) if times_b else 0.0,
    }


def regicide_tasks(players: int, bot: str, seeds: Iterable[int], budget: float | None,
                   iterations: int | None = None,
                   makers: dict[str, Callable] | None = None) -> list[Task]:
    """One task per deal, ``bot`` in every seat (``makers``: see ``Task``)."""
    return [Task("regicide", players, s, (bot,), budget, iterations, makers=dict(makers or {}))
            for s in seeds]


def ribauds_tasks(bot_a: str, bot_b: str, seeds: Iterable[int], budget: float | None,
                  iterations: int | None = None,
                  makers: dict[str, Callable] | None = None) -> list[Task]:
    """Two tasks per deal: ``bot_a`` in seat 0 then in seat 1 (``makers``: see ``Task``)."""
    m = dict(makers or {})
    out = []
    for s in seeds:
        out.append(Task("ribauds", 2, s, (bot_a, bot_b), budget, iterations, makers=m))
        out.append(Task("ribauds", 2, s, (bot_b, bot_a), budget, iterations, makers=m))
    return out


# ----------------------------------------------------------------------------- output


def write_json(report: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(report, indent=1) + "\n")


def chart(report: dict[str, Any], path: str | Path) -> None:
    """A PNG of the report: win rates with their intervals, and for Regicide the enemies
    defeated distribution and the solo medal split."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if report["game"] == "regicide":
        counts = sorted(report["results"], key=int)
        fig, axes = plt.subplots(1, 3, figsize=(14, 4))
        ax = axes[0]
        rates = [report["results"][c]["win_rate"] * 100 for c in counts]
        los = [report["results"][c]["wilson95"][0] * 100 for c in counts]
        his = [report["results"][c]["wilson95"][1] * 100 for c in counts]
        ax.bar(counts, rates, color="#4a7ab5",
               yerr=[[max(0.0, r - lo) for r, lo in zip(rates, los)],
                     [max(0.0, hi - r) for r, hi in zip(rates, his)]], capsize=6)
        ax.set_xlabel("players")
        ax.set_ylabel("win rate (%) with Wilson 95% interval")
        ax.set_ylim(0, 100)
        ax.set_title(f"Regicide: {report['bot']}")
        ax = axes[1]
        for c in counts:
            dist = report["results"][c]["enemies_defeated"]
            total = max(1, sum(dist))
            ax.plot(range(13), [100 * x / total for x in dist], marker="o", label=f"{c}p")
        ax.set_xlabel("enemies defeated")
        ax.set_ylabel("% of games")
        ax.set_xticks(range(13))
        ax.legend()
        ax.set_title("enemies defeated")
        ax = axes[2]
        if "1" in report["results"]:
            med = report["results"]["1"]["medals"]
            games = report["results"]["1"]["games"]
            lost = games - sum(med.values())
            ax.bar(["gold", "silver", "bronze", "lost"],
                   [med["gold"], med["silver"], med["bronze"], lost],
                   color=["#d4af37", "#b0b0b0", "#cd7f32", "#777777"])
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # games, not fractions
            ax.set_ylabel("games")
            ax.set_title("solo medals")
        else:
            ax.axis("off")
    else:
        fig, ax = plt.subplots(figsize=(7, 4))
        pairs = report["results"]
        labels = [f"{p['bot']} vs {p['opponent']}" for p in pairs]
        rates = [p["win_rate"] * 100 for p in pairs]
        err = [[max(0.0, r - p["wilson95"][0] * 100) for r, p in zip(rates, pairs)],
               [max(0.0, p["wilson95"][1] * 100 - r) for r, p in zip(rates, pairs)]]
        ax.barh(labels, rates, xerr=err, capsize=6, color="#4a7ab5")
        ax.axvline(50, color="#999", lw=1)
        ax.set_xlim(0, 100)
        ax.set_xlabel("win rate (%) over both seat orders, Wilson 95% interval")
        ax.set_title("Le Roy des Ribauds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
