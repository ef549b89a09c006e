"""``examples/train_maskable_ppo.py --smoke``: trains MaskablePPO a few hundred steps on
``regalia/RegicideSolo-v0``, saves it and scores it with ``regalia eval --policy sb3:PATH``
(needs the ``rl`` extra; skipped without it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_training_example_runs_in_smoke_mode(tmp_path):
    pytest.importorskip("sb3_contrib", reason="the rl extra is not installed (sb3-contrib, "
                        "stable-baselines3, torch): pip install -e '.[rl]'")
    out = tmp_path / "m.zip"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "train_maskable_ppo.py"),
                        "--smoke", "--out", str(out)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["steps"] >= 512 and summary["deals"] == 2
    assert out.is_file()
    report = json.loads(Path(summary["report"]).read_text())
    assert report["bot"] == f"policy:sb3:{out}" and report["results"]["1"]["games"] == 2
