"""Train sb3-contrib's MaskablePPO on solo Regicide, save it, and score it on the benchmark
deals with ``regalia eval --policy`` (needs the ``rl`` extra: ``pip install -e '.[rl]'``).

    .venv/bin/python examples/train_maskable_ppo.py --reward enemies --steps 100000 --deals 200
    .venv/bin/python examples/train_maskable_ppo.py --smoke      # a few seconds (CI)

The environment is ``regalia/RegicideSolo-v0`` as ``make_vec_env`` builds it (no argument
but the reward), ``--n-envs`` copies in one process; the seeds (environments, network, SB3)
are fixed by ``--seed``, so a run on one machine with one thread (``--threads 1``, the
default) replays. The model is saved to ``--out`` (a ``.zip``), then scored by
``regalia eval --policy sb3:OUT --deals K`` on the first K published solo deals, its report
written beside it (``OUT.eval.json``). Prints training steps per second and the report.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reward", choices=("win", "enemies", "medal"), default="enemies",
                   help="the environment's reward (default enemies: 1/12 per enemy defeated)")
    p.add_argument("--steps", type=int, default=100_000, help="training steps (default 100000)")
    p.add_argument("--n-envs", type=int, default=8, help="environments stepped together")
    p.add_argument("--n-steps", type=int, default=256, help="PPO rollout length per env")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: reproducible)")
    p.add_argument("--out", type=Path, default=Path("models/maskable_ppo_regicide.zip"))
    p.add_argument("--deals", type=int, default=100, help="benchmark deals to score it on")
    p.add_argument("--workers", type=int, default=1, help="processes for the scoring")
    p.add_argument("--smoke", action="store_true",
                   help="a tiny run for CI: 512 steps, 2 envs, scored on 2 deals")
    a = p.parse_args(argv)
    if a.smoke:
        a.steps, a.n_envs, a.n_steps, a.batch_size, a.deals = 512, 2, 128, 128, 2

    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError as e:
        sys.exit(f"this example needs the rl extra ({e.name} is missing): "
                 "pip install -e '.[rl]'")
    import regalia.adapters.gymnasium  # noqa: F401  (registers the environments)

    torch.set_num_threads(a.threads)
    env = make_vec_env("regalia/RegicideSolo-v0", n_envs=a.n_envs, seed=a.seed,
                       env_kwargs={"reward": a.reward})
    model = MaskablePPO("MlpPolicy", env, n_steps=a.n_steps, batch_size=a.batch_size,
                        learning_rate=a.learning_rate, ent_coef=a.ent_coef, seed=a.seed,
                        device="cpu", verbose=0)
    t0 = time.perf_counter()
    model.learn(total_timesteps=a.steps)
    seconds = time.perf_counter() - t0
    a.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(a.out)
    print(f"trained {model.num_timesteps} steps in {seconds:.1f} s "
          f"({model.num_timesteps / seconds:.0f} steps/s), reward {a.reward}, saved {a.out}",
          flush=True)

    report = a.out.with_suffix(".eval.json")
    cmd = [sys.executable, "-c", "from regalia.cli.app import main; main()", "eval",
           "--policy", f"sb3:{a.out}", "--deals", str(a.deals), "--workers", str(a.workers),
           "--no-progress", "--out", str(report)]
    print("regalia " + " ".join(cmd[3:]), flush=True)
    subprocess.run(cmd, check=True)
    rep = json.loads(report.read_text())
    r = rep["results"]["1"]
    summary = {"steps": model.num_timesteps, "train_seconds": seconds, "reward": a.reward,
               "deals": r["games"], "wins": r["wins"], "win_rate": r["win_rate"],
               "wilson95": r["wilson95"], "mean_enemies_defeated": r["mean_enemies_defeated"],
               "model": str(a.out), "report": str(report)}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
