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

from bench_batch import pettingzoo_rate, sim_rate
from regalia.adapters.batch import RibaudsBatch
from regalia.adapters.pettingzoo import ribauds_env


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
    rows = [(f"batch, Ribauds, {g} games", sim_rate(RibaudsBatch(g, seed=1), args.seconds))
            for g in args.games]
    if args.pettingzoo:
        rows.append(("pettingzoo, Ribauds", pettingzoo_rate(ribauds_env(), args.seconds)))
    print(f"{'interface':<30} {'steps/s (wall)':>15} {'steps/s (CPU)':>15}")
    for name, (wall, cpu) in rows:
        print(f"{name:<30} {wall:>15,.0f} {cpu:>15,.0f}")
    if args.pettingzoo:
        (bw, bc), (pw, pc) = rows[0][1], rows[-1][1]
        print(f"batch / pettingzoo: {bw / pw:,.0f}x (wall), {bc / pc:,.0f}x (CPU)")


if __name__ == "__main__":
    main()
