"""Ratings in the browser: a signed-in player creates a rated Le Roy des Ribauds table from
the lobby; the invited player, not signed in, is told the seat needs an account and signs
up on the table page; one concedes; both profiles show the new ratings and the leaderboard
lists both players with the bots' reference rows."""

from __future__ import annotations

import pytest

from browser_helpers import page_state

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"


def sign_up_in_dialog(page, name: str) -> None:
    page.wait_for_selector("#account-dialog[open]")
    page.fill("#account-name-input", name)
    page.fill("#account-password", PASSWORD)
    page.click("#sign-up")


def test_two_signed_in_players_play_a_rated_game_and_see_their_ratings(server, chromium, shots):
    errors: list[str] = []
    ann_ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ann = ann_ctx.new_page()
    ann.on("pageerror", lambda e: errors.append(str(e)))
    ann.goto(server.url + "/")
    ann.wait_for_selector("#sign-in-open")
    ann.wait_for_selector(".game-tile")
    ann.click('label[for="game-ribauds"]')
    ann.wait_for_selector("#rated-option:not([hidden])")
    assert ann.is_disabled("#opt-rated")  # not signed in: off, saying why
    assert "Sign in" in ann.inner_text("#rated-help")
    ann.click("#sign-in-open")
    sign_up_in_dialog(ann, "Ann")
    ann.wait_for_selector("#account-name")
    ann.wait_for_function("() => !document.getElementById('opt-rated').disabled")
    ann.check("#opt-rated")
    shots(ann, "lobby-rated-option")
    ann.click("#create-btn")
    ann.wait_for_function("() => window.regalia && window.regalia.M.state")
    assert ann.inner_text("#rated-badge") == "Rated"
    invite = ann.evaluate("() => JSON.parse(localStorage.getItem('regalia.tables'))[0]"
                          ".invites.find((x) => x.seat === 1).link")
    table_id = page_state(ann)["table"]

    bob_ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US",
                                   nickname=None)
    bob = bob_ctx.new_page()
    bob.on("pageerror", lambda e: errors.append(str(e)))
    bob.goto(server.url + invite)  # not signed in: the rated seat says so
    bob.wait_for_selector("#rated-refused")
    assert bob.get_attribute("#rated-refused", "data-code") == "rated_signed_out"
    assert "sign in" in bob.inner_text("#rated-refused").lower()
    shots(bob, "table-rated-sign-in", full_page=False)
    bob.click("#rated-sign-in")
    sign_up_in_dialog(bob, "Bob")  # signed up here, the page opens the link again
    bob.wait_for_function("() => window.regalia && window.regalia.M.state "
                          "&& !window.regalia.M.state.waiting", timeout=20000)
    assert page_state(bob)["seats"][1]["name"] == "Bob"
    ann.wait_for_function("() => !window.regalia.M.state.waiting")

    bob.on("dialog", lambda d: d.accept())
    bob.click("#concede-btn")
    for p in (ann, bob):
        p.wait_for_selector("#end[open]")
    assert page_state(ann)["outcome"]["winner"] == 0

    def rating_of(page, name: str) -> int:
        page.goto(server.url + f"/players/{name}")
        page.wait_for_selector("#player-rating-value")
        return int(page.inner_text("#player-rating-value"))

    for _ in range(20):  # rated right after the end, by the server
        try:
            ann_rating = rating_of(ann, "Ann")
            break
        except Exception:  # noqa: BLE001 - not rated yet: "No rated game yet"
            ann.wait_for_timeout(250)
    else:
        raise AssertionError("Ann's profile shows no rating")
    bob_rating = rating_of(bob, "Bob")
    assert ann_rating > 1500 > bob_rating
    assert "won 1" in ann.inner_text("#player-rated-record")
    assert "against Bob" in ann.inner_text("#player-rated")
    assert f"1500 → {bob_rating}" in bob.inner_text("#player-rated")
    shots(ann, "player-rating")

    bob.click("#player-leaderboard")
    bob.wait_for_selector("#leaderboard")
    rows = bob.eval_on_selector_all("#leaderboard tbody tr.player-row",
                                    "rows => rows.map((r) => r.dataset.name)")
    assert rows == ["Ann", "Bob"]
    assert bob.locator("#leaderboard tr.bot-row").count() == 4
    assert bob.locator("#leaderboard tr.player-row.me").get_attribute("data-name") == "Bob"
    ratings = bob.eval_on_selector_all("#leaderboard tbody tr",
                                       "rows => rows.map((r) => Number(r.children[2].textContent))")
    assert ratings == sorted(ratings, reverse=True)
    assert str(ann_rating) in bob.inner_text("tr[data-name='Ann']")
    shots(bob, "leaderboard")
    ann.goto(server.url + "/")  # the lobby links the leaderboard
    ann.click("#leaderboard-link")
    ann.wait_for_selector("#leaderboard tr[data-name='Ann'].me")
    assert table_id and not errors, errors
    ann_ctx.close()
    bob_ctx.close()
