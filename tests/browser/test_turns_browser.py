"""Turn-based tables in the browser: the lobby's Clock offers "1 day per move"; the table
shows the time per move, the time left in days and hours, and a "Notify me" button; once it
is the player's turn the lobby's "Your turn" list shows the table, whose Play opens the seat;
and a table opened without its link's token (as a notification opens it) finds the seat
this browser keeps."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_a_turn_based_table_shows_in_your_turn(server, chromium, shots):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector('#clock optgroup[label="Turn-based: a time for each move"] option[value="day"]',
                           state="attached")
    assert page.text_content('#clock option[value="day"]') == "1 day per move"
    assert page.text_content('#clock option[value="3days"]') == "3 days per move"
    assert page.is_hidden("#turns-panel")  # nothing awaits this browser yet
    page.click('label[for="game-ribauds"]')
    page.select_option("#seat-1", "bot:medium")
    page.select_option("#clock", "day")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    table_id = page.url.split("/t/")[1].split("#")[0]
    # the bot plays first when the draw says so: then it is this seat's turn
    page.wait_for_function("() => { const s = window.regalia && window.regalia.M.state;"
                           " return s && s.current === s.seat; }", timeout=20000)
    page.wait_for_selector("#per-move")
    assert page.text_content("#per-move") == "Turn-based: 1 day per move"
    left = page.text_content("#clock-0 .clock-time")
    assert left.startswith("23 h 59 min") or left == "24 h 0 min", left
    assert page.is_visible("#notify-btn") and page.text_content("#notify-btn") == "Notify me"
    shots(page, "table-turn-based", full_page=False)

    page.goto(server.url + "/")
    row = f'#your-turn li[data-id="{table_id}"]'
    page.wait_for_selector(f"#turns-panel:not([hidden]) {row}")
    said = page.text_content(row)
    assert "Le Roy des Ribauds" in said and "turn-based" in said and "left" in said, said
    shots(page, "lobby-your-turn", full_page=False)
    page.get_by_role("link", name=f"Play at Le Roy des Ribauds, 2 players, table {table_id}",
                     exact=True).click()
    page.wait_for_url(f"**/t/{table_id}#s=*")
    page.wait_for_function("() => window.regalia && window.regalia.M.welcome")
    assert page.evaluate("() => window.regalia.M.welcome.seat") == 0

    # opened as a notification opens it, without the link's token: the seat kept here
    page.goto(f"{server.url}/t/{table_id}")
    page.wait_for_function("() => window.regalia && window.regalia.M.welcome")
    assert page.evaluate("() => window.regalia.M.welcome.seat") == 0
    assert "#s=" in page.url
    ctx.close()


def test_the_service_worker_is_served_for_the_whole_site(server, chromium):
    ctx = chromium.new_context()
    page = ctx.new_page()
    r = page.request.get(server.url + "/sw.js?lang=es")
    assert r.ok and "javascript" in r.headers["content-type"]
    assert r.headers["service-worker-allowed"] == "/"
    assert "showNotification" in r.text() and "notificationclick" in r.text()
    page.goto(server.url + "/")
    scope = page.evaluate("""async () => {
        const reg = await navigator.serviceWorker.register('/sw.js?lang=es', {scope: '/'});
        return reg.scope; }""")
    assert scope == server.url + "/"
    ctx.close()
