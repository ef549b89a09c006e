"""The training examples in smoke mode (need the ``rl`` extra; skipped without it):
``examples/train_maskable_ppo.py --smoke`` trains MaskablePPO a few hundred steps on
``regalia/RegicideSolo-v0``, saves it and scores it with ``regalia eval --policy sb3:PATH``;
``examples/train_distilled_policy.py --smoke`` plays a few expert games, trains a small
network on their decisions and scores it with ``regalia eval --policy mlp:PATH``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_runs import run_example


def test_the_training_example_runs_in_smoke_mode(tmp_path):
    pytest.importorskip("sb3_contrib", reason="the rl extra is not installed (sb3-contrib, "
                        "stable-baselines3, torch): pip install -e '.[rl]'")
    out = tmp_path / "m.zip"
    summary = run_example("train_maskable_ppo.py", "--smoke", "--out", str(out))
    assert summary["steps"] >= 512 and summary["deals"] == 2
    assert out.is_file()
    report = json.loads(Path(summary["report"]).read_text())
    assert report["bot"] == f"policy:sb3:{out}" and report["results"]["1"]["games"] == 2


def test_the_distillation_example_runs_in_smoke_mode(tmp_path):
    pytest.importorskip("torch", reason="the rl extra is not installed (torch): "
                        "pip install -e '.[rl]'")
    out = tmp_path / "d.npz"
    summary = run_example("train_distilled_policy.py", "--smoke", "--out", str(out))
    assert summary["data"]["games"] == 3 and summary["data"]["decisions"] > 0
    assert summary["data"]["decisions_per_second"] > 0
    assert summary["training"]["samples_per_second"] > 0
    assert summary["deals"] == 2 and 0 <= summary["wins"] <= 2
    assert out.is_file() and (tmp_path / "d_data").is_dir()
    report = json.loads(Path(summary["report"]).read_text())
    assert report["bot"] == f"policy:mlp:{out}" and report["results"]["1"]["games"] == 2
