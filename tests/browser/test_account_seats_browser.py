"""An account's tables in another browser: a table created and opened in one browser signed
up to an account is listed in "My tables" and "Your turn" of another browser (no
localStorage of it, no token) once signed in to the same account, and opens there at its
seat, where a move is played; a browser signed out gets no seat at /t/ID."""

from __future__ import annotations

import sqlite3

import pytest

from browser_helpers import Server, click_ribauds, free_port, page_state, wait_ply

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"


def sign_in_dialog(page, name: str, button: str) -> None:
    page.wait_for_selector("#sign-in-open")
    page.click("#sign-in-open")
    page.fill("#account-name-input", name)
    page.fill("#account-password", PASSWORD)
    page.click(button)
    page.wait_for_selector("#account-name")
    assert page.text_content("#account-name") == name


def test_another_browser_of_the_account_lists_its_table_and_plays_a_move(server, chromium, shots):
    a = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = a.new_page()
    page.goto(server.url + "/")
    sign_in_dialog(page, "Roamer", "#sign-up")
    table = page.evaluate("""async () => {
        const r = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ game: "ribauds", players: 2, seats: [{ kind: "human" }, { kind: "bot", bot: "random" }] }) });
        return r.json();
    }""")
    page.goto(server.url + table["seats"][0]["link"])  # signed in: the page adopts the seat
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    for _ in range(50):
        with sqlite3.connect(server.db) as db:
            if db.execute("SELECT account_id FROM seats WHERE table_id = ? AND seat = 0",
                          (table["id"],)).fetchone()[0] is not None:
                break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the table page did not adopt its seat")
    # the bots move while a player is connected: left when it is this seat's turn
    page.wait_for_function("() => { const s = window.regalia.M.state; return s.current === 0 && s.legal.length; }",
                           timeout=15000)
    a.close()

    b = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = b.new_page()
    page.goto(server.url + "/")
    row = f'#my-tables li.my-table[data-id="{table["id"]}"]'
    assert page.locator(row).count() == 0  # nothing of it in this browser yet
    sign_in_dialog(page, "Roamer", "#sign-in")
    page.wait_for_selector(row)
    assert page.evaluate("() => localStorage.getItem('regalia.tables')") in (None, "[]")
    link = page.get_attribute(f"{row} .open-link", "href")
    assert link == f"/t/{table['id']}"  # no token: opened by the account
    assert page.locator(f"{row} .forget-btn").count() == 0
    turn = f'#your-turn li[data-id="{table["id"]}"] a'
    page.wait_for_selector(turn)
    assert page.get_attribute(turn, "href") == f"/t/{table['id']}"
    shots(page, "lobby-account-tables", full_page=False)
    page.click(turn)
    page.wait_for_url(f"**/t/{table['id']}")
    page.wait_for_function("() => window.regalia && window.regalia.M.state && window.regalia.M.welcome")
    st = page_state(page)
    assert st["seat"] == 0 and st["view"]["hand"]
    page.wait_for_function("() => { const s = window.regalia.M.state; return s.current === 0 && s.legal.length; }",
                           timeout=15000)
    st = page_state(page)
    click_ribauds(page, st["legal"][0])
    wait_ply(page, st["ply"] + 1)
    assert not page.evaluate("() => window.regalia.M.lastError")
    b.close()

    c = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = c.new_page()  # signed out: the table's page opens no seat
    page.goto(server.url + f"/t/{table['id']}")
    page.wait_for_function("() => document.getElementById('board').textContent.includes('does not open this table')",
                           timeout=15000)
    assert page.evaluate("() => window.regalia.M.state") is None
    c.close()


@pytest.fixture
def daily_server(tmp_path):
    srv = Server(tmp_path / "regalia.sqlite3", free_port(), extra=("--daily-solve-seconds", "5"))
    srv.start()
    yield srv
    srv.stop()


def test_the_accounts_daily_game_opens_from_another_browser(daily_server, chromium):
    server = daily_server
    a = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = a.new_page()
    page.goto(server.url + "/")
    sign_in_dialog(page, "Daylight", "#sign-up")
    started = page.evaluate("""async () => {
        const r = await fetch("/api/daily/play", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
        return r.json(); }""")
    assert started["ranked"] is True
    a.close()  # the game started, never opened in this browser

    b = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = b.new_page()
    page.goto(server.url + "/")
    sign_in_dialog(page, "Daylight", "#sign-in")
    page.wait_for_selector("#lobby-daily-open:not([hidden])")
    assert page.get_attribute("#lobby-daily-open", "href") == f"/t/{started['id']}"
    assert page.is_hidden("#lobby-daily-play")
    page.goto(server.url + "/daily")
    page.wait_for_selector("#daily-open")
    assert page.get_attribute("#daily-open", "href") == f"/t/{started['id']}"
    page.click("#daily-open")
    page.wait_for_url(f"**/t/{started['id']}")
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    st = page_state(page)
    assert st["seat"] == 0 and st["view"]["hand"] and st["legal"]
    b.close()
