"""Steps per second of the batch simulator and of each environment adapter, in one run.

Every figure is environment steps (one action of one game, its next observation and legal-
action mask produced) per second on one core, choosing uniformly among the legal action ids:

* ``batch``: ``regalia.adapters.batch.RegicideBatch`` (``--games`` games at once), actions drawn
  by the compiled ``sample_legal``; the kernels are compiled (or loaded from numba's cache)
  before timing;
* ``pettingzoo``: ``regicide_env(players=P)`` and ``ribauds_env()``, ``agent_iter`` loops;
* ``gymnasium``: ``regalia/RegicideSolo-v0``, ``regalia/Regicide-v0`` (``--players``
  seats, at least 2, all played by the learner) and ``regalia/Ribauds-v0`` against the
  ``random`` bot (its moves are inside the learner's steps).

The Le Roy des Ribauds batch simulator has its own benchmark: ``bench_ribauds_batch.py``.

Wall-clock and CPU-time (``time.process_time``) rates are both printed: on a shared machine
the CPU-time rate is the closer measure of one core. Usage::

    python benchmarks/bench_batch.py [--seconds 5] [--players 2] [--games 256]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

try:
    import gymnasium as gym
except ImportError:  # pragma: no cover - the core install has no research libraries
    raise SystemExit("bench_batch.py compares with the Gymnasium and PettingZoo environments: "
                     "install the research extra first: "
                     ".venv/bin/pip install -e '.[research]'") from None

import regalia.adapters.gymnasium  # noqa: F401  (registers the environments)
from regalia.adapters.pettingzoo import regicide_env, ribauds_env
from regalia.adapters.batch import RegicideBatch, sample_legal


def _timed(run, seconds: float) -> tuple[float, float]:
    """``(steps per wall second, steps per CPU second)`` of ``run()`` (returns steps) called
    until ``seconds`` of wall time have passed."""
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        steps += run()
    return steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu)


def sim_rate(sim, seconds: float) -> tuple[float, float]:
    """``_timed`` steps of a batch simulator (``RegicideBatch`` or ``RibaudsBatch``) with
    random legal actions drawn by the compiled ``sample_legal``, its kernels compiled (or
    loaded from numba's cache) first."""
    _, masks = sim.reset()
    rng = type(sim).new_rng(2)
    actions = np.empty(sim.n, np.int64)
    sim.step(sample_legal(masks, rng, actions))

    def run() -> int:
        for _ in range(20):
            sim.step(sample_legal(sim.masks, rng, actions))
        return 20 * sim.n

    return _timed(run, seconds)


def batch_rate(players: int, games: int, seconds: float) -> tuple[float, float]:
    return sim_rate(RegicideBatch(games, players, seed=1), seconds)


def pettingzoo_rate(env, seconds: float) -> tuple[float, float]:
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


def gymnasium_rate(env, seconds: float) -> tuple[float, float]:
    rng = np.random.default_rng(4)
    seed = iter(range(10**9))

    def run() -> int:
        _, info = env.reset(seed=next(seed))
        steps = 0
        while True:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            if terminated or truncated:
                return steps

    return _timed(run, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    parser.add_argument("--players", type=int, default=2, help="Regicide players (1-4)")
    parser.add_argument("--games", type=int, default=256, help="games at once in the batch")
    args = parser.parse_args()
    p = args.players
    rows = [
        (f"batch, Regicide {p}p, {args.games} games", batch_rate(p, args.games, args.seconds)),
        (f"pettingzoo, Regicide {p}p", pettingzoo_rate(regicide_env(players=p), args.seconds)),
        ("pettingzoo, Ribauds", pettingzoo_rate(ribauds_env(), args.seconds)),
        ("gymnasium, RegicideSolo-v0", gymnasium_rate(gym.make("regalia/RegicideSolo-v0"),
                                                      args.seconds)),
        (f"gymnasium, Regicide-v0 {max(p, 2)}p", gymnasium_rate(
            gym.make("regalia/Regicide-v0", players=max(p, 2)), args.seconds)),
        ("gymnasium, Ribauds-v0 vs random", gymnasium_rate(
            gym.make("regalia/Ribauds-v0", opponent="random"), args.seconds)),
    ]
    print(f"{'interface':<38} {'steps/s (wall)':>15} {'steps/s (CPU)':>15}")
    for name, (wall, cpu) in rows:
        print(f"{name:<38} {wall:>15,.0f} {cpu:>15,.0f}")
    (bw, bc), (pw, pc) = rows[0][1], rows[1][1]
    print(f"batch / pettingzoo Regicide {p}p: {bw / pw:,.0f}x (wall), {bc / pc:,.0f}x (CPU)")


if __name__ == "__main__":
    main()
