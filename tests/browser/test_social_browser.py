"""People at the tables in the browser: two browsers with different nicknames meet
through the lobby's list of open tables and play a Regicide game, then both move to the
rematch from the end dialog; a clock runs out and a bot takes the seat."""

from __future__ import annotations

import random

import pytest

from browser_helpers import (Server, click_regicide, free_port, open_seat, page_state,
                             regicide_choice, wait_ply, wait_state)

pytestmark = pytest.mark.slow


def lobby_with_name(ctx, url: str, name: str):
    page = ctx.new_page()
    page.goto(url + "/")
    page.wait_for_selector(".game-tile")
    page.fill("#nickname", name)
    page.locator("#nickname").dispatch_event("change")
    return page


def test_two_nicknames_meet_through_the_open_tables_play_and_both_move_to_the_rematch(server, chromium, shots):
    ctx_a = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx_b = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="pt-BR")
    errors: list[str] = []
    a = lobby_with_name(ctx_a, server.url, "Ana <b>")
    b = lobby_with_name(ctx_b, server.url, "Bruno")
    for p in (a, b):
        p.on("pageerror", lambda e: errors.append(str(e)))
    a.click('.seg[data-players="2"]')
    a.check("#opt-open")
    a.click("#create-btn")
    a.wait_for_url("**/t/**")
    st = wait_state(a)
    assert st["waiting"] and a.locator("#waiting").is_visible()
    table = st["table"]
    # B's lobby lists the table (refreshed live), with A's name as text
    b.wait_for_selector(f'.open-table[data-id="{table}"]', timeout=10000)
    entry = b.inner_text(f'.open-table[data-id="{table}"]')
    assert "Ana <b>" in entry and "lugar livre" in entry
    shots(b, "lobby-open-tables")
    b.click(f"#join-{table}")
    b.wait_for_url(f"**/t/{table}#s=*")
    assert wait_state(b)["seat"] == 1
    a.wait_for_function("() => !window.regalia.M.state.waiting")
    for p in (a, b):  # names on the seats, never as HTML
        p.wait_for_function("() => document.querySelector('.players').textContent.includes('Bruno')")
        assert "Ana <b>" in p.inner_text(".players")
    assert a.locator(".players b").count() == 0
    # the table left the list
    lst = server.get("/api/open")
    assert table not in [t["id"] for t in lst]
    rng = random.Random(5)
    pages = {0: a, 1: b}
    st = page_state(a)
    moves = 0
    while not st["finished"]:
        p = pages[st["current"]]
        wait_ply(p, st["ply"])
        mine = page_state(p)
        click_regicide(p, regicide_choice(mine["view"], mine["legal"], rng))
        for page in pages.values():
            wait_ply(page, st["ply"] + 1)
        st = page_state(a)
        moves += 1
        assert moves < 500
    for p in pages.values():
        p.wait_for_selector("#end[open]")
    # the log names the players
    assert "Bruno" in a.inner_text("#log") and "Ana <b>" in b.inner_text("#log")
    end = a.inner_text("#end")
    assert "null" not in end
    if st["view"]["phase"] == "lost":
        assert "cannot absorb" in end or "can neither" in end
        assert ("Ana <b>" in end) or ("Bruno" in end)
    assert a.locator("#play-again").is_visible() and a.locator("#new-table").is_visible()
    shots(a, "end-dialog")
    a.click("#play-again")
    a.wait_for_url(lambda u: table not in u)
    new = wait_state(a)
    assert new["table"] != table and new["seat"] == 0 and new["ply"] == 0
    b.wait_for_selector("#rematch-go-end")
    b.click("#rematch-go-end")
    b.wait_for_url(f"**/t/{new['table']}#s=*")
    assert wait_state(b)["seat"] == 1
    b.wait_for_function("() => document.querySelector('.players').textContent.includes('Ana <b>')")
    assert not errors, errors
    ctx_a.close()
    ctx_b.close()


def test_a_clock_runs_out_and_a_bot_takes_the_seat_until_the_player_takes_it_back(tmp_path, chromium, shots):
    # bots wait a second per move: once the seat is handed over, two bots would otherwise
    # finish the game before the player can take the seat back
    srv = Server(tmp_path / "clock.sqlite3", free_port(), bot_delay=1.0,
                 extra=("--clock-presets", "tiny=2+1,rapid=600+15"))
    srv.start()
    try:
        ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
        page = lobby_with_name(ctx, srv.url, "Lenta")
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.click('.seg[data-players="2"]')
        page.select_option("#seat-1", "bot:random")
        page.select_option("#clock", "tiny")
        page.click("#create-btn")
        page.wait_for_url("**/t/**")
        wait_state(page)
        page.wait_for_selector("#clock-0")
        page.wait_for_selector(".toast.error", timeout=15000)
        assert "Lenta se quedó sin tiempo" in page.inner_text("#toasts")
        page.wait_for_function("() => window.regalia.M.state.seats[0].timed_out && window.regalia.M.state.seats[0].bot_replaces")
        assert "sin tiempo" in page.inner_text("#clock-0")
        shots(page, "clock-out-of-time")
        page.locator(".player.me .link-btn").click()  # take my seat back
        page.wait_for_function("() => !window.regalia.M.state.seats[0].bot_replaces")
        assert page_state(page)["clock"]["remaining"][0] >= 20
        assert not errors, errors
        ctx.close()
    finally:
        srv.stop()


def test_a_first_visit_asks_a_nickname_once_and_the_seat_shows_it(server, chromium):
    ctx = chromium.new_context(nickname=None, viewport={"width": 390, "height": 844}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    wait_state(page)
    # no name yet: the dialog asks for one, and the table waits behind it
    page.wait_for_selector("#name-dlg[open]")
    page.click("#nickname-save")                   # an empty name is not taken
    assert page.locator("#name-dlg[open]").count() == 1
    page.fill("#nickname-input", "  Zoé   la  <i>reine</i> ")
    page.click("#nickname-save")
    page.wait_for_selector("#name-dlg:not([open])", state="attached")
    page.wait_for_function("() => document.querySelector('.players').textContent.includes('Zoé la <i>reine</i>')")
    assert page.locator(".players i").count() == 0
    assert page.evaluate("() => localStorage.getItem('regalia.name')") == "Zoé la <i>reine</i>"
    # the same seat link opened in another browser keeps the seat's name, without asking
    other = chromium.new_context(nickname=None, viewport={"width": 390, "height": 844}, locale="en-US")
    elsewhere = other.new_page()
    elsewhere.goto(page.url)
    wait_state(elsewhere)
    elsewhere.wait_for_function("() => localStorage.getItem('regalia.name') === 'Zoé la <i>reine</i>'")
    assert elsewhere.locator("#name-dlg[open]").count() == 0
    other.close()
    # kept in this browser: the next table does not ask again
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    wait_state(page)
    page.wait_for_function("() => document.querySelector('.players').textContent.includes('Zoé')")
    assert page.locator("#name-dlg[open]").count() == 0
    ctx.close()


def test_a_regicide_seat_is_named_before_its_hand_is_shown(server, chromium, shots):
    """Rules 1.15: at a Regicide table with other players a name chosen after seeing one's
    hand could spell it out, so a browser without a nickname is asked first (no "Not now"),
    and the table, hand included, comes once the name is given."""
    table = server.create("regicide", ["human", "human"])
    ctx = chromium.new_context(nickname=None, viewport={"width": 390, "height": 844}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][1]["link"])
    page.wait_for_selector("#name-dlg[open]")
    assert page.locator("#nickname-later").count() == 0
    assert "before you see your hand" in page.inner_text("#nickname-why")
    assert page.evaluate("() => window.regalia.M.state") is None   # nothing of the table yet
    assert page.locator(".toast.error").count() == 0
    assert page.evaluate("() => window.regalia.M.everOnline") is False  # the hello was refused
    for _ in range(3):                                               # stays open
        page.keyboard.press("Escape")
        page.wait_for_timeout(100)
        assert page.locator("#name-dlg[open]").count() == 1
    shots(page, "regicide-name-before-hand-phone", full_page=False)
    page.fill("#nickname-input", "Ione")
    page.click("#nickname-save")
    st = wait_state(page)
    assert st["seat"] == 1 and st["seats"][1]["name"] == "Ione" and st["seats"][1]["name_fixed"]
    assert len(st["view"]["hand"]) == 7
    assert server.get(f"/api/tables/{table['id']}")["seats"][1]["name"] == "Ione"
    ctx.close()


def first_visit(server, chromium):
    """A solo table's page in a browser without a nickname, its nickname dialog open; close
    it with ``page.context.close()``."""
    table = server.create("regicide", ["human"])
    ctx = chromium.new_context(nickname=None, viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    wait_state(page)
    page.wait_for_selector("#name-dlg[open]")
    return page


def test_the_nickname_can_wait(server, chromium):
    """The first visit's nickname dialog can be put off ("Not now"): the table is played at
    once and the seat keeps its number."""
    page = first_visit(server, chromium)
    page.click("#nickname-later")
    page.wait_for_selector("#name-dlg:not([open])", state="attached")
    page.locator(".dock .hand .card.selectable").first.click()   # the table answers
    assert page.locator(".dock .hand .card.selected").count() == 1
    assert "Player 1" in page.inner_text(".players")
    page.context.close()


def test_the_nickname_dialog_gives_the_focus_back(server, chromium):
    """Closed, the nickname dialog gives the focus back to the button that opened it; the
    first visit's dialog, which opened by itself, to the button that changes the name."""
    page = first_visit(server, chromium)
    page.keyboard.type("Zoé")
    page.keyboard.press("Enter")
    page.wait_for_selector("#name-dlg:not([open])", state="attached")
    page.wait_for_function("() => document.activeElement.id === 'name-btn'", timeout=5000)
    page.keyboard.press("Enter")
    page.wait_for_selector("#name-dlg[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#name-dlg:not([open])", state="attached")
    page.wait_for_function("() => document.activeElement.id === 'name-btn'", timeout=5000)
    page.context.close()


def test_on_a_laptop_the_lobby_lists_tables_beside_the_form(server, chromium):
    """At 1280x800 "Open tables" and "My tables" stand one above the other beside the new
    table's form (not under its whole height); on a phone, one column, the open tables
    first (above the form, which is long)."""
    for width, height, beside in ((1280, 800, True), (390, 844, False)):
        ctx = chromium.new_context(viewport={"width": width, "height": height}, locale="en-US")
        page = ctx.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector(".game-tile")
        create, opened, mine = (page.locator(sel).bounding_box() for sel in (".create", ".open-list", ".mine"))
        if beside:
            assert opened["x"] > create["x"] + create["width"] and mine["x"] == opened["x"]
            assert opened["y"] + opened["height"] < mine["y"] < create["y"] + create["height"] / 2
        else:
            assert opened["y"] + opened["height"] <= create["y"] < mine["y"]
        ctx.close()


# The widest text among a select's options and the room for it beside its arrow.
SELECT_ROOM = """id => {
    const s = document.getElementById(id), cs = getComputedStyle(s);
    const pen = document.createElement("canvas").getContext("2d");
    pen.font = cs.font;
    const widths = [...s.options].map(o => [pen.measureText(o.text).width, o.text]);
    widths.sort((a, b) => b[0] - a[0]);
    return [widths[0], s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 18];
}"""


@pytest.mark.parametrize("locale", ["en-US", "pt-BR", "es-ES"])
def test_the_lobby_fits_a_phone_in_every_language(server, chromium, locale):
    ctx = chromium.new_context(viewport={"width": 360, "height": 740}, locale=locale,
                               is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    for players in ("1", "4"):
        page.click(f'.seg[data-players="{players}"]')
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, (locale, players)
    # each seat's choice shows all of any option's text (a friend, or a bot by name)
    for seat in (1, 2, 3):
        (width, text), room = page.evaluate(SELECT_ROOM, f"seat-{seat}")
        assert width <= room, (locale, seat, text, width, room)
    page.click('label[for="game-ribauds"]')                 # its rule option is a choice
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, (locale, "ribauds")
    # the language switch shows all of its text: codes on the phone, names once it is turned
    (width, text), room = page.evaluate(SELECT_ROOM, "lang")
    assert width <= room, (locale, text, width, room)
    options = "() => [...document.getElementById('lang').options].map(o => o.textContent)"
    assert page.evaluate(options) == ["EN", "PT", "ES"]
    page.set_viewport_size({"width": 740, "height": 360})
    page.wait_for_function(f"() => ({options})()[1] === 'Português'")
    assert page.evaluate(options) == ["English", "Português", "Español"]
    ctx.close()


def test_two_bots_of_one_kind_are_told_apart_by_their_seat_numbers(server, chromium):
    table = server.create("regicide", ["human", "random", "random", "heuristic"])
    page = open_seat(chromium, server, table)
    page.wait_for_function("() => document.querySelector('.players').textContent.includes('Bot 3 (random)')")
    seats = page.inner_text(".players")
    assert "Bot 2 (random)" in seats and "Bot (heuristic)" in seats
    assert "Bot (random)" not in seats
    # each bot's tag says how strong it plays (the random bot has no level)
    tags = page.eval_on_selector_all(".player .tag", "els => els.map(e => e.textContent)")
    assert tags.count("bot") == 2 and tags.count("bot, medium") == 1
    page.context.close()


def test_two_players_of_one_name_are_told_apart_by_their_seat_numbers(server, chromium):
    """A name that reads as another seat's (here in capitals) is shown with its seat
    number, on both seats: nobody passes for another in the talk or the log."""
    table = server.create("ribauds", ["human", "human"])
    first = open_seat(chromium, server, table, 0, nickname="Ann")
    second = open_seat(chromium, server, table, 1, nickname="ＡＮＮ")
    for page, other in ((first, "ＡＮＮ (seat 2)"), (second, "Ann (seat 1)")):
        page.wait_for_function(f"() => document.querySelector('.players').textContent.includes({other!r})")
    # the reader's own seat: the seat number and "you" in one pair of brackets
    assert first.inner_text("#seat-badge") == "Ann (seat 1, you)"
    assert second.inner_text("#seat-badge") == "ＡＮＮ (seat 2, you)"
    second.fill("#chat-input", "hi")
    second.press("#chat-input", "Enter")
    first.wait_for_function("() => document.querySelector('#talk').textContent.includes('hi')")
    assert "ＡＮＮ (seat 2)" in first.inner_text("#talk")
    second.context.close()
    first.context.close()


def test_a_name_of_invisible_characters_is_not_taken_by_the_name_dialog(server, chromium):
    """Nothing that shows (zero-width and blank-drawn characters): the dialog says what a
    name needs and stays open instead of sending a name the server refuses."""
    table = server.create("regicide", ["human", "human"])
    ctx = chromium.new_context(nickname=None, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][1]["link"])
    page.wait_for_selector("#name-dlg[open]")
    page.fill("#nickname-input", "\u200b\u3164 \u2800")
    page.click("#nickname-save")
    page.wait_for_timeout(200)
    assert page.locator("#name-dlg[open]").count() == 1
    assert "something that shows" in page.evaluate(
        "() => document.querySelector('#nickname-input').validationMessage")
    assert page.evaluate("() => localStorage.getItem('regalia.name')") is None
    page.fill("#nickname-input", "\u200bJo\u202e")
    page.click("#nickname-save")
    st = wait_state(page)
    assert st["seats"][1]["name"] == "Jo"
    assert page.evaluate("() => localStorage.getItem('regalia.name')") == "Jo"
    ctx.close()


def test_the_invitation_of_a_table_whose_other_seats_are_bots_offers_only_watching(server, chromium):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click('.seg[data-players="2"]')
    page.select_option("#seat-1", "bot:random")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    wait_state(page)
    page.click("#invite-btn")
    assert "friends can watch with the spectator link" in page.inner_text("#invite-explain")
    links = page.locator("#invite .link-input")
    assert links.count() == 1 and "/t/" in links.first.input_value()
    ctx.close()


def test_letting_a_bot_play_ones_seat_asks_first(server, chromium):
    table = server.create("ribauds", ["human", "human"])
    page = open_seat(chromium, server, table)
    asked: list[str] = []

    def answer(dialog, accept):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda d: answer(d, False))
    page.click("#hand-to-bot")
    page.wait_for_timeout(500)
    assert asked == ["Let a bot play your seat now? You can take it back at any time."]
    assert not server.get(f"/api/tables/{table['id']}")["seats"][0]["bot_replaces"]
    page.once("dialog", lambda d: answer(d, True))
    page.click("#hand-to-bot")
    page.wait_for_function("() => window.regalia.M.state.seats[0].bot_replaces")
    page.context.close()


def test_a_regicide_players_name_button_rests_until_the_end(server, chromium):
    """Rules 1.15: with other players at a Regicide table a name, once given, stays until
    the end (the server refuses a change), so the page shows the button resting and says
    why on a click; Ribauds offers a change."""
    for game, fixed in (("regicide", True), ("ribauds", False)):
        table = server.create(game, ["human", "human"])
        page = open_seat(chromium, server, table)
        page.wait_for_function("() => window.regalia.M.state.seats[0].name")
        assert ("resting" in page.get_attribute("#name-btn", "class")) == fixed
        if fixed:
            assert "cannot change" in page.get_attribute("#name-btn", "title")
            page.click("#name-btn")  # a phone shows no title: a click says why
            page.wait_for_selector(".toast strong:text('Names cannot change')")
            assert page.locator("#name-dlg[open]").count() == 0
        page.context.close()


def test_the_rematch_of_a_table_made_here_shows_its_invitation_links(server, chromium):
    """The browser that created a table keeps its invitation links; its rematch (whose
    seats keep their tokens) shows them too, pointed at the new table."""
    ctx = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click('.seg[data-players="2"]')
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    st = wait_state(page)
    old = st["table"]
    page.click("#invite-btn")
    link = page.locator("#invite .link-input").first.input_value()
    page.keyboard.press("Escape")
    assert f"/t/{old}#s=" in link
    friend_token = link.split("#s=")[1]
    # the friend opens the link and hands the seat to a bot, as does the creator: bots finish
    friend = chromium.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    fp = friend.new_page()
    fp.goto(link)
    wait_state(fp)
    fp.evaluate("() => window.regalia.socket.send({type: 'bot', seat: 1, on: true})")
    page.evaluate("() => window.regalia.socket.send({type: 'bot', seat: 0, on: true})")
    page.wait_for_selector("#end[open] #play-again", timeout=60000)
    page.click("#play-again")
    page.wait_for_url(lambda u: old not in u)
    new = wait_state(page)["table"]
    page.click("#invite-btn")
    assert page.inner_text("#invite-explain") != "" and "kept in the browser" not in page.inner_text("#invite-explain")
    links = page.locator("#invite .link-input")
    values = [links.nth(i).input_value() for i in range(links.count())]
    assert f"{server.url}/t/{new}#s={friend_token}" in values, values
    # the link opens the friend's seat of the rematch
    fp.goto(f"{server.url}/t/{new}#s={friend_token}")
    fp.wait_for_function("t => window.regalia && window.regalia.M.state && window.regalia.M.state.table === t",
                         arg=new, timeout=15000)
    assert page_state(fp)["seat"] == 1
    friend.close()
    ctx.close()


def test_a_turn_based_clock_bar_reads_alike_and_shows_no_time_for_a_bot(server, chromium):
    """At 1 day per move every person's clock reads in hours and minutes ("23 h 59 min",
    not beside a "1 d 0 h"), a bot seat shows no time (as at a live clock, also once the
    clocks tick), and "Notify me" has an icon of its own, not the talk's bubble nor the
    alerts' bell."""
    import json
    import urllib.request

    body = {"game": "ribauds", "players": 2, "clock": "day",
            "seats": [{"kind": "human"}, {"kind": "bot", "bot": "medium"}]}
    req = urllib.request.Request(server.url + "/api/tables", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=20) as r:
        table = json.load(r)
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    page.wait_for_function("() => { const s = window.regalia && window.regalia.M.state;"
                           " return s && s.current === s.seat; }", timeout=20000)
    page.wait_for_selector("#clock-1")
    page.wait_for_timeout(600)  # a few ticks of the running clock
    mine = page.text_content("#clock-0 .clock-time")
    assert mine.startswith("23 h 59 min") or mine == "24 h 0 min", mine
    assert page.text_content("#clock-1 .clock-time") == "—"
    notify = page.inner_html("#notify-btn svg")
    assert notify and notify != page.inner_html("#alerts-btn svg")
    assert "M4 3h16" not in notify  # (the speech bubble)
    ctx.close()
