"""Tune the compiled Regicide policy's weights by self-play (a (1+lambda) evolution strategy).

Each generation draws ``lambda`` Gaussian perturbations of the current weights and plays
every candidate and the parent on the same deals (common random numbers); the best
candidate replaces the parent when it beats it on those deals and then again on fresh
ones. Fitness: win rate + 0.02 x mean enemies defeated. The result is written as JSON
(``regalia/bots/regicide/policy_weights.json``, beside the policy, is what the bots load). Usage::

    python -m regalia.lab.tune_policy --players 1 --generations 200 --games 3000 \\
        --out src/regalia/bots/regicide/policy_weights.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from regalia.bots.regicide import policy as P
from regalia.fast import regicide as F


def fitness(players: int, w: np.ndarray, games: int, seed: int) -> tuple[float, float, float]:
    """``(fitness, win rate, mean enemies defeated)`` of weights ``w`` on ``games`` deals."""
    wins, defeated, _ = P.policy_games(players, games, F.new_rng(seed), w)
    rate = wins / games
    mean = defeated / games
    return rate + 0.02 * mean, rate, mean


def tune(players: int, start: np.ndarray, generations: int, games: int, lam: int,
         seed: int, log=print) -> np.ndarray:
    """The tuned weights (see the module doc)."""
    rs = np.random.default_rng(seed)
    w = start.copy()
    frozen = {P.W_HAND, P.W_NOISE}  # the unit, and no jitter in evaluation
    scale = 0.25 * np.abs(w) + 0.3
    for g in range(generations):
        s = int(rs.integers(1 << 30))
        f0, r0, m0 = fitness(players, w, games, s)
        best, best_f = None, f0
        for _ in range(lam):
            step = rs.normal(0.0, 1.0, w.shape) * scale * (rs.random(w.shape) < 0.3)
            for i in frozen:
                step[i] = 0.0
            c = w + step
            f, _, _ = fitness(players, c, games, s)
            if f > best_f:
                best, best_f = c, f
        accepted = False
        if best is not None:
            s2 = int(rs.integers(1 << 30))
            fa, _, _ = fitness(players, w, games, s2)
            fb, _, _ = fitness(players, best, games, s2)
            if fb > fa:
                w = best
                accepted = True
        log(f"gen {g:4d} parent fit {f0:.4f} win {r0:.4f} defeated {m0:.3f}"
            + (" -> accepted" if accepted else ""))
    return w


def load_weights(path: Path) -> dict[int, np.ndarray]:
    """Weights by player count from a JSON file written by this tuner."""
    obj = json.loads(Path(path).read_text())
    return {int(k): np.array([v[n] for n in P.WEIGHT_NAMES], dtype=np.float64)
            for k, v in obj.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--generations", type=int, default=100)
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--lam", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=P._WEIGHTS_FILE)
    args = ap.parse_args()
    table = {}
    if args.out.exists():
        table = json.loads(args.out.read_text())
    start = P.weights_for(args.players)
    t = time.time()
    w = tune(args.players, start, args.generations, args.games, args.lam, args.seed,
             log=lambda m: print(f"[{time.time() - t:7.0f}s] {m}", flush=True))
    f, r, m = fitness(args.players, w, 20000, 12345)
    print(f"final: win {r:.4f} defeated {m:.3f} on 20000 deals", flush=True)
    if args.out.exists():
        table = json.loads(args.out.read_text())
    table[str(args.players)] = {n: float(x) for n, x in zip(P.WEIGHT_NAMES, w)}
    args.out.write_text(json.dumps(table, indent=1) + "\n")


if __name__ == "__main__":
    main()
