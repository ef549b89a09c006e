"""The game's integrity as a player sees it in Chromium: a game a bot played for a person
shows no medal and its log says "Bot for NAME" (live and in the replay, in the site's
languages); the clock of the player to act is not charged the time the server was down; a
table waiting for its players says so, and nobody is "to act"."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from regalia.core.records import Match
from regalia.games import get_game
from regalia.lab.solve import solve_seed
from regalia.server.storage.store import Store
from regalia.server.storage.values import NewSeat

from browser_helpers import open_seat, page_state, wait_state

pytestmark = pytest.mark.slow

SEED = 2227728569  # a solo deal the solver wins (tests/server/test_hints.py)


def post(server, path: str, body: dict) -> dict:
    req = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.load(r)


def test_a_won_game_a_bot_played_part_of_shows_no_medal_and_says_bot_for(server, chromium, shots):
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
    log = page.inner_text("#log")  # (this browser's nickname, Tester, named the seat)
    lines = log.splitlines()
    assert any(x.startswith("Bot for Tester ") for x in lines) and "medal" not in log.lower()
    assert any(x.startswith("Tester plays") for x in lines)  # the player's own moves
    page.context.close()
    # the replay, in Portuguese
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="pt-BR")
    replay = ctx.new_page()
    replay.goto(f"{server.url}/replay/{data.id}")
    replay.wait_for_function("() => document.querySelectorAll('#log li').length > 0")
    replay.locator("#slider").fill(str(len(line)))
    replay.wait_for_function("() => document.querySelector('#log').textContent.includes('Bot no lugar de Tester')")
    shots(replay, "bot-played-replay-pt")
    ctx.close()


def test_after_letting_a_bot_play_the_log_says_bot_for_the_player(server, chromium, shots):
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table, locale="es-ES")
    page.once("dialog", lambda d: d.accept())
    page.click("#hand-to-bot")
    page.wait_for_function("() => window.regalia.M.state.ply >= 2", timeout=30000)
    page.wait_for_function("() => document.querySelector('#log').textContent.includes('Bot en lugar de Tester')")
    shots(page, "bot-for-log-es", full_page=False)
    page.context.close()


def test_the_time_the_server_was_down_is_not_charged_to_the_player_to_act(server, chromium):
    d = post(server, "/api/tables", {"game": "regicide", "players": 2, "clock": "blitz",
                                     "seats": [{"kind": "human"}, {"kind": "human"}]})
    pages = [open_seat(chromium, server, d, k) for k in (0, 1)]
    page = pages[0]
    page.wait_for_function("() => window.regalia.M.state.clock.started")
    running = page_state(page)["clock"]["running"]
    before = server.get(f"/api/tables/{d['id']}")["clock"]["remaining"][running]
    server.kill9()
    time.sleep(12)  # the server is down
    restarting = time.monotonic()
    server.start()
    page.wait_for_function("() => window.regalia.M.status === 'online'", timeout=30000)
    after = server.get(f"/api/tables/{d['id']}")["clock"]["remaining"][running]
    serving = time.monotonic() - restarting  # at most this since the table was loaded
    # charged only the time the server served (it was charged 12 s more)
    assert before - after < serving + 1, (before, after, serving)
    shown = page.inner_text(f"#clock-{running} .clock-time")
    minutes, seconds = (int(x) for x in shown.split(":"))
    assert before - (minutes * 60 + seconds) < time.monotonic() - restarting + 2, (shown, before)
    for p in pages:
        p.context.close()


def test_the_creator_of_an_open_table_waits_for_players(server, chromium, shots):
    d = post(server, "/api/tables", {"game": "ribauds", "players": 2, "open": True,
                                     "seats": [{"kind": "human"}, {"kind": "human"}]})
    page = open_seat(chromium, server, d)
    page.wait_for_selector(".prompt")
    prompt = page.inner_text(".prompt")
    assert prompt == "Waiting for players: the game starts when every seat is taken.", prompt
    assert page.locator(".tag.turn").count() == 0  # nobody is "to act"
    assert "bot" not in prompt.lower()
    shots(page, "open-table-waiting", full_page=False)
    page.context.close()


def test_a_private_table_waits_for_its_invitee_or_starts_with_a_bot(server, chromium, shots):
    d = post(server, "/api/tables", {"game": "regicide", "players": 2, "clock": "blitz",
                                     "seats": [{"kind": "human"}, {"kind": "human"}]})
    page = open_seat(chromium, server, d)
    page.wait_for_selector(".prompt")
    assert page.inner_text(".prompt") == (
        "Waiting for players: Player 2 has not opened their invitation yet. Send it with the "
        "Invite button, or let a bot play that seat to start now.")
    assert page.locator(".tag.turn").count() == 0 and page_state(page)["legal"] == []
    shots(page, "private-table-waiting", full_page=False)
    # start with a bot for the invitation not opened: the game and the clocks start
    page.click('.player[data-seat="1"] .link-btn')
    page.wait_for_function("() => !window.regalia.M.state.waiting && window.regalia.M.state.clock.started")
    page.wait_for_function("() => window.regalia.M.state.current === 0", timeout=20000)
    assert page.locator(".tag.turn").count() == 1
    assert "Waiting for players" not in page.inner_text(".prompt")
    page.context.close()


def test_a_private_table_starts_when_the_invitee_opens_it(server, chromium):
    d = server.create("ribauds", ["human", "human"])
    page = open_seat(chromium, server, d)
    page.wait_for_selector(".prompt")
    assert page.inner_text(".prompt").startswith("Waiting for players: Player 2 has not opened")
    friend = open_seat(chromium, server, d, 1)
    page.wait_for_function("() => !window.regalia.M.state.waiting")
    page.wait_for_function("() => !document.querySelector('.prompt').textContent.includes('Waiting for players')")
    assert page.locator(".tag.turn").count() == 1
    friend.context.close()
    page.context.close()
