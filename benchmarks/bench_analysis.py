"""Time of a finished game's analysis (``regalia.lab.analyse``, what the replay page's
Analyse button and ``regalia analyse`` run) on one core, per game and per seat.

Plays ``--games`` Regicide games of ``--players`` players with a bot (``--bot``, default the
Monte Carlo search at ``--budget`` seconds per decision: longer games than the heuristic's),
then analyses every seat of each with ``--worlds`` sampled positions per decision (the
server's 100) and prints, per game, its moves, the decisions analysed and the seconds; the
kernels are compiled (or loaded from numba's cache) before timing. Usage::

    python benchmarks/bench_analysis.py [--players 4] [--games 5] [--worlds 100]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from regalia.bots import make_bot
from regalia.core.records import Match
from regalia.games import get_game
from regalia.lab.analyse import analyse_record


def play(players: int, seed: int, bot: str, budget: float) -> Match:
    g = get_game("regicide")
    m = Match(g, {"players": players}, seed)
    bots = [make_bot("regicide", bot) for _ in range(players)]
    rng = random.Random(seed)
    while not g.is_terminal(m.state):
        s = g.current_seat(m.state)
        m.play(bots[s].act(g.view(m.state, s), list(g.legal_actions(m.state)), rng, budget))
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--worlds", type=int, default=100)
    ap.add_argument("--bot", default="montecarlo")
    ap.add_argument("--budget", type=float, default=0.02)
    args = ap.parse_args()
    analyse_record(play(2, 0, "heuristic", 0.0).record(), 0, worlds=4)  # compile first
    per_game = []
    for k in range(args.games):
        m = play(args.players, 1000 + k, args.bot, args.budget)
        record = m.record()
        start = time.process_time()
        decisions = sum(len(analyse_record(record, s, worlds=args.worlds))
                        for s in range(args.players))
        took = time.process_time() - start
        per_game.append(took)
        print(f"game {k + 1}: {len(record.actions)} moves, {decisions} decisions of "
              f"{args.players} seats analysed in {took:.2f} s of CPU "
              f"({took / args.players:.2f} s a seat)", flush=True)
    print(f"median {statistics.median(per_game):.2f} s a game (every seat), "
          f"max {max(per_game):.2f} s; {args.worlds} positions per decision")


if __name__ == "__main__":
    main()
