"""The bot levels for people (``regalia.bots.levels``): every game has the four levels, each
an existing bot with the parameters the table gives it; ``make_bot`` builds them under their
level's name, refuses an unknown name by listing the levels and the bots, and the levels
with a fixed amount of search keep it whatever thinking time they are given."""

from __future__ import annotations

import random

import pytest

from regalia.bots import (
    LEVEL_NAMES,
    bot_choices,
    bot_names,
    default_level,
    level_descriptions,
    level_names,
    make_bot,
)
from regalia.bots.levels import LEVELS, level_of
from regalia.core.records import Match
from regalia.games import GAME_NAMES, get_game

PAIRS = [(g, lv) for g in GAME_NAMES for lv in LEVEL_NAMES]


def test_every_game_has_the_four_levels_weakest_first():
    assert LEVEL_NAMES == ("easy", "medium", "hard", "strongest")
    assert set(LEVELS) == set(GAME_NAMES)
    for game in GAME_NAMES:
        assert level_names(game) == list(LEVEL_NAMES)
        assert list(level_descriptions(game)) == list(LEVEL_NAMES)
        assert all(d.strip() for d in level_descriptions(game).values())
        # a level is another accepted name, before the bots' own names, which stay
        assert bot_choices(game) == list(LEVEL_NAMES) + bot_names(game)
        assert not set(LEVEL_NAMES) & set(bot_names(game))


@pytest.mark.parametrize("game,level", PAIRS)
def test_a_level_is_its_bot_built_with_the_level_parameters(game, level):
    spec = level_of(game, level)
    assert spec.bot in bot_names(game)
    bot = make_bot(game, level)
    plain = make_bot(game, spec.bot)
    assert type(bot) is type(plain)
    assert bot.name == level  # the name it was asked by: "Bot (medium)" at the tables
    for key, value in spec.params.items():
        assert getattr(bot, key) == value, key


def test_the_levels_are_the_bots_named_in_their_documentation():
    got = {g: {lv: (level_of(g, lv).bot, dict(level_of(g, lv).params)) for lv in LEVEL_NAMES}
           for g in GAME_NAMES}
    assert got["ribauds"] == {"easy": ("random", {}), "medium": ("heuristic", {}),
                              "hard": ("ismcts", {"iterations": 40}),
                              "strongest": ("ismcts", {})}
    assert got["regicide"] == {"easy": ("simple", {}), "medium": ("heuristic", {}),
                               "hard": ("montecarlo", {"iterations": 16}),
                               "strongest": ("montecarlo", {})}


def test_the_strongest_level_is_the_bot_the_tables_seat_by_default():
    from regalia.bots import default_bot

    for game in GAME_NAMES:
        spec = level_of(game, "strongest")
        assert spec.bot == default_bot(game) and not spec.params


def test_the_default_level_of_ribauds_is_medium_not_the_strongest():
    assert default_level("ribauds") == "medium"
    # Regicide is cooperative: the bot is the person's partner, the strongest helps most
    assert default_level("regicide") == "strongest"
    assert default_level("chess") is None


def test_an_unknown_level_is_refused_with_the_levels_and_bots_allowed():
    with pytest.raises(KeyError) as e:
        make_bot("ribauds", "extreme")
    message = e.value.args[0]
    assert message == ("unknown ribauds bot 'extreme'; choose a level (easy, medium, hard, "
                       "strongest) or a bot (heuristic, ismcts, random, tactical)")
    with pytest.raises(KeyError, match="choose a level .easy, medium, hard, strongest."):
        make_bot("regicide", "Medium")  # names are exact


@pytest.mark.parametrize("game,level", PAIRS)
def test_every_level_chooses_a_legal_action_from_a_seat_view(game, level):
    g = get_game(game)
    match = Match(g, {"players": 2}, 7)
    bot = make_bot(game, level)
    rng = random.Random(1)
    for _ in range(3):
        st = match.state
        seat = g.current_seat(st)
        legal = list(g.legal_actions(st))
        action = bot.act(g.view(st, seat), legal, rng, 0.01)
        assert action in legal
        match.play(action)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_hard_level_searches_a_fixed_amount_whatever_the_time_given(game):
    """The tables give every bot the site's thinking time: ``hard`` keeps its own fixed
    search, the same on a fast or a slow machine (``strongest`` thinks for the time)."""
    g = get_game(game)
    bot = make_bot(game, "hard")
    count = "last_worlds" if game == "regicide" else "last_iterations"  # the search's work
    match = Match(g, {"players": 2}, 11)
    rng = random.Random(2)
    searched = 0
    while searched < 2 and not g.is_terminal(match.state):
        st = match.state
        legal = list(g.legal_actions(st))
        setattr(bot, count, 0)
        action = bot.act(g.view(st, g.current_seat(st)), legal, rng, 0.0)
        if getattr(bot, count):  # a decision that searched (not a sure win, not forced)
            assert getattr(bot, count) == level_of(game, "hard").params["iterations"]
            searched += 1
        match.play(action)
    assert searched == 2
