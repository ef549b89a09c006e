"""Bot levels in the terminal: ``regalia levels`` lists them with what each plays,
``regalia play --bot LEVEL`` seats the level's bot (kept by its level's name in the saved
record), a person at a terminal is asked which level (Enter: the game's default, medium in
Le Roy des Ribauds), and an unknown level is refused with the names allowed."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from regalia.bots import LEVEL_NAMES, level_descriptions
from regalia.cli import app as cli
from regalia.cli.app import app, read_level
from regalia.core.records import GameRecord, Match
from regalia.games import get_game


def test_levels_lists_each_level_with_what_it_plays_and_the_suggested_one():
    r = CliRunner().invoke(app, ["levels"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    for game, title in (("regicide", "Regicide"), ("ribauds", "Le Roy des Ribauds")):
        start = lines.index(f"{title} (regalia play {game} --bot LEVEL):")
        shown = lines[start + 1:start + 5]
        for i, (level, text) in enumerate(level_descriptions(game).items()):
            assert shown[i].split()[:2] == [str(i + 1), level]
            assert text in shown[i]
    ribauds = r.output[r.output.index("Le Roy des Ribauds"):]
    medium = next(line for line in ribauds.splitlines() if " medium " in line)
    assert medium.endswith("(suggested)")
    assert not any(line.endswith("(suggested)") and " strongest " in line
                   for line in ribauds.splitlines())
    assert "hard = ismcts(iterations=40)" in ribauds
    one = CliRunner().invoke(app, ["levels", "ribauds"])
    assert one.exit_code == 0 and "Regicide" not in one.output


@pytest.mark.parametrize("level", [lv for lv in LEVEL_NAMES if lv != "strongest"])
def test_a_ribauds_game_between_two_bots_of_a_level_is_played_and_kept_by_level(tmp_path, level):
    """(``strongest`` thinks 0.2 s a move here: it is seated in the next tests.)"""
    save = tmp_path / "game.json"
    args = ["play", "ribauds", "--bots", "1,2", "--bot", level, "--seed", "4", "--save", str(save)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].startswith(
        f"Le Roy des Ribauds: Bot 1 ({level}), Bot 2 ({level}).")
    record = GameRecord.load(save)
    assert record.bots == {0: level, 1: level}
    g = get_game("ribauds")
    assert g.is_terminal(Match.from_record(g, record).state)


def test_a_regicide_game_with_the_hard_level_is_played_to_the_end(tmp_path):
    save = tmp_path / "game.json"
    r = CliRunner().invoke(app, ["play", "regicide", "--bots", "1", "--bot", "hard",
                                 "--seed", "11", "--save", str(save)])
    assert r.exit_code == 0, r.output
    assert "Bot (hard)" in r.output.splitlines()[0]
    record = GameRecord.load(save)
    g = get_game("regicide")
    assert record.bots == {0: "hard"} and g.is_terminal(Match.from_record(g, record).state)


def test_a_game_resumed_seats_the_level_it_was_saved_with(tmp_path):
    save = tmp_path / "game.json"
    CliRunner().invoke(app, ["play", "ribauds", "--bot", "easy", "--seed", "2", "--save",
                             str(save)], input="quit\n")
    assert GameRecord.load(save).bots == {1: "easy"}
    again = CliRunner().invoke(app, ["play", "--load", str(save)], input="quit\n")
    assert again.exit_code == 0, again.output
    assert "Bot (easy)" in again.output


@pytest.mark.parametrize("game", ["ribauds", "regicide"])
def test_the_strongest_level_takes_a_seat(game):
    args = ["play", game, "--players", "2", "--bots", "2", "--bot", "strongest", "--seed", "3"]
    r = CliRunner().invoke(app, args, input="quit\n")
    assert r.exit_code == 0, r.output
    assert "You, Bot (strongest)." in r.output


def test_an_unknown_level_is_refused_naming_the_levels_and_bots():
    r = CliRunner().invoke(app, ["play", "ribauds", "--bot", "expert"])
    assert r.exit_code == 2
    assert r.stderr.strip() == ("unknown ribauds bot 'expert'; choose a level (easy, medium, "
                                "hard, strongest) or a bot (heuristic, ismcts, random, "
                                "tactical)")


def test_without_bot_the_ribauds_opponent_is_medium_and_the_old_names_still_work():
    r = CliRunner().invoke(app, ["play", "ribauds", "--seed", "2"], input="quit\n")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].startswith("Le Roy des Ribauds: You, Bot (medium).")
    old = CliRunner().invoke(app, ["play", "ribauds", "--bot", "tactical", "--seed", "2"],
                             input="quit\n")
    assert "You, Bot (tactical)." in old.output


def test_the_answers_to_the_level_question():
    assert read_level("ribauds", "") == "medium"        # Enter: the default level
    assert read_level("regicide", "") == "strongest"
    assert read_level("ribauds", "1") == "easy"
    assert read_level("ribauds", " 4 ") == "strongest"
    assert read_level("ribauds", "Hard") == "hard"
    assert read_level("ribauds", "ismcts") == "ismcts"  # a bot by its name
    assert read_level("ribauds", "5") is None
    assert read_level("ribauds", "expert") is None


def test_a_person_at_a_terminal_is_asked_the_level(monkeypatch):
    monkeypatch.setattr(cli, "_interactive", lambda: True)
    r = CliRunner().invoke(app, ["play", "ribauds", "--seed", "2"], input="9\nhard\nquit\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "How well should the bot play? The levels of Le Roy des Ribauds:" in out
    assert "2  medium     takes a sure win, avoids handing you one  (suggested)" in out
    assert "'9' is no level here" in out
    assert "Le Roy des Ribauds: You, Bot (hard)." in out
    enter = CliRunner().invoke(app, ["play", "ribauds", "--seed", "2"], input="\nquit\n")
    assert "You, Bot (medium)." in enter.output
    given = CliRunner().invoke(app, ["play", "ribauds", "--bot", "easy", "--seed", "2"],
                               input="quit\n")
    assert "How well" not in given.output  # --bot answers it
