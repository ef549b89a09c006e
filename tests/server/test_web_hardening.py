"""Web hardening: websockets only from the site's own origin (or allowed
ones), state-changing requests only as JSON, security headers with a Content-Security-Policy,
a slow reader closed with a proper close code, private tables watched only by link."""

from __future__ import annotations

import asyncio

import pytest
from starlette.websockets import WebSocketDisconnect

import regalia.server.web.socket as socket_module
from regalia.server.tables.audience import Conn
from server_helpers import join, new_table, running_app


def test_websockets_from_another_site_are_refused(db_url):
    with running_app(db_url, allowed_origins=("https://friends.example",)) as c:
        d = new_table(c, "regicide", ["human"])
        with pytest.raises(WebSocketDisconnect) as e:
            with c.websocket_connect(f"/ws/{d['id']}", headers={"Origin": "https://evil.example"}):
                pass
        assert e.value.code == 1008
        for origin in ("http://testserver", "https://friends.example"):
            with c.websocket_connect(f"/ws/{d['id']}", headers={"Origin": origin}) as ws:
                ws.send_json({"type": "hello", "token": d["seats"][0]["token"]})
                assert ws.receive_json()["type"] == "welcome"


def test_state_changing_requests_must_be_json(client):
    body = '{"game": "regicide", "players": 1, "seats": [{"kind": "human"}]}'
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        headers = {"Content-Type": ctype} if ctype else {}
        r = client.post("/api/tables", content=body, headers=headers)
        assert r.status_code == 415 and "application/json" in r.json()["error"], ctype
        assert r.json()["code"] == "not_json"
    assert client.app.state.manager.store.count_tables() == 0
    r = client.post("/api/tables", content=body,
                    headers={"Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 201


def test_unknown_paths_and_methods_answer_the_apis_error_form(client):
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.json() == {"error": "not found", "code": "not_found"}
    r = client.request("DELETE", "/api/tables/abcdefgh", json={})
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"
    assert "allow" in {k.lower() for k in r.headers}


def test_every_answer_carries_the_security_headers(client):
    for path in ("/", "/t/abcdefgh", "/replay/abcdefgh", "/api/games", "/static/js/table.js",
                 "/api/tables/nope"):
        h = client.get(path).headers
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
        assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer"
        assert h["x-frame-options"] == "DENY"


def test_a_slow_reader_is_closed_with_try_again_later(db_url, monkeypatch):
    stuck = asyncio.Event()  # never set: the socket of this client never drains

    class StuckAfterWelcome(Conn):
        def __init__(self, send, *args):
            sent = []

            async def slow(text):
                if len(sent) >= 3:
                    await stuck.wait()
                sent.append(text)
                await send(text)

            super().__init__(slow, *args)

    with running_app(db_url, send_queue=5) as c:
        d = new_table(c, "regicide", ["human", "human"])
        talker = join(c, d, 0)
        monkeypatch.setattr(socket_module, "Conn", StuckAfterWelcome)
        with c.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": "Slow"})
            for _ in range(12):
                talker.send({"type": "say", "message_id": "hello"})
            msgs = [ws.receive() for _ in range(4)]
            assert msgs[-1]["type"] == "websocket.close" and msgs[-1]["code"] == 1013
        talker.send({"type": "ping"})  # the others are not affected
        talker.recv_until(lambda m: m["type"] == "pong")


def test_a_private_table_is_watched_only_through_its_spectator_link(client):
    d = new_table(client, "ribauds", ["human", "human"])
    p0, p1 = join(client, d, 0), join(client, d, 1)
    p0.send({"type": "chat", "text": "my queen is at the left"})
    p1.recv_until(lambda m: m["type"] == "talk")
    for token in (None, "", d["id"], "x" * 24):
        with client.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "hello", "token": token})
            m = ws.receive_json()
            assert m["type"] == "error" and m["code"] == "no_access"
            assert ws.receive()["code"] == 4403
    spectator = join(client, d, None)  # by the link
    history = spectator.recv_until(lambda m: m["type"] == "talk_history")
    assert history["messages"][0]["text"] == "my queen is at the left"
    assert p0.messages[0]["spectate"] == d["spectate"]  # seated players can share the link


def test_a_request_for_a_name_the_site_does_not_have_is_refused(db_url):
    """DNS rebinding: a page of another site whose name was made to point at this server
    sends its own name as Host (and Origin); the site answers only to its own names."""
    with running_app(db_url, allowed_hosts=("testserver", "regalia.example", "*.cards.example")
                     ) as c:
        d = new_table(c, "regicide", ["human"])
        evil = {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
        for path in ("/", "/api/games", f"/api/tables/{d['id']}", "/healthz"):
            r = c.get(path, headers=evil)
            assert r.status_code == 400, path
        r = c.post("/api/tables", json={"game": "regicide", "players": 1}, headers=evil)
        assert r.status_code == 400
        assert c.app.state.manager.store.count_tables() == 1
        with pytest.raises(WebSocketDisconnect):
            with c.websocket_connect(f"/ws/{d['id']}", headers=evil):
                pass
        for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST",
                     "regalia.example", "tables.cards.example"):
            assert c.get("/api/games", headers={"Host": host}).status_code == 200, host
        with c.websocket_connect(f"/ws/{d['id']}", headers={"Host": "regalia.example",
                                                           "Origin": "http://regalia.example"}
                                 ) as ws:
            ws.send_json({"type": "hello", "token": d["seats"][0]["token"]})
            assert ws.receive_json()["type"] == "welcome"


def test_websockets_skip_the_http_stack_but_not_the_host_and_origin_checks(db_url):
    """The sockets take a shorter way than the HTTP requests (``app.Site``): the host check
    and the origin check still refuse each on its own, and a path that is no table socket is
    closed."""
    with running_app(db_url, allowed_hosts=("testserver", "regalia.example")) as c:
        d = new_table(c, "regicide", ["human"])
        refused = [{"Host": "evil.example"},  # no Origin: the host check alone
                   {"Origin": "http://evil.example"}]  # the site's own name
        hello = {"type": "hello", "token": d["seats"][0]["token"]}
        for headers in refused:
            with pytest.raises(WebSocketDisconnect):
                with c.websocket_connect(f"/ws/{d['id']}", headers=headers) as ws:
                    ws.send_json(hello)
                    ws.receive_json()  # a welcome: let in
        for path in ("/ws/", f"/ws/{d['id']}/more", "/api/games"):
            with pytest.raises(WebSocketDisconnect) as closed:
                with c.websocket_connect(path) as ws:
                    ws.send_json(hello)
                    ws.receive_json()
            assert closed.value.code == 1000, path
        with c.websocket_connect(f"/ws/{d['id']}", headers={"Host": "regalia.example"}) as ws:
            ws.send_json(hello)
            assert ws.receive_json()["type"] == "welcome"


def test_the_site_answers_to_its_own_names_only_by_default(db_url):
    from regalia.server.settings import Settings, site_hosts

    assert site_hosts(Settings()) == ["localhost", "127.0.0.1", "[::1]"]
    assert site_hosts(Settings(allowed_hosts=("a.example", "localhost")))[-1] == "a.example"
    for bad in ("", "a*.example", "*example", "x.*"):
        with pytest.raises(ValueError, match="allowed_hosts"):
            Settings(allowed_hosts=(bad,))
    with running_app(db_url, allowed_hosts=()) as c:  # the test client's own name is not one
        assert c.get("/api/games").status_code == 400
        assert c.get("/api/games", headers={"Host": "127.0.0.1"}).status_code == 200
