"""Accounts in the browser: the lobby's top bar signs up, and the account adopts the table
this browser holds and takes its name as the nickname; the profile page shows the account;
signing out leaves the lobby as it was, with no account needed to play."""

from __future__ import annotations

import json
import sqlite3
import urllib.request

import pytest

pytestmark = pytest.mark.slow


def post(server, path: str, body: dict) -> dict:
    req = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.loads(r.read())


def test_signing_up_in_the_lobby_adopts_the_browsers_table_and_names_it(server, chromium, shots):
    table = post(server, "/api/tables", {"game": "regicide", "players": 1,
                                         "seats": [{"kind": "human"}]})
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + table["seats"][0]["link"])  # the seat's link: claimed, remembered
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    page.goto(server.url + "/")
    page.wait_for_selector("#sign-in-open")
    page.click("#sign-in-open")
    page.fill("#account-name-input", "Lena")
    page.fill("#account-password", "correct horse battery")
    page.click("#sign-up")
    page.wait_for_selector("#account-name")
    assert page.text_content("#account-name") == "Lena"
    assert page.input_value("#nickname") == "Lena"
    assert page.evaluate("() => localStorage.getItem('regalia.name')") == "Lena"
    assert page.evaluate("() => document.cookie") == ""  # HttpOnly: the page cannot read it
    shots(page, "lobby-signed-in", full_page=False)
    with sqlite3.connect(server.db) as db:  # the seat whose token the browser holds
        linked = db.execute("SELECT s.table_id, s.seat FROM seats s JOIN accounts a "
                            "ON a.id = s.account_id WHERE a.name = 'Lena'").fetchall()
    assert linked == [(table["id"], 0)]
    later = post(server, "/api/tables", {"game": "regicide", "players": 1,
                                         "seats": [{"kind": "human"}]})
    page.goto(server.url + later["seats"][0]["link"])  # signed in: the table page adopts it
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    for _ in range(50):
        with sqlite3.connect(server.db) as db:
            if db.execute("SELECT account_id FROM seats WHERE table_id = ?",
                          (later["id"],)).fetchone()[0] is not None:
                break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the table page did not adopt its seat")
    page.goto(server.url + "/")
    page.wait_for_selector("#account-name")
    page.click("#account-name")
    page.wait_for_selector("#player-name")
    assert page.text_content("#player-name") == "Lena"
    shots(page, "player-profile")
    page.goto(server.url + "/")
    page.wait_for_selector("#sign-out")
    page.click("#sign-out")
    page.wait_for_selector("#sign-in-open")
    page.click("#sign-in-open")
    page.fill("#account-name-input", "Lena")
    page.fill("#account-password", "not the password")
    page.click("#sign-in")
    page.wait_for_function("() => document.getElementById('account-error').textContent")
    assert page.text_content("#account-error") == "Wrong name or password."
    shots(page, "lobby-sign-in-refused", full_page=False)
    ctx.close()


def test_the_name_dialog_at_a_table_says_whether_an_account_is_signed_in(server, chromium):
    """At a table, "My name" explains the nickname: "No account: it is kept in this browser"
    for an anonymous player; signed in, that the account keeps its own name."""
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()

    def explained(table) -> str:
        page.goto(server.url + table["seats"][0]["link"])
        page.wait_for_function("() => window.regalia && window.regalia.M.state")
        page.click("#name-btn")
        page.wait_for_selector("#name-dlg[open]")
        return page.text_content("#nickname-explain")

    solo = {"game": "regicide", "players": 1, "seats": [{"kind": "human"}]}
    assert "No account" in explained(post(server, "/api/tables", solo))
    page.goto(server.url + "/")
    page.click("#sign-in-open")
    page.fill("#account-name-input", "Maren")
    page.fill("#account-password", "correct horse battery")
    page.click("#sign-up")
    page.wait_for_selector("#account-name")
    text = explained(post(server, "/api/tables", solo))
    assert "No account" not in text and "your account keeps its name, Maren" in text, text
    ctx.close()


def test_a_deleted_accounts_seat_is_named_in_the_pages_language(server, chromium):
    """The delete-account text names the label a deleted account's games keep in the page's
    language, and the pages show that stored label ("deleted player", kept as it is by the
    server) translated."""
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.click("#sign-in-open")
    page.fill("#account-name-input", "Nadia")
    page.fill("#account-password", "correct horse battery")
    page.click("#sign-up")
    page.wait_for_selector("#account-name")
    table = post(server, "/api/tables", {"game": "regicide", "players": 2, "seats": [
        {"kind": "human"}, {"kind": "bot", "bot": "medium"}]})
    link = server.url + table["seats"][0]["link"]
    page.goto(link)  # signed in: the account adopts the seat, named Nadia
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    page.wait_for_function("() => document.querySelector('.players').innerText.includes('Nadia')")
    page.goto(server.url + "/players/Nadia")
    page.wait_for_selector(".delete-account")
    text = page.inner_text(".delete-account")
    assert "«jugador eliminado»" in text and "deleted player" not in text, text
    gone = page.evaluate("""async () => (await fetch("/api/account", {method: "DELETE",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({password: "correct horse battery"})})).status""")
    assert gone == 200
    assert server.get(f"/api/tables/{table['id']}")["seats"][0]["name"] == "deleted player"
    page.goto(link)
    page.wait_for_function("() => window.regalia && window.regalia.M.state")
    page.wait_for_function("() => document.querySelector('.players').innerText"
                           ".includes('jugador eliminado')", timeout=5000)
    assert "deleted player" not in page.inner_text(".players")
    ctx.close()
