"""CPU time of one hint at a solo Regicide table (``regalia.server.tables.botwork.hint_of``,
what the Hint button's pool job runs): the table bot's decision at ``--budget`` seconds (the
server's default ``bot_budget`` is 0.5), then the reason and the paired win chances of the
move and of the next best (``regalia.lab.analyse.hint_chances``, ``HINT_WORLDS`` sampled
positions). Plays ``--games`` solo games with the hints' own moves and times every
``--every``-th decision with ``time.process_time`` (CPU of this process: a busy machine
stretches the wall clock, not this); the kernels are compiled (or loaded from numba's cache)
before timing. Usage::

    python benchmarks/bench_hints.py [--games 4] [--budget 0.5] [--every 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from regalia.core.records import Match
from regalia.games import get_game
from regalia.lab.analyse import hint_chances
from regalia.server.tables.botwork import decide, hint_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--budget", type=float, default=0.5)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--bot", default="montecarlo")
    args = ap.parse_args()
    g = get_game("regicide")
    st = Match(g, {"players": 1}, 0).state
    legal = list(g.legal_actions(st))
    hint_of("regicide", args.bot, g.view(st, 0), legal, 1, 0.05)  # compile first
    whole, bot, chances = [], [], []
    for k in range(args.games):
        m = Match(g, {"players": 1}, 1000 + k)
        rng = random.Random(k)
        ply = 0
        while not g.is_terminal(m.state):
            st = m.state
            view, legal = g.view(st, 0), list(g.legal_actions(st))
            seed = rng.getrandbits(64)
            if ply % args.every == 0 and len(legal) > 1:
                t0 = time.process_time()
                found = hint_of("regicide", args.bot, view, legal, seed, args.budget)
                t1 = time.process_time()
                decide("regicide", args.bot, view, legal, seed, args.budget)
                t2 = time.process_time()
                hint_chances(view, legal, found["action"], random.Random(seed))
                t3 = time.process_time()
                whole.append(t1 - t0)
                bot.append(t2 - t1)
                chances.append(t3 - t2)
                action = found["action"]
            else:
                action = decide("regicide", args.bot, view, legal, seed, 0.02)
            m.play(action)
            ply += 1
        print(f"game {k + 1}: {ply} moves, {len(whole)} hints timed so far", flush=True)

    def line(name: str, xs: list[float]) -> str:
        xs = sorted(xs)
        return (f"{name}: median {statistics.median(xs):.3f} s, 90th percentile "
                f"{xs[int(0.9 * (len(xs) - 1))]:.3f} s, max {xs[-1]:.3f} s of CPU")

    print(f"{len(whole)} hints at budget {args.budget} s ({args.bot}):")
    print(line("whole hint (decision + reason + chances)", whole))
    print(line("the bot's decision alone", bot))
    print(line("the reason and chances alone", chances))


if __name__ == "__main__":
    main()
