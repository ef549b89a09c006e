"""Request bodies refused by the API's models (``web.schemas``) get the registry's own
sentences, 400 (a rematch without a seat token: 403), before anything is counted."""

from __future__ import annotations

import pytest

from server_helpers import running_app

CREATE = [
    (b"{", "the body must be JSON"),
    (b"[1]", "the body must be a JSON object"),
    (b'{"game": "regicide", "seed": 1}', "seed: the server deals every table"),
    (b'{"game": "regicide", "zz": 1}', "unknown field 'zz'; the fields are game, players"),
    (b'{"game": "chess"}', "game: choose one of regicide, ribauds"),
    (b'{"game": "ribauds", "players": 3}', "players: ribauds is for exactly 2 players"),
    (b'{"game": "regicide", "players": "2"}', "players: regicide is for 1 to 4 players"),
    (b'{"game": "regicide", "clock": 5}', "clock: null (no clock), a live clock ("),
    (b'{"game": "ribauds", "seats": 5}', "seats: give one entry per player (2)"),
    (b'{"game": "regicide", "open": "yes"}', "open: true (listed in the lobby) or false"),
]


@pytest.mark.parametrize("body,said", CREATE)
def test_a_malformed_create_body_is_refused_in_the_registrys_words(db_url, body, said):
    with running_app(db_url) as c:
        r = c.post("/api/tables", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "bad_request", r.text
        assert r.json()["error"].startswith(said), r.text


def test_join_and_rematch_bodies_hold_only_their_field(db_url):
    with running_app(db_url) as c:
        t = c.post("/api/tables", json={"game": "regicide", "players": 2}).json()["id"]
        for path, field in (("join", "name"), ("rematch", "token")):
            for body in ([], {field: "a", "b": 1}):
                r = c.post(f"/api/tables/{t}/{path}", json=body)
                assert r.status_code == 400, r.text
                assert r.json()["error"] == f"the body must be a JSON object with only {field!r}"
        r = c.post(f"/api/tables/{t}/join", json={"name": 5})
        assert r.json()["error"] == "name: 1 to 24 characters of text, not a bot's or a seat's label (Bot..., Player N)"
        assert c.post(f"/api/tables/{t}/rematch", json={}).status_code == 403
