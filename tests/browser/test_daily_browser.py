"""The daily deal in the browser: a signed-in player starts today's deal from the daily
page, ends it at once (alone, a proposal to stop is agreed: a loss), and the daily page
then shows the result on the leaderboard and the solver's verdict with its winning line,
which opens as a replay; the same account's second start, from another browser, is
refused; the lobby says the deal was played."""

from __future__ import annotations

import pytest

from browser_helpers import Server, free_port

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"


def account(page, server, path: str, name: str) -> None:
    """Sign the page's browser up or in, as the account dialog does."""
    status = page.evaluate("""async ([path, name, password]) => {
        const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify({name, password})});
        return r.status; }""", [path, name, PASSWORD])
    assert status in (200, 201), status


@pytest.fixture
def daily_server(tmp_path):
    srv = Server(tmp_path / "regalia.sqlite3", free_port(), extra=("--daily-solve-seconds", "5"))
    srv.start()
    yield srv
    srv.stop()


def test_play_the_daily_deal_once_see_the_leaderboard_and_the_solvers_line(daily_server, chromium, shots):
    server = daily_server
    errors: list[str] = []
    a = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
    b = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
    for p in (a, b):
        p.on("pageerror", lambda e: errors.append(str(e)))
    a.goto(server.url + "/")
    account(a, server, "/api/account/sign-up", "Dana")
    b.goto(server.url + "/")
    account(b, server, "/api/account/sign-in", "Dana")
    b.goto(server.url + "/daily")  # another device, opened before the game is played
    b.wait_for_selector("#daily-play")

    a.goto(server.url + "/daily")
    a.wait_for_selector("#daily-play")
    assert "as Dana" in a.inner_text("#daily-rank-note")
    assert "no spoilers" in a.inner_text("#verdict-hidden")
    a.click("#daily-play")
    a.wait_for_url("**/t/**")
    a.wait_for_function("() => window.regalia && window.regalia.M.state && !window.regalia.M.state.waiting")
    a.on("dialog", lambda d: d.accept())
    a.click("#stop-btn")
    a.wait_for_selector("#end[open] #daily-results-link")
    a.click("#daily-results-link")
    a.wait_for_selector("#daily-board-table")
    assert "Lost" in a.inner_text("#daily-status") and "enemies defeated: 0" in a.inner_text("#daily-status")
    assert "Rank 1 of 1." in a.inner_text("#daily-rank")
    row = a.locator("#daily-board-table tbody tr")
    assert row.count() == 1 and "Dana (you)" in row.inner_text()
    assert not a.locator("#daily-play").count()  # played: no second start offered
    a.wait_for_selector("#daily-line", timeout=60000)  # the solver's verdict, once worked out
    assert "Winnable" in a.inner_text("#verdict-text")
    shots(a, "daily-deal", full_page=True)
    a.click("#daily-line")
    a.wait_for_function("() => document.querySelector('#ply') && document.querySelector('#ply').textContent.includes('/')")
    assert "The solver's winning line" in a.inner_text(".topbar")
    assert "Bot (solver)" in a.inner_text("#log")
    assert a.locator("#analysis-panel").is_hidden()
    shots(a, "daily-solver-line", full_page=False)

    b.click("#daily-play")  # the same account on its other device: refused
    b.wait_for_function("() => document.getElementById('daily-error').textContent")
    assert "already played today's deal" in b.inner_text("#daily-error")
    assert not b.locator("#daily-play").count()
    assert "Dana (you)" in b.inner_text("#daily-board-table")

    a.goto(server.url + "/")
    a.wait_for_function("() => document.getElementById('lobby-daily-status').textContent")
    assert a.locator("#lobby-daily-play").is_hidden()
    assert "You played today's deal" in a.inner_text("#lobby-daily-status")
    shots(a, "lobby-daily", full_page=False)
    assert not errors, errors


def test_handing_the_daily_game_to_a_bot_says_first_that_it_will_not_be_ranked(daily_server, chromium):
    """Signed in, the daily game is ranked until a bot plays for the player: the "Let a bot
    play for me" link says so (its title), and so does its confirmation, before it happens."""
    server = daily_server
    page = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
    page.goto(server.url + "/")
    account(page, server, "/api/account/sign-up", "Edda")
    page.goto(server.url + "/daily")
    page.wait_for_selector("#daily-play")
    page.click("#daily-play")
    page.wait_for_url("**/t/**")
    page.wait_for_function("() => window.regalia && window.regalia.M.state && !window.regalia.M.state.waiting")
    page.wait_for_selector("#hand-to-bot")
    assert "unranked" in page.get_attribute("#hand-to-bot", "title")
    asked: list[str] = []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer)
    page.click("#hand-to-bot")
    assert asked and "no longer ranked" in asked[0], asked
    assert page.locator("#hand-to-bot").count() == 1  # dismissed: the seat is still the player's
    page.context.close()
