"""The replay page tells each move in the log's own translated sentences, never in notation,
and the solo table's prompt offers no yield unless the option allows it."""

from __future__ import annotations

import re
import time
import urllib.error

import pytest

pytestmark = pytest.mark.slow

NOTATION = re.compile(r"\b(replace|reveal|swap|flip|peek|play|discard|choose|prefer) [0-9AJQKX]"
                      r"|(?<!nor )\byield\b|\bjester\b")  # "can neither play a card nor yield." is a sentence


def finished_table(server, game: str, seats: list[str]) -> tuple[str, dict]:
    """A table played to its end by bots, and its replay (asked again until the last move
    is stored: the status reads finished a moment before, see the report)."""
    table = server.create(game, seats)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the bots did not finish the game"
        try:
            return table["id"], server.get(f"/api/tables/{table['id']}/replay")
        except urllib.error.HTTPError:
            time.sleep(0.2)


def header_and_latest(page) -> tuple[str, str]:
    return page.evaluate("""() => [document.querySelector('#step-action').textContent,
        Array.from(document.querySelectorAll('#log li.latest')).map(li => li.textContent).join(' ')]""")


def check_every_step(page, steps: int) -> list[str]:
    page.click("#first")
    page.wait_for_function("() => document.querySelector('#ply').textContent.includes(' 0 ')")
    assert page.locator("#log li").count() >= 1  # the start shows the deal, as the live log did
    headers = []
    for k in range(1, steps + 1):
        page.click("#next")
        page.wait_for_function("k => document.querySelector('#slider').value === String(k)", arg=k)
        header, latest = header_and_latest(page)
        assert header == latest and header, (k, header, latest)
        assert not NOTATION.search(header), (k, header)
        headers.append(header)
    return headers


@pytest.mark.parametrize("game, seats, lang, words", [
    ("ribauds", ["random", "random"], "en", ("C1", "C2", "C3", "C4")),
    ("ribauds", ["random", "random"], "pt-BR", ("C1", "C2", "C3", "C4")),
    ("regicide", ["heuristic"], "es", ("Bot (heurístico)",)),
])
def test_the_replay_header_uses_the_logs_sentences(server, chromium, shots, game, seats, lang, words):
    table_id, replay = finished_table(server, game, seats)
    steps = len(replay["steps"]) - 1
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800}, locale=lang)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/replay/{table_id}")
    page.wait_for_selector("#replay-board .card")
    headers = check_every_step(page, steps)
    text = " ".join(headers)
    assert any(w in text for w in words), text
    if game == "ribauds":
        assert not re.search(r"\b[aA] (Roi|Reine|Chevalier|Assassin)\b", text), text
        # a card placed face down is named as the replay shows it, not as "your card"
        mine, named = {"en": ("(your card:", "(the card:"), "pt-BR": ("(a sua carta:", "(a carta:")}[lang]
        assert mine not in text, text
        assert named in text or not re.search(r"face down in|virada para baixo em", text), text
    if game == "regicide":
        assert "Victoria:" in headers[-1] or "Derrota:" in headers[-1], headers[-1]
        assert "jugadores" not in headers[-1]
    shots(page, f"replay-{game}-{lang}")
    # another language: the same header in the new language's sentences
    other = "en" if lang != "en" else "es"
    before = header_and_latest(page)[0]
    page.select_option("#lang", other)
    page.wait_for_function("h => document.querySelector('#step-action').textContent !== h", arg=before)
    header, latest = header_and_latest(page)
    assert header == latest and not NOTATION.search(header)
    assert not errors, errors
    ctx.close()


@pytest.mark.parametrize("options, offered", [({}, False), ({"solo_yield": True}, True)])
def test_the_solo_prompt_offers_yield_only_when_allowed(server, chromium, options, offered):
    table = server.create("regicide", ["human"], options=options)
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])
    page.wait_for_selector(".prompt.yours")
    prompt = page.inner_text(".prompt.yours")
    assert prompt.startswith("Your turn: select cards and play them")
    assert ("yield" in prompt) is offered, prompt
    assert (page.locator("#act-yield").count() == 1) is offered
    ctx.close()


def replay_at_its_end(server, chromium, locale: str = "en-US"):
    """The replay page of a finished Ribauds game between two bots, at its last move (where
    a replay opens), and that move's number; close it with ``page.context.close()``."""
    table_id, replay = finished_table(server, "ribauds", ["random", "random"])
    last = len(replay["steps"]) - 1
    page = chromium.new_context(viewport={"width": 1280, "height": 800}, locale=locale).new_page()
    page.goto(f"{server.url}/replay/{table_id}")
    page.wait_for_function("n => document.querySelector('#slider').value === String(n)", arg=last)
    return page, last


def test_play_from_the_last_move_where_a_replay_opens_starts_from_the_deal(server, chromium):
    page, last = replay_at_its_end(server, chromium)
    page.click("#play")
    # it steps forward from the deal (one move every 0.9 s), not stuck at the end
    page.wait_for_function("() => document.querySelector('#slider').value === '1'", timeout=5000)
    assert page.inner_text("#play") == "❚❚"
    page.click("#play")  # pause
    assert page.inner_text("#play") == "▶"
    page.context.close()


def test_a_replay_that_cannot_open_says_why_with_the_way_to_the_lobby(server, chromium):
    """An unknown table, or a game not over yet: the replay page says which (no dead
    controls over an empty board) and links the lobby."""
    playing = server.create("regicide", ["human"])
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    for table_id, said in (("NOPE1234", "There is no table NOPE1234 on this server"),
                           (playing["id"], "The replay opens when the game is over.")):
        page.goto(server.url + f"/replay/{table_id}")
        page.wait_for_selector("#gone-lobby")
        assert said in page.inner_text(".gone-box")
        assert page.locator("#slider").count() == 0 and not page.locator(".side").is_visible()
        page.click("#gone-lobby")
        page.wait_for_selector(".game-tile")
    ctx.close()


def slider_at(page) -> int:
    return int(page.input_value("#slider"))


def test_the_arrow_keys_step_one_move_and_leave_the_form_controls_alone(server, chromium):
    """The page's Left/Right step through the moves, but not on top of a control that takes
    them itself: on the slider one press is one move, on the Language select it only changes
    the language."""
    page, last = replay_at_its_end(server, chromium)
    page.focus("#slider")
    page.keyboard.press("ArrowLeft")
    assert slider_at(page) == last - 1
    page.keyboard.press("ArrowLeft")
    assert slider_at(page) == last - 2
    page.keyboard.press("ArrowRight")
    assert slider_at(page) == last - 1
    assert "move %d / %d" % (last - 1, last) in page.inner_text("#ply")
    page.focus("#lang")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.documentElement.lang !== 'en'")
    assert slider_at(page) == last - 1
    page.evaluate("() => document.activeElement.blur()")   # elsewhere the arrows step
    page.keyboard.press("ArrowLeft")
    assert slider_at(page) == last - 2
    page.context.close()


def test_the_replay_controls_are_named_in_the_pages_language_and_say_the_move(server, chromium):
    """The glyph buttons and the slider have names in the page's language (Play's says
    pause while playing), and the move shown is read out when it changes (a live region)."""
    page, last = replay_at_its_end(server, chromium, "pt-BR")
    for name in ("Voltar à distribuição", "Lance anterior", "Reproduzir", "Próximo lance", "Último lance"):
        assert page.get_by_role("button", name=name, exact=True).count() == 1, name
    slider = page.get_by_role("slider", name="Posição no replay")
    assert slider.get_attribute("aria-valuetext") == f"Lance {last} de {last}"
    assert page.get_attribute("#step-action", "aria-live") == "polite"
    page.click("#first")
    page.click("#next")
    assert slider.get_attribute("aria-valuetext") == f"Lance 1 de {last}"
    assert page.inner_text("#step-action") != "A distribuição"
    page.click("#play")
    assert page.get_attribute("#play", "aria-label") == "Pausar" and page.inner_text("#play") == "❚❚"
    page.select_option("#lang", "en")                         # the names follow the language
    page.wait_for_function("() => document.querySelector('#play').getAttribute('aria-label') === 'Pause'")
    page.click("#play")
    assert page.get_attribute("#play", "aria-label") == "Play" and page.get_attribute("#play", "title") == "Play"
    assert page.get_attribute("#first", "aria-label") == "Back to the deal"
    page.context.close()


def test_the_analysis_rows_are_buttons_that_take_the_focus(server, chromium):
    """The analysis (its answer stubbed here: the bots' work is tested on the server) moves
    the focus to its first decision once shown; each decision is a button (Enter or Space)
    with the site's focus ring."""
    table_id, replay = finished_table(server, "regicide", ["heuristic"])
    steps = replay["steps"]
    decisions = [{"index": k, "played": steps[k + 1]["action"], "best": steps[k + 1]["action"],
                  "played_win": 0.5, "best_win": 0.5, "cost": 0, "marked": k == 2, "worlds": 100}
                 for k in (0, 2)]
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    page.route("**/analysis?seat=0", lambda route: route.fulfill(json={"seat": 0, "decisions": decisions}))
    page.goto(f"{server.url}/replay/{table_id}")
    page.wait_for_selector("#analysis-panel:not([hidden])")
    page.focus("#analyse-btn")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'decision-0'")
    ring = page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
        return [e.tagName, e.matches(':focus-visible'), s.outlineStyle, s.outlineWidth, s.outlineColor]; }""")
    assert ring == ["BUTTON", True, "solid", "3px", "rgb(47, 125, 225)"], ring
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "decision-2"
    page.keyboard.press("Space")
    assert slider_at(page) == 3                 # "Move 3": the step of the third move
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    assert slider_at(page) == 1
    ctx.close()


def test_an_analysis_row_shows_the_move_it_names(server, chromium):
    """Clicking "Move N" in the analysis shows the replay's step "move N / total", whose
    caption is the move judged (its answer stubbed: the bots' work is tested on the
    server)."""
    table_id, replay = finished_table(server, "regicide", ["heuristic"])
    steps = replay["steps"]
    total = len(steps) - 1
    chosen = (0, 4, total - 1)
    decisions = [{"index": k, "played": steps[k + 1]["action"], "best": steps[k + 1]["action"],
                  "played_win": 0.5, "best_win": 0.5, "cost": 0, "marked": False, "worlds": 100}
                 for k in chosen]
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    page.route("**/analysis?seat=0", lambda route: route.fulfill(json={"seat": 0, "decisions": decisions}))
    page.goto(f"{server.url}/replay/{table_id}")
    page.wait_for_selector("#analysis-panel:not([hidden])")
    page.click("#analyse-btn")
    page.wait_for_selector("#decision-0")
    for k in chosen:
        row = page.locator(f"#decision-{k}")
        label = row.locator("b").inner_text()
        n = int(label.split()[1].rstrip(":"))
        row.click()
        assert slider_at(page) == n
        assert page.inner_text("#ply") == f"move {n} / {total}"
    ctx.close()
