"""Bad input that used to break the server: each gets a clear JSON 4xx or
a websocket ``error`` message, never a 500 or a bare disconnect, and changes nothing."""

from __future__ import annotations

import json

from server_helpers import join, new_table

HUMAN = {"kind": "human"}


def post(client, content: bytes | str):
    return client.post("/api/tables", content=content,
                       headers={"Content-Type": "application/json"})


def test_table_creation_refuses_odd_json_with_a_clear_400(client):
    store = client.app.state.manager.store
    bodies = [
        {"game": "regicide", "players": 2, "seats": [HUMAN, {"kind": "bot", "bot": ["heuristic"]}]},
        {"game": "regicide", "players": 2, "seats": [HUMAN, {"kind": "bot", "bot": {"a": 1}}]},
        {"game": ["regicide"], "players": 1, "seats": [HUMAN]},
        {"game": "regicide", "players": 1, "seats": [HUMAN], "options": {"solo_yield": [1]}},
        {"game": "regicide", "players": 2, "seats": [HUMAN, HUMAN], "options": {"solo_yield": True}},
    ]
    for body in bodies:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"]
    raw = [
        '{"game": "regicide", "players": ' + "9" * 5000 + ', "seats": []}',  # over 4,300 digits
        "[" * 50_000 + "]" * 50_000,  # nested 50,000 deep (under the size limit? no: 100 KB)
        "[" * 20_000 + "]" * 20_000,  # nested 20,000 deep, within the size limit
        b'{"game": "\xff"}',           # not UTF-8
    ]
    for content in raw:
        r = post(client, content)
        assert r.status_code in (400, 413), (content[:30], r.text)
        assert r.json()["error"]
    assert store.count_tables() == 0


def test_a_hello_with_a_lone_surrogate_gets_an_error_message(client):
    d = new_table(client, "regicide", ["human", "human"])
    with client.websocket_connect(f"/ws/{d['id']}") as ws:
        ws.send_text('{"type": "hello", "token": "\\ud800abc"}')
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "no_access"


def test_lone_surrogates_in_messages_get_errors_and_change_nothing(client):
    d = new_table(client, "ribauds", ["human", "human"])
    p0, p1 = join(client, d, 0), join(client, d, 1)
    cur = p0.state["current"]
    p = (p0, p1)[cur]
    for raw in ['{"type": "chat", "text": "hi \\udfff"}',
                '{"type": "act", "ply": 0, "action": "draw \\ud800"}',
                '{"type": "say", "message_id": "\\ud800"}',
                '{"type": "\\ud800"}',
                '{"type": "wish", "value": "\\udc00"}']:
        p.send(raw)
        err = p.recv_until(lambda m: m["type"] == "error")
        assert err["code"] in ("bad_message", "illegal", "unknown_type"), (raw, err)
        json.dumps(err).encode("utf-8")
    p.send({"type": "ping"})
    p.recv_until(lambda m: m["type"] == "pong")
    store = client.app.state.manager.store
    assert store.load_table(d["id"]).moves == [] and store.load_table(d["id"]).messages == []
