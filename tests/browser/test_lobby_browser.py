"""The lobby with the keyboard only: the chosen game and number of players keep the focus
(the form is drawn anew on each choice) and show the site's focus ring; the buttons of
"My tables" name their table, and forgetting one keeps the focus in the list."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

FOCUSED = "() => document.activeElement.id"


def open_lobby(chromium, server, tables: list[dict] | None = None):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    if tables:
        ctx.add_init_script(f"localStorage.setItem('regalia.tables', {json.dumps(json.dumps(tables))})")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    return ctx, page


def test_choosing_the_game_and_the_players_keeps_the_focus(server, chromium):
    ctx, page = open_lobby(chromium, server)
    page.focus("#game-regicide")
    page.keyboard.press("ArrowRight")
    assert page.is_checked("#game-ribauds") and page.evaluate(FOCUSED) == "game-ribauds"
    page.keyboard.press("ArrowLeft")
    assert page.is_checked("#game-regicide") and page.evaluate(FOCUSED) == "game-regicide"
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) == "players-1"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert page.get_attribute("#players-2", "aria-pressed") == "true"
    assert page.evaluate(FOCUSED) == "players-2"
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    assert page.get_attribute("#players-3", "aria-pressed") == "true"
    assert page.evaluate(FOCUSED) == "players-3"
    page.keyboard.press("Tab")                    # the next Tab goes on from there
    assert page.evaluate(FOCUSED) == "players-4"
    ctx.close()


def test_the_players_buttons_show_their_focus_ring_inside_the_group(server, chromium):
    """The group clips what overflows its rounded border: the ring is drawn inside."""
    ctx, page = open_lobby(chromium, server)
    page.focus("#game-regicide")
    page.keyboard.press("Tab")
    ring = page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
        return [e.textContent, e.matches(':focus-visible'), s.outlineStyle, parseFloat(s.outlineWidth),
                parseFloat(s.outlineOffset)]; }""")
    assert ring[:4] == ["1", True, "solid", 3], ring
    assert ring[3] + ring[4] <= 0, ring
    ctx.close()


def test_my_tables_buttons_name_their_table_and_forgetting_keeps_the_focus_in_the_list(server, chromium):
    tables = [{"id": "AAAA1111", "game": "regicide", "players": 2, "seat": 0, "token": "t1",
               "invites": [{"seat": 1, "link": "/t/AAAA1111#s=t4"}]},
              {"id": "BBBB2222", "game": "ribauds", "players": 2, "seat": 1, "token": "t2"},
              {"id": "CCCC3333", "game": "regicide", "players": 1, "seat": 0, "token": "t3"}]
    ctx, page = open_lobby(chromium, server, tables)
    page.wait_for_selector(".my-table .forget-btn")
    for name in ("Open Regicide, 2 players, table AAAA1111",
                 "Forget Le Roy des Ribauds, 2 players, table BBBB2222",
                 "Open Regicide, 1 player, table CCCC3333"):
        assert page.get_by_role("link", name=name, exact=True).count() \
            + page.get_by_role("button", name=name, exact=True).count() == 1, name
    invite = page.locator('.my-table[data-id="AAAA1111"] .invite-toggle')
    assert invite.get_attribute("aria-expanded") == "false"
    invite.click()                               # the invitation links unfold, and say so
    assert invite.get_attribute("aria-expanded") == "true"
    assert page.locator('.my-table[data-id="AAAA1111"] .invites').is_visible()
    label = "() => document.activeElement.getAttribute('aria-label')"
    page.focus('.my-table[data-id="AAAA1111"] .forget-btn')
    page.keyboard.press("Enter")                 # the next row's Forget takes the focus
    assert page.evaluate(label) == "Forget Le Roy des Ribauds, 2 players, table BBBB2222"
    page.focus('.my-table[data-id="CCCC3333"] .forget-btn')
    page.keyboard.press("Space")                 # the last row: the new last one
    assert page.evaluate(label) == "Forget Le Roy des Ribauds, 2 players, table BBBB2222"
    page.keyboard.press("Enter")                 # none left: the list's heading
    assert page.evaluate(FOCUSED) == "my-tables-title"
    assert page.locator(".my-table").count() == 0
    ctx.close()


def in_first_screen(page, selector: str) -> dict:
    """Where ``selector`` is at the page's top (not scrolled), and whether its middle is on
    top (not covered)."""
    return page.evaluate("""sel => {
        window.scrollTo(0, 0);
        const e = document.querySelector(sel), r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return {top: r.top, bottom: r.bottom, width: r.width, height: r.height,
                onTop: !!hit && (hit === e || e.contains(hit)), H: window.innerHeight};
    }""", selector)


def test_a_laptops_lobby_shows_the_create_button_without_scrolling(server, chromium, shots):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    box = in_first_screen(page, "#create-btn")
    assert box["top"] >= 0 and box["bottom"] <= 720 and box["onTop"], box
    shots(page, "lobby-1280x720", full_page=False)
    # scrolled to the form's end, it is where the form puts it, still usable
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    ctx.close()


def test_a_phones_lobby_shows_the_open_tables_before_the_form(server, chromium, shots):
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                               locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    listed = in_first_screen(page, ".open-list")
    form = in_first_screen(page, "#create-form")
    assert listed["top"] < 400 and listed["top"] < form["top"], (listed, form)
    lang = in_first_screen(page, "#lang")
    assert lang["width"] >= 44 and lang["height"] >= 44, lang
    shots(page, "lobby-phone", full_page=False)
    ctx.close()


def test_the_seat_menu_offers_the_bot_levels_in_the_page_language(server, chromium, shots):
    """The levels come first, weakest first (medium suggested in Le Roy des Ribauds, where
    the bot is the opponent), each saying what it plays: as the option's title, and for the
    chosen one under the seat; a level seat is created as asked."""
    ctx, page = open_lobby(chromium, server)
    page.click('label[for="game-ribauds"]')
    page.wait_for_selector("#seat-1")
    labels = page.locator("#seat-1 optgroup").evaluate_all("gs => gs.map((g) => g.label)")
    assert labels == ["Bots by level", "Bots by name"]
    levels = page.locator("#seat-1 optgroup").first.locator("option")
    assert levels.evaluate_all("os => os.map((o) => o.value)") == [
        "bot:easy", "bot:medium", "bot:hard", "bot:strongest"]
    assert levels.evaluate_all("os => os.map((o) => o.title)") == [
        "plays at random", "takes a sure win, avoids handing you one",
        "a short search; answers at once", "the full search; thinks longest per move"]
    assert not page.is_visible("#seat-help-1")           # a friend: nothing to say
    page.select_option("#seat-1", "bot:medium")
    assert page.inner_text("#seat-help-1") == "takes a sure win, avoids handing you one"
    shots(page, "lobby-levels")
    page.select_option("#lang", "es")
    page.wait_for_function("() => document.querySelector('#seat-1 optgroup').label === 'Bots por nivel'")
    assert page.locator("#seat-1 option:checked").inner_text() == "Bot, medio (sugerido)"
    assert page.inner_text("#seat-help-1") == "aprovecha una victoria segura y evita regalarte una"
    page.select_option("#lang", "pt-BR")
    page.wait_for_function("() => document.querySelector('#seat-1 optgroup').label === 'Bots por nível'")
    page.select_option("#seat-1", "bot:easy")
    assert page.locator("#seat-1 option:checked").inner_text() == "Bot, fácil"
    assert page.inner_text("#seat-help-1") == "joga ao acaso"
    page.select_option("#lang", "en")
    page.click('label[for="game-regicide"]')       # Regicide: the partner suggested is the strongest
    page.click('.seg[data-players="2"]')
    page.wait_for_selector("#seat-1 optgroup", state="attached")
    texts = page.locator("#seat-1 optgroup").first.locator("option").all_inner_texts()
    assert texts == ["Bot, easy", "Bot, medium", "Bot, hard", "Bot, strongest (suggested)"]
    page.click('label[for="game-ribauds"]')
    page.wait_for_selector("#seat-1 optgroup", state="attached")
    page.select_option("#seat-1", "bot:medium")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    seats = page.evaluate("() => window.regalia.M.state.seats")
    assert seats[1]["kind"] == "bot" and seats[1]["bot"] == "medium"
    page.wait_for_function("() => document.body.innerText.includes('Bot (medium)')")
    ctx.close()
