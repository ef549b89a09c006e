"""Property-based fuzzing: the HTTP API from its OpenAPI schema
(schemathesis) and the websocket protocol (hypothesis strategies over message shapes).
Each checks: no 5xx, no socket dropped without an error message, the stored game
unchanged."""

from __future__ import annotations

import json

import pytest
from argon2 import PasswordHasher
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server_helpers import join, new_table, running_app
from regalia.server.web.passwords import Passwords

pytestmark = pytest.mark.slow

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=list(HealthCheck))
OPERATIONS = [("/api/games", "GET"), ("/api/tables", "POST"),
              ("/api/tables/{table_id}", "GET"), ("/api/tables/{table_id}/replay", "GET"),
              ("/api/account/sign-up", "POST"), ("/api/account/sign-in", "POST"),
              ("/api/account/sign-out", "POST"), ("/api/account", "GET"),
              ("/api/account/tables", "POST"), ("/api/account", "DELETE"),
              ("/api/players/{name}", "GET"), ("/api/tutorials/{game}", "POST"),
              ("/api/leaderboard", "GET"), ("/api/tables/{table_id}/join", "POST"),
              ("/api/daily", "GET"), ("/api/daily/play", "POST"), ("/api/daily/line", "GET"),
              ("/api/friends", "GET"),
              ("/api/friends/requests", "POST"), ("/api/friends/block", "POST"),
              ("/api/friends/invite", "POST"), ("/api/friends/invitations", "GET"),
              ("/api/friends/invitations/{invitation_id}/accept", "POST"),
              ("/api/account/passkeys", "GET"), ("/api/account/passkeys/{passkey_id}", "DELETE"),
              *((f"/api/account/passkeys/{step}", "POST") for step in (
                  "sign-up/begin", "sign-up/finish", "sign-in/begin", "sign-in/finish",
                  "register/begin", "register/finish", "confirm/begin")),
              ("/api/turns", "POST"), ("/api/turns", "GET"), ("/api/push/key", "GET"),
              ("/api/push/subscriptions", "POST"), ("/api/push/subscriptions", "DELETE")]
# fuzzed with the account's cookie
SIGNED_IN = ("/api/friends", "/api/account/passkeys", "/api/turns", "/api/push")


@pytest.mark.parametrize("path,method", OPERATIONS)
def test_the_http_api_fuzzed_from_its_openapi_schema(tmp_path, path, method):
    import schemathesis

    from regalia.server.app import create_app

    db = f"sqlite:///{tmp_path / 'fuzz.sqlite3'}"
    with running_app(db) as c:  # a table being played, which no request may change
        d = new_table(c, "regicide", ["human", "human"])
        c.post("/api/account/sign-up", json={"name": "Fuzzy", "password": "fuzzy password"})
        rated = c.post("/api/tables", json={"game": "ribauds", "rated": True, "open": True})
        assert rated.status_code == 201, rated.text  # a rated open table: refused joins
        session = c.cookies.get("regalia_session")  # the friends' endpoints: signed in
        c.cookies.clear()
        c.post("/api/account/sign-up", json={"name": "Fuzzy Friend", "password": "fuzzy password"})
        c.cookies.clear()
        c.cookies.set("regalia_session", session)
        c.post("/api/friends/requests", json={"name": "Fuzzy Friend"})
        seated = [join(c, d, s) for s in (0, 1)]  # both seats opened: the game starts
        p = seated[c.get(f"/api/tables/{d['id']}").json()["current"]]
        p.act(p.state["legal"][0])
        p.state_at(1)
        before = c.app.state.manager.store.load_table(d["id"]).moves
    app = create_app(db, bot_processes=False, table_rate="100000/second",
                     daily_solve_seconds=5,  # a daily deal started: its solver is quick
                     sign_up_rate="100000/second", sign_in_rate="100000/second",
                     passwords=Passwords(PasswordHasher(time_cost=1, memory_cost=1024,
                                                        parallelism=1)),
                     allowed_hosts=("testserver",))  # the ASGI test client's Host
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operation = schema[path][method]

    cases = st.one_of(operation.as_strategy(),  # valid requests and invalid ones
                      operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE))

    statuses: list[int] = []

    @FUZZ
    @given(case=cases)
    def check(case):
        r = case.call(cookies={"regalia_session": session} if path.startswith(SIGNED_IN)
                      else None)
        statuses.append(r.status_code)
        assert r.status_code < 500, (case.as_curl_command(), r.status_code, r.text[:300])
        ctype = r.headers["content-type"]
        assert "application/json" in str(ctype), r.headers
        if r.status_code >= 400:
            body = r.json()
            assert body.get("error") and body.get("code"), body  # the API's one error form

    check()
    if path.startswith(SIGNED_IN):  # signed in: answered beyond "sign in first"
        assert any(code not in (401, 403) for code in statuses), statuses[:20]
    with running_app(db) as c:
        assert c.app.state.manager.store.load_table(d["id"]).moves == before


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=10),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)
ODD = st.sampled_from(["\ud800", "a\udfff", "\x00", "\u202e", "9" * 5000, "play 5C",
                       "prefer 0 yes", "prefer 1 no", "yield", "play X", "choose 1",
                       "hello", "heuristic"])
TEXT = st.text(max_size=40) | ODD
FIELD = JSON | TEXT | st.integers(-3, 12)
MESSAGE = st.fixed_dictionaries(
    {"type": st.sampled_from(["act", "wish", "say", "chat", "bot", "ping", "hello"]) | TEXT},
    optional={"ply": FIELD, "action": FIELD, "value": FIELD, "message_id": FIELD,
              "text": FIELD, "seat": FIELD, "on": FIELD, "token": FIELD})
RAW = MESSAGE.map(json.dumps) | JSON.map(json.dumps) | st.text(max_size=60) \
    | st.sampled_from(["[" * 3000 + "]" * 3000, "{" * 100, '{"type": "act", "ply": 1e999}'])


@pytest.mark.parametrize("game", ["regicide", "ribauds"])
def test_the_websocket_protocol_fuzzed_by_message_shapes(db_url, game):
    with running_app(db_url, talk_rate="100000/second") as c:
        d = new_table(c, game, ["human", "human"])
        current = c.get(f"/api/tables/{d['id']}").json()["current"]
        waiting = join(c, d, 1 - current)  # the seat not to act, and a spectator
        spectator = join(c, d, None)
        store = c.app.state.manager.store

        @FUZZ
        @given(raw=RAW, who=st.sampled_from([waiting, spectator]))
        def check(raw, who):
            who.send(raw)
            who.send({"type": "ping"})  # answered in order: the socket is still open
            who.recv_until(lambda m: m["type"] == "pong")
            assert all(m.get("code") != "server_error" for m in who.errors())

        check()
        assert store.load_table(d["id"]).moves == []
