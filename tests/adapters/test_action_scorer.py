"""Action scorers: the per-action features (shape, range, seat's view only), the ``act:PATH``
policy (legal actions only, files checked), the training example in smoke mode (numpy
only) and ``regalia eval --policy act:PATH`` on a couple of deals."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from regalia.adapters import features as FT
from regalia.adapters.policy import (
    ActionScorerBot,
    load_action_scorer,
    policy_maker,
    save_action_scorer,
)
from regalia.bots import make_bot
from regalia.cli.app import app
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE
from regalia.games.regicide import actions as RA
from regalia.games.ribauds import RIBAUDS
from example_runs import run_example

runner = CliRunner()


def _random_scorer(path: Path, game: str, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    n = FT.REGICIDE_FEATURES if game == "regicide" else FT.RIBAUDS_FEATURES
    save_action_scorer(path, game, [(rng.normal(size=(n, 8)), rng.normal(size=8)),
                                    (rng.normal(size=(8, 1)), np.zeros(1))])


def test_regicide_features_have_one_row_per_legal_action_in_range():
    assert len(FT.REGICIDE_FEATURE_NAMES) == FT.REGICIDE_FEATURES == len(
        set(FT.REGICIDE_FEATURE_NAMES))
    bot, rng = make_bot("regicide", "heuristic"), random.Random(0)
    seen_kinds = set()
    for seed in (1, 2):
        m = Match(REGICIDE, {"players": 1}, seed)
        while not REGICIDE.is_terminal(m.state):
            view = REGICIDE.view(m.state, 0)
            legal = REGICIDE.legal_actions(m.state)
            f = FT.regicide_features(view, legal)
            assert f.shape == (len(legal), FT.REGICIDE_FEATURES) and f.dtype == np.float32
            assert f.min() >= 0.0 and f.max() <= 1.0
            seen_kinds.update(RA.kind(a) for a in legal)
            m.play(bot.act(view, legal, rng))
    assert {RA.PLAY, RA.DISCARD, RA.JESTER_REFRESH} <= seen_kinds


def test_regicide_features_name_kills_and_exact_kills():
    m = Match(REGICIDE, {"players": 1}, 3)
    view = REGICIDE.view(m.state, 0)
    legal = REGICIDE.legal_actions(m.state)
    f = FT.regicide_features(view, legal)
    col = {n: i for i, n in enumerate(FT.REGICIDE_FEATURE_NAMES)}
    left = view["health"] - view["damage"]
    for row, a in zip(f, legal):
        if RA.kind(a) != RA.PLAY:
            continue
        damage = round(row[col["damage"]] * 40)
        assert bool(row[col["kills"]]) == (damage >= left)
        assert bool(row[col["exact_kill"]]) == (damage == left)
    with pytest.raises(ValueError, match="spectator"):
        FT.regicide_features(REGICIDE.view(m.state, None), legal)


def test_ribauds_features_have_one_row_per_legal_action_in_range():
    assert len(FT.RIBAUDS_FEATURE_NAMES) == FT.RIBAUDS_FEATURES
    bots = [make_bot("ribauds", "heuristic") for _ in range(2)]
    rng = random.Random(0)
    m = Match(RIBAUDS, {"players": 2}, 5)
    steps = 0
    while not RIBAUDS.is_terminal(m.state) and steps < 40:
        seat = RIBAUDS.current_seat(m.state)
        view = RIBAUDS.view(m.state, seat)
        legal = RIBAUDS.legal_actions(m.state)
        f = FT.ribauds_features(view, legal, rng, samples=3)
        assert f.shape == (len(legal), FT.RIBAUDS_FEATURES) and f.dtype == np.float32
        assert f.min() >= 0.0 and f.max() <= 1.0
        m.play(bots[seat].act(view, legal, rng))
        steps += 1
    with pytest.raises(ValueError, match="samples"):
        FT.ribauds_features(view, legal, rng, samples=0)


@pytest.mark.parametrize("game", ["regicide", "ribauds"])
def test_the_scorer_plays_only_legal_actions(tmp_path, game):
    path = tmp_path / "s.npz"
    _random_scorer(path, game)
    assert load_action_scorer(path)[0] == game
    bot = policy_maker(game, f"act:{path}")()
    assert isinstance(bot, ActionScorerBot)
    G = REGICIDE if game == "regicide" else RIBAUDS
    rng = random.Random(1)
    m = Match(G, {"players": 1} if game == "regicide" else {"players": 2}, 7)
    steps = 0
    while not G.is_terminal(m.state) and steps < 60:
        seat = G.current_seat(m.state)
        legal = G.legal_actions(m.state)
        a = bot.act(G.view(m.state, seat), legal, rng)
        assert a in legal
        m.play(a)
        steps += 1


def test_bad_scorer_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no file"):
        ActionScorerBot("regicide", str(tmp_path / "none.npz"))
    path = tmp_path / "r.npz"
    _random_scorer(path, "ribauds")
    with pytest.raises(ValueError, match="for ribauds, not regicide"):
        ActionScorerBot("regicide", str(path))
    with pytest.raises(ValueError, match="do not chain"):
        save_action_scorer(tmp_path / "x.npz", "regicide", [(np.zeros((3, 1)), np.zeros(1))])
    bad = tmp_path / "bad.npz"
    np.savez(bad, w0=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="not an action scorer"):
        load_action_scorer(bad)


def test_eval_scores_an_action_scorer(tmp_path):
    path = tmp_path / "s.npz"
    _random_scorer(path, "regicide")
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", "--policy", f"act:{path}", "--deals", "2",
                            "--no-progress", "--out", str(out)])
    assert r.exit_code == 0, r.output
    rep = json.loads(out.read_text())
    assert rep["bot"] == f"policy:act:{path}" and rep["results"]["1"]["games"] == 2
    r = runner.invoke(app, ["eval", "--policy", f"act:{tmp_path}/none.npz", "--deals", "1",
                            "--no-progress"])
    assert r.exit_code == 2 and "no file" in r.output


def test_the_action_scorer_example_runs_in_smoke_mode(tmp_path):
    out = tmp_path / "a.npz"
    summary = run_example("train_action_policy.py", "--smoke", "--out", str(out))
    assert summary["data"]["games"] == 3 and summary["data"]["decisions"] > 0
    assert summary["training"]["decisions_per_second"] > 0
    assert summary["games"] == 2 and 0 <= summary["wins"] <= 2
    assert load_action_scorer(out)[0] == "regicide"
    report = json.loads(Path(summary["report"]).read_text())
    assert report["bot"] == f"policy:act:{out}"
