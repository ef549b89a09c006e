"""The tutorials in the browser: reached from the lobby, each played to its end by doing what
the coach says and marks (the cards, Court slots and button it highlights, its Next
button), ending with the summary and its links; a move the step does not ask for gets the
coach's correction and changes nothing."""

from __future__ import annotations

import pytest

from browser_helpers import page_state, wait_state

pytestmark = pytest.mark.slow

HERE = """() => { const c = window.regalia.M.coach; const h = c && c.here();
                  return h ? h.i : -1; }"""


def open_tutorial(chromium, server, game: str, lang: str = "en-US"):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale=lang)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.wait_for_selector(f"#learn-{game}")
    page.click(f"#learn-{game}")
    page.wait_for_url(f"**/tutorial/{game}")
    wait_state(page)
    page.wait_for_selector("#coach #coach-text")
    return page, errors


def follow_the_coach(page, limit: int = 40) -> int:
    """Do what the coach says until its script is over: Next on a note, else click the
    marked cards (or Court slots) and then the marked button. Returns the steps done."""
    accept = lambda dialog: dialog.accept()  # noqa: E731 - the Jester's refresh asks first
    page.on("dialog", accept)
    steps = 0
    while page.evaluate(HERE) >= 0:
        steps += 1
        assert steps <= limit
        at = page.evaluate(HERE)
        page.wait_for_function("() => window.regalia.M.state.legal.length > 0"
                               " && !window.regalia.M.pending")
        if page.locator("#coach-next").count():
            page.click("#coach-next")
        else:
            picks = page.locator(".board .card.coach-pick:not(.selected)")
            while picks.count():
                picks.first.click()
            button = page.locator(".board button.coach-pick")
            assert button.count() == 1, page.inner_text("#coach")
            assert button.is_enabled(), page.inner_text("#coach")
            button.click()
        page.wait_for_function(f"() => {{ const h = ({HERE})(); return h !== {at}; }}")
        assert not page.locator("#coach-try").count(), page.inner_text("#coach-try")
    page.remove_listener("dialog", accept)
    return steps


def test_the_regicide_tutorial_played_by_following_the_coach(server, chromium, shots):
    page, errors = open_tutorial(chromium, server, "regicide")
    st = page_state(page)
    assert st["view"]["enemy"] == "JC" and len(st["view"]["hand"]) == 8
    assert "Welcome to Regicide" in page.inner_text("#coach")
    assert page.inner_text("#coach-count") == "step 1 of 19"
    assert page.locator("#invite-btn").is_hidden() and page.locator("#talk-panel").is_hidden()
    shots(page, "tutorial-regicide-start")

    # before the first note is read, a move is not sent: the coach asks to read it
    page.locator(".hand .card.in-hand[data-card='3H']").click()
    page.click("#act-play")
    assert "Read the coach first" in page.inner_text("#coach-try")
    page.click("#act-clear")
    page.click("#coach-next")
    assert "Attack" in page.inner_text("#coach-text")
    assert page.locator(".hand .card.coach-pick").count() == 1
    assert page.get_attribute(".hand .card.coach-pick", "data-card") == "3H"

    # a legal move the step does not ask for: the coach's correction, nothing changes
    page.locator(".hand .card.in-hand[data-card='TC']").click()
    page.click("#act-play")
    page.wait_for_selector("#coach-try")
    said = page.inner_text("#coach-try")
    assert "Not yet: this step asks you to play 3♥" in said and "It shows how an attack" in said
    after = page_state(page)
    assert after["ply"] == 0 and after["view"]["hand"] == st["view"]["hand"]
    assert after["view"]["damage"] == 0
    kept = "() => JSON.parse(sessionStorage.getItem('regalia.tutorial.regicide.moves'))"
    assert page.evaluate(kept) == []
    page.click("#act-clear")
    shots(page, "tutorial-regicide-correction")

    steps = follow_the_coach(page)
    assert steps == 18
    page.wait_for_selector("#end[open]")
    summary = page.inner_text("#end")
    assert "Tutorial complete!" in summary and "You know the rules of Regicide" in summary
    assert page.get_attribute("#tutorial-rules", "href") == "/rules#regicide"
    assert page.get_attribute("#tutorial-real", "href") == "/?game=regicide&players=1"
    shots(page, "tutorial-regicide-summary")
    st = page_state(page)
    # the last lessons really happened: J♠ was recruited by the Jester and played as a shield
    assert st["view"]["jesters"] == 1 and st["view"]["shield"] == 10
    assert st["view"]["enemy"] == "JD" and st["view"]["enemies_defeated"] == 2
    # the game goes on by the rules: any legal move now
    page.click("#tutorial-keep")
    assert page.locator("#end[open]").count() == 0
    assert "The tutorial is over" in page.inner_text("#coach")
    ply = st["ply"]
    page.locator(".hand .card.in-hand").first.click()
    page.click("#act-play")
    page.wait_for_function("n => window.regalia.M.state.ply > n", arg=ply)
    # a reload goes on where it was, in the page's other languages too
    page.evaluate("() => localStorage.setItem('regalia.lang', 'pt-BR')")
    page.reload()
    page.wait_for_function("n => window.regalia && window.regalia.M.state"
                           " && window.regalia.M.state.ply > n", arg=ply)
    assert "O tutorial terminou" in page.inner_text("#coach")
    assert not errors, errors


def test_the_ribauds_tutorial_played_against_its_scripted_opponent(server, chromium, shots):
    page, errors = open_tutorial(chromium, server, "ribauds")
    assert "Le Roy des Ribauds is a duel of bluff" in page.inner_text("#coach")
    page.click("#coach-next")
    page.click("#coach-next")
    # the first move: reveal C1; the Court slot and the Reveal button are marked
    assert page.locator('.court-slot[data-slot="0"] .court-card.coach-pick').count() == 1
    assert page.locator("#act-reveal.coach-pick").count() == 1
    # another slot: corrected, nothing revealed
    page.locator('.court-slot[data-slot="2"] .card').click()
    page.click("#act-reveal")
    assert "reveal C1" in page.inner_text("#coach-try")
    assert page_state(page)["ply"] == 0
    assert not any(s["face_up"] for s in page_state(page)["view"]["court"])
    page.click("#act-clear")
    shots(page, "tutorial-ribauds-correction")

    steps = follow_the_coach(page)
    assert steps == 8
    page.wait_for_selector("#end[open]")
    end = page.inner_text("#end")
    assert "You win!" in end
    assert "Coronation" in end and "You know the rules of Le Roy des Ribauds" in end
    assert page.get_attribute("#tutorial-real", "href") == "/?game=ribauds"
    shots(page, "tutorial-ribauds-end")
    st = page_state(page)
    assert st["finished"] and st["view"]["winner"] == 0
    # the scripted opponent's moves are in the log, as at a table
    kinds = [(e["kind"], e["seat"]) for e in st["view"]["log"]]
    assert ("inspect", 1) in kinds and ("discard", 1) in kinds and ("win", 0) in kinds
    assert not errors, errors
