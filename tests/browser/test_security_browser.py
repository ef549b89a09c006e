"""The pages under the server's Content-Security-Policy: the lobby, a
table, its spectator link and a replay work in Chromium with no policy violation; a table's
id alone shows nothing, and a page closed by the server for falling behind (1013) comes
back by itself."""

from __future__ import annotations

import json
import urllib.request

import pytest

from browser_helpers import wait_ply, wait_state

pytestmark = pytest.mark.slow

WATCH = """() => { window.__csp = [];
  document.addEventListener('securitypolicyviolation',
    (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI)); }"""


def test_the_pages_work_under_the_content_security_policy(server, chromium):
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    ctx.add_init_script(f"({WATCH})()")
    errors: list[str] = []
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(server.url + "/")
    page.wait_for_selector(".game-tile")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    st = wait_state(page)
    page.wait_for_selector(".hand .card.in-hand")
    assert page.evaluate("() => window.__csp") == []
    # the spectator link, and the table id alone
    spectate = page.evaluate("() => window.regalia.M.welcome.spectate")
    assert spectate and "#s=" in spectate
    watcher = ctx.new_page()
    watcher.goto(server.url + spectate)
    assert wait_state(watcher)["seat"] is None
    # another browser (this one keeps the seat's token: /t/ID opens its seat here)
    other = chromium.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    other.add_init_script(f"({WATCH})()")
    stranger = other.new_page()
    stranger.on("pageerror", lambda e: errors.append(str(e)))
    stranger.goto(server.url + f"/t/{st['table']}")
    stranger.wait_for_function("() => document.querySelector('#conn').dataset.state === 'denied'")
    assert stranger.evaluate("() => window.regalia.M.state") is None
    # a finished game's replay: an all-bot table
    body = json.dumps({"game": "regicide", "players": 2, "seats": [
        {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]}).encode()
    req = urllib.request.Request(server.url + "/api/tables", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        table_id = json.load(r)["id"]
    replay = ctx.new_page()
    for _ in range(100):
        if server.get(f"/api/tables/{table_id}")["status"] == "finished":
            break
        replay.wait_for_timeout(200)
    replay.goto(server.url + f"/replay/{table_id}")
    replay.wait_for_selector("#replay-board .card")
    for p in (page, watcher, stranger, replay):
        assert p.evaluate("() => window.__csp") == [], p.url
    assert errors == []
    other.close()
    ctx.close()


def test_a_page_closed_for_falling_behind_comes_back(server, chromium):
    ctx = chromium.new_context(viewport={"width": 1100, "height": 850}, locale="en-US")
    page = ctx.new_page()
    d = server.create("regicide", ["human"])
    page.goto(server.url + d["seats"][0]["link"])
    st = wait_state(page)
    # the server closes the page's socket with 1013, as it does for a slow reader
    page.evaluate("() => window.regalia.socket.ws.dispatchEvent(new CloseEvent('close', {code: 1013}))")
    page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'online'",
                           timeout=15000)
    page.evaluate(f"() => window.regalia.socket.send({{type: 'act', ply: {st['ply']}, "
                  f"action: {json.dumps(st['legal'][0])}}})")
    wait_ply(page, st["ply"] + 1)
    ctx.close()
