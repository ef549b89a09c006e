"""Optional accounts: sign-up, sign-in and sign-out with server-side sessions (a cookie that
is HttpOnly, SameSite=Lax and Secure over TLS; a new session at each sign-in), names unique
in any case or width and never a bot's or a level's label, no account enumeration, the
rate limits, the same-origin rule, seats adopted by their tokens, the profiles, the
deletion that anonymises, and a database upgraded with its tables."""

from __future__ import annotations

import json
import random
import statistics
import time
from datetime import datetime, timezone

import pytest
from argon2 import PasswordHasher
from sqlalchemy import text

from regalia.server.storage.engine import current_revision, head_revision
from regalia.server.storage.models import token_hash
from regalia.server.tables import gamekit
from regalia.server.web.passwords import Passwords
from server_helpers import (as_address, join, new_table, old_database,
                            play_randomly, running_app)

PASSWORD = "correct horse battery"
CHEAP = dict(time_cost=1, memory_cost=1024, parallelism=1)  # tests: fast hashes


def cheap() -> Passwords:
    return Passwords(PasswordHasher(**CHEAP))


@pytest.fixture
def client(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     sign_in_rate="1000/second") as c:
        yield c


def sign_up(c, name: str, password: str = PASSWORD, **kw):
    return c.post("/api/account/sign-up", json={"name": name, "password": password}, **kw)


def sign_in(c, name: str, password: str = PASSWORD, **kw):
    return c.post("/api/account/sign-in", json={"name": name, "password": password}, **kw)


def me(c):
    return c.get("/api/account").json()["account"]


def cookie_of(r) -> dict[str, str]:
    """The ``regalia_session`` Set-Cookie of answer ``r``: its value and attributes (keys
    in lower case, flags as "")."""
    raw = [v for k, v in r.headers.multi_items() if k == "set-cookie"
           and v.startswith("regalia_session=")]
    assert len(raw) == 1, r.headers
    first, *attrs = [p.strip() for p in raw[0].split(";")]
    out = {"value": first.split("=", 1)[1]}
    for a in attrs:
        k, _, v = a.partition("=")
        out[k.lower()] = v
    return out


def stored_sessions(c) -> list[str]:
    with c.app.state.manager.store.engine.connect() as conn:
        return [r[0] for r in conn.execute(text("SELECT token_hash FROM sessions"))]


# -- sign-up, sign-in, sign-out --------------------------------------------------------


def test_sign_up_signs_the_browser_in_with_an_httponly_lax_cookie_whose_hash_alone_is_stored(client):
    r = sign_up(client, "Alice")
    assert r.status_code == 201, r.text
    assert r.json()["account"]["name"] == "Alice"
    assert r.json()["account"]["profile"] == "/players/Alice"
    c = cookie_of(r)
    assert "httponly" in c and c["samesite"].lower() == "lax" and c["path"] == "/"
    assert "secure" not in c  # plain HTTP: a Secure cookie would never come back
    assert int(c["max-age"]) == 30 * 86400
    assert stored_sessions(client) == [token_hash(c["value"])]  # never the token itself
    assert me(client)["name"] == "Alice"
    with client.app.state.manager.store.engine.connect() as conn:
        stored = conn.execute(text("SELECT name, folded, password_hash FROM accounts")).one()
    assert stored[:2] == ("Alice", "alice") and stored[2].startswith("$argon2id$")
    assert PASSWORD not in stored[2]


def test_the_session_cookie_is_secure_when_the_request_came_over_tls(client):
    r = client.post("https://testserver/api/account/sign-up",
                    json={"name": "Tess", "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert "secure" in cookie_of(r)
    r = client.post("https://testserver/api/account/sign-out", json={})
    assert "secure" in cookie_of(r) and cookie_of(r)["max-age"] == "0"


def test_signing_in_starts_a_new_session_and_ends_the_browsers_earlier_one(client):
    first = cookie_of(sign_up(client, "Rota"))["value"]
    r = sign_in(client, "rota")  # any case
    assert r.status_code == 200 and r.json()["account"]["name"] == "Rota"
    second = cookie_of(r)["value"]
    assert second != first
    assert stored_sessions(client) == [token_hash(second)]  # the fixed session is gone
    client.cookies.set("regalia_session", first)
    assert me(client) is None
    client.cookies.set("regalia_session", second)
    assert me(client)["name"] == "Rota"


def test_a_session_planted_before_sign_in_is_not_the_one_signed_in(client):
    """Session fixation: a token an attacker set in the browser before its owner signs in
    never becomes a session: the sign-in answers a token of its own."""
    sign_up(client, "Fixa")
    client.post("/api/account/sign-out", json={})
    planted = "A" * 43
    client.cookies.set("regalia_session", planted)
    r = sign_in(client, "Fixa")
    assert cookie_of(r)["value"] != planted
    assert token_hash(planted) not in stored_sessions(client)


def test_sign_out_deletes_the_session_and_clears_the_cookie(client):
    token = cookie_of(sign_up(client, "Outi"))["value"]
    r = client.post("/api/account/sign-out", json={})
    assert r.status_code == 200 and r.json() == {"account": None}
    assert cookie_of(r)["max-age"] == "0"
    assert stored_sessions(client) == []
    client.cookies.set("regalia_session", token)  # kept by someone: worth nothing now
    assert me(client) is None
    assert client.post("/api/account/tables", json={"tables": []}).json()["code"] == "signed_out"


def test_an_expired_session_signs_nobody_in(client):
    token = cookie_of(sign_up(client, "Olde"))["value"]
    with client.app.state.manager.store.engine.begin() as conn:
        conn.execute(text("UPDATE sessions SET expires_at = :t"),
                     {"t": datetime(2000, 1, 1, tzinfo=timezone.utc)})
    client.cookies.set("regalia_session", token)
    assert me(client) is None


def test_a_wrong_password_and_an_unknown_name_get_the_same_refusal(client):
    sign_up(client, "Known")
    client.post("/api/account/sign-out", json={})
    wrong = sign_in(client, "Known", "not the password")
    unknown = sign_in(client, "Unknown", "not the password")
    malformed = sign_in(client, "x", "not the password")
    for r in (wrong, unknown, malformed):
        assert r.status_code == 401
        assert r.json() == {"error": "wrong name or password", "code": "bad_credentials"}
        assert "set-cookie" not in r.headers
    assert me(client) is None


def test_an_unknown_name_takes_about_as_long_as_a_wrong_password(db_url):
    """The real Argon2 parameters: an unknown name's password is checked against a dummy
    hash, so the refusal takes about the time a real check takes."""
    with running_app(db_url, sign_in_rate="1000/second") as c:
        sign_up(c, "Timed")
        checks = []
        real = c.app.state.accounts.passwords._verify
        c.app.state.accounts.passwords._verify = lambda *a: checks.append(1) or real(*a)
        sign_in(c, "Nobody Here", "whatever1")  # the dummy hash is made once

        def took(name: str) -> float:
            t = time.perf_counter()
            assert sign_in(c, name, "not the password").status_code == 401
            return time.perf_counter() - t

        known = statistics.median(took("Timed") for _ in range(5))
        unknown = statistics.median(took("Nobody Here") for _ in range(5))
        assert len(checks) == 11  # a hash checked for every attempt, the name known or not
        assert 0.5 < unknown / known < 2.0, (known, unknown)


def test_a_password_hashed_with_older_parameters_is_rehashed_at_sign_in(db_url):
    old = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    with running_app(db_url, passwords=old) as c:
        sign_up(c, "Hashy")
    new = Passwords(PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1))
    with running_app(db_url, passwords=new) as c:
        assert sign_in(c, "Hashy").status_code == 200
        with c.app.state.manager.store.engine.connect() as conn:
            stored = conn.execute(text("SELECT password_hash FROM accounts")).scalar_one()
        assert "m=2048,t=2,p=1" in stored
        assert not new.hasher.check_needs_rehash(stored)
        c.post("/api/account/sign-out", json={})
        assert sign_in(c, "Hashy").status_code == 200  # the new hash checks the password


# -- names and passwords ---------------------------------------------------------------


def test_a_name_taken_in_any_case_or_width_is_refused(client):
    assert sign_up(client, "Maria").status_code == 201
    for taken in ("maria", "MARIA", "Ｍａｒｉａ", "  Maria  "):
        r = sign_up(client, taken)
        assert r.status_code == 409, taken
        assert r.json()["code"] == "name_taken" and "taken" in r.json()["error"]
    assert sign_in(client, "ｍａｒｉａ").status_code == 200  # the same account


@pytest.mark.parametrize("name", [
    "Bot", "bot (ismcts)", "B0T", "Player 2", "player_2", "Jogador 3", "Nobody", "You",
    "strong", "Strongest", "STR0NG", "medium", "weak", "Médio", "fraco", "débil", "máximo",
    "O mais forte", "heuristic", "IS-MCTS", "Monte Carlo", "montecarlo-medal", "random",
    "deleted player", "ab", "x" * 21, "a/b", "<script>", "-dash", "   "])
def test_look_alikes_of_labels_and_levels_and_malformed_names_are_refused(client, name):
    r = sign_up(client, name)
    assert r.status_code == 400, (name, r.text)
    assert r.json() == {"error": gamekit.ACCOUNT_NAME_RULE, "code": "bad_request"}


def test_every_bot_level_and_bot_label_the_pages_show_is_refused():
    """The pages' own words (static/i18n: "botlevel.*" and "bot.*", three languages)."""
    from regalia.server.web.pages import STATIC

    words = set()
    for path in (STATIC / "i18n").glob("*.json"):
        texts = json.loads(path.read_text(encoding="utf-8"))
        words |= {v for k, v in texts.items()  # the names, not the levels' descriptions
                  if k.count(".") == 1 and (k.startswith("botlevel.") or k.startswith("bot."))
                  and k != "bot.no_medal"}
    assert len(words) > 20
    for w in words:
        if gamekit.ACCOUNT_NAME_MIN <= len(w) <= gamekit.ACCOUNT_NAME_MAX:
            assert gamekit.clean_account_name(w) is None, w
            assert gamekit.clean_account_name(w.upper()) is None, w


def test_fine_names_are_kept_as_written_and_cleaned_as_nicknames_are():
    for name in ("Ann Lee", "José", "Åsa_2", "li.wei", "Ноэль", "山田太郎", "Botany", "Strongman"):
        assert gamekit.clean_account_name(name) == name
    # invisible characters dropped, spaces collapsed (``clean_name``)
    assert gamekit.clean_account_name("\u202eAnn\u200b  Lee ") == "Ann Lee"


def test_a_name_mixing_look_alike_letters_of_two_scripts_is_refused(client):
    """"Аlice" with a Cyrillic А would pass for "Alice": a name whose letters of two scripts
    can be confused (Unicode's confusables) is refused; one script, or two that nobody
    confuses, is fine."""
    assert sign_up(client, "Alice").status_code == 201
    for name in ("\u0410lice", "Ann\u0430", "B\u03bfb", "\u0421arl"):  # Cyrillic А, а, Greek ο, С
        assert gamekit.clean_account_name(name) is None, name
        r = sign_up(client, name)
        assert r.status_code == 400 and r.json()["error"] == gamekit.ACCOUNT_NAME_RULE, name
    for name in ("Ольга", "Jürgen", "Zoë_9", "Ива 2"):
        assert gamekit.clean_account_name(name) == name


def test_a_short_or_long_password_is_refused(client):
    for pw in ("short", "x" * 129):
        r = sign_up(client, "Pat", pw)
        assert r.status_code == 400 and r.json()["error"] == "password: 8 to 128 characters"
    r = client.post("/api/account/sign-up", json={"name": "Pat", "password": PASSWORD, "x": 1})
    assert r.status_code == 400 and "only 'name', 'password'" in r.json()["error"]


# -- the same origin, the limits -------------------------------------------------------


def test_a_cross_origin_request_that_changes_something_is_refused(client):
    evil = {"Origin": "https://evil.example"}
    for r in (sign_up(client, "Eve", headers=evil), sign_in(client, "Eve", headers=evil),
              client.post("/api/account/sign-out", json={}, headers=evil),
              client.post("/api/account/tables", json={"tables": []}, headers=evil),
              client.request("DELETE", "/api/account", json={"password": PASSWORD},
                             headers=evil)):
        assert r.status_code == 403 and r.json()["code"] == "cross_origin", r.text
    assert "set-cookie" not in r.headers
    r = sign_up(client, "Eve", headers={"Origin": "http://testserver"})  # the site itself
    assert r.status_code == 201
    # a cross-site form cannot send JSON: refused before the application sees it
    r = client.post("/api/account/sign-out", content="x=1",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415 and me(client)["name"] == "Eve"


def test_sign_in_is_rate_limited_per_address(db_url):
    with running_app(db_url, passwords=cheap(), sign_in_rate="3/minute") as c:
        sign_up(c, "Limo")
        for _ in range(3):
            assert sign_in(c, "Limo", "wrong password").status_code == 401
        r = sign_in(c, "Limo")  # even the right password: the address is over its rate
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
        assert r.json()["retry_after"] >= 1 and int(r.headers["Retry-After"]) >= 1
        assert "sign-ins" in r.json()["error"]
        as_address(c, "10.1.2.3")
        assert sign_in(c, "Limo").status_code == 200


def test_sign_up_is_rate_limited_per_address(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="2/hour") as c:
        assert sign_up(c, "One1").status_code == 201
        assert sign_up(c, "Two2").status_code == 201
        r = sign_up(c, "Three3")
        assert r.status_code == 429 and "accounts created" in r.json()["error"]
        assert sign_up(c, "x").status_code == 400  # a malformed one is refused uncounted


# -- tables adopted, profiles ----------------------------------------------------------


def adopt(c, *pairs):
    return c.post("/api/account/tables",
                  json={"tables": [{"id": i, "token": t} for i, t in pairs]})


def finished_ribauds(c, seed: int = 3) -> dict:
    """A Le Roy des Ribauds table (seat 0 a person, seat 1 a random bot) played to its end."""
    d = new_table(c, "ribauds", ["human", "random"], seed=seed)
    human, spectator = join(c, d, 0), join(c, d, None)
    play_randomly({0: human}, spectator, random.Random(seed), chatter=False)
    assert c.get(f"/api/tables/{d['id']}").json()["status"] == "finished"
    human.close()
    spectator.close()
    return d


def test_signing_in_adopts_the_seats_whose_tokens_the_browser_proves(client):
    d = new_table(client, "regicide", ["human", "human"])
    p0 = join(client, d, 0)  # seat 0's link was used; seat 1's not yet
    sign_up(client, "Ada")
    tok0, tok1 = d["seats"][0]["token"], d["seats"][1]["token"]
    r = adopt(client, (d["id"], tok0), (d["id"], tok1), (d["id"], "not-a-token"),
              ("nosuchid", tok0), (d["id"], "bad token!"))
    assert r.status_code == 200, r.text
    assert r.json() == {"adopted": [{"id": d["id"], "seat": 0}]}
    watch = d["spectate"].split("#s=")[1]
    assert adopt(client, (d["id"], watch)).json() == {"adopted": []}  # spectators own no seat
    assert adopt(client, (d["id"], tok0)).json()["adopted"] == [{"id": d["id"], "seat": 0}]
    client.post("/api/account/sign-out", json={})
    sign_up(client, "Bea")  # another account cannot take a seat linked already
    assert adopt(client, (d["id"], tok0)).json() == {"adopted": []}
    p0.close()


def test_adopting_needs_an_account(client):
    d = new_table(client)
    r = adopt(client, (d["id"], d["seats"][0]["token"]))
    assert r.status_code == 401 and r.json()["code"] == "signed_out"


def test_a_profile_counts_the_finished_games_and_links_their_replays(client):
    d = finished_ribauds(client)
    sign_up(client, "Winnie")
    assert adopt(client, (d["id"], d["seats"][0]["token"])).json()["adopted"]
    solo = new_table(client, "regicide", ["human"], seed=11)
    join(client, solo, 0).close()
    adopt(client, (solo["id"], solo["seats"][0]["token"]))  # being played: not counted
    winner = client.get(f"/api/tables/{d['id']}").json()["outcome"]["winner"]
    r = client.get("/api/players/WINNIE")
    assert r.status_code == 200, r.text
    p = r.json()
    assert p["name"] == "Winnie"
    assert p["games"] == [{"game": "ribauds", "players": 2, "played": 1,
                           "won": int(winner == 0)}]
    assert [(g["id"], g["seat"], g["status"], g["won"], g["replay"]) for g in p["recent"]] == [
        (d["id"], 0, "finished", winner == 0, f"/replay/{d['id']}")]
    assert client.get(p["recent"][0]["replay"]).status_code == 200
    with client.app.state.manager.store.engine.connect() as conn:  # worked out once, kept
        won = dict(conn.execute(text("SELECT seat, won FROM seats WHERE table_id = :t"),
                                {"t": d["id"]}).all())
    assert won == {0: winner == 0, 1: winner == 1}
    assert client.get("/api/players/winnie").json() == p
    assert client.get("/api/players/nobody-at-all").status_code == 404
    page = client.get("/players/Winnie")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_a_rematch_keeps_the_account_of_a_seat_and_a_new_token_cuts_it(client):
    d = finished_ribauds(client, seed=4)
    sign_up(client, "Remy")
    adopt(client, (d["id"], d["seats"][0]["token"]))
    r = client.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][0]["token"]})
    assert r.status_code == 200, r.text
    store = client.app.state.manager.store
    with store.engine.connect() as conn:
        linked = conn.execute(text("SELECT seat FROM seats WHERE table_id = :t AND "
                                   "account_id IS NOT NULL"), {"t": r.json()["id"]}).all()
    assert linked == [(0,)]
    store.update_seat(r.json()["id"], 0, token_hash="f" * 64)
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT account_id FROM seats WHERE table_id = :t AND "
                                 "seat = 0"), {"t": r.json()["id"]}).scalar() is None


def test_deleting_an_account_keeps_its_games_anonymised_and_its_chat_deleted(client):
    d = finished_ribauds(client, seed=5)
    client.get(f"/api/tables/{d['id']}/replay")  # a replay built and kept with the names
    sign_up(client, "Delia")
    adopt(client, (d["id"], d["seats"][0]["token"]))
    store = client.app.state.manager.store
    store.update_seat(d["id"], 0, name="Delia")
    store.add_message(d["id"], 0, "chat", {"kind": "chat", "seat": 0, "text": "I am Delia"})
    store.add_message(d["id"], 1, "chat", {"kind": "chat", "seat": 1, "text": "gg"})
    assert client.get("/api/players/delia").status_code == 200
    r = client.request("DELETE", "/api/account", json={"password": "not the password"})
    assert r.status_code == 401 and r.json()["code"] == "bad_credentials"
    assert me(client)["name"] == "Delia"
    r = client.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"account": None}
    assert cookie_of(r)["max-age"] == "0"
    assert me(client) is None and stored_sessions(client) == []
    assert client.get("/api/players/delia").status_code == 404
    t = store.load_table(d["id"])
    assert t.seats[0].name == gamekit.DELETED_PLAYER and len(t.moves) > 0
    assert [m["text"] for m in t.messages] == ["gg"]  # its own words gone, the others' kept
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM accounts")).scalar() == 0
        assert conn.execute(text("SELECT count(*) FROM seats WHERE account_id IS NOT NULL")
                            ).scalar() == 0
    replay = client.get(f"/api/tables/{d['id']}/replay").json()
    assert replay["seats"][0]["name"] == gamekit.DELETED_PLAYER
    assert "Delia" not in json.dumps(replay)
    assert sign_up(client, "Delia").status_code == 201  # the name is free again


def test_deleting_needs_an_account(client):
    r = client.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 401 and r.json()["code"] == "signed_out"


def test_play_needs_no_account(client):
    """Anonymous play as ever: a table created, joined and played with no cookie at all."""
    d = new_table(client, "regicide", ["human"], seed=2)
    p = join(client, d, 0)
    p.act(p.state["legal"][0])
    assert p.state_at(1)["ply"] == 1
    assert "regalia_session" not in client.cookies
    assert me(client) is None


# -- the database ----------------------------------------------------------------------


def test_a_database_at_the_previous_revision_is_upgraded_with_its_tables(db_url):
    old_database(db_url, "0008")
    with running_app(db_url, passwords=cheap()) as c:  # upgrades
        store = c.app.state.manager.store
        assert current_revision(store.engine) == head_revision()
        t = store.load_table("keep0001")
        assert t is not None and t.seats[0].name == "Old" and t.seats[0].claimed
        assert c.get("/api/tables/keep0001").status_code == 200
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT account_id, won FROM seats")).one() == (None, None)
        assert sign_up(c, "Newbie").status_code == 201


def test_a_conceded_game_counts_for_the_winner_and_the_one_who_conceded(client):
    """A game its players ended (the move log's ending row) is counted by its ending: the
    seat that conceded lost, the other won; the ending row is no move to replay."""
    d = new_table(client, "ribauds", ["human", "human"], seed=8)
    a, b = join(client, d, 0), join(client, d, 1)
    b.send({"type": "concede"})
    a.recv_until(lambda m: m["type"] == "state" and m["finished"])
    a.close()
    b.close()
    sign_up(client, "Quitter")
    adopt(client, (d["id"], d["seats"][1]["token"]))
    p = client.get("/api/players/quitter").json()
    assert p["games"] == [{"game": "ribauds", "players": 2, "played": 1, "won": 0}]
    with client.app.state.manager.store.engine.connect() as conn:
        won = dict(conn.execute(text("SELECT seat, won FROM seats WHERE table_id = :t"),
                                {"t": d["id"]}).all())
    assert won == {0: True, 1: False}
