"""Nothing lost: ``kill -9`` the server mid-game, start it again on the same database; every
table is rebuilt from its move log at the same ply, bots carry on, and browsers reconnect by
themselves and continue."""

from __future__ import annotations

import json
import random

import pytest
from websockets.sync.client import connect

from regalia.server.tables.audience import StateReader

from browser_helpers import click_regicide, page_state, regicide_choice, wait_ply, wait_state

pytestmark = pytest.mark.slow


class Seat:
    """A websocket client of one seat."""

    def __init__(self, server, table_id: str, token: str | None) -> None:
        self._cm = connect(f"{server.ws_url}/ws/{table_id}", open_timeout=10)
        self.ws = self._cm.__enter__()
        # named (a Regicide seat with other players is named before it sees its hand)
        self.ws.send(json.dumps({"type": "hello", "token": token, "name": "Seated"}))
        self.state = None
        self.reader = StateReader()
        self.until(lambda m: m["type"] == "state")

    def until(self, pred, timeout: float = 15):
        while True:
            m = self.reader.read(json.loads(self.ws.recv(timeout=timeout)))
            if m["type"] == "state":
                self.state = m
            if pred(m):
                return m

    def at(self, ply: int):
        if self.state["ply"] < ply:
            self.until(lambda m: m["type"] == "state" and m["ply"] >= ply)
        return self.state

    def close(self):
        self._cm.__exit__(None, None, None)


def play(seats, n, rng):
    """``n`` moves of the seats to act (a bot may take other seats' turns)."""
    for _ in range(n):
        st = max((s.state for s in seats.values()), key=lambda m: m["ply"])
        if st["finished"]:
            return
        s = seats.get(st["current"])
        if s is None:
            next(iter(seats.values())).at(st["ply"] + 1)
            continue
        mine = s.at(st["ply"])
        s.ws.send(json.dumps({"type": "act", "ply": mine["ply"], "action": rng.choice(mine["legal"])}))
        for other in seats.values():
            other.at(st["ply"] + 1)


def test_kill_9_loses_no_accepted_move(server):
    rng = random.Random(2)
    d = server.create("regicide", ["human", "human"])
    duo = {k: Seat(server, d["id"], d["seats"][k]["token"]) for k in (0, 1)}
    b = server.create("regicide", ["human", "heuristic"])
    with_bot = {0: Seat(server, b["id"], b["seats"][0]["token"])}
    r = server.create("ribauds", ["human", "human"])
    rib = {k: Seat(server, r["id"], r["seats"][k]["token"]) for k in (0, 1)}
    for s in (duo[0], rib[0]):  # a table waits until each seat was opened: now it starts
        s.until(lambda m: m["type"] == "state" and not m["waiting"])
    play(duo, 6, rng)
    play(with_bot, 3, rng)
    play(rib, 4, rng)
    seen = {d["id"]: duo[0].state, b["id"]: with_bot[0].state, r["id"]: rib[0].state}
    # the last move was acknowledged (broadcast): now the power goes
    server.kill9()
    for s in [*duo.values(), *with_bot.values(), *rib.values()]:
        try:
            s.close()
        except Exception:
            pass
    server.start()
    for table_id, before in seen.items():
        stored = server.get(f"/api/tables/{table_id}")["ply"]
        if table_id == b["id"]:  # its bot may have moved after the last state this seat saw
            assert stored >= before["ply"]
        else:
            assert stored == before["ply"]
    again = {k: Seat(server, d["id"], d["seats"][k]["token"]) for k in (0, 1)}
    assert again[0].state["ply"] == seen[d["id"]]["ply"]
    assert again[0].state["view"] == seen[d["id"]]["view"]
    play(again, 4, rng)
    assert again[0].state["ply"] > seen[d["id"]]["ply"] or again[0].state["finished"]
    # the bot's table carries on after the restart
    bot_seat = Seat(server, b["id"], b["seats"][0]["token"])
    if not bot_seat.state["finished"]:
        ply = bot_seat.state["ply"]
        play({0: bot_seat}, 2, rng)
        assert bot_seat.state["ply"] > ply
    rib_again = Seat(server, r["id"], r["seats"][0]["token"])
    assert rib_again.state["view"] == seen[r["id"]]["view"]


def test_a_browser_reconnects_by_itself_and_continues(server, chromium, shots):
    d = server.create("regicide", ["human"])
    ctx = chromium.new_context(viewport={"width": 1100, "height": 850})
    page = ctx.new_page()
    page.goto(server.url + d["seats"][0]["link"])
    st = wait_state(page)
    rng = random.Random(4)
    for _ in range(2):
        click_regicide(page, regicide_choice(st["view"], st["legal"], rng))
        wait_ply(page, st["ply"] + 1)
        st = page_state(page)
    before = st["ply"]
    server.kill9()
    page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'reconnecting'", timeout=15000)
    shots(page, "restart-reconnecting")
    server.start()
    page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'online'", timeout=30000)
    wait_ply(page, before)
    st = page_state(page)
    assert st["ply"] == before
    if not st["finished"]:
        click_regicide(page, regicide_choice(st["view"], st["legal"], rng))
        wait_ply(page, before + 1)
    shots(page, "restart-continued")
    ctx.close()


def test_a_turn_based_game_goes_on_across_a_restart(server, chromium, shots):
    """A turn-based table (1 day per move) in the browser: killed and started again, the
    page reconnects at the same ply with the same deadline (real time counts: only the
    seconds the server was down are gone), and the next move gives a whole day again."""
    d = server.create("regicide", ["human"], clock="day")
    ctx = chromium.new_context(viewport={"width": 1100, "height": 850})
    page = ctx.new_page()
    page.goto(server.url + d["seats"][0]["link"])
    st = wait_state(page)
    rng = random.Random(6)
    click_regicide(page, regicide_choice(st["view"], st["legal"], rng))
    wait_ply(page, st["ply"] + 1)
    page.wait_for_selector("#per-move")
    before = server.get(f"/api/tables/{d['id']}")
    assert before["clock"]["per_move"] and before["clock"]["started"]
    server.kill9()
    page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'reconnecting'", timeout=15000)
    server.start()
    page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'online'", timeout=30000)
    wait_ply(page, before["ply"])
    after = server.get(f"/api/tables/{d['id']}")
    assert after["ply"] == before["ply"] and after["clock"]["running"] == before["clock"]["running"]
    r = before["clock"]["running"]
    lost = before["clock"]["remaining"][r] - after["clock"]["remaining"][r]
    assert 0 <= lost < 120, (before["clock"], after["clock"])  # the same deadline
    assert page.text_content("#per-move") == "Turn-based: 1 day per move"
    st = page_state(page)
    if not st["finished"]:
        click_regicide(page, regicide_choice(st["view"], st["legal"], rng))
        wait_ply(page, st["ply"] + 1)
        again = server.get(f"/api/tables/{d['id']}")["clock"]
        if again["running"] is not None:  # a whole day for the next move
            assert again["remaining"][again["running"]] > 86400 - 60, again
    shots(page, "restart-turn-based")
    ctx.close()
