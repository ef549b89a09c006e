"""A solo table "with hints" in the browser: the lobby offers the option
for solo Regicide only; the Hint button selects the suggested cards and says the move, why,
and how often it wins in sampled games against the next best move."""

from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest

from browser_helpers import Server, open_seat, page_state, wait_ply, wait_state
from serve_process import free_port

pytestmark = pytest.mark.slow


def test_the_hint_button_selects_the_suggested_move(server, chromium, shots):
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    assert page.locator("#hints-option").is_visible()       # solo Regicide: offered
    page.click('.seg[data-players="2"]')
    assert page.locator("#opt-hints").is_disabled()         # not at 2 players, and it says so
    assert "Solo tables only" in page.inner_text("#hints-option")
    page.click('label[for="game-ribauds"]')
    assert not page.locator("#hints-option").is_visible()   # not a Ribauds option at all
    page.click('label[for="game-regicide"]')
    page.click('.seg[data-players="1"]')
    page.check("#opt-hints")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    st = wait_state(page)
    assert st["hints"] is True
    page.click("#act-hint")
    page.wait_for_selector(".toast strong:text('Hint')")
    detail = page.inner_text(".toast .toast-detail")
    st = page_state(page)
    selected = page.locator(".hand .card.in-hand.selected").count()
    # the move in words, the reason, and how often it wins (and the next best) in the
    # sampled games: "Play 5♣ — Clubs double the damage to 10: ... (wins in 62% of ...)"
    line = re.fullmatch(r"(.+?) — (.+) \(wins in (\d+)% of sampled games(?:; next best: (.+) (\d+)%)?\)",
                        detail)
    assert line, detail
    move = line.group(1)
    if move.startswith("Play "):
        assert selected >= 1 and page.locator("#act-play").is_enabled()
    else:
        assert move == "Use the Jester: a new hand"
    assert 0 <= int(line.group(3)) <= 100 and line.group(4) != move.lower()
    shots(page, "hints-solo-phone", full_page=False)
    # the same hint in another language: the reason and the chances are translated
    page.select_option("#lang", "es")
    page.wait_for_function("() => !document.querySelector('#act-hint').disabled")
    page.click("#act-hint")
    page.wait_for_function("() => [...document.querySelectorAll('.toast.hint .toast-detail')]"
                           ".some((n) => n.textContent.includes('partidas simuladas'))")
    spanish = page.locator(".toast.hint .toast-detail").last.inner_text()
    assert re.fullmatch(r"(Juega .+|Usa el Bufón: una mano nueva) — .+ \(gana en el \d+% de las "
                        r"partidas simuladas(; la siguiente mejor: .+, \d+%)?\)", spanish), spanish
    page.select_option("#lang", "en")
    shown = page.locator(".toast.hint").count()
    page.locator(".toast.hint").last.click()               # read: a click puts it away
    assert page.locator(".toast.hint").count() == shown - 1
    if move.startswith("Play "):
        page.click("#act-play")
        wait_ply(page, st["ply"] + 1)
        assert page.locator(".toast.hint").count() == 0   # the hint was for the last ply
    assert not errors, errors
    ctx.close()


def test_the_replay_analyses_a_players_decisions(server, chromium, shots):
    table = server.create("regicide", ["heuristic"])
    for _ in range(300):
        if server.get(f"/api/tables/{table['id']}")["status"] == "finished":
            break
        time.sleep(0.1)
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="pt-BR")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + f"/replay/{table['id']}")
    page.wait_for_selector("#analysis-panel:not([hidden])")
    page.click("#analyse-btn")
    page.wait_for_selector(".analysis-item", timeout=90000)
    items = page.locator(".analysis-item")
    assert items.count() >= 1
    assert re.search(r"\d+% de vitória \(\d+–\d+%\)", items.first.inner_text())  # its interval
    assert page.locator(".analysis-item.marked").count() <= 3
    first = items.first.get_attribute("id")
    items.first.click()
    index = int(first.split("-")[1])
    assert page.input_value("#slider") == str(index + 1)  # the position after the move it names
    page.select_option("#lang", "es")                     # the panel follows the language
    page.wait_for_function("() => document.getElementById('analysis').textContent.includes('% de ganar')")
    assert "Decisiones de Bot (heurístico)" in page.inner_text("#analysis-status")
    shots(page, "replay-analysis-pt-BR", full_page=False)
    assert not errors, errors
    ctx.close()


def test_a_hint_over_the_limit_says_which_limit_and_how_long_to_wait(tmp_path, chromium):
    """The toast of a refused hint names the hints' limit and the seconds to wait (it said
    "Too many messages: wait a moment")."""
    srv = Server(tmp_path / "regalia.sqlite3", free_port(), extra=("--hint-rate", "1/minute"))
    srv.start()
    try:
        body = {"game": "regicide", "players": 1, "hints": True, "seats": [{"kind": "human"}]}
        req = urllib.request.Request(srv.url + "/api/tables", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            table = json.load(r)
        page = open_seat(chromium, srv, table, 0)
        page.click("#act-hint")
        page.wait_for_selector(".toast strong:text('Hint')")
        page.wait_for_function("() => !document.querySelector('#act-hint').disabled")
        page.click("#act-hint")
        title = page.wait_for_selector(".toast.error strong").inner_text()
        assert title.startswith("Too many hints (at most 1 per minute): try again in "), title
        assert title.endswith(" s") and 1 <= int(title.split()[-2]) <= 60
        page.context.close()
    finally:
        srv.stop()
