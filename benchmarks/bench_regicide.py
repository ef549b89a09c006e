"""Random-playout speed of the Regicide engine, on one core.

Prints games/s and actions/s for 1 to 4 players: each game is dealt with ``new_game`` and
played to its end by choosing uniformly among ``legal_actions`` and calling ``apply``
(the public API, with events and the game log). Usage:

    python benchmarks/bench_regicide.py [--seconds 5] [--players 1 2 3 4]

``--games N`` plays exactly N games per player count instead (the same games every time),
for counting instructions, which the machine's load does not change, e.g.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python benchmarks/bench_regicide.py --players 1 --games 500

(and the same with ``--games 0`` for the start-up's share).
"""

from __future__ import annotations

import argparse
import random
import time

from regalia.games.regicide import REGICIDE as G


def playout_rate(players: int, seconds: float, seed: int = 1,
                 games_wanted: int | None = None) -> tuple[float, float, float]:
    """``(games/s, actions/s, actions per game)`` of random playouts for ``seconds`` (or of
    exactly ``games_wanted`` games)."""
    rng = random.Random(seed)
    new_game, legal_actions, apply, terminal = G.new_game, G.legal_actions, G.apply, G.is_terminal
    games = actions = 0
    start = time.perf_counter()
    config = {"players": players}
    while (games < games_wanted if games_wanted is not None
           else time.perf_counter() - start < seconds):
        s = new_game(config, rng)
        while not terminal(s):
            legal = legal_actions(s)
            s, _ = apply(s, legal[rng.randrange(len(legal))], rng)
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed, actions / games if games else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per player count")
    parser.add_argument("--players", type=int, nargs="*", default=[1, 2, 3, 4])
    parser.add_argument("--games", type=int, help="play exactly this many games per player "
                                                 "count instead of --seconds")
    args = parser.parse_args()
    print(f"{'players':>7} {'games/s':>10} {'actions/s':>11} {'actions/game':>13}")
    for n in args.players:
        gps, aps, apg = playout_rate(n, args.seconds, games_wanted=args.games)
        print(f"{n:>7} {gps:>10.0f} {aps:>11.0f} {apg:>13.1f}")


if __name__ == "__main__":
    main()
