"""`regalia replay FILE` move by move and `regalia play --load FILE`."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console
from typer.testing import CliRunner

from regalia.cli.app import app
from regalia.cli.replay import ReplayScreen
from regalia.core.records import GameRecord, Match
from regalia.games.regicide import REGICIDE
from regalia.games.ribauds import RIBAUDS


def scripted(lines):
    it = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def _headings(text: str) -> list[str]:
    """The step headings, without the prompt a piped input leaves before them."""
    return re.findall(r"(?:Move \d+ of \d+|The deal \(\d+ moves? follows?\))$", text, re.M)


def _saved_game(tmp_path, game="regicide",
                args=("--players", "2", "--bots", "1,2", "--bot", "heuristic")):
    save = tmp_path / "g.json"
    r = CliRunner().invoke(app, ["play", game, *args, "--seed", "5", "--save", str(save)],
                           input="1\n" * 400)
    assert r.exit_code == 0, r.output
    return save


def test_replay_steps_forward_and_back_and_quits(tmp_path):
    """Enter or n: next, p: previous, q: quit; each step shows the move in words, its log
    sentences and the table after it."""
    record = GameRecord.load(_saved_game(tmp_path))
    out = io.StringIO()
    shown = ReplayScreen(record, None, Console(file=out, width=120))
    shown.step(scripted(["", "n", "p", "7", "q", "n"]))
    heads = _headings(out.getvalue())
    last = len(record.actions)
    assert heads == [f"The deal ({last} moves follow)", f"Move 1 of {last}", f"Move 2 of {last}",
                     f"Move 1 of {last}", f"Move 7 of {last}"]
    text = out.getvalue()
    assert text.count("╭") == 5, "one table per step shown; nothing after q"
    assert "Bot 1 (heuristic)'s hand:" in text and "Bot 2 (heuristic)'s hand:" in text
    for sentence in shown.sentences(1):
        assert sentence in text


def test_replay_edges_and_bad_keys_get_a_message(tmp_path):
    record = GameRecord.load(_saved_game(tmp_path))
    out = io.StringIO()
    shown = ReplayScreen(record, 0, Console(file=out, width=120))
    last = len(record.actions)
    shown.step(scripted(["p", "x", str(last), "n", str(last + 5)]))  # then end of input
    text = out.getvalue()
    assert "This is the deal, the first position" in text
    assert "'x' is not a replay key" in text
    assert "That was the last move" in text and f"There is no move {last + 5}" in text
    assert _headings(text)[-1] == f"Move {last} of {last}"
    assert "Victory" in text or "Defeat" in text, "the last move shows the result"
    assert "You (bot)" in text and "'s hand" not in text, "seen by Player 1 only"


def test_replay_command_steps_or_lists(tmp_path):
    save = _saved_game(tmp_path, "ribauds", ("--bots", "1,2", "--bot", "random"))
    stepped = CliRunner().invoke(app, ["replay", str(save), "--step"], input="n\nn\nq\n")
    assert stepped.exit_code == 0, stepped.output
    assert len(_headings(stepped.output)) == 3 and "Enter or n: next move" in stepped.output
    listed = CliRunner().invoke(app, ["replay", str(save), "--all"])
    moves = len(GameRecord.load(save).actions)
    assert listed.exit_code == 0
    # as the README says: the deal, then each move and the table after it
    assert _headings(listed.output) == [f"The deal ({moves} moves follow)"] + [
        f"Move {n} of {moves}" for n in range(1, moves + 1)]
    assert listed.output.count("╭") == moves + 1, "one table after the deal and each move"
    assert " wins by the " in listed.output
    assert "ribauds record: players 2, seed " in listed.output
    assert "takes the old card" not in listed.output, "everything shown: the card taken too"
    piped = CliRunner().invoke(app, ["replay", str(save)])  # not a terminal: the listing
    assert piped.output == listed.output
    for text in (stepped.output, listed.output):
        assert "replace 0" not in text and "peek 0" not in text, "slots shown as C1-C4"


def test_play_load_resumes_an_unfinished_game(tmp_path):
    """A game left after two moves resumes where it stopped, is saved back to its file, and
    ends as the same game (same seed, the first moves kept)."""
    save = tmp_path / "g.json"
    r = CliRunner().invoke(app, ["play", "regicide", "--seed", "11", "--save", str(save)],
                           input="1\n1\nquit\n")
    assert r.exit_code == 0 and "Game left unfinished" in r.output
    assert f"resume it with:\n  regalia play --load {save}\n" in r.output  # one line, unwrapped
    first = GameRecord.load(save)
    assert len(first.actions) == 2 and not REGICIDE.is_terminal(Match.from_record(REGICIDE, first).state)
    again = CliRunner().invoke(app, ["play", "--load", str(save)], input="1\n" * 400)
    assert again.exit_code == 0, again.output
    assert f"Resuming the Regicide game saved in {save} after 2 moves." in " ".join(again.output.split())
    assert "Victory" in again.output or "Defeat" in again.output
    done = GameRecord.load(save)
    assert done.seed == 11 and done.actions[:2] == first.actions and len(done.actions) > 2
    assert REGICIDE.is_terminal(Match.from_record(REGICIDE, done).state)
    over = CliRunner().invoke(app, ["play", "--load", str(save)])
    assert over.exit_code == 2 and "this game is over" in over.stderr and "regalia replay" in over.stderr


def test_play_load_keeps_the_bots(tmp_path):
    """A Ribauds game saved against a bot resumes against the same bot."""
    save = tmp_path / "r.json"
    r = CliRunner().invoke(app, ["play", "ribauds", "--bot", "random", "--seed", "4",
                                 "--save", str(save)], input="quit\n")  # the bot cannot end the game alone
    assert r.exit_code == 0, r.output
    record = json.loads(save.read_text())
    assert record["bots"] == {"1": "random"}
    again = CliRunner().invoke(app, ["play", "--load", str(save)], input="1\n" * 300)
    assert again.exit_code == 0 and re.search(r" wins? by the ", again.output)
    assert "Bot (random) thinks" in again.output and "Pass the keyboard" not in again.output
    assert RIBAUDS.is_terminal(Match.from_record(RIBAUDS, GameRecord.load(save)).state)


def test_play_load_refuses_contradicting_flags_and_bad_files(tmp_path):
    save = tmp_path / "g.json"
    CliRunner().invoke(app, ["play", "regicide", "--seed", "3", "--save", str(save)], input="quit\n")
    for args, word in ((["--players", "2"], "--players"), (["--seed", "4"], "--seed"),
                       (["ribauds"], "the saved game is regicide"),
                       (["--bots", "3"], "--bots")):
        r = CliRunner().invoke(app, ["play", *args, "--load", str(save)])
        assert r.exit_code == 2 and word in r.stderr, (args, r.stderr)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(save.read_text()), "bots": {"x": 1}}))
    r = CliRunner().invoke(app, ["play", "--load", str(bad)])
    assert r.exit_code == 2 and "bots:" in r.stderr
    r = CliRunner().invoke(app, ["play", "--load", str(tmp_path / "missing.json")])
    assert r.exit_code == 2 and "cannot read" in r.stderr


def test_a_records_ending_is_read_and_checked():
    """A record's ``ending`` (the players ended the game) is written only when there is one
    and read back; one that is no ending is refused, naming the field."""
    import pytest

    from regalia.core.errors import InvalidPosition
    from regalia.core.records import STOPPED, Ending

    plain = GameRecord("regicide", {"players": 2}, 5, [])
    assert "ending" not in plain.to_json()
    ended = GameRecord("regicide", {"players": 2}, 5, [], ending=Ending(STOPPED, 1))
    assert ended.to_json()["ending"] == {"how": "stopped", "seat": 1}
    assert GameRecord.from_json(ended.to_json()) == ended
    for bad in ({"how": "resigned", "seat": 0}, {"how": "stopped"}, {"how": "stopped", "seat": -1},
                {"how": "stopped", "seat": 2}, "stopped"):
        with pytest.raises(InvalidPosition, match="ending"):
            GameRecord.from_json({**plain.to_json(), "ending": bad})


def test_replay_names_the_player_as_the_game_did(tmp_path):
    """The one person of a game against bots was "You" while playing, or their --name:
    the replay of everything (no --seat) names them the same, never "Player 1"."""
    args = ("--bots", "2", "--bot", "random")
    save = _saved_game(tmp_path, "ribauds", args)
    r = CliRunner().invoke(app, ["replay", str(save), "--all"])
    assert r.exit_code == 0, r.output
    assert "Player 1" not in r.output
    assert "Your hand:" in r.output and "Bot (random)'s hand:" in r.output
    named = tmp_path / "named"
    named.mkdir()
    save = _saved_game(named, "ribauds", (*args, "--name", "Ann"))
    r = CliRunner().invoke(app, ["replay", str(save), "--all"])
    assert "Player 1" not in r.output and "Ann's hand:" in r.output
