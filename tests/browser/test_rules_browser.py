"""The "How to play" page: reached from the lobby and from a table's help panel, both games'
rules in the browser's language, every text filled in, and no sideways scrolling on a phone."""

from __future__ import annotations

import pytest

from browser_helpers import open_seat

pytestmark = pytest.mark.slow

# A heading of each game's rules, per language (the dictionaries' texts).
HEADINGS = {"en-US": ("Your turn, in four steps", "Your turn: one action"),
            "pt-BR": ("A sua vez, em quatro passos", "A sua vez: uma ação"),
            "es-ES": ("Tu turno, en cuatro pasos", "Tu turno: una acción")}


@pytest.mark.parametrize("locale", sorted(HEADINGS))
def test_the_lobby_links_the_rules_of_both_games_in_the_players_language(server, chromium, shots,
                                                                         locale):
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, locale=locale,
                               is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click("#rules-link")
    page.wait_for_url("**/rules")
    regicide, ribauds = HEADINGS[locale]
    page.wait_for_function("t => document.querySelector('#regicide').textContent.includes(t)", arg=regicide)
    assert ribauds in page.locator("#ribauds").inner_text()
    # every text is the dictionary's, none left empty or showing its key
    texts = page.eval_on_selector_all("[data-i18n]", "els => els.map(e => [e.dataset.i18n, e.textContent])")
    assert len(texts) > 50
    assert [k for k, text in texts if not text.strip() or text == k] == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shots(page, f"rules-{locale}")
    ctx.close()


def test_a_tables_help_panel_links_the_rules_of_its_game(server, chromium):
    table = server.create("ribauds", ["human", "human"])
    page = open_seat(chromium, server, table)
    ctx = page.context
    link = page.wait_for_selector("#help #rules-link")
    assert link.get_attribute("href") == "/rules#ribauds"
    assert link.get_attribute("target") == "_blank"  # the table stays open
    assert link.text_content() == "Full rules (opens in a new tab)"  # the end for screen readers
    assert link.eval_on_selector(".sr-only", "e => e.getBoundingClientRect().width") <= 1
    rules = ctx.new_page()
    rules.goto(server.url + link.get_attribute("href"))
    rules.wait_for_function("() => document.querySelector('#ribauds h2').textContent === 'Le Roy des Ribauds'")
    # the page opens at the game's rules
    assert rules.evaluate("document.querySelector('#ribauds').getBoundingClientRect().top") < 100
    ctx.close()


def test_a_tables_help_panel_says_which_rule_options_it_plays(server, chromium):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = ctx.new_page()
    for options, text in (({"minimal_discard": True, "solo_yield": True},
                           "This table: Minimal discards · Yielding in solo."),
                          ({}, "This table: standard rules.")):
        table = server.create("regicide", ["human"], options)
        page.goto(server.url + table["seats"][0]["link"])
        assert page.wait_for_selector("#table-rules").inner_text() == text
    ctx.close()
