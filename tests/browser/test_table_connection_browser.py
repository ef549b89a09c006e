"""What the table page tells its player: turn alerts (title, icon, sound and notification),
the connection's truth (banner, own dot, a move clicked offline), an unknown table id, and
why a selection cannot be played."""

from __future__ import annotations

import random

import pytest

from browser_helpers import (Server, click_regicide, page_state, regicide_choice, wait_ply,
                             wait_state)
from regalia.server.storage.store import Store

pytestmark = pytest.mark.slow

# Stand-ins for the browser's notification and sound, recording what the page asks of them.
RECORDERS = """
window.__calls = {permission: 0, notes: [], tones: 0};
window.Notification = class {
  constructor(title, opts) { window.__calls.notes.push(title); }
  static requestPermission() { window.__calls.permission += 1; window.Notification.permission = "granted"; return Promise.resolve("granted"); }
};
window.Notification.permission = "default";
const RealAudio = window.AudioContext;
window.AudioContext = class extends RealAudio {
  createOscillator() { window.__calls.tones += 1; return super.createOscillator(); }
};
"""


def title(page) -> str:
    return page.evaluate("() => document.title")


def test_the_waiting_player_is_alerted_when_it_becomes_their_turn(server, chromium):
    table = server.create("regicide", ["human", "human"])
    ctxs = [chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US") for _ in range(2)]
    pages = []
    for ctx, seat in zip(ctxs, table["seats"]):
        ctx.add_init_script(RECORDERS)
        p = ctx.new_page()
        p.goto(server.url + seat["link"])
        wait_state(p)
        pages.append(p)
    st = page_state(pages[0])
    cur = st["current"]
    waiting = pages[1 - cur]
    assert title(pages[cur]).startswith("Your turn · Regicide")
    assert title(waiting) == "Regicide · Regalia"
    assert "favicon-turn" not in waiting.get_attribute('link[rel="icon"]', "href")
    # The waiting player turns alerts on: only now is permission asked, and a tone is heard.
    assert waiting.evaluate("() => window.__calls.permission") == 0
    waiting.click("#alerts-btn")
    waiting.wait_for_function("() => window.__calls.permission === 1")
    assert waiting.get_attribute("#alerts-btn", "aria-pressed") == "true"
    assert waiting.evaluate("() => localStorage.getItem('regalia.alerts')") == "on"
    tones = waiting.evaluate("() => window.__calls.tones")
    assert tones >= 2
    # ... and leaves the tab (hidden): the other player plays until the turn passes.
    waiting.evaluate("() => Object.defineProperty(document, 'hidden', {configurable: true, get: () => true})")
    rng = random.Random(2)
    acting = pages[cur]
    while page_state(acting)["current"] == cur and not page_state(acting)["finished"]:
        mine = page_state(acting)
        click_regicide(acting, regicide_choice(mine["view"], mine["legal"], rng))
        wait_ply(acting, mine["ply"] + 1)
    wait_ply(waiting, page_state(acting)["ply"])
    waiting.wait_for_function("() => document.title.startsWith('Your turn')")
    assert "favicon-turn" in waiting.get_attribute('link[rel="icon"]', "href")
    assert waiting.evaluate("() => window.__calls.tones") >= tones + 2
    assert waiting.evaluate("() => window.__calls.notes") == ["Your turn"]
    acting.wait_for_function("() => document.title === 'Regicide · Regalia'")
    # The toggle is remembered: a reload finds alerts on, and asks nothing.
    waiting.reload()
    wait_state(waiting)
    assert waiting.get_attribute("#alerts-btn", "aria-pressed") == "true"
    for ctx in ctxs:
        ctx.close()


def test_an_unknown_table_says_so_with_a_link_to_the_lobby(server, chromium):
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES")
    page = ctx.new_page()
    page.goto(server.url + "/t/no-such-table")
    page.wait_for_selector(".gone-box")
    assert "No existe esa mesa" in page.inner_text("#board")
    assert "no-such-table" in page.inner_text("#board")
    assert "Conectando" not in page.inner_text("#board")
    page.click("#gone-lobby")
    page.wait_for_selector(".game-tile")
    assert page.url.rstrip("/") == server.url
    ctx.close()


def test_a_private_table_opened_without_its_link_says_so_not_that_it_does_not_exist(
        server, chromium):
    table = server.create("regicide", ["human"])
    ctx = chromium.new_context()
    page = ctx.new_page()
    for url in (f"/t/{table['id']}", f"/t/{table['id']}#s=not-a-token"):
        page.goto(server.url + url)
        page.wait_for_selector(".gone-box")
        board = page.inner_text("#board")
        assert "This link does not open this table" in board and table["id"] in board
        assert "No such table" not in board  # the table exists: only this link is wrong
        assert page.locator(".toast.error").count() == 0  # one message, on the board
        assert page.inner_text("#conn") == "no access"
    ctx.close()


def test_a_move_clicked_offline_is_sent_on_reconnection_only_if_still_legal(tmp_path, chromium):
    srv = Server(tmp_path / "regalia.sqlite3", __import__("browser_helpers").free_port())
    srv.start()
    try:
        table = srv.create("regicide", ["human"])
        ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        page = ctx.new_page()
        page.goto(srv.url + table["seats"][0]["link"])
        st = wait_state(page)
        assert page.is_hidden("#banner")
        # The connection drops: a banner, and the player's own dot turns grey.
        srv.kill9()
        page.wait_for_selector("#banner:not([hidden])")
        assert "Connection lost" in page.inner_text("#banner")
        page.wait_for_selector(".player.me .dot.off")
        assert "not connected" in page.inner_text(".player.me")
        # A move clicked now waits, and goes when the connection returns (same ply, legal).
        action = next(a for a in st["legal"] if a.startswith("play "))
        click_regicide(page, action)
        page.wait_for_function("() => document.querySelector('#banner').textContent.includes('will be sent')")
        srv.start()
        wait_ply(page, 1, timeout=30000)
        page.wait_for_selector("#banner", state="hidden")
        assert srv.get(f"/api/tables/{table['id']}")["ply"] == 1
        assert page_state(page)["view"]["log"][1]["kind"] == "play"
        assert page.locator(".player.me .dot.on").count() == 1
        # Again, but the game moves on meanwhile (another tab's move, stored while the
        # server is down): the kept move is not sent, and the player is told.
        st = page_state(page)
        srv.kill9()
        page.wait_for_selector("#banner:not([hidden])")
        mine = st["legal"][0]
        if st["view"]["phase"] == "play" and any(a.startswith("play ") for a in st["legal"]):
            mine = next(a for a in st["legal"] if a.startswith("play "))
        click_regicide(page, mine)
        page.wait_for_function("() => window.regalia.M.queued")
        store = Store(f"sqlite:///{srv.db}")
        store.append_move(table["id"], st["ply"], 0, st["legal"][-1])
        store.close()
        srv.start()
        page.wait_for_selector(".toast.error", timeout=30000)
        assert "Your move was not sent" in page.inner_text(".toast.error")
        assert page_state(page)["ply"] == st["ply"] + 1
        assert srv.get(f"/api/tables/{table['id']}")["ply"] == st["ply"] + 1
        ctx.close()
    finally:
        srv.stop()


def test_a_selection_that_cannot_be_played_says_why_in_the_pages_language(server, chromium):
    table = server.create("regicide", ["human"])
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR",
                               is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    st = wait_state(page)
    hand = st["view"]["hand"]
    assert "Selecione uma ou mais cartas" in page.inner_text("#why")
    # two cards of different ranks, neither an Ace: refused, and said why next to the button
    pair = next(((i, j) for i in range(len(hand)) for j in range(i + 1, len(hand))
                 if hand[i][0] != hand[j][0] and "A" not in (hand[i][0], hand[j][0])
                 and "X" not in (hand[i], hand[j])), None)
    assert pair is not None, hand
    for i in pair:
        page.locator(".hand .card.in-hand").nth(i).click()
    assert page.locator("#act-play").is_disabled()
    assert "(" not in page.inner_text("#act-play")        # no value for what cannot be played
    why = page.inner_text("#why")
    assert "mesmo valor" in why and "Ás" in why
    page.click("#act-clear")
    # one card: the names of the selection are readable without hovering
    page.locator(".hand .card.in-hand").nth(pair[0]).click()
    assert page.locator("#act-play").is_enabled()
    assert page.inner_text("#act-play").endswith(")")   # "Jogar 5♥ (5)"
    assert " de " in page.inner_text("#why")             # e.g. "Cinco de Copas"
    # an engine refusal is translated, and no internal word (a phase name) is shown
    page.evaluate("() => window.regalia.socket.send({type: 'act', ply: 0, action: 'discard ' + window.regalia.M.state.view.hand[0]})")
    page.wait_for_selector(".toast.error")
    toast = page.inner_text(".toast.error")
    assert "não é possível neste momento" in toast
    assert "play" not in toast and "suffer" not in toast and "refused" not in toast
    ctx.close()


def test_a_move_lost_with_the_connection_is_sent_again_once(server, chromium):
    table = server.create("regicide", ["human"])
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    st = wait_state(page)
    # The socket swallows the move (a connection that died without the page knowing)...
    page.evaluate("() => { window.regalia.socket.ws.send = () => {}; }")
    action = next(a for a in st["legal"] if a.startswith("play "))
    click_regicide(page, action)
    assert page.evaluate("() => window.regalia.M.inflight.action") == action
    # ... then drops: on reconnection the move goes again, and is applied once.
    page.evaluate("() => window.regalia.socket.ws.close()")
    wait_ply(page, 1, timeout=30000)
    assert server.get(f"/api/tables/{table['id']}")["ply"] == 1
    assert page_state(page)["view"]["log"][1]["kind"] == "play"
    page.wait_for_timeout(500)
    assert server.get(f"/api/tables/{table['id']}")["ply"] == 1
    assert page.locator(".toast.error").count() == 0
    ctx.close()


@pytest.mark.parametrize("motion,moves", [("no-preference", True), ("reduce", False)])
def test_cards_move_in_unless_the_system_asks_for_less_motion(server, chromium, motion, moves):
    table = server.create("regicide", ["human"])
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US",
                               reduced_motion=motion)
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    st = wait_state(page)
    # one card that cannot defeat the Jack (20 health) at once: the enemy stays
    click_regicide(page, next(a for a in st["legal"] if a.startswith("play ") and len(a.split()) == 2
                              and a != "play TC"))
    wait_ply(page, 1)
    # the card just played arrives on the table, the damage bar fills from where it was
    durations = page.evaluate("""() => ['.play-group.enter', '.bar-fill.grow'].map(
        (s) => parseFloat(getComputedStyle(document.querySelector(s)).animationDuration))""")
    if moves:
        assert all(d >= 0.2 for d in durations), durations
    else:
        assert all(d < 0.01 for d in durations), durations
    ctx.close()


def test_a_seat_opened_in_a_second_window_is_told_so(server, chromium):
    table = server.create("regicide", ["human", "human"])
    ctx = chromium.new_context(locale="en-US")
    first = ctx.new_page()
    first.goto(server.url + table["seats"][0]["link"])
    wait_state(first)
    assert first.locator(".toast").count() == 0
    second = ctx.new_page()
    second.goto(server.url + table["seats"][0]["link"])
    wait_state(second)
    for page in (first, second):
        page.wait_for_selector(".toast:has-text('This seat is also open in another window')")
    assert page_state(first)["seats"][0]["windows"] == 2
    assert "windows" not in page_state(first)["seats"][1]  # told to its own seat only
    ctx.close()


def test_another_link_of_the_table_opened_in_the_same_tab_takes_over(server, chromium):
    """Only the part after # differs between a table's links: the page starts over as the
    new link's seat or as a spectator, never keeping the old seat's hand on show."""
    table = server.create("regicide", ["human", "human"])
    ctx = chromium.new_context(locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    assert wait_state(page)["seat"] == 0
    page.goto(server.url + table["spectate"])
    # window.regalia is undefined until the new page's script has run (checked first)
    page.wait_for_function("() => window.regalia && window.regalia.M.state"
                           " && window.regalia.M.state.seat === null")
    assert page_state(page)["view"].get("hand") is None  # a spectator sees no hand
    page.goto(server.url + table["seats"][1]["link"])
    page.wait_for_function("() => window.regalia && window.regalia.M.state"
                           " && window.regalia.M.state.seat === 1")
    ctx.close()
