"""The hand and the buttons of the phase (and Regicide's row of the cards played against
the enemy) stay in view without scrolling, at 390x844 (a phone), 360x740 (a small phone)
and 1280x720 (a small laptop), in every phase of both games, for 1 to 4 players.

Each phase is shown from a real engine position: engine games are played at random until
seat 0 is asked for every kind of decision, and each position's ``state`` message (built
as the server builds it) is handed to a real table page, whose layout is then measured.
Whole games played by clicking check the live path too."""

from __future__ import annotations

import random

import pytest

from browser_helpers import (click_regicide, click_ribauds, controls_in_view, open_seat, page_state,
                             regicide_choice, show_state, state_message, wait_ply, wait_state)
from regalia.core.records import Match
from regalia.games import get_game
from regalia.server.tables import gamekit

pytestmark = pytest.mark.slow

SIZES = {"phone": dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True),
         "small": dict(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True),
         "laptop": dict(viewport={"width": 1280, "height": 720})}

# What seat 0 may be asked, per game and number of players ("waiting": nothing, its hand
# is still shown; "wish": Regicide's Jester window asks another seat's player).
KINDS = {
    ("regicide", 1): {"play", "suffer"},
    ("regicide", 2): {"play", "suffer", "waiting"},
    ("regicide", 3): {"play", "suffer", "choose", "wish", "waiting"},
    ("regicide", 4): {"play", "suffer", "choose", "wish", "waiting"},
    ("ribauds", 2): {"act", "knight_swap", "knight_flip", "king", "king_discard", "assassin", "waiting"},
}
# The button each kind must show.
BUTTON = {"play": "act-play", "suffer": "act-discard", "choose": "act-choose-", "wish": "wish-yes",
          "act": "act-reveal", "knight_swap": "act-swap", "knight_flip": "act-flip",
          "king": "act-draw", "king_discard": "act-discard", "assassin": "act-peek"}


def asked_kind(game, st) -> str | None:
    if game.is_terminal(st):
        return None
    if game.current_seat(st) == 0:
        return game.view(st, 0)["phase"]
    return "wish" if gamekit.side_texts(game, st, 0) else "waiting"


def positions(name: str, players: int) -> dict:
    """The first engine position of each kind in ``KINDS`` (random play over seeds)."""
    game = get_game(name)
    want = KINDS[(name, players)]
    found: dict = {}
    for seed in range(500):
        m, rng, ply = Match(game, {"players": players}, seed), random.Random(seed), 0
        while not game.is_terminal(m.state) and len(found) < len(want):
            kind = asked_kind(game, m.state)
            if kind in want and kind not in found:
                found[kind] = (m.state, ply)
            m.play(rng.choice(list(game.legal_actions(m.state))))
            ply += 1
        if len(found) == len(want):
            return found
    raise AssertionError(f"{name} {players}p: no position for {want - set(found)}")


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("name,players", list(KINDS))
def test_controls_in_view_in_every_phase(server, chromium, shots, size, name, players):
    game = get_game(name)
    found = positions(name, players)
    table = server.create(name, ["human"] * players)   # nobody else acts: the page shows what it is given
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES[size])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    for kind, (st, ply) in sorted(found.items()):
        show_state(page, state_message(game, st, 0, table["id"], ply))
        page.wait_for_function("p => window.regalia.M.state.ply === p", arg=ply)
        got = controls_in_view(page)
        assert got["scrollY"] == 0
        assert got["cards"] == len(game.view(st, 0)["hand"]), (kind, got)
        assert not got["bad"], (size, name, players, kind, got)
        assert not got["wide"], (size, name, players, kind)  # nothing beyond the screen's width
        # the cards played against the enemy show above the dock, in every phase (on a phone
        # right under the enemy, the seats' names on one line; in the Jester's window at 3-4
        # players a smaller hand, a shorter prompt and choose buttons)
        played_in_view = name == "regicide"
        if played_in_view:
            assert got["played"], (size, players, kind, got)
        if name == "regicide" and kind in ("play", "suffer"):
            # a card selected (the clear button comes): still all in view
            page.locator(".dock .hand .card.selectable").first.click()
            selected = controls_in_view(page)
            assert "act-clear" in selected["buttons"], selected
            assert not selected["bad"], (size, players, kind, selected)
            assert selected["played"] or not played_in_view, (size, players, kind, selected)
            page.click("#act-clear")
        if kind in BUTTON:
            assert any(b.startswith(BUTTON[kind]) for b in got["buttons"]), (kind, got)
        else:
            assert not got["buttons"], (kind, got)
        if players == 4 or name == "ribauds" or size == "small":
            shots(page, f"controls-{name}-{players}p-{size}-{kind}", full_page=False)
    assert not errors, errors
    ctx.close()


def test_a_whole_ribauds_game_at_1280x720_keeps_the_controls_in_view(server, chromium):
    table = server.create("ribauds", ["human", "random"])
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES["laptop"])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    st = wait_state(page)
    rng = random.Random(11)
    checked = 0
    while not st["finished"]:
        if st["current"] != 0 or not st["legal"]:
            page.wait_for_function(
                "p => { const s = window.regalia.M.state; return s.ply > p || s.finished || (s.current === 0 && s.legal.length); }",
                arg=st["ply"], timeout=15000)
            st = page_state(page)
            continue
        got = controls_in_view(page)
        assert not got["bad"] and got["buttons"], got
        checked += 1
        click_ribauds(page, rng.choice(st["legal"]))
        wait_ply(page, st["ply"] + 1)
        st = page_state(page)
        assert checked < 300
    assert checked >= 2
    ctx.close()


def test_a_whole_four_player_regicide_game_on_a_phone_keeps_the_controls_in_view(server, chromium):
    table = server.create("regicide", ["human", "heuristic", "heuristic", "heuristic"])
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES["phone"])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    st = wait_state(page)
    rng = random.Random(5)
    checked = 0
    while not st["finished"]:
        if st["current"] != 0 or not st["legal"]:
            page.wait_for_function(
                "p => { const s = window.regalia.M.state; return s.ply > p || s.finished || (s.current === 0 && s.legal.length); }",
                arg=st["ply"], timeout=15000)
            st = page_state(page)
            continue
        got = controls_in_view(page)
        assert not got["bad"] and got["buttons"], got
        checked += 1
        click_regicide(page, regicide_choice(st["view"], st["legal"], rng))
        wait_ply(page, st["ply"] + 1)
        st = page_state(page)
        assert checked < 300
    assert checked >= 1
    ctx.close()


def test_a_wish_said_in_the_jester_window_shows_as_said(server, chromium):
    game = get_game("regicide")
    st, ply = positions("regicide", 3)["wish"]
    table = server.create("regicide", ["human"] * 3)
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES["laptop"])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    show_state(page, state_message(game, st, 0, table["id"], ply))
    page.wait_for_function("p => window.regalia.M.state.ply === p", arg=ply)
    assert page.inner_text(".wish-label") == "Go next?"
    said = st.copy()
    said.preferences[0] = "yes"
    show_state(page, state_message(game, said, 0, table["id"], ply + 1))
    page.wait_for_function("p => window.regalia.M.state.ply === p", arg=ply + 1)
    assert page.inner_text(".wish-label") == "You said you would like to go next; change it?"
    assert page.is_disabled("#wish-yes") and page.is_enabled("#wish-no")
    ctx.close()


def test_a_phones_hand_overlaps_its_cards_only_when_they_do_not_fit(server, chromium):
    game = get_game("regicide")
    table = server.create("regicide", ["human"])
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES["phone"])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    st = wait_state(page)
    assert len(st["view"]["hand"]) == 8
    assert page.evaluate("document.querySelector('.dock .hand').classList.contains('tight')")
    # a hand of 3 cards: side by side, apart
    for seed in range(200):
        m, rng, ply = Match(game, {"players": 1}, seed), random.Random(seed), 0
        while not game.is_terminal(m.state) and not (game.view(m.state, 0)["phase"] == "play"
                                                     and len(game.view(m.state, 0)["hand"]) == 3):
            m.play(rng.choice(list(game.legal_actions(m.state))))
            ply += 1
        if not game.is_terminal(m.state):
            break
    show_state(page, state_message(game, m.state, 0, table["id"], ply))
    page.wait_for_function("p => window.regalia.M.state.ply === p", arg=ply)
    assert not page.evaluate("document.querySelector('.dock .hand').classList.contains('tight')")
    lefts = page.eval_on_selector_all(".dock .hand .card.in-hand",
                                      "els => els.map(e => [e.getBoundingClientRect().left, e.getBoundingClientRect().right])")
    assert len(lefts) == 3 and all(a[1] <= b[0] for a, b in zip(lefts, lefts[1:]))
    ctx.close()


@pytest.mark.parametrize("size", ["small", "laptop"])
def test_a_seat_not_connected_says_so_once_on_a_phone(server, chromium, size):
    """A seat that is not connected shows a grey dot (named "not connected" for screen
    readers) and "Replace by a bot"; on a phone that link says it, without the tag."""
    table = server.create("regicide", ["human"] * 4)
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES[size])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    other = page.locator('.player[data-seat="1"]')
    other.locator(".dot.off").wait_for()
    assert other.locator(".dot.off").get_attribute("aria-label") == "not connected"
    assert other.get_by_role("button", name="Replace by a bot").is_visible()
    assert other.locator(".tag.off").is_visible() == (size == "laptop")
    # a seat's own chip, connected, has neither
    assert page.locator(".player.me .tag.off").count() == 0
    ctx.close()


@pytest.mark.parametrize("size,title", [("small", "Ribauds"), ("laptop", "Le Roy des Ribauds")])
def test_the_game_title_shows_whole_on_a_phone(server, chromium, size, title):
    """A small phone's topbar shows the game's short name, never one cut short."""
    table = server.create("ribauds", ["human", "random"])
    ctx = chromium.new_context(locale="en-US", **SIZES[size])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    heading = page.get_by_role("heading", level=1)
    assert heading.inner_text() == title
    assert page.evaluate("() => { const h = document.getElementById('game-title');"
                         " return h.scrollWidth <= h.clientWidth; }")
    ctx.close()


TAPPED = """() => {
    // every visible control of the topbar and the seats' links (Let a bot play for me,
    // Replace by a bot): [id or class, width, height]
    const items = [...document.querySelectorAll(
        ".topbar button, .topbar select, .topbar a, .player .link-btn")].filter(e => e.offsetParent);
    return items.map(e => { const r = e.getBoundingClientRect();
        return [e.id || e.className, Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10]; });
}"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_topbar_and_the_seat_links_are_44px_tap_targets(server, chromium, shots, size):
    table = server.create("regicide", ["human", "human"])
    ctx = chromium.new_context(locale="en-US", reduced_motion="reduce", **SIZES[size])
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    page.wait_for_selector("#hand-to-bot")
    found = page.evaluate(TAPPED)
    ids = {x[0] for x in found}
    assert {"name-btn", "leave-btn", "alerts-btn", "invite-btn", "lang", "hand-to-bot"} <= ids, found
    small = [x for x in found if x[1] < 44 or x[2] < 44]
    assert not small, small
    shots(page, f"tap-targets-{size}", full_page=False)
    ctx.close()


def test_a_big_screen_gives_the_board_its_width(server, chromium, shots):
    table = server.create("ribauds", ["human", "random"])
    ctx = chromium.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    board = page.locator("#board").bounding_box()
    side = page.locator(".side").bounding_box()
    assert board["width"] >= 1300, board
    assert side["x"] + side["width"] >= 1920 - 60, side   # the page's width used to its right
    shots(page, "board-1920x1080", full_page=False)
    ctx.close()


SAID_IN_VIEW = """text => {
    // the elements (a line of the talk, a note on the screen) that show text inside the
    // viewport and on top
    const H = window.innerHeight, W = window.innerWidth;
    return [...document.querySelectorAll("#talk li, .toast")].filter(e => {
        if (!e.textContent.includes(text)) return false;
        const r = e.getBoundingClientRect();
        if (!(r.top >= 0 && r.bottom <= H && r.left >= 0 && r.right <= W && r.height > 0)) return false;
        const hit = document.elementFromPoint(r.left + Math.min(12, r.width / 2), r.top + r.height / 2);
        return !!hit && (hit === e || e.contains(hit));
    }).map(e => e.id || e.className || e.tagName);
}"""


@pytest.mark.parametrize("game,seats,said", [("ribauds", 2, "shall we start?"), ("regicide", 4, "Hello!")])
def test_a_phone_shows_the_table_talk_and_a_new_message(server, chromium, shots, game, seats, said):
    """On a phone the talk comes right under the board, and a message said shows on the
    screen: in the talk when it is in view, else as a note that a tap takes to the talk."""
    table = server.create(game, ["human"] * seats)
    page = open_seat(chromium, server, table, 0, viewport={"width": 390, "height": 844},
                     is_mobile=True, has_touch=True)
    friend = open_seat(chromium, server, table, 1)
    board = page.locator("#board").bounding_box()
    talk = page.locator("#talk-panel").bounding_box()
    assert talk["y"] < board["y"] + board["height"] + 20, (board, talk)  # next after the board
    page.evaluate("() => window.scrollTo(0, 0)")
    if game == "ribauds":
        assert talk["y"] < 844, talk
        friend.fill("#chat-input", said)
        friend.press("#chat-input", "Enter")
    else:
        friend.click(".say-buttons .chip >> nth=0")
    page.wait_for_function("t => document.getElementById('talk').textContent.includes(t)", arg=said)
    page.wait_for_timeout(200)
    seen = page.evaluate(SAID_IN_VIEW, said)
    assert seen, (talk, page.evaluate("""() => [window.scrollY, document.getElementById('talk').getBoundingClientRect().toJSON(),
        [...document.querySelectorAll('.toast')].map(e => [e.className, e.textContent, e.getBoundingClientRect().toJSON()])]"""))
    shots(page, f"talk-new-message-phone-{game}", full_page=False)
    note = page.locator(".toast.talk-toast")
    if "talk-toast" in " ".join(seen):  # the talk out of view: a note, which goes there
        assert note.count() == 1 and said in note.inner_text()
        note.click()
        page.wait_for_function("""() => { const r = document.getElementById('talk').getBoundingClientRect();
            return r.top >= 0 && r.bottom <= window.innerHeight; }""", timeout=5000)
    else:
        assert note.count() == 0  # the talk in view: nothing covers the board
    friend.context.close()
    page.context.close()
