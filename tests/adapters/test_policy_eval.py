"""``regalia eval --policy``: an outside policy scored on the benchmark deals with the bots'
report (through the CLI, end to end), the policy contract, and SB3 checkpoints when the
``rl`` extra is installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from regalia.adapters import encoding as E
from regalia.adapters.policy import PolicyBot, load_mlp, load_policy, save_mlp
from regalia.cli.app import app
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE
from regalia.lab.deals import load_deals

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "first_legal_policy.py"


def _first_legal_outcome(seed: int) -> dict:
    """The solo game of deal ``seed`` played with the lowest legal id, as eval deals it."""
    m = Match(REGICIDE, {"players": 1}, seed)
    while not REGICIDE.is_terminal(m.state):
        view = REGICIDE.view(m.state, 0)
        ids = E.legal_ids(view, REGICIDE.legal_actions(m.state), E.regicide_action_id)
        m.play(ids[min(ids)])
    return REGICIDE.outcome(m.state)


def test_a_policy_file_is_scored_with_the_bots_report(tmp_path):
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    spec = f"{EXAMPLE}:policy"
    r = runner.invoke(app, ["eval", "--policy", spec, "--deals", "3", "--no-progress",
                            "--out", str(out), "--chart", str(png)])
    assert r.exit_code == 0, r.output
    rep = json.loads(out.read_text())
    assert rep["bot"] == f"policy:{spec}"
    res = rep["results"]["1"]
    assert res["games"] == 3 and len(res["wilson95"]) == 2 and set(res["medals"]) == {
        "gold", "silver", "bronze"}
    assert png.stat().st_size > 0
    assert "Wilson" in r.output
    title = " ".join(r.output.split())  # (the title wraps at the console's width)
    assert f"Regicide, policy {spec}, one call per decision, no time budget" in title
    assert "budget per decision" not in title  # a policy has none
    seeds = load_deals("regicide", 1)[:3]
    assert [g["seed"] for g in rep["games"]] == seeds
    for g in rep["games"]:  # the deal eval played is the deal, decision for decision
        want = _first_legal_outcome(g["seed"])
        assert g["enemies_defeated"] == want["enemies_defeated"]
        assert g["won"] == (want["result"] == "won")


def test_a_module_factory_is_called_once_per_game_and_runs_on_workers(tmp_path, monkeypatch):
    (tmp_path / "my_agent.py").write_text(
        "import numpy as np\n"
        "MADE = []\n"
        "class Agent:\n"
        "    def __init__(self):\n"
        "        MADE.append(self)\n"
        "    def __call__(self, observation, action_mask):\n"
        "        assert observation.dtype == np.float32 and action_mask.dtype == np.int8\n"
        "        return np.flatnonzero(action_mask)[-1]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_agent

    policy = load_policy("my_agent:Agent")
    assert isinstance(policy, my_agent.Agent)
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", "--policy", "my_agent:Agent", "--deals", "2", "--workers",
                            "2", "--no-progress", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["results"]["1"]["games"] == 2


def test_a_policy_plays_ribauds_against_the_bots(tmp_path):
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", "--game", "ribauds", "--policy", f"{EXAMPLE}:policy",
                            "--opponent", "random", "--deals", "1", "--no-progress",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    rep = json.loads(out.read_text())
    assert rep["results"][0]["games"] == 2 and rep["results"][0]["opponent"] == "random"
    assert "the opponents' default budget per decision" in " ".join(r.output.split())


def test_bad_policies_are_refused_in_one_line(tmp_path):
    for spec, words in [("nope", "MODULE:NAME"), ("no_such_module_x:f", "cannot import"),
                        (f"{EXAMPLE}:missing", "has no missing"),
                        (f"{tmp_path}/none.py:f", "no file"),
                        (f"sb3:{tmp_path}/none.zip", "no file"),
                        (f"mlp:{tmp_path}/none.npz", "no file")]:
        r = runner.invoke(app, ["eval", "--policy", spec, "--deals", "1", "--no-progress"])
        assert r.exit_code == 2 and words in r.output, (spec, r.output)
    r = runner.invoke(app, ["eval", "--policy", f"{EXAMPLE}:policy", "--bot", "random",
                            "--deals", "1"])
    assert r.exit_code == 2 and "one" in r.output


def test_an_illegal_answer_fails_the_evaluation_naming_it():
    bot = PolicyBot("regicide", "always-zero", lambda obs, mask: 515)
    m = Match(REGICIDE, {"players": 1}, 1)
    with pytest.raises(RuntimeError, match="not a legal id"):
        bot.act(REGICIDE.view(m.state, 0), REGICIDE.legal_actions(m.state), None)


def test_an_mlp_file_plays_its_best_legal_id_with_numpy_alone(tmp_path):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(E.REGICIDE_OBS, 16)), rng.normal(size=16)),
              (rng.normal(size=(16, E.REGICIDE_ACTIONS)), np.zeros(E.REGICIDE_ACTIONS))]
    layers[1][1][[3, 7]] = [50.0, 100.0]  # id 7 rated best, then 3
    path = tmp_path / "net.npz"
    save_mlp(path, layers)
    back = load_mlp(path)
    assert [(w.shape, w.dtype, b.shape) for w, b in back] == [
        ((408, 16), np.float32, (16,)), ((16, 516), np.float32, (516,))]
    policy = load_policy(f"mlp:{path}")
    obs = np.zeros(E.REGICIDE_OBS, np.float32)
    mask = np.zeros(E.REGICIDE_ACTIONS, np.int8)
    mask[[3, 7]] = 1
    assert policy(obs, mask) == 7
    mask[7] = 0
    assert policy(obs, mask) == 3
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", "--policy", f"mlp:{path}", "--deals", "2", "--no-progress",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["results"]["1"]["games"] == 2


def test_malformed_mlps_are_refused(tmp_path):
    with pytest.raises(ValueError, match="do not chain"):
        save_mlp(tmp_path / "x.npz", [(np.zeros((4, 3)), np.zeros(3)),
                                      (np.zeros((2, 5)), np.zeros(5))])
    bad = tmp_path / "bad.npz"
    np.savez(bad, w0=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="not an MLP"):
        load_policy(f"mlp:{bad}")


def test_an_sb3_checkpoint_is_scored(tmp_path):
    pytest.importorskip("stable_baselines3", reason="the rl extra (stable-baselines3) is not "
                        "installed: pip install -e '.[rl]'")
    import gymnasium as gym
    from stable_baselines3 import PPO

    import regalia.adapters.gymnasium  # noqa: F401

    model = PPO("MlpPolicy", gym.make("regalia/RegicideSolo-v0"), n_steps=32, batch_size=32,
                n_epochs=1, seed=0, device="cpu")
    path = tmp_path / "ppo.zip"
    model.save(path)
    policy = load_policy(f"sb3:{path}")
    obs = np.zeros(E.REGICIDE_OBS, np.float32)
    mask = np.zeros(E.REGICIDE_ACTIONS, np.int8)
    mask[[3, 7]] = 1
    assert policy(obs, mask) in (3, 7)  # PPO knows no mask: its best legal action
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", "--policy", f"sb3:{path}", "--deals", "2", "--no-progress",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["results"]["1"]["games"] == 2

