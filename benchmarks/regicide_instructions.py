"""Instructions per random Regicide playout, counted by valgrind (cachegrind), which the load
of a shared machine does not change, unlike the games/s of bench_regicide.py.

It runs the benchmark's loop (new_game, then legal_actions / apply until is_terminal) for
``--warm`` games, once alone and once followed by ``--games`` more, under
``valgrind --tool=cachegrind --cache-sim=no``, and prints the difference per game. Compare
two versions with PYTHONPATH, e.g.

    PYTHONPATH=/tmp/base/src python benchmarks/regicide_instructions.py --players 1 2 3 4
    python benchmarks/regicide_instructions.py --players 1 2 3 4
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys


def playouts(players: int, games: int, seed: int) -> None:
    from regalia.games.regicide import REGICIDE as G

    rng = random.Random(seed)
    new_game, legal_actions, apply, terminal = G.new_game, G.legal_actions, G.apply, G.is_terminal
    config = {"players": players}
    for _ in range(games):
        s = new_game(config, rng)
        while not terminal(s):
            legal = legal_actions(s)
            s, _ = apply(s, legal[rng.randrange(len(legal))], rng)


def instructions(players: int, warm: int, games: int) -> int:
    """Instructions of a run of ``warm`` games then ``games`` more (``games`` may be 0)."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           sys.executable, __file__, "--run", str(players), str(warm), str(games)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=os.environ).stderr
    return int(re.search(r"I\s+refs:\s+([\d,]+)", out).group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[1])
    parser.add_argument("--warm", type=int, default=1000, help="warm-up games (caches fill)")
    parser.add_argument("--games", type=int, default=300, help="measured games")
    parser.add_argument("--run", type=int, nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        players, warm, games = args.run
        playouts(players, warm, seed=1)
        if games:
            playouts(players, games, seed=2)
        return
    for n in args.players:
        alone = instructions(n, args.warm, 0)
        both = instructions(n, args.warm, args.games)
        print(f"{n} players: {(both - alone) / args.games / 1e6:.3f} M instructions/game")


if __name__ == "__main__":
    main()
