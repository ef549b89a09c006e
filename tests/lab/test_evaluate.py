"""Evaluation: the published deal sets, the statistics, and small ``regalia eval`` runs
through the command line, on a process pool and on a local Ray instance."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regalia.cli.app import app
from regalia.lab import deals as D
from regalia.lab import evaluate as E

runner = CliRunner()


def test_wilson_interval_matches_known_values():
    lo, hi = E.wilson(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-3) and math.isclose(hi, 0.5962, abs_tol=1e-3)
    lo, hi = E.wilson(0, 10)
    assert lo == 0.0 and math.isclose(hi, 0.2775, abs_tol=1e-3)
    lo, hi = E.wilson(10, 10)
    assert math.isclose(lo, 0.7225, abs_tol=1e-3) and hi == 1.0
    assert E.wilson(0, 0) == (0.0, 1.0)


def test_percentile():
    assert E.percentile([], 95) == 0.0
    assert E.percentile([1.0], 95) == 1.0
    assert math.isclose(E.percentile(list(map(float, range(101))), 95), 95.0)


def test_published_deal_sets_are_the_ones_the_master_seed_gives():
    for game, counts in D.PLAYER_COUNTS.items():
        on_disk = json.loads((D.DEALS_DIR / f"{game}.json").read_text())
        assert on_disk == D.generate(game)
        for n in counts:
            seeds = D.load_deals(game, n)
            assert len(seeds) == 1000 and len(set(seeds)) == 1000


def test_tuning_deal_set_is_apart_from_the_published_one():
    """``benchmarks/deals/regicide_tuning.json``: the bots are tuned on these, never on the
    published deals (``--deal-file``)."""
    path = Path(__file__).parents[2] / "benchmarks" / "deals" / "regicide_tuning.json"
    assert json.loads(path.read_text()) == D.generate("regicide", 20261206, 400)
    for n in D.PLAYER_COUNTS["regicide"]:
        assert not set(D.load_deals("regicide", n, path)) & set(D.load_deals("regicide", n))


def test_unknown_player_count_is_refused():
    with pytest.raises(KeyError):
        D.load_deals("ribauds", 3)


def test_summaries_count_wins_medals_and_enemies():
    rs = [E.play_task(E.Task("regicide", 1, s, ("heuristic",), index=i))
          for i, s in enumerate(D.load_deals("regicide", 1)[:4])]
    summary = E.summarize_regicide(rs)
    assert summary["games"] == 4
    assert sum(summary["enemies_defeated"]) == 4
    assert sum(summary["medals"].values()) == summary["wins"]
    assert summary["wilson95"][0] <= summary["win_rate"] <= summary["wilson95"][1]
    again = [E.play_task(E.Task("regicide", 1, s, ("heuristic",), index=i))
             for i, s in enumerate(D.load_deals("regicide", 1)[:4])]
    assert [r["enemies_defeated"] for r in again] == [r["enemies_defeated"] for r in rs]


def test_ribauds_pairs_play_both_seat_orders():
    tasks = E.ribauds_tasks("heuristic", "random", D.load_deals("ribauds", 2)[:3], None)
    assert [t.bots for t in tasks] == [("heuristic", "random"), ("random", "heuristic")] * 3
    rs = E.run_tasks(tasks)
    s = E.summarize_ribauds(rs, "heuristic", "random")
    assert s["games"] == 6
    assert s["by_seat"]["a_first_seat"]["games"] == 3 == s["by_seat"]["a_second_seat"]["games"]


def test_a_run_warms_up_on_one_untimed_game_first(monkeypatch):
    """Before the timed games, one game like the first task at 4 positions per decision
    loads the compiled kernels; its result is not reported."""
    played = []
    play = E.play_task

    def spy(task):
        played.append(task)
        return play(task)

    monkeypatch.setattr(E, "play_task", spy)
    tasks = E.regicide_tasks(2, "montecarlo", D.load_deals("regicide", 2)[:2], None, 16)
    rs = E.run_tasks(tasks)
    assert [t.iterations for t in played] == [4, 16, 16]
    assert played[0].seed == tasks[0].seed and [r["index"] for r in rs] == [0, 1]
    assert all(r["decisions"] > 0 for r in rs)


def test_a_ray_worker_warms_up_once_on_its_first_task(monkeypatch):
    """What a Ray worker runs (``play_warm``) plays the warm-up game before its first task
    only: a worker process has no initializer."""
    played = []
    monkeypatch.setattr(E, "play_task", lambda task: played.append(task) or {"i": task.seed})
    monkeypatch.setattr(E, "_warmed", False)
    tasks = E.regicide_tasks(2, "montecarlo", D.load_deals("regicide", 2)[:2], None, 16)
    assert [E.play_warm(t)["i"] for t in tasks] == [t.seed for t in tasks]
    assert [(t.seed, t.iterations) for t in played] == \
           [(tasks[0].seed, 4), (tasks[0].seed, 16), (tasks[1].seed, 16)]


@pytest.mark.parametrize("args", [["--bot", "heuristic", "--iterations", "8"],
                                  ["--game", "ribauds", "--bot", "medium", "--budget", "0.1"]])
def test_eval_refuses_a_search_option_for_a_bot_that_does_not_search(args):
    r = runner.invoke(app, ["eval", "--deals", "1", "--no-progress", *args])
    assert r.exit_code == 2 and "bot does not search" in r.output, r.output
    assert "ismcts" in r.output and "heuristic" not in r.output.split("search bot:")[1]


def test_eval_command_writes_json_and_chart(tmp_path):
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    r = runner.invoke(app, ["eval", "--game", "regicide", "--players", "1,3", "--bot", "ismcts",
                            "--deals", "2", "--iterations", "2", "--no-progress",
                            "--out", str(out), "--chart", str(png)])
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    assert report["format"] == "regalia-eval/1" and set(report["results"]) == {"1", "3"}
    for n in ("1", "3"):
        res = report["results"][n]
        assert res["games"] == 2 and len(res["enemies_defeated"]) == 13
        assert 0 <= res["wilson95"][0] <= res["wilson95"][1] <= 1
        assert res["decision_time_p95"] >= 0
        assert res["decision_cpu_mean"] >= 0  # process time, beside the wall clock
    assert all(g["cpu_seconds"] >= 0 for g in report["games"])
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "win %" in r.output and "enemies defeated" in r.output


def test_eval_command_for_ribauds_pairs(tmp_path):
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", "--game", "ribauds", "--bot", "ismcts", "--opponent",
                            "random,heuristic", "--deals", "2", "--iterations", "5",
                            "--no-progress", "--out", str(out), "--chart",
                            str(tmp_path / "r.png")])
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    assert [p["opponent"] for p in report["results"]] == ["random", "heuristic"]
    assert all(p["games"] == 4 for p in report["results"])
    r = runner.invoke(app, ["eval", "--game", "ribauds", "--players", "3", "--deals", "1"])
    assert r.exit_code == 2 and "2-player game" in r.output


def test_reports_of_parts_merge_into_the_report_of_the_whole(tmp_path):
    def part(name, *args):
        out = tmp_path / name
        r = runner.invoke(app, ["eval", *args, "--no-progress", "--out", str(out)])
        assert r.exit_code == 0, r.output
        return out

    a = part("a.json", "--players", "1,2", "--bot", "heuristic", "--deals", "3")
    b = part("b.json", "--players", "1,2", "--bot", "heuristic", "--deals", "2", "--offset", "3")
    out = tmp_path / "m.json"
    r = runner.invoke(app, ["eval", "--merge", str(b), "--merge", str(a), "--out", str(out)])
    assert r.exit_code == 0, r.output
    merged, parts = json.loads(out.read_text()), [json.loads(f.read_text()) for f in (a, b)]
    assert (merged["deals"], merged["offset"]) == (5, 0) and "win %" in r.output
    for n in ("1", "2"):
        res = merged["results"][n]
        games = [g for g in merged["games"] if str(g["players"]) == n]
        assert sorted(g["seed"] for g in games) == sorted(D.load_deals("regicide", int(n))[:5])
        assert res["games"] == 5
        assert res["wins"] == sum(p["results"][n]["wins"] for p in parts)
        assert res["decisions"] == sum(p["results"][n]["decisions"] for p in parts)
        assert res["enemies_defeated"] == [x + y for x, y in zip(
            *(p["results"][n]["enemies_defeated"] for p in parts))]
        mean = sum(p["results"][n]["decision_time_mean"] * p["results"][n]["decisions"]
                   for p in parts) / res["decisions"]
        assert math.isclose(res["decision_time_mean"], mean, rel_tol=1e-9)
        cpu = sum(p["results"][n]["decision_cpu_mean"] * p["results"][n]["decisions"]
                  for p in parts) / res["decisions"]
        assert math.isclose(res["decision_cpu_mean"], cpu, rel_tol=1e-9)
        assert res["decision_time_p95"] == max(p["results"][n]["decision_time_p95"] for p in parts)
    # each deal once, one bot, one budget: otherwise refused with the reason
    again = part("c.json", "--players", "1,2", "--bot", "heuristic", "--deals", "2", "--offset", "2")
    r = runner.invoke(app, ["eval", "--merge", str(a), "--merge", str(again)])
    assert r.exit_code == 2 and "hold the same deals" in r.output
    other = part("d.json", "--players", "1,2", "--bot", "random", "--deals", "1", "--offset", "9")
    r = runner.invoke(app, ["eval", "--merge", str(a), "--merge", str(other)])
    assert r.exit_code == 2 and "'bot'" in r.output
    r = runner.invoke(app, ["eval", "--merge", str(a), "--merge", str(tmp_path / "no.json")])
    assert r.exit_code == 2


def test_ribauds_reports_of_parts_merge(tmp_path):
    outs = []
    for k in range(2):
        outs.append(tmp_path / f"r{k}.json")
        r = runner.invoke(app, ["eval", "--game", "ribauds", "--bot", "heuristic", "--opponent",
                                "random", "--deals", "1", "--offset", str(k), "--no-progress",
                                "--out", str(outs[-1])])
        assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["eval", "--merge", str(outs[0]), "--merge", str(outs[1]),
                            "--out", str(tmp_path / "m.json")])
    assert r.exit_code == 0, r.output
    merged = json.loads((tmp_path / "m.json").read_text())
    parts = [json.loads(o.read_text())["results"][0] for o in outs]
    (res,) = merged["results"]
    assert res["games"] == 4 and res["wins"] == parts[0]["wins"] + parts[1]["wins"]
    assert res["by_seat"]["a_first_seat"]["games"] == 2


def test_eval_command_refuses_an_unknown_bot():
    r = runner.invoke(app, ["eval", "--bot", "nobody", "--deals", "1", "--no-progress"])
    assert r.exit_code == 2


def test_eval_with_ray_but_without_ray_installed_says_which_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    r = runner.invoke(app, ["eval", "--deals", "1", "--ray", "local", "--no-progress"])
    assert r.exit_code == 2 and "pip install -e '.[ray]'" in r.output, r.output
    assert "Traceback" not in r.output


def test_process_pool_gives_the_same_games_as_one_process():
    seeds = D.load_deals("regicide", 2)[:4]
    tasks = E.regicide_tasks(2, "heuristic", seeds, None)
    one = E.run_tasks(tasks, workers=1)
    pool = E.run_tasks(tasks, workers=2)
    key = [(r["seed"], r["won"], r["enemies_defeated"], r["actions"]) for r in one]
    assert key == [(r["seed"], r["won"], r["enemies_defeated"], r["actions"]) for r in pool]


@pytest.mark.slow
def test_ray_local_instance_runs_the_games():
    pytest.importorskip("ray")
    seeds = D.load_deals("regicide", 1)[:3]
    tasks = E.regicide_tasks(1, "heuristic", seeds, None)
    one = E.run_tasks(tasks, workers=1)
    on_ray = E.run_tasks(tasks, workers=1, ray_address="local")
    assert [(r["seed"], r["enemies_defeated"]) for r in on_ray] == \
           [(r["seed"], r["enemies_defeated"]) for r in one]


def test_eval_bots_random_sources_are_not_derived_from_the_deal():
    task = E.Task("ribauds", 2, 12345, ("random", "random"))
    lengths = {E.play_task(task)["actions"] for _ in range(8)}
    assert len(lengths) > 1  # the same deal, bots choosing differently each time
