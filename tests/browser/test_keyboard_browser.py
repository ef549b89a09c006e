"""A player with the keyboard only, and with a screen reader: the focus stays on the board
when it is drawn anew (a card toggled keeps it; a move hands it to the dock), what happens
is announced once (the log's new lines, not the whole board), and cards are named in words
(the end dialog's name: test_regicide_browser)."""

from __future__ import annotations

import pytest

from browser_helpers import open_seat, page_state, wait_ply

pytestmark = pytest.mark.slow

FOCUS = "() => { const a = document.activeElement; return {tag: a.tagName, id: a.id, " \
        "focus: a.dataset.focus || null, pressed: a.getAttribute('aria-pressed'), " \
        "inBoard: document.getElementById('board').contains(a)}; }"


def test_a_toggled_card_keeps_the_focus_and_a_move_hands_it_to_the_dock(server, chromium):
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table)
    first = page.locator(".dock .hand .card.selectable").first
    first.focus()
    key = page.evaluate(FOCUS)["focus"]
    page.keyboard.press("Space")
    got = page.evaluate(FOCUS)
    assert got["focus"] == key and got["pressed"] == "true", got  # the same card, selected
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUS)["pressed"] == "false"
    page.keyboard.press("Space")  # selected again: a single card is always a legal play
    ply = page_state(page)["ply"]
    page.locator("#act-play").focus()
    page.keyboard.press("Enter")
    wait_ply(page, ply + 1)
    page.wait_for_function("() => !window.regalia.M.pending")
    got = page.evaluate(FOCUS)
    assert got["tag"] != "BODY" and got["inBoard"], got  # a card or a button of the dock
    page.context.close()


def by_bot(lines: list[str]) -> bool:
    """Whether one of the log's lines is a move of the bot's seat (seat 1)."""
    return any("Bot" in s or "Player 2" in s for s in lines)


def test_what_a_bot_does_is_announced_once_and_the_board_is_not_live(server, chromium):
    table = server.create("regicide", ["human", "random"])
    page = open_seat(chromium, server, table)
    assert page.get_attribute("#board", "aria-live") is None
    assert page.get_attribute("#announce", "aria-live") == "polite"
    read = "() => [[...document.querySelectorAll('#announce p')].map(p => p.textContent), " \
           "[...document.querySelectorAll('#log li')].map(li => li.textContent)]"
    said, lines = page.evaluate(read)
    for _ in range(8):  # moves of both seats, until one of the bot's is announced
        state = page_state(page)
        if state["finished"] or by_bot(said):
            break
        if state["seat"] == state["view"]["current"] and state["legal"]:
            page.evaluate("([p, a]) => window.regalia.socket.send({type: 'act', ply: p, action: a})",
                          [state["ply"], state["legal"][0]])
        wait_ply(page, state["ply"] + 1)  # our move, or the bot's
        said, lines = page.evaluate(read)
    assert said and said == lines[len(lines) - len(said):], (said, lines)  # new lines, once
    assert by_bot(said), said
    state = page_state(page)
    if not state["finished"] and state["view"]["current"] == 0:  # nobody moves meanwhile
        again = open_seat(chromium, server, table)
        assert again.evaluate(read)[0] == []  # the log of a table just joined is not read
        again.context.close()
    page.context.close()


def test_cards_and_moves_are_named_in_words(server, chromium):
    for _ in range(20):  # a table where seat 0 moves first (the first player is drawn)
        table = server.create("ribauds", ["human", "random"])
        page = open_seat(chromium, server, table)
        view = page_state(page)["view"]
        if view["current"] == 0:
            break
        page.context.close()
    assert view["current"] == 0
    labels = page.eval_on_selector_all(".court .court-card", "cs => cs.map(c => c.getAttribute('aria-label'))")
    names = {"K": "Roi", "Q": "Reine", "N": "Chevalier", "A": "Assassin"}
    for i, (slot, label) in enumerate(zip(view["court"], labels)):
        want = names[slot["card"]] if slot["face_up"] else "face down"
        assert label.startswith(f"C{i + 1}: ") and want in label, (slot, label)
    hand = page.eval_on_selector_all(".dock .hand .card", "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert [h.split(".")[0] for h in hand] == [names[c] for c in view["hand"]]
    assert page.get_attribute("#game-title", "role") == "heading"
    # a move's button names what it acts on
    page.locator(".court .court-card.selectable").first.click()
    page.locator(".dock .hand .card.selectable").first.click()
    slot = page.get_attribute(".court .court-card.selected", "aria-label").split(":")[0]
    card = names[view["hand"][0]]
    assert page.get_attribute("#act-replace-up", "aria-label") == f"Replace face up: {slot}, {card}"
    # a pile is read name first, then its count (the count drawn on the back is hidden)
    deck = page.locator(".rib-piles .pile").first
    assert deck.locator(".pile-label").text_content() == f"Draw pile, {view['deck']} cards"
    assert deck.locator(".back-count").get_attribute("aria-hidden") == "true"
    page.context.close()
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table)
    enemy = page.locator(".enemy-card .card")
    assert enemy.get_attribute("role") == "img"
    assert " of " in enemy.get_attribute("aria-label")  # "Jack of Spades"
    view = page_state(page)["view"]
    assert page.locator(".pile.tavern .pile-label").text_content() == f"Tavern, {view['tavern']} cards"
    assert page.locator(".pile.castle .pile-label").text_content() == f"Castle, {view['castle']} cards"
    page.context.close()

