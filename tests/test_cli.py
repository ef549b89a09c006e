"""The command-line contract (formats.md section 3) and the case files through it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regalia.cli.app import app
from regalia.games import get_game

runner = CliRunner()


def run(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def write(tmp_path: Path, obj) -> str:
    p = tmp_path / "pos.json"
    p.write_text(json.dumps(obj))
    return str(p)


def test_new_prints_a_position_that_reads_back(tmp_path):
    r = run("new", "regicide", "--players", "3", "--seed", "5")
    assert r.exit_code == 0, r.output
    pos = json.loads(r.stdout)
    assert pos["game"] == "regicide" and pos["players"] == 3
    assert [len(h) for h in pos["hands"]] == [6, 6, 6]
    assert len(pos["tavern"]) == 23
    again = run("new", "regicide", "--players", "3", "--seed", "5")
    assert again.stdout == r.stdout, "the same seed deals the same game"
    legal = run("legal", write(tmp_path, pos))
    assert legal.exit_code == 0
    lines = legal.stdout.splitlines()
    assert lines and len(lines) == len(set(lines))
    assert all(line.startswith(("play ", "yield")) for line in lines)


def test_new_with_option_and_bad_option():
    r = run("new", "regicide", "--players", "1", "--seed", "1", "--option", "solo_yield=true")
    assert json.loads(r.stdout)["options"] == {"solo_yield": True}
    bad = run("new", "regicide", "--option", "nonsense=1")
    assert bad.exit_code == 2 and "nonsense" in bad.stderr and bad.stdout == ""


def test_apply_then_legal(tmp_path):
    pos = json.loads(run("new", "regicide", "--players", "2", "--seed", "9").stdout)
    first = run("legal", write(tmp_path, pos)).stdout.splitlines()[0]
    r = run("apply", write(tmp_path, pos), first, "--seed", "3")
    assert r.exit_code == 0, r.stderr
    after = json.loads(r.stdout)
    assert after != pos
    assert run("apply", write(tmp_path, pos), first, "--seed", "3").stdout == r.stdout


def test_refused_action_exit_2_one_line_nothing_on_stdout(tmp_path):
    case = json.loads((Path(__file__).resolve().parents[1].parent / "shared" / "cases" /
                       "regicide" / "regicide-r50-discard-too-little.json").read_text()) \
        if (Path(__file__).resolve().parents[1].parent / "shared").exists() else None
    pos = case["position"] if case else json.loads(run("new", "regicide", "--seed", "1").stdout)
    path = write(tmp_path, pos)
    r = run("apply", path, "play 6H 6D")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    assert "play 6H 6D" in r.stderr and "refused" in r.stderr


def test_invalid_position_is_refused_naming_the_field(tmp_path):
    pos = json.loads(run("new", "regicide", "--seed", "1").stdout)
    pos["colour"] = "red"
    r = run("legal", write(tmp_path, pos))
    assert r.exit_code == 2 and r.stdout == "" and "colour" in r.stderr
    pos.pop("colour")
    pos["hands"][0].append(pos["tavern"][0])
    r = run("apply", write(tmp_path, pos), "yield")
    assert r.exit_code == 2 and pos["tavern"][0] in r.stderr
    (tmp_path / "bad.json").write_text("{not json")
    r = run("legal", str(tmp_path / "bad.json"))
    assert r.exit_code == 2 and "not JSON" in r.stderr
    for obj, said in (({}, "game: missing;"), ({"game": "chess"}, "game: 'chess';")):
        r = run("legal", "-", input=json.dumps(obj))
        assert r.exit_code == 2 and said in r.stderr and "regicide, ribauds" in r.stderr


def test_apply_reads_standard_input():
    pos = run("new", "regicide", "--seed", "2").stdout
    r = run("legal", "-", input=pos)
    assert r.exit_code == 0 and r.stdout.strip()


def test_real_process_exit_status_and_streams(tmp_path):
    """The installed command itself: status 2, one line on stderr, empty stdout."""
    pos = json.loads(run("new", "regicide", "--seed", "4").stdout)
    path = write(tmp_path, pos)
    p = subprocess.run([sys.executable, "-m", "regalia.cli.app", "apply", path, "discard AC"],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1


def test_cases_through_the_command_line(tmp_path, shared):
    """Every shared case, run through 'regalia apply' and 'regalia legal'."""
    files = sorted((shared / "cases").glob("*/*.json"))
    if not files:
        pytest.fail(f"no shared cases under {shared}")
    for f in files:
        case = json.loads(f.read_text())
        path = write(tmp_path, case["position"])
        r = run("apply", path, *case["actions"], "--seed", "0") if case["actions"] else None
        if case["expect"].get("error"):
            assert r is not None and r.exit_code == 2 and r.stdout == "", f.name
            continue
        if r is not None:
            assert r.exit_code == 0, (f.name, r.stderr)
            path = write(tmp_path, json.loads(r.stdout))
        legal = run("legal", path)
        assert legal.exit_code == 0, (f.name, legal.stderr)
        game = get_game(case["position"]["game"])
        state = game.from_json(json.loads(Path(path).read_text()))

        def canonical(text: str) -> str:  # readers accept any card order (formats.md 1.3)
            return game.action_to_text(state, game.action_from_text(state, text))

        lines = legal.stdout.splitlines()
        for want in case["expect"].get("legal_includes", []):
            assert canonical(want) in lines, (f.name, want)
        for unwanted in case["expect"].get("legal_excludes", []):
            assert canonical(unwanted) not in lines, (f.name, unwanted)


def test_unreadable_files_are_refused_in_one_line(tmp_path):
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe")
    (tmp_path / "deep.json").write_text("[" * 200000)
    for name in ("bin.json", "deep.json"):
        p = subprocess.run([sys.executable, "-m", "regalia.cli.app", "legal",
                            str(tmp_path / name)], capture_output=True, text=True)
        assert p.returncode == 2 and p.stdout == "", p.stderr
        assert len(p.stderr.strip().splitlines()) == 1


def test_usage_errors_are_one_line():
    for args in (["apply", "x.json"], ["legal", "--bogus", "x.json"]):
        p = subprocess.run([sys.executable, "-m", "regalia.cli.app", *args],
                           capture_output=True, text=True)
        assert p.returncode == 2 and p.stdout == ""
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_readme_contract_example(tmp_path):
    """The README's example commands work as printed."""
    pos = run("new", "regicide", "--players", "2", "--seed", "7").stdout
    path = write(tmp_path, json.loads(pos))
    assert run("legal", path).exit_code == 0
    r = run("apply", path, "play 5D", "discard 4S 7H", "--seed", "3")
    assert r.exit_code == 0, r.stderr


def test_version_prints_the_package_version():
    from regalia import __version__

    r = run("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"regalia {__version__}"


def test_a_first_solve_says_it_compiles(monkeypatch, capsys):
    """The solver's first run compiles for up to a minute: it says so instead of looking
    hung; with numba's cache in place it says nothing."""
    import regalia.fast._jit as jit
    from regalia.cli.app import _say_if_compiling

    monkeypatch.setattr(jit, "cached", lambda module_file: False)
    _say_if_compiling("regalia.lab.solve", "the solver")
    assert "compiling the solver" in capsys.readouterr().err
    monkeypatch.setattr(jit, "cached", lambda module_file: True)
    _say_if_compiling("regalia.lab.solve", "the solver")
    assert capsys.readouterr().err == ""


def test_help_shows_every_option_whole_in_an_80_column_terminal():
    """Plain help (no table that cuts long option names or defaults short)."""
    import typer.main

    command = typer.main.get_command(app).commands["serve"]
    r = runner.invoke(app, ["serve", "--help"], terminal_width=80, env={"COLUMNS": "80"})
    assert r.exit_code == 0
    for param in command.params:
        for name in param.opts + param.secondary_opts:
            assert name in r.output, name
    assert "…" not in r.output and "<bool>" not in r.output


def test_a_first_game_against_a_search_bot_says_it_compiles(monkeypatch):
    """Regicide's search bots run compiled rollouts: before their first game on a machine
    the terminal says it compiles (a newcomer saw "thinks..." for many seconds); a bot
    without rollouts says nothing."""
    import regalia.fast._jit as jit

    monkeypatch.setattr(jit, "cached", lambda module_file: False)
    runner = CliRunner()
    for bot, told in (("montecarlo", True), ("heuristic", False)):
        r = runner.invoke(app, ["play", "--players", "2", "--bots", "2", "--bot", bot,
                                "--seed", "2"], input="quit\n")
        assert r.exit_code == 0, r.output
        assert ("compiling the bots' search" in r.stderr) is told, bot
