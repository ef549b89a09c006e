"""Le Roy des Ribauds in the browser: a whole game against a bot, played by clicking."""

from __future__ import annotations

import random

import pytest

from browser_helpers import click_ribauds, open_seat, page_state, wait_ply, wait_state

pytestmark = pytest.mark.slow


def test_a_whole_ribauds_game_against_a_bot(server, chromium, shots):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click('label[for="game-ribauds"]')
    page.wait_for_selector("#seat-1")
    # the bots by level, weakest first, medium suggested; then by their own names
    options = page.locator("#seat-1 option").all_inner_texts()
    assert options == ["A friend (invitation link)", "Bot, easy", "Bot, medium (suggested)",
                       "Bot, hard", "Bot, strongest",
                       "Bot: IS-MCTS search", "Bot: heuristic", "Bot: random", "Bot: tactical"]
    page.select_option("#seat-1", "bot:random")
    shots(page, "lobby-ribauds")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    st = wait_state(page)
    assert st["game"] == "ribauds" and st["seat"] == 0
    page.wait_for_selector(".court .court-slot")
    assert page.locator(".court .court-slot").count() == 4
    rng = random.Random(5)
    moves = 0
    while not st["finished"]:
        if st["current"] != 0 or not st["legal"]:
            page.wait_for_function(
                "p => { const s = window.regalia.M.state; return s.ply > p || s.finished || (s.current === 0 && s.legal.length); }",
                arg=st["ply"], timeout=15000)
            st = page_state(page)
            continue
        action = rng.choice(st["legal"])
        click_ribauds(page, action)
        wait_ply(page, st["ply"] + 1)
        st = page_state(page)
        moves += 1
        if moves == 3:
            shots(page, "ribauds-midgame")
        assert moves < 600
    page.wait_for_selector("#end[open]")
    end = page.inner_text("#end")
    assert "You win" in end or "You lose" in end
    assert any(c in end for c in ("Coronation", "Marriage", "Murder"))
    shots(page, "ribauds-end")
    page.click("#replay-link")
    page.wait_for_selector("#replay-board .court .card")
    shots(page, "ribauds-replay")
    assert not errors, errors
    ctx.close()


def test_one_face_down_court_card_selected_says_what_comes_next(server, chromium):
    """Reveal is ready and the replace buttons wait for a hand card: the line under the
    buttons says both (it said nothing)."""
    table = server.create("ribauds", ["human", "human"])
    pages = [open_seat(chromium, server, table, 0), open_seat(chromium, server, table, 1, nickname="Other")]
    for p in pages:  # the table waits until each seat was opened
        p.wait_for_function("() => !window.regalia.M.state.waiting")
    page = pages[page_state(pages[0])["current"]]
    pages[1 - pages.index(page)].context.close()
    st = page_state(page)
    down = next(i for i, c in enumerate(st["view"]["court"]) if not c["face_up"])
    look = "id => getComputedStyle(document.getElementById(id)).backgroundImage"
    # nothing selected: the gold Reveal, disabled, looks as grey as the other dead buttons
    assert not page.is_enabled("#act-reveal")
    assert page.evaluate(look, "act-reveal") == page.evaluate(look, "act-replace-up")
    page.locator(f'.court-slot[data-slot="{down}"] .card').click()
    page.wait_for_function("() => document.querySelector('#why').textContent.includes('Reveal')")
    assert "select a card of your hand to put in its place" in page.inner_text("#why")
    # the help says what the "(no effect)" of its card list means
    assert "has no effect" in page.inner_text("#rib-effects")
    assert page.is_enabled("#act-reveal") and not page.is_enabled("#act-replace-up")
    assert page.evaluate(look, "act-reveal") != page.evaluate(look, "act-replace-up")
    page.locator(".hand-zone .hand .card.in-hand").nth(0).click()
    page.wait_for_function("() => document.querySelector('#why').textContent === ''")
    page.context.close()


@pytest.mark.parametrize("locale", ["en-US", "pt-BR", "es-ES"])
def test_a_long_name_keeps_the_ribauds_table_within_a_phones_width(server, chromium, locale):
    """The seat's own bar (name, hand size, turn, "let a bot play") wraps instead of pushing
    the page beyond a 390 px screen."""
    table = server.create("ribauds", ["human", "heuristic"])
    page = open_seat(chromium, server, table, viewport={"width": 390, "height": 844}, locale=locale,
                     is_mobile=True, has_touch=True, nickname="Juliana Albuquerque")
    page.wait_for_function("() => document.querySelector('.felt').textContent.includes('Juliana')")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, locale
    page.context.close()
