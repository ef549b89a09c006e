"""Friends in the browser: two people sign up in their own browsers, one asks the other to
be friends by name from the lobby's Friends panel and the other accepts; each sees the
other online; one creates a table and invites the other from its My tables row; the
invitation shows in the other's lobby, whose Join takes the free seat and opens the
table."""

from __future__ import annotations

import sqlite3

import pytest

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"
POLL = 8000  # ms: more than the lobby's poll of its friends (5 s)


def signed_up(chromium, server, name: str):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#sign-in-open")
    assert page.is_hidden("#friends-panel")  # signed out: no Friends panel
    page.click("#sign-in-open")
    page.fill("#account-name-input", name)
    page.fill("#account-password", PASSWORD)
    page.click("#sign-up")
    page.wait_for_selector("#account-name")
    page.wait_for_selector("#friends-panel:not([hidden]) #friend-list-empty")
    return ctx, page


def test_two_people_befriend_and_one_joins_the_others_table_from_an_invitation(
        server, chromium, shots):
    ctx_a, ana = signed_up(chromium, server, "Ana")
    ctx_b, beto = signed_up(chromium, server, "Beto")

    ana.fill("#friend-name", "beto")  # any case
    ana.click("#friend-add")
    ana.wait_for_function("() => document.getElementById('friends-status').textContent"
                          ".includes('Friend request sent to Beto')")
    ana.wait_for_selector('#friend-sent li[data-name="Beto"]')

    beto.wait_for_selector('#friend-requests li[data-name="Ana"]', timeout=POLL)
    shots(beto, "lobby-friend-request", full_page=False)
    beto.get_by_role("button", name="Accept Ana as a friend", exact=True).click()
    beto.wait_for_selector('#friend-list li[data-name="Ana"][data-online="1"]')  # her lobby is open
    ana.wait_for_selector('#friend-list li[data-name="Beto"][data-online="1"]', timeout=POLL)
    ana.click('#friend-list li[data-name="Beto"] summary')  # More: Remove, Block
    shots(ana, "lobby-friends-online")

    # Ana creates a table for two (Le Roy des Ribauds: seat 2 waits for a person)
    ana.click('label[for="game-ribauds"]')
    ana.click("#create-btn")
    ana.wait_for_url("**/t/**")
    ana.wait_for_function("() => window.regalia && window.regalia.M.state")
    table_id = ana.url.split("/t/")[1].split("#")[0]
    ana.goto(server.url + "/")
    picker = f"#invite-friend-{table_id}"
    ana.wait_for_selector(f'.friend-invite:not([hidden]) {picker} option[value="Beto"]',
                          state="attached", timeout=POLL)
    ana.click(f"#invite-btn-{table_id}")
    ana.wait_for_function("() => [...document.querySelectorAll('.invite-note')]"
                          ".some((n) => n.textContent.includes('Invitation sent to Beto'))")
    shots(ana, "lobby-friend-invited", full_page=False)

    beto.wait_for_selector("#friend-invitations li", timeout=POLL)
    said = beto.text_content("#friend-invitations li")
    assert "Ana invites you to Le Roy des Ribauds" in said and "1 free seat of 2" in said
    shots(beto, "lobby-friend-invitation", full_page=False)
    beto.get_by_role("button", name="Join Ana's table", exact=True).click()
    beto.wait_for_url(f"**/t/{table_id}#s=*")
    beto.wait_for_function("() => window.regalia && window.regalia.M.state"
                           " && !window.regalia.M.state.waiting")
    assert beto.evaluate("() => window.regalia.M.welcome.seat") == 1
    kept = beto.evaluate("() => JSON.parse(localStorage.getItem('regalia.tables'))")
    assert [(e["id"], e["seat"]) for e in kept] == [(table_id, 1)]  # as an invitation link's
    with sqlite3.connect(server.db) as db:
        seat = db.execute("SELECT s.name, a.name FROM seats s JOIN accounts a ON "
                          "a.id = s.account_id WHERE s.table_id = ? AND s.seat = 1",
                          (table_id,)).fetchone()
        left = db.execute("SELECT count(*) FROM table_invitations").fetchone()[0]
    assert seat == ("Beto", "Beto") and left == 0
    ctx_a.close()
    ctx_b.close()
