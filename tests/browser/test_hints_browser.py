"""A solo table "with hints" in the browser (issue 10, item 5): the lobby offers the option
for solo Regicide only; the Hint button selects the suggested cards and says the move."""

from __future__ import annotations

import pytest

from browser_helpers import page_state, wait_ply, wait_state

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
    assert not page.locator("#hints-option").is_visible()   # not at 2 players
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
    if detail.startswith("Play "):
        assert selected >= 1 and page.locator("#act-play").is_enabled()
    else:
        assert detail in ("Use the Jester: a new hand", "Yield")
    shots(page, "hints-solo-phone", full_page=False)
    if detail.startswith("Play "):
        page.click("#act-play")
        wait_ply(page, st["ply"] + 1)
    assert not errors, errors
    ctx.close()
