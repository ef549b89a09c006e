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
                       "decision_time_mean", "decision_time_p95", "decision_time_max",
                       "decision_cpu_mean"}},
     "games": [{"seed", "players", "won", "medal", "enemies_defeated", "decisions", ...}]}

For Le Roy des Ribauds ``results`` is a list with one entry per bot pair.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from regalia.lab import evaluate as E
from regalia.lab.deals import load_deals


def run_eval(game: str, players: list[int], bot: str, opponents: list[str], deals: int,
             offset: int = 0, workers: int = 1, ray_address: str | None = None,
             budget: float | None = None, iterations: int | None = None,
             deal_file: str | None = None, progress: bool = True,
             makers: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play the evaluation and return its report (see the module doc). ``makers``: bots
    outside the registry by name (``evaluate.Task``), e.g. an outside policy as ``bot``."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    if deals < 1 or offset < 0:
        raise ValueError(f"--deals {deals} --offset {offset}: give at least 1 deal and an "
                         "offset of 0 or more")
    if game not in ("regicide", "ribauds"):
        raise ValueError(f"--game {game!r}: choose regicide or ribauds")
    from regalia.bots import bot_choices, unknown_bot

    makers = dict(makers or {})
    for name in [bot] + (opponents if game == "ribauds" else []):
        if name not in bot_choices(game) and name not in makers:
            raise ValueError(unknown_bot(game, name))
    tasks: list[E.Task] = []
    groups: list[tuple[str, Any]] = []
    if game == "regicide":
        for n in players:
            available = load_deals(game, n, deal_file)
            if offset + deals > len(available):
                raise ValueError(f"--deals {deals} --offset {offset}: the deal set holds "
                                 f"{len(available)} deals for {n} players")
            seeds = available[offset:offset + deals]
            tasks += E.regicide_tasks(n, bot, seeds, budget, iterations, makers)
            groups.append((str(n), len(seeds)))
    else:
        available = load_deals(game, 2, deal_file)
        if offset + deals > len(available):
            raise ValueError(f"--deals {deals} --offset {offset}: the deal set holds "
                             f"{len(available)} deals")
        seeds = available[offset:offset + deals]
        for opp in opponents:
            tasks += E.ribauds_tasks(bot, opp, seeds, budget, iterations, makers)
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
            report["results"].append(E.summarize_ribauds(_pair(results, bot, opp), bot, opp))
        report["games"] = [{k: v for k, v in r.items() if k != "times"} for r in results]
    return report


def merge_reports(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One report from the reports of parts of one evaluation (e.g. run with ``--offset``
    over several sessions): the same game, bot, opponents, budget, iterations and player
    counts, deal ranges that do not overlap. The results are worked out again from the
    games. The parts keep no single decision's time, so of the decision times the mean is
    the parts' means weighted by decisions (Regicide) or by games (Ribauds), the 95th
    percentile the highest of the parts' and the maximum the parts' maximum. ``parts``: at least one report (see
    the module doc); adds ``"parts"``: each part's ``offset``, ``deals``, ``command`` and
    ``wall_seconds``. Raises ``ValueError`` saying which parts disagree."""
    if not parts:
        raise ValueError("give the reports to merge")
    for k, p in enumerate(parts, 1):
        if not isinstance(p, dict) or p.get("format") != "regalia-eval/1":
            raise ValueError(f"report {k} is not a report of regalia eval (regalia-eval/1)")
    first = parts[0]
    keys = ("game", "bot", "budget", "iterations", "opponents")
    for k, p in enumerate(parts[1:], 2):
        for key in keys:
            if p.get(key) != first.get(key):
                raise ValueError(f"report {k} differs from report 1 in {key!r}: "
                                 f"{p.get(key)!r} against {first.get(key)!r}")
        if first["game"] == "regicide" and set(p["results"]) != set(first["results"]):
            raise ValueError(f"report {k} has other player counts than report 1")
    ranges = sorted((p["offset"], p["offset"] + p["deals"], k) for k, p in enumerate(parts, 1))
    for (_, end, a), (start, _, b) in zip(ranges, ranges[1:]):
        if start < end:
            raise ValueError(f"reports {a} and {b} hold the same deals (from {start} to "
                             f"{end - 1}): each deal must be counted once")
    games = [g for p in parts for g in p["games"]]
    merged = {**first, "deals": sum(p["deals"] for p in parts), "offset": ranges[0][0],
              "wall_seconds": sum(p["wall_seconds"] for p in parts),
              "command": f"merged from {len(parts)} reports",
              "parts": [{k: p[k] for k in ("offset", "deals", "command", "wall_seconds")}
                        for p in parts],
              "games": games}
    if first["game"] == "regicide":
        merged["results"] = {}
        for n in first["results"]:
            gs = [dict(g, times=[]) for g in games if str(g["players"]) == n]
            r = E.summarize_regicide(gs)
            decisions = sum(g["decisions"] for g in gs)
            r["decisions"] = decisions
            r["decision_time_mean"] = (sum(g["time_mean"] * g["decisions"] for g in gs)
                                       / decisions) if decisions else 0.0
            r["decision_time_p95"] = max(p["results"][n]["decision_time_p95"] for p in parts)
            r["decision_time_max"] = max(p["results"][n]["decision_time_max"] for p in parts)
            merged["results"][n] = r
    else:
        merged["results"] = []
        for i, opp in enumerate(first["opponents"]):
            gs = [dict(g, times=[[], []]) for g in _pair(games, first["bot"], opp)]
            r = E.summarize_ribauds(gs, first["bot"], opp)
            rs = [p["results"][i] for p in parts]
            for key in ("decision_time_mean", "opponent_decision_time_mean"):
                r[key] = sum(x[key] * x["games"] for x in rs) / max(1, r["games"])
            r["decision_time_p95"] = max(x["decision_time_p95"] for x in rs)
            merged["results"].append(r)
    return merged


def _pair(games: list[dict[str, Any]], bot: str, opp: str) -> list[dict[str, Any]]:
    """The Ribauds games of ``bot`` against ``opp`` (either seat order)."""
    return [g for g in games if set(g["bots"]) == {bot, opp}]


def print_report(report: dict[str, Any], console=None) -> None:
    """Print the figures of a report as tables."""
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        if not console.is_terminal:  # a log file: room for every column
            console = Console(width=120)
    budget = report["budget"]
    policy = str(report["bot"]).startswith("policy:")  # regalia eval --policy: no budget
    unit = "sampled positions" if report["game"] == "regicide" else "iterations"
    how = (f"{report['iterations']} {unit}/decision" if report["iterations"]
           else f"budget {budget} s/decision" if budget is not None
           else "default budget per decision")
    if report["game"] == "regicide":
        if policy:
            who, how = (f"policy {report['bot'].removeprefix('policy:')}",
                        "one call per decision, no time budget")
        else:
            who, how = f"bot {report['bot']}", how.replace("default", "the bot's default")
        t = Table(title=f"Regicide, {who}, {how}",
                  caption="G/S/B: solo medals; enemies: mean defeated; s/dec: seconds per "
                          "decision, mean and 95th percentile (wall clock); cpu s: mean "
                          "process time per decision")
        for col in ("players", "games", "wins", "win %", "Wilson 95%", "G/S/B",
                    "enemies", "s/dec", "p95 s", "cpu s"):
            t.add_column(col, justify="right")
        for n, r in report["results"].items():
            m = r["medals"]
            t.add_row(n, str(r["games"]), str(r["wins"]), f"{100 * r['win_rate']:.1f}",
                      f"{100 * r['wilson95'][0]:.1f}-{100 * r['wilson95'][1]:.1f}",
                      f"{m['gold']}/{m['silver']}/{m['bronze']}" if n == "1" else "-",
                      f"{r['mean_enemies_defeated']:.2f}", f"{r['decision_time_mean']:.3f}",
                      f"{r['decision_time_p95']:.3f}",
                      "-" if r.get("decision_cpu_mean") is None
                      else f"{r['decision_cpu_mean']:.3f}")
        console.print(t)
        d = Table(title="enemies defeated (games)")
        d.add_column("players")
        for k in range(13):
            d.add_column(str(k), justify="right")
        for n, r in report["results"].items():
            d.add_row(n, *[str(x) for x in r["enemies_defeated"]])
        console.print(d)
    else:
        how = f"the opponents' {how}" if policy else how.replace("default", "the bots' default")
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
