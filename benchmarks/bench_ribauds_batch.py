"""Steps per second of the Le Roy des Ribauds batch simulator on one core (target: 1,000,000).

A step is one action of one game with its next observation (53 float32) and legal-action
mask (67 int8) produced, automatic resets included. Actions are drawn uniformly among the
legal ids by the compiled ``sample_legal``, inside the timed loop. The kernels are compiled
(or loaded from numba's cache) before timing. The process runs on one thread; pin it to one
core with ``taskset -c N``. Wall-clock and CPU-time (``time.process_time``) rates are both
printed: on a shared machine the CPU-time rate is the closer measure of one core. With
``--pettingzoo`` the PettingZoo ``ribauds_env()`` is timed too (random legal ids), for the
ratio. Usage::

    taskset -c 1 python benchmarks/bench_ribauds_batch.py [--seconds 5] [--games 256 1024]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from regalia.adapters.batch import RibaudsBatch, sample_legal


def _timed(run, seconds: float) -> tuple[float, float]:
    """``(steps per wall second, steps per CPU second)`` of ``run()`` (returns steps) called
    until ``seconds`` of wall time have passed."""
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        steps += run()
    return steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu)


def batch_rate(games: int, seconds: float) -> tuple[float, float]:
    sim = RibaudsBatch(games, seed=1)
    _, masks = sim.reset()
    rng = RibaudsBatch.new_rng(2)
    actions = np.empty(games, np.int64)
    sim.step(sample_legal(masks, rng, actions))  # compile or load the kernels

    def run() -> int:
        for _ in range(20):
            sim.step(sample_legal(sim.masks, rng, actions))
        return 20 * games

    return _timed(run, seconds)


def pettingzoo_rate(seconds: float) -> tuple[float, float]:
    from regalia.adapters.pettingzoo import ribauds_env

    env = ribauds_env()
    rng = np.random.default_rng(3)
    seed = iter(range(10**9))

    def run() -> int:
        env.reset(seed=next(seed))
        steps = 0
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        return steps

    return _timed(run, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    parser.add_argument("--games", type=int, nargs="+", default=[256, 1024],
                        help="games at once in the batch (one figure each)")
    parser.add_argument("--pettingzoo", action="store_true",
                        help="also time the PettingZoo environment")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print(f"cores allowed: {cores}; load average: {os.getloadavg()[0]:.2f}")
    rows = [(f"batch, Ribauds, {g} games", batch_rate(g, args.seconds)) for g in args.games]
    if args.pettingzoo:
        rows.append(("pettingzoo, Ribauds", pettingzoo_rate(args.seconds)))
    print(f"{'interface':<30} {'steps/s (wall)':>15} {'steps/s (CPU)':>15}")
    for name, (wall, cpu) in rows:
        print(f"{name:<30} {wall:>15,.0f} {cpu:>15,.0f}")
    if args.pettingzoo:
        (bw, bc), (pw, pc) = rows[0][1], rows[-1][1]
        print(f"batch / pettingzoo: {bw / pw:,.0f}x (wall), {bc / pc:,.0f}x (CPU)")


if __name__ == "__main__":
    main()
