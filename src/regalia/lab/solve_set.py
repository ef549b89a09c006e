"""The solo solver over a deal set (``regalia solve --deal-file F --deals N``).

Each deal is solved on its own under a time limit (``solve.Solver.solve``), in this process
or on a process pool; ``summarize`` turns the per-deal results into the published figures:
the winnable fraction with a Wilson 95% interval (deals proven winnable out of all deals;
undecided deals count as not winnable there, and the upper end adds them back), the best
medals found, and the solving times.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable

from regalia.lab.evaluate import percentile, wilson
from regalia.lab.solve import LOST, UNDECIDED, WON, Solver, solve_seed

_SOLVER: Solver | None = None


def _solve_one(job: tuple[int, int, dict[str, Any], float, bool]) -> dict[str, Any]:
    """Solve one deal with this process's solver; ``job`` = (index, seed, options, time
    limit, medals)."""
    global _SOLVER
    index, seed, options, time_limit, medals = job
    if _SOLVER is None:
        _SOLVER = Solver()
    out = solve_seed(seed, options, time_limit, medals, _SOLVER).to_json()
    out["index"] = index
    return out


def solve_seeds(seeds: list[int], options: dict[str, Any] | None = None,
                time_limit: float = 60.0, medals: bool = True, workers: int = 1,
                on_result: Callable[[dict[str, Any]], None] | None = None
                ) -> list[dict[str, Any]]:
    """Solve every seed; returns their ``Solution.to_json()`` dicts (plus ``index``) in seed
    order. ``on_result`` is called as each deal ends. Raises ``InvalidPosition`` for a bad
    rule option (checked on the first seed before anything runs)."""
    from regalia.lab.solve import Deal

    options = dict(options or {})
    if seeds:
        Deal.from_seed(seeds[0], options)  # a bad option fails here, once
    jobs = [(i, s, options, time_limit, medals) for i, s in enumerate(seeds)]
    results: list[dict[str, Any] | None] = [None] * len(jobs)

    def done(r: dict[str, Any]) -> None:
        results[r["index"]] = r
        if on_result:
            on_result(r)

    if workers <= 1:
        for j in jobs:
            done(_solve_one(j))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for f in as_completed([pool.submit(_solve_one, j) for j in jobs]):
                done(f.result())
    return [r for r in results if r is not None]


def summarize(results: list[dict[str, Any]], time_limit: float, medals: bool,
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The figures of a solved deal set (see the module docstring); ``results`` as
    ``solve_seeds`` returns them."""
    n = len(results)
    won = sum(r["result"] == WON for r in results)
    lost = sum(r["result"] == LOST for r in results)
    undecided = sum(r["result"] == UNDECIDED for r in results)
    lo, hi = wilson(won, n)
    secs = [r["seconds"] for r in results]
    decide = [r["decide_seconds"] for r in results if r["result"] != UNDECIDED]
    split = {m: sum(r["medal"] == m for r in results) for m in ("gold", "silver", "bronze")}
    return {
        "format": "regalia-solve/1", "game": "regicide", "players": 1,
        "options": dict(options or {}), "time_limit": time_limit, "medal_search": medals,
        "deals": n, "won": won, "lost": lost, "undecided": undecided,
        "winnable_fraction": won / n if n else 0.0,
        "wilson95": [lo, hi],
        "winnable_upper": (won + undecided) / n if n else 0.0,
        "medals": split,
        "medals_proven": sum(bool(r["medal_proven"]) for r in results if r["result"] == WON),
        "seconds": {"mean": sum(secs) / n if n else 0.0, "median": percentile(secs, 50),
                    "p95": percentile(secs, 95), "max": max(secs, default=0.0),
                    "decide_mean": sum(decide) / len(decide) if decide else 0.0,
                    "decide_median": percentile(decide, 50),
                    "decide_p95": percentile(decide, 95),
                    "decide_max": max(decide, default=0.0)},
        "nodes": sum(r["nodes"] for r in results),
        "results": results,
    }


def report_lines(rep: dict[str, Any]) -> list[str]:
    """The summary of a deal-set report as text lines."""
    n, s, m = rep["deals"], rep["seconds"], rep["medals"]
    lo, hi = rep["wilson95"]
    medal_note = ("best medals, proven for " f"{rep['medals_proven']} of {rep['won']}"
                  if rep["medal_search"] else "medal of the first win found (no medal search)")
    return [
        f"solo deals solved: {n}, time limit {rep['time_limit']:g} s per deal"
        + (f", options {rep['options']}" if rep["options"] else ""),
        f"winnable: {rep['won']} of {n} ({100 * rep['winnable_fraction']:.1f}%, "
        f"Wilson 95% {100 * lo:.1f}-{100 * hi:.1f}%); proven unwinnable: {rep['lost']}; "
        f"undecided: {rep['undecided']} (winnable at most "
        f"{100 * rep['winnable_upper']:.1f}%)",
        f"medals G/S/B: {m['gold']}/{m['silver']}/{m['bronze']} ({medal_note})",
        f"seconds per deal: mean {s['mean']:.2f}, median {s['median']:.2f}, "
        f"p95 {s['p95']:.2f}, max {s['max']:.2f}; until won or lost was known (decided "
        f"deals): mean {s['decide_mean']:.2f}, median {s['decide_median']:.2f}, p95 "
        f"{s['decide_p95']:.2f}, max {s['decide_max']:.2f}; positions searched {rep['nodes']}",
    ]
