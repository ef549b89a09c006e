"""The game's integrity as a player sees it in Chromium: a game a bot played for a person
shows no medal."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from regalia.core.records import Match
from regalia.games import get_game
from regalia.lab.solve import solve_seed
from regalia.server.storage.models import NewSeat
from regalia.server.storage.store import Store

from browser_helpers import open_seat, page_state, wait_state

pytestmark = pytest.mark.slow

SEED = 2227728569  # a solo deal the solver wins (tests/server/test_hints.py)


def post(server, path: str, body: dict) -> dict:
    req = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.load(r)


def test_a_won_game_a_bot_played_part_of_shows_no_medal(server, chromium, shots):
    # a solo game won along the solver's line, its last moves played by a bot for the player
    # (as the server stores them when "Let a bot play for me" was used)
    line = solve_seed(SEED, time_limit=30).line
    handed = len(line) - 4
    game = get_game("regicide")
    store = Store(f"sqlite:///{server.db}")
    data, tokens = store.new_table("regicide", {"players": 1}, SEED,
                                   [NewSeat("human", name="Alice", claimed=True)])
    m = Match(game, {"players": 1}, SEED)
    for ply, action in enumerate(line):
        m.play(action)
        store.append_move(data.id, ply, 0, action, game.is_terminal(m.state),
                          by_bot=ply >= handed)
    store.close()
    assert game.outcome(m.state)["medal"]  # played by a person alone, it would earn one
    page = open_seat(chromium, server, {"seats": [{"link": f"/t/{data.id}#s={tokens[0]}"}]})
    page.wait_for_selector("#bot-no-medal")
    st = page_state(page)
    assert st["finished"] and st["outcome"]["result"] == "won" and not st["outcome"]["medal"]
    assert page.locator(".medal").count() == 0
    assert "A bot played for a person in this game: no medal." in page.inner_text("#bot-no-medal")
    shots(page, "bot-played-no-medal", full_page=False)
    page.keyboard.press("Escape")
    assert "medal" not in page.inner_text("#log").lower()
    page.context.close()


