"""Random-playout speed of the Le Roy des Ribauds engine (not a test).

Plays whole games from ``new_game`` choosing uniformly among the legal actions, for about
``--seconds`` seconds of wall time on one core, and prints games/s, actions/s and the mean
game length (actions). Usage::

    python benchmarks/bench_ribauds.py --seconds 5 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time

from regalia.games.ribauds import RIBAUDS

MAX_ACTIONS = 10_000  # a safety stop; random games end far sooner


def playout(rng: random.Random) -> int:
    """Play one random game to its end; returns the number of actions applied."""
    g = RIBAUDS
    s = g.new_game({}, rng)
    n = 0
    legal = g.legal_actions
    apply = g.apply
    choice = rng.choice
    while s.phase != "won" and n < MAX_ACTIONS:
        s, _ = apply(s, choice(legal(s)), rng)
        n += 1
    return n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="wall time to run (s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random source")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    games = actions = 0
    start = time.perf_counter()
    deadline = start + args.seconds
    while True:
        actions += playout(rng)
        games += 1
        if games % 64 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    print(f"ribauds random playout: {games} games, {actions} actions in {elapsed:.2f} s")
    print(f"  {games / elapsed:,.0f} games/s, {actions / elapsed:,.0f} actions/s, "
          f"{actions / games:.1f} actions/game")


if __name__ == "__main__":
    main()
