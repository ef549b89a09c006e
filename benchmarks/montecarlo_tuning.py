"""Plays ``MonteCarloBot`` with given constructor arguments on the Regicide tuning deal set
(``benchmarks/deals/regicide_tuning.json``, kept apart from the published deals) at a fixed
number of sampled positions per decision; prints one JSON line: wins, Wilson 95% interval,
process time per decision and the result of every deal. Usage::

    python benchmarks/montecarlo_tuning.py NAME DEALS OFFSET PLAYERS [KEY=VALUE ...]

e.g. ``python benchmarks/montecarlo_tuning.py base 150 0 4`` or
``python benchmarks/montecarlo_tuning.py choices 150 0 4 choices=True``; ``deals=PATH``
plays another deal set (``deals=src/regalia/lab/deals/regicide.json``: the published one,
for a setting that has no bot name of its own), ``iterations=N`` samples N positions per
decision instead of 128. The bots' random sources come from
``secrets``, as in ``regalia eval``.
"""

from __future__ import annotations

import ast
import functools
import json
import sys
import time
from pathlib import Path

from regalia.bots.regicide.montecarlo import MonteCarloBot
from regalia.lab.deals import load_deals
from regalia.lab.evaluate import Task, play_task, wilson

DEALS = Path(__file__).with_name("deals") / "regicide_tuning.json"
ITERATIONS = 128


def main() -> None:
    name, n, off, players = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    kw = {}
    deals = DEALS
    iterations = ITERATIONS
    for a in sys.argv[5:]:
        k, v = a.split("=", 1)
        if k == "deals":
            deals = Path(v)
        elif k == "iterations":
            iterations = int(v)
        else:
            kw[k] = ast.literal_eval(v)
    seeds = load_deals("regicide", players, deals)[off:off + n]
    if len(seeds) < n:  # the set ends before off + n: report the deals played
        print(f"only {len(seeds)} deals from offset {off}", file=sys.stderr)
        n = len(seeds)
    make = functools.partial(MonteCarloBot, **kw)
    wins = decisions = 0
    t0 = time.process_time()
    res = []
    for s in seeds:
        r = play_task(Task("regicide", players, s, ("v",), iterations=iterations,
                           makers={"v": make}))
        wins += r["won"]
        decisions += r["decisions"]
        res.append([s, r["won"], r["enemies_defeated"]])
    cpu = time.process_time() - t0
    lo, hi = wilson(wins, n)
    print(json.dumps({"name": name, "kw": kw, "deals": str(deals), "offset": off,
                      "players": players, "iterations": iterations,
                      "wins": wins, "n": n, "wilson": [round(lo, 3), round(hi, 3)],
                      "cpu_per_dec": cpu / decisions, "res": res}))


if __name__ == "__main__":
    main()
