"""Regicide in the browser: a whole solo game played by clicking, and a 2-player table in
two browser contexts where neither page ever holds the other's hand."""

from __future__ import annotations

import json
import random

import pytest

from browser_helpers import (card_tokens, click_regicide, open_seat, page_state, regicide_choice,
                             show_state, state_message, wait_ply, wait_state)
from regalia.games.regicide import actions as A

pytestmark = pytest.mark.slow


def test_a_whole_solo_game_played_by_clicking(server, chromium, shots):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    shots(page, "lobby")
    page.click("#create-btn")                      # Regicide, 1 player: the lobby's defaults
    page.wait_for_url("**/t/**")
    st = wait_state(page)
    assert st["seat"] == 0 and st["view"]["players"] == 1
    assert page.locator(".hand .card.in-hand").count() == 8
    # the language switch: card names and rule terms too
    page.select_option("#lang", "pt-BR")
    page.wait_for_function("() => document.body.innerText.includes('Taverna')")
    assert "Sua mão" in page.inner_text("body") or "SUA MÃO" in page.inner_text("body")
    shots(page, "regicide-solo-start-pt-BR")
    page.select_option("#lang", "en")
    page.wait_for_function("() => document.body.innerText.includes('Tavern')")
    # a refused submission shows the engine's reason, translated; nothing is applied
    page.evaluate("() => window.regalia.socket.send({type: 'act', ply: 0, action: 'play KS'})")
    page.wait_for_selector(".toast.error")
    assert "You do not hold K♠" in page.inner_text(".toast.error")
    rng = random.Random(7)
    moves = 0
    while not st["finished"]:
        action = regicide_choice(st["view"], st["legal"], rng)
        click_regicide(page, action)
        wait_ply(page, st["ply"] + 1)
        st = page_state(page)
        moves += 1
        if moves == 8:
            shots(page, "regicide-solo-midgame")
        assert moves < 500
    page.wait_for_selector("#end[open]")
    end = page.inner_text("#end")
    assert ("Victory" in end) or ("Defeat" in end)
    # the dialog is named by its heading (a screen reader says it first)
    assert page.get_attribute("#end", "aria-labelledby") == "end-title"
    assert page.inner_text("#end-title") in end and page.inner_text("#end-title")
    assert "Enemies defeated" in end
    shots(page, "regicide-solo-end")
    summary = server.get(f"/api/tables/{st['table']}")
    assert summary["status"] == "finished" and summary["ply"] == st["ply"]
    page.click("#replay-link")
    page.wait_for_selector("#replay-board .card")
    assert page.locator(".replay-hand").count() == 1
    page.click("#first")
    page.wait_for_function("() => document.querySelector('#ply').textContent.startsWith('move 0')")
    shots(page, "regicide-solo-replay")
    # the lobby lists the table as finished
    page.goto(server.url + "/")
    page.wait_for_selector(".my-table .status.done")
    assert f"{st['table']} · Tester (you)" in page.inner_text(".my-table .my-title")  # by name
    shots(page, "lobby-my-tables")
    assert not errors, errors
    ctx.close()


def test_two_players_play_a_whole_game_and_never_hold_each_others_hand(server, chromium, shots):
    ctx_a = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx_b = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES",
                                 is_mobile=True, has_touch=True)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    frames: dict[int, list[str]] = {0: [], 1: []}
    errors: list[str] = []
    for k, page in ((0, a), (1, b)):
        page.on("websocket", lambda ws, k=k: ws.on("framereceived", lambda payload, k=k: frames[k].append(payload)))
        page.on("pageerror", lambda e: errors.append(str(e)))
    # A creates a 2-player table in the lobby, B joins with the invitation link
    a.goto(server.url + "/")
    a.wait_for_selector(".game-tile")
    a.click('.seg[data-players="2"]')
    assert a.locator("#seat-1").input_value() == "human"
    a.click("#create-btn")
    a.wait_for_url("**/t/**")
    wait_state(a)
    a.click("#invite-btn")
    invite = a.locator("#invite .link-input").first.input_value()
    assert "#s=" in invite
    shots(a, "regicide-2p-invite")
    a.click("#invite .end-actions button")
    b.goto(invite)
    wait_state(b)
    assert page_state(b)["seat"] == 1
    b.wait_for_function("() => document.body.textContent.includes('Tu mano')")  # from the browser's language
    rng = random.Random(3)
    pages = {0: a, 1: b}
    st = page_state(a)
    moves = 0
    while not st["finished"]:
        cur = st["current"]
        p = pages[cur]
        wait_ply(p, st["ply"])
        mine = page_state(p)
        action = regicide_choice(mine["view"], mine["legal"], rng)
        click_regicide(p, action)
        for page in pages.values():
            wait_ply(page, st["ply"] + 1)
        views = {k: page_state(pg) for k, pg in pages.items()}
        for k, pg in pages.items():
            other_hand = set(views[1 - k]["view"]["hand"])
            shown = set(pg.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
            assert not (shown & other_hand), f"page {k} shows {shown & other_hand}"
            assert pg.eval_on_selector_all(".hand .card.in-hand", "els => els.map(e => e.dataset.card)") == views[k]["view"]["hand"]
        st = views[0]
        moves += 1
        if moves == 5:
            shots(a, "regicide-2p-desktop")
            shots(b, "regicide-2p-phone-es")
        assert moves < 500
    a.wait_for_selector("#end[open]")
    b.wait_for_selector("#end[open]")
    shots(a, "regicide-2p-end")
    # Every frame each browser received, checked against the whole game (the replay shows
    # every hand): no frame holds a card of the other seat's hand that was never public.
    replay = server.get(f"/api/tables/{st['table']}/replay")
    hands = [[set(h) for h in step["hands"]] for step in replay["steps"]]
    public: list[set[str]] = []
    seen: set[str] = set()
    for step in replay["steps"]:
        seen |= card_tokens(json.dumps(step["view"]))
        seen |= card_tokens(json.dumps([{k: v for k, v in e.items() if k != "private"} for e in step["events"]]))
        public.append(set(seen))
    held = [[set().union(*(h[k] for h in hands[:n + 1])) for n in range(len(hands))] for k in (0, 1)]
    checked = 0
    for k in (0, 1):
        for raw in frames[k]:
            m = json.loads(raw)
            if m.get("type") not in ("state", "update"):
                continue
            n = m["ply"]
            other_now = hands[n][1 - k]
            body = {key: v for key, v in m.items() if key != "log"}
            assert not (card_tokens(json.dumps(body)) & other_now), (k, n)
            secret = held[1 - k][n] - public[n] - held[k][n]
            assert not (card_tokens(json.dumps(m["log"])) & secret), (k, n)
            checked += 1
    assert checked >= 2 * moves
    assert not errors, errors
    ctx_a.close()
    ctx_b.close()


def test_a_solo_hand_too_weak_for_the_attack_is_told_to_flip_a_jester(server, chromium):
    """Rules 1.8 and 1.14: in Step 4 a solo hand worth less than the attack, with a Jester left,
    has one move, the Jester: the prompt says so, and no discard button waits in vain."""
    from regalia.core.records import Match
    from regalia.games import get_game

    game = get_game("regicide")
    for seed in range(2000):
        m, rng, ply = Match(game, {"players": 1}, seed), random.Random(seed), 0
        while not game.is_terminal(m.state) and game.legal_actions(m.state) != [A.JESTER_REFRESH]:
            m.play(rng.choice(list(game.legal_actions(m.state))))
            ply += 1
        if not game.is_terminal(m.state):
            break
    view = game.view(m.state, 0)
    assert view["phase"] == "suffer" and view["jesters"] > 0
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table)
    show_state(page, state_message(game, m.state, 0, table["id"], ply))
    page.wait_for_function("p => window.regalia.M.state.ply === p", arg=ply)
    worth = sum(view_value(c) for c in view["hand"])
    assert page.inner_text(".prompt") == (f"The enemy attacks for {view['attack_to_absorb']} but your "
                                          f"hand is worth only {worth}: flip a Jester for a new hand.")
    assert page.locator("#act-discard").count() == 0 and page.locator("#act-jester").is_enabled()
    page.context.close()


def test_the_prompt_says_what_to_do_with_an_empty_hand_and_why_there_is_no_yield(server, chromium):
    """Rules 1.14: a solo hand emptied at Step 1 is told to flip a Jester (no "select cards"
    line under the buttons); rules 1.11: at 3 players, when both others yielded, the prompt
    says why the Yield button is missing; an empty hand that may yield is told to."""
    from regalia.games import get_game

    game = get_game("regicide")
    castle = [r + s for r in "JQK" for s in "CDHS" if r + s != "JC"]

    def position(players: int, hands: list, yielded: list, jesters: int = 0):
        return game.from_json({
            "game": "regicide", "players": players, "current": 0, "phase": "play",
            "enemy": "JC", "damage": 0, "immunity_cancelled": False, "table": [],
            "castle": castle, "tavern": ["2C", "3C"], "discard": [], "hands": hands,
            "yielded": yielded, "jesters": jesters, "preferences": [None] * players,
            "options": {}})

    cases = [(1, position(1, [[]], [False], jesters=1), "Your hand is empty: flip a Jester for a new hand."),
             (3, position(3, [["5H"], ["6H"], ["7H"]], [False, True, True]),
              "Your turn: select cards and play them (no yield: every other player yielded on "
              "their last turn)."),
             (3, position(3, [[], ["6H"], ["7H"]], [False, False, True]),
              "Your hand is empty: yield (play nothing) this turn.")]
    for players, st, prompt in cases:
        table = server.create("regicide", ["human"] * players)
        page = open_seat(chromium, server, table)
        show_state(page, state_message(game, st, 0, table["id"], 7))
        page.wait_for_function("() => window.regalia.M.state.ply === 7")
        assert page.inner_text(".prompt") == prompt, (players, page.inner_text(".prompt"))
        if not game.view(st, 0)["hand"]:
            assert page.locator("#why").count() == 0   # no "select cards" under the buttons
        page.context.close()


def test_the_solo_jester_refresh_is_asked_first(server, chromium):
    """Rules 1.14: flipping a Jester throws the hand away and lowers a win's medal, and
    cannot be undone: the page asks first; "no" sends nothing, "yes" flips it."""
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table)
    st = page_state(page)
    assert "jester" in st["legal"] and len(st["legal"]) > 1
    asked: list[str] = []

    def answer(dialog, yes: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if yes else dialog.dismiss()

    page.once("dialog", lambda d: answer(d, False))
    page.click("#act-jester")
    assert asked and f"Your {len(st['view']['hand'])} cards go to the discard pile" in asked[0]
    page.wait_for_timeout(300)
    assert page_state(page)["ply"] == 0            # nothing was sent
    page.once("dialog", lambda d: answer(d, True))
    page.click("#act-jester")
    wait_ply(page, 1)
    assert page_state(page)["view"]["jesters"] == 1
    page.context.close()


def test_the_play_button_names_the_cards_in_the_order_the_log_will(server, chromium):
    """Two cards selected last one first: the Play button writes them in the engine's order,
    the order of the log line that follows the play."""
    from regalia.games.regicide.cards import parse_card, pretty

    for _ in range(100):  # deals, until one has a two-card play
        table = server.create("regicide", ["human"])
        page = open_seat(chromium, server, table)
        st = page_state(page)
        pairs = [a for a in st["legal"] if a.startswith("play ") and len(a.split()) == 3
                 and "X" not in a]
        if pairs:
            break
        page.context.close()
    else:
        raise AssertionError("no deal with a two-card play in 100 deals")
    cards = pairs[0].split()[1:]
    for card in reversed(cards):
        page.locator(".hand .card.in-hand").nth(st["view"]["hand"].index(card)).click()
    shown = " ".join(pretty(parse_card(c)) for c in cards)
    assert page.inner_text("#act-play").startswith(f"Play {shown} ("), page.inner_text("#act-play")
    page.click("#act-play")
    page.wait_for_function("t => document.getElementById('log').textContent.includes(t)", arg=f"plays {shown}")
    page.context.close()


def view_value(card: str) -> int:
    """A hand card's value as the rules count it in Step 4 (rules 1.2)."""
    return {"A": 1, "T": 10, "J": 10, "Q": 15, "K": 20, "X": 0}.get(card[0]) or int(card[0])


def test_the_log_says_why_hearts_did_nothing(server, chromium):
    """Rules 1.6: Hearts with an empty discard pile heal nothing; the log says why (in the
    page's language) instead of naming the power alone."""
    from regalia.core.records import Match
    from regalia.games import get_game

    game = get_game("regicide")
    for seed in range(200):  # a deal whose first enemy is not a Heart, with a Heart in hand
        m = Match(game, {"players": 1}, seed)
        view = game.view(m.state, 0)
        heart = next((c for c in view["hand"] if c[1] == "H"), None)
        if heart and view["enemy"][1] != "H":
            break
    m.play(game.action_from_text(m.state, f"play {heart}"))
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table, locale="pt-BR")
    show_state(page, state_message(game, m.state, 0, table["id"], 1))
    page.wait_for_function("() => window.regalia.M.state.ply === 1")
    assert "Copas: o descarte está vazio, não há nada para curar." in page.inner_text("#log")
    page.context.close()


@pytest.mark.parametrize("locale, letters", [
    ("en-US", ("J", "Q", "K")),
    ("pt-BR", ("V", "D", "R")),   # Valete, Dama, Rei
    ("es-ES", ("J", "Q", "K")),   # Jota, cu (Reina), ka (Rey): the Spanish French deck's indices
])
def test_face_cards_and_the_castle_count_use_the_languages_letters(server, chromium, shots, locale, letters):
    table = server.create("regicide", ["human"])
    page = open_seat(chromium, server, table, locale=locale)
    page.wait_for_selector(".enemy .card .corner.tl b")
    # the first enemy is a Jack: its corners, and its letter in the middle
    assert page.inner_text(".enemy .card .corner.tl b") == letters[0]
    assert page.inner_text(".enemy .card .corner.br b") == letters[0]
    assert page.inner_text(".enemy .royal-letter").startswith(letters[0])
    counts = page.locator(".castle .rank-left").all_inner_texts()
    assert [c.split("×")[0] for c in counts] == list(letters)
    assert counts == [f"{letters[0]}×3", f"{letters[1]}×4", f"{letters[2]}×4"]
    shots(page, f"regicide-face-letters-{locale}", full_page=False)
    page.context.close()
