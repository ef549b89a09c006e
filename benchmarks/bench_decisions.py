"""Process time of a Regicide search bot's decision at a fixed number of sampled positions,
on one core, on the same positions every run.

Collects the acting seat's views at every fifth decision of heuristic games (``--players``,
deals from seeds 0, 1, 2, ...; the Jester window's choices left out), then times
``MonteCarloBot(iterations=N).act`` on the first ``--decisions`` of them for each N of
``--iterations`` and prints milliseconds of process time per decision. The kernels are
compiled (or loaded from numba's cache) before timing. To compare two trees, run both at
once, a process each (``PYTHONPATH=OTHER/src`` for the other), so that they share the
machine's load::

    python benchmarks/bench_decisions.py [--players 4] [--iterations 128 256] [--decisions 150]
        [--settle-at none|SHARE]

``--settle-at SHARE`` sets the bot's ``settle_at`` (a settled search stops once that share
of its positions is sampled; ``none``, the default, as the bot's; a tree before 2026-12-08
has no such argument, so leave it out there). Each line also gives the mean number of
positions sampled per decision.
"""

from __future__ import annotations

import argparse
import random
import time

from regalia.bots import make_bot
from regalia.bots.regicide.montecarlo import MonteCarloBot
from regalia.games.regicide import REGICIDE as G


def positions(players: int, count: int, every: int = 5) -> list[tuple[dict, list[int]]]:
    """``count`` ``(view, legal actions)`` pairs of the acting seat, every ``every``-th
    decision of heuristic games (decisions with one legal action, and choices of the next
    player, left out)."""
    out: list[tuple[dict, list[int]]] = []
    seed = 0
    while len(out) < count:
        rng = random.Random(seed)
        s = G.new_game({"players": players}, rng)
        bots = [make_bot("regicide", "heuristic") for _ in range(players)]
        k = 0
        while not G.is_terminal(s) and len(out) < count:
            legal = list(G.legal_actions(s))
            view = G.view(s, s.current)
            if k % every == 0 and len(legal) > 1 and s.phase != "choose":
                out.append((view, legal))
            s, _ = G.apply(s, bots[s.current].act(view, legal, rng), rng)
            k += 1
        seed += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--iterations", type=int, nargs="+", default=[128, 256])
    ap.add_argument("--decisions", type=int, default=150)
    ap.add_argument("--settle-at", default=None)
    args = ap.parse_args()
    kw = {} if args.settle_at is None else {
        "settle_at": None if args.settle_at == "none" else float(args.settle_at)}
    views = positions(args.players, args.decisions)
    for it in args.iterations:
        bot = MonteCarloBot(iterations=it, **kw)
        bot.act(*views[0], random.Random(0))  # compile or load the kernels
        start = time.process_time()
        sampled = 0
        for i, (view, legal) in enumerate(views):
            bot.act(view, legal, random.Random(i))
            sampled += bot.last_worlds
        took = (time.process_time() - start) / len(views)
        print(f"{args.players} players, {it} positions: {len(views)} decisions, "
              f"{took * 1000:.1f} ms of process time per decision, "
              f"{sampled / len(views):.0f} positions sampled on average", flush=True)


if __name__ == "__main__":
    main()
