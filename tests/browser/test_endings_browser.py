"""Ending a game before its rules do, in the browser: the Concede button of a Ribauds table
(with its confirmation), and Regicide's "Propose to stop" with the other player's Agree /
Keep playing; each page says how the game ended, in its own language, and so does the
lobby's list of the player's tables."""

from __future__ import annotations

import pytest

from browser_helpers import open_seat, page_state, wait_state

pytestmark = pytest.mark.slow


def confirm_dialogs(page, said: list[str]) -> None:
    """Accept every confirmation the page asks, keeping its text."""
    page.on("dialog", lambda d: (said.append(d.message), d.accept()))


def test_a_ribauds_player_concedes_and_both_pages_say_who_won(server, chromium, shots):
    table = server.create("ribauds", ["human", "human"])
    a = open_seat(chromium, server, table, 0, nickname="Ann")
    b = open_seat(chromium, server, table, 1, nickname="Bea", locale="es-ES")
    errors: list[str] = []
    for p in (a, b):
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.wait_for_function("() => !window.regalia.M.state.waiting")
    assert a.locator("#concede-btn").is_visible() and not a.locator("#stop-btn").is_visible()
    said: list[str] = []
    a.once("dialog", lambda d: (said.append(d.message), d.dismiss()))
    a.click("#concede-btn")  # dismissed: nothing is sent
    a.wait_for_timeout(300)
    assert said == ["Concede this game? Your opponent wins and the game ends."]
    assert not page_state(b)["finished"]
    confirm_dialogs(a, said)
    a.click("#concede-btn")
    for p in (a, b):
        p.wait_for_selector("#end[open]")
        p.wait_for_selector("#end-conceded")
    st = page_state(b)
    assert st["outcome"]["ending"] == {"how": "conceded", "seat": 0} and st["outcome"]["winner"] == 1
    assert "You lose" in a.inner_text("#end") and "Ann (you) conceded." in a.inner_text("#end")
    assert "¡Has ganado!" in b.inner_text("#end") and "Ann se rindió." in b.inner_text("#end-conceded")
    assert "Ann conceded." in a.inner_text("#log") and "Ann se rindió." in b.inner_text("#log")
    shots(a, "ribauds-conceded", full_page=False)
    for p in (a, b):
        p.keyboard.press("Escape")
    assert not a.locator("#concede-btn").is_visible()
    assert "conceded" in a.inner_text(".prompt")
    # the replay's last step says it too
    a.goto(server.url + f"/replay/{table['id']}")
    a.wait_for_function("() => document.querySelector('#log') && "
                        "document.querySelector('#log').textContent.includes('Ann conceded.')")
    assert "Ann conceded." in a.inner_text("#step-action")
    # the lobby's list of this browser's tables says how it ended
    a.goto(server.url + "/")
    a.wait_for_function("() => document.querySelector('#my-tables') && "
                        "document.querySelector('#my-tables').textContent.includes('conceded')")
    assert not errors, errors


def test_regicide_players_decline_then_agree_to_stop(server, chromium, shots):
    table = server.create("regicide", ["human", "human"])
    a = open_seat(chromium, server, table, 0, nickname="Ann")
    b = open_seat(chromium, server, table, 1, nickname="Bea", locale="pt-BR")
    errors: list[str] = []
    said: list[str] = []
    for p in (a, b):
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.wait_for_function("() => !window.regalia.M.state.waiting")
        confirm_dialogs(p, said)
    assert a.locator("#stop-btn").is_visible() and not a.locator("#concede-btn").is_visible()
    a.click("#stop-btn")
    assert said[-1].startswith("Propose to the other players to stop this game?")
    b.wait_for_selector("#stop-accept")
    assert "Ann propõe parar" in b.inner_text("#stop-offer")
    a.wait_for_selector("#stop-withdraw")
    assert not a.locator("#stop-btn").is_visible()  # one proposal at a time
    shots(b, "regicide-stop-proposed", full_page=False)
    b.click("#stop-decline")
    a.wait_for_selector(".toast >> text=Bea wants to keep playing")
    for p in (a, b):
        p.wait_for_function("() => !window.regalia.M.state.stop")
    assert a.locator("#stop-offer").count() == 0 and not page_state(a)["finished"]
    a.click("#stop-btn")
    b.wait_for_selector("#stop-accept")
    b.click("#stop-accept")
    for p in (a, b):
        p.wait_for_selector("#end-stopped")
    st = page_state(a)
    assert st["outcome"]["ending"] == {"how": "stopped", "seat": 0}
    assert st["outcome"]["result"] == "lost"
    assert "Stopped" in a.inner_text("#end") and "everyone agreed" in a.inner_text("#end")
    assert "interrompido" in b.inner_text("#end").lower()
    assert "Ann proposed to stop and everyone agreed: the game is stopped." in a.inner_text("#log")
    shots(a, "regicide-stopped", full_page=False)
    assert not errors, errors


def test_alone_with_a_bot_the_regicide_player_stops_at_once(server, chromium):
    table = server.create("regicide", ["human", "random"])
    page = open_seat(chromium, server, table, 0)
    said: list[str] = []
    confirm_dialogs(page, said)
    wait_state(page)
    page.click("#stop-btn")
    page.wait_for_selector("#end-stopped")
    assert said == ["Stop this game? It ends and counts as a loss."]
    assert page_state(page)["outcome"]["ending"] == {"how": "stopped", "seat": 0}
