"""The game log kept as the moves come (nothing computed twice for the
same ply): a table reads each move's new events once (``events_since``) and a view is built
without its log (``Game.view(..., log=False)``); the log a seat is sent is the one
``Game.view`` gives, for every seat and ply of random games of both games."""

from __future__ import annotations

import random

import pytest

from regalia.core.game import events_since, log_events
from regalia.games import get_game


@pytest.mark.parametrize("game,players", [("regicide", 1), ("regicide", 4), ("ribauds", 2)])
def test_events_since_walks_only_the_new_events_and_rebuilds_the_log(game, players):
    g, rng = get_game(game), random.Random(players)
    for _ in range(20):
        s = g.new_game({"players": players}, rng)
        kept = events_since(s.log, None)
        while not g.is_terminal(s):
            legal = list(g.legal_actions(s))
            after, _ = g.apply(s, legal[rng.randrange(len(legal))], rng)
            kept += events_since(after.log, s.log)
            s = after
            for seat in (None, *range(players)):
                view = g.view(s, seat)
                assert [e.seen_by(seat) for e in kept] == view["log"]
                assert g.view(s, seat, log=False) == {k: v for k, v in view.items() if k != "log"}
        assert kept == log_events(s.log)


def test_events_since_refuses_a_log_of_another_game():
    g, rng = get_game("regicide"), random.Random(1)
    a, b = g.new_game({"players": 1}, rng), g.new_game({"players": 1}, rng)
    with pytest.raises(ValueError):
        events_since(a.log, b.log)
