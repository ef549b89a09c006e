"""Speed of the compiled Regicide fast path (``regalia.fast.regicide``), on one core.

Prints, for 1 to 4 players, random games per second (each game dealt and played to its end
by choosing uniformly among the legal actions, all inside the compiled kernel, the same
workload as ``bench_regicide.py`` on the reference engine) and games per second of the
tuned heuristic policy used by the bots' rollouts. The kernels are compiled (or loaded from
numba's cache) before timing. Usage:

    python benchmarks/bench_fast.py [--seconds 5] [--players 1 2 3 4] [--policy]
"""

from __future__ import annotations

import argparse
import time

from regalia.fast import regicide as F
from regalia.bots.regicide import policy as P


def random_rate(players: int, seconds: float, seed: int = 1) -> tuple[float, float, float]:
    """``(games/s, actions/s, win rate)`` of random games for about ``seconds``."""
    rng = F.new_rng(seed)
    F.random_games(players, 10, rng)  # compile / load
    games = actions = wins = 0
    batch = 2000
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        w, a, _ = F.random_games(players, batch, rng)
        games += batch
        actions += a
        wins += w
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed, wins / games


def policy_rate(players: int, seconds: float, seed: int = 1) -> tuple[float, float]:
    """``(games/s, win rate)`` of games played by the tuned policy in every seat."""
    rng = F.new_rng(seed)
    w = P.weights_for(players)
    P.policy_games(players, 2, rng, w)
    games = wins = 0
    batch = 500
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        won, _, _ = P.policy_games(players, batch, rng, w)
        games += batch
        wins += won
    return games / (time.perf_counter() - start), wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per player count")
    parser.add_argument("--players", type=int, nargs="*", default=[1, 2, 3, 4])
    parser.add_argument("--policy", action="store_true", help="also time the tuned policy")
    args = parser.parse_args()
    print(f"{'players':>7} {'random games/s':>15} {'actions/s':>11}"
          + (f" {'policy games/s':>15} {'policy wins':>12}" if args.policy else ""))
    for n in args.players:
        gps, aps, _ = random_rate(n, args.seconds)
        line = f"{n:>7} {gps:>15.0f} {aps:>11.0f}"
        if args.policy:
            pgs, pw = policy_rate(n, args.seconds)
            line += f" {pgs:>15.0f} {100 * pw:>11.1f}%"
        print(line, flush=True)


if __name__ == "__main__":
    main()
