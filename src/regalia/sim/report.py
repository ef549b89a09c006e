"""``regalia eval``: run an evaluation with a progress bar, print and save its report.

``run_eval`` builds the tasks from the published deal set, runs them (``evaluate.run_tasks``)
under a rich progress bar and returns the report dict; ``print_report`` prints it;
``evaluate.write_json`` and ``evaluate.chart`` save it.

Report JSON::

    {"format": "regalia-eval/1", "game": "regicide", "bot": "montecarlo", "budget": 0.5,
     "iterations": null, "deals": 500, "offset": 0, "workers": 2, "ray": null,
     "wall_seconds": ..., "command": "...",
     "results": {"1": {"games", "wins", "win_rate", "wilson95", "medals",
                       "enemies_defeated", "mean_enemies_defeated", "decisions",
                       "decision_time_mean", "decision_time_p95", "decision_time_max"}},
     "games": [{"seed", "players", "won", "medal", "enemies_defeated", "decisions", ...}]}

For Le Roy des Ribauds ``results`` is a list with one entry per bot pair.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from regalia.sim import evaluate as E
from regalia.sim.deals import load_deals


def run_eval(game: str, players: list[int], bot: str, opponents: list[str], deals: int,
             offset: int = 0, workers: int = 1, ray_address: str | None = None,
             budget: float | None = None, iterations: int | None = None,
             deal_file: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Play the evaluation and return its report (see the module doc)."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    if deals < 1 or offset < 0:
        raise ValueError(f"--deals {deals} --offset {offset}: give at least 1 deal and an "
                         "offset of 0 or more")
    if game not in ("regicide", "ribauds"):
        raise ValueError(f"--game {game!r}: choose regicide or ribauds")
    from regalia.bots import bot_names

    for name in [bot] + (opponents if game == "ribauds" else []):
        if name not in bot_names(game):
            raise ValueError(f"unknown {game} bot {name!r}; the bots are "
                             f"{', '.join(bot_names(game))}")
    tasks: list[E.Task] = []
    groups: list[tuple[str, Any]] = []
    if game == "regicide":
        for n in players:
            available = load_deals(game, n, deal_file)
            if offset + deals > len(available):
                raise ValueError(f"--deals {deals} --offset {offset}: the deal set holds "
                                 f"{len(available)} deals for {n} players")
            seeds = available[offset:offset + deals]
            tasks += E.regicide_tasks(n, bot, seeds, budget, iterations)
            groups.append((str(n), len(seeds)))
    else:
        available = load_deals(game, 2, deal_file)
        if offset + deals > len(available):
            raise ValueError(f"--deals {deals} --offset {offset}: the deal set holds "
                             f"{len(available)} deals")
        seeds = available[offset:offset + deals]
        for opp in opponents:
            tasks += E.ribauds_tasks(bot, opp, seeds, budget, iterations)
            groups.append((opp, 2 * len(seeds)))
    wins = [0]
    start = time.time()
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[wins]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                  disable=not progress, transient=False) as bar:
        job = bar.add_task(f"{game} {bot}", total=len(tasks), wins="")

        def on_result(r: dict) -> None:
            if r["game"] == "regicide":
                wins[0] += r["won"]
            else:
                wins[0] += r["winner"] is not None and r["bots"][r["winner"]] == bot
            bar.update(job, advance=1, wins=f"{bot} wins {wins[0]}")

        results = E.run_tasks(tasks, workers=workers, ray_address=ray_address,
                              on_result=on_result)
    report: dict[str, Any] = {
        "format": "regalia-eval/1", "game": game, "bot": bot, "budget": budget,
        "iterations": iterations, "deals": deals, "offset": offset, "workers": workers,
        "ray": ray_address, "wall_seconds": time.time() - start,
        "command": " ".join(["regalia", *sys.argv[1:]]) if sys.argv else "",
    }
    if game == "regicide":
        report["results"] = {}
        for n in players:
            rs = [r for r in results if r["players"] == n]
            report["results"][str(n)] = E.summarize_regicide(rs)
        report["games"] = [{k: v for k, v in r.items() if k != "times"} |
                           {"time_mean": (sum(r["times"]) / len(r["times"])) if r["times"] else 0}
                           for r in results]
    else:
        report["opponents"] = opponents
        report["results"] = []
        for opp in opponents:
            rs = [r for r in results if set(r["bots"]) == {bot, opp} or r["bots"] == [bot, bot]]
            rs = [r for r in rs if opp in r["bots"]]
            report["results"].append(E.summarize_ribauds(rs, bot, opp))
        report["games"] = [{k: v for k, v in r.items() if k != "times"} for r in results]
    return report


def print_report(report: dict[str, Any], console=None) -> None:
    """Print the figures of a report as tables."""
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        if not console.is_terminal:  # a log file: room for every column
            console = Console(width=120)
    budget = report["budget"]
    how = (f"{report['iterations']} samples/decision" if report["iterations"]
           else f"budget {budget if budget is not None else 'default'} s/decision")
    if report["game"] == "regicide":
        t = Table(title=f"Regicide, bot {report['bot']}, {how}",
                  caption="G/S/B: solo medals; enemies: mean defeated; s/dec: seconds per "
                          "decision, mean and 95th percentile")
        for col in ("players", "games", "wins", "win %", "Wilson 95%", "G/S/B",
                    "enemies", "s/dec", "p95 s"):
            t.add_column(col, justify="right")
        for n, r in report["results"].items():
            m = r["medals"]
            t.add_row(n, str(r["games"]), str(r["wins"]), f"{100 * r['win_rate']:.1f}",
                      f"{100 * r['wilson95'][0]:.1f}-{100 * r['wilson95'][1]:.1f}",
                      f"{m['gold']}/{m['silver']}/{m['bronze']}" if n == "1" else "-",
                      f"{r['mean_enemies_defeated']:.2f}", f"{r['decision_time_mean']:.3f}",
                      f"{r['decision_time_p95']:.3f}")
        console.print(t)
        d = Table(title="enemies defeated (games)")
        d.add_column("players")
        for k in range(13):
            d.add_column(str(k), justify="right")
        for n, r in report["results"].items():
            d.add_row(n, *[str(x) for x in r["enemies_defeated"]])
        console.print(d)
    else:
        t = Table(title=f"Le Roy des Ribauds, {how}, both seat orders per deal")
        for col in ("bot", "opponent", "games", "wins", "win %", "Wilson 95%",
                    "seat 0", "seat 1", "s/dec", "p95 s"):
            t.add_column(col, justify="right")
        for r in report["results"]:
            a, b = r["by_seat"]["a_first_seat"], r["by_seat"]["a_second_seat"]
            t.add_row(r["bot"], r["opponent"], str(r["games"]), str(r["wins"]),
                      f"{100 * r['win_rate']:.1f}",
                      f"{100 * r['wilson95'][0]:.1f}-{100 * r['wilson95'][1]:.1f}",
                      f"{a['wins']}/{a['games']}", f"{b['wins']}/{b['games']}",
                      f"{r['decision_time_mean']:.3f}", f"{r['decision_time_p95']:.3f}")
        console.print(t)
    console.print(f"wall time {report['wall_seconds']:.0f} s")
