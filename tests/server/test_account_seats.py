"""A signed-in account opens its own seats in any browser signed in to it: the table
websocket's ``hello`` with ``"account": true`` and no token (or one that opens no seat)
takes the first seat of the table linked to the account of the browser's session cookie,
as the seat's token would; never another account's seat, never a seat for a browser signed
out, the spectators' link still a spectator's; after a restart on the same database; not
once the account is deleted. ``GET /api/account/tables`` lists the account's tables being
played (the lobby's "My tables" in any browser)."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from regalia.server.web.passwords import Passwords
from server_helpers import Peer, Timeout, join, new_table, running_app, spectator_token

PASSWORD = "correct horse battery"


def app(db_url):
    return running_app(db_url, passwords=Passwords(PasswordHasher(
        time_cost=1, memory_cost=1024, parallelism=1)), sign_up_rate="1000/second",
        sign_in_rate="1000/second", join_rate="1000/second")


@pytest.fixture
def client(db_url):
    with app(db_url) as c:
        yield c


def browser(c, name: str, *, new: bool = False) -> str:
    """A fresh browser (no cookie) signed up (``new``) or signed in to ``name``; its
    session token."""
    c.cookies.clear()
    path = "/api/account/sign-up" if new else "/api/account/sign-in"
    r = c.post(path, json={"name": name, "password": PASSWORD})
    assert r.status_code in (200, 201), r.text
    return c.cookies.get("regalia_session")


def be(c, session: str | None) -> None:
    c.cookies.clear()
    if session is not None:
        c.cookies.set("regalia_session", session)


def by_account(c, table_id: str, token: str | None = None, name: str | None = None) -> Peer:
    """A connection whose hello asks for the account's seat (``token``: a token besides)."""
    return Peer(c, table_id, token, "by account", hello_name=name, account=True)


def welcomed(p: Peer) -> dict:
    """The welcome and the first state of ``p``."""
    w = p.recv()
    assert w["type"] == "welcome", w
    p.recv_until(lambda m: m["type"] == "state")
    return w


def refused(p: Peer, code: str = "no_access") -> dict:
    """``p``'s hello was refused: one error, then the connection closed, nothing else
    received (no state: no hand)."""
    m = p.recv()
    assert m["type"] == "error" and m["code"] == code, m
    with pytest.raises(Timeout):
        p.recv(1.0)
    assert [x["type"] for x in p.messages] == ["error"]
    p.close()
    return m


def adopted_ribauds(c, owner: str) -> dict:
    """A Ribauds table against a bot, created and opened by a browser signed up as
    ``owner``, its seat 0 adopted by that account."""
    browser(c, owner, new=True)
    d = new_table(c, "ribauds", ["human", "random"], seed=5)
    join(c, d, 0).close()
    r = c.post("/api/account/tables", json={"tables": [{"id": d["id"],
                                                        "token": d["seats"][0]["token"]}]})
    assert r.json()["adopted"] == [{"id": d["id"], "seat": 0}], r.text
    return d


def test_another_browser_of_the_account_opens_its_seat_and_plays_without_the_token(client):
    c = client
    d = adopted_ribauds(c, "Ada")
    browser(c, "Ada")  # another browser: a session of its own, no token
    p = by_account(c, d["id"])
    w = welcomed(p)
    assert w["seat"] == 0
    assert p.state["seat"] == 0 and p.state["view"]["hand"], p.state  # its own hand
    legal = p.state["legal"]
    assert legal
    p.act(legal[0])
    assert p.state_at(1)["ply"] >= 1 and not p.errors()
    p.close()
    # a token that opens nothing here: the account's seat all the same
    q = by_account(c, d["id"], token="not-this-tables-token")
    assert welcomed(q)["seat"] == 0
    q.close()
    # the spectators' link stays a spectator's, signed in or not
    s = by_account(c, d["id"], token=spectator_token(d))
    assert welcomed(s)["seat"] is None and s.state["view"]["hand"] is None
    s.close()


def test_without_account_true_a_signed_in_browser_is_refused_as_before(client):
    c = client
    d = adopted_ribauds(c, "Ben")
    browser(c, "Ben")
    m = refused(Peer(c, d["id"], None, "no flag"))
    assert "spectator link" in m["message"]


def test_another_account_or_a_signed_out_browser_gets_no_seat_and_no_hidden_cards(client):
    c = client
    d = adopted_ribauds(c, "Cleo")
    browser(c, "Dora", new=True)
    m = refused(by_account(c, d["id"]))
    assert "your account holds none of its seats" in m["message"]
    be(c, None)
    m = refused(by_account(c, d["id"]))
    assert "no account is signed in" in m["message"]
    be(c, "x" * 43)  # a made-up session: nobody
    refused(by_account(c, d["id"]))
    # another table of Cleo's does not open this one's seat, nor the reverse
    browser(c, "Cleo")
    other = new_table(c, "ribauds", ["human", "random"], seed=6)
    assert refused(by_account(c, other["id"]))


def test_a_bad_account_field_is_refused_and_the_connection_stays_open(client):
    c = client
    d = adopted_ribauds(c, "Eve")
    browser(c, "Eve")
    p = Peer(c, d["id"], None, "bad flag", account="yes")
    m = p.recv()
    assert m["type"] == "error" and m["code"] == "bad_message" and "account" in m["message"]
    p.send({"type": "hello", "token": None, "account": True})
    assert welcomed(p)["seat"] == 0
    p.close()


def test_the_session_seat_opens_after_a_restart_on_the_same_database(db_url):
    with app(db_url) as c:
        d = adopted_ribauds(c, "Faye")
        session = browser(c, "Faye")
    with app(db_url) as c:  # a new process: the table read back from the database
        be(c, session)
        p = by_account(c, d["id"])
        assert welcomed(p)["seat"] == 0 and p.state["view"]["hand"]
        p.close()
        be(c, None)
        refused(by_account(c, d["id"]))


def test_a_deleted_accounts_seats_no_longer_open_by_its_name(client):
    c = client
    d = adopted_ribauds(c, "Gus")
    session = browser(c, "Gus")
    r = c.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    be(c, session)  # the old session is gone
    refused(by_account(c, d["id"]))
    browser(c, "Gus", new=True)  # the same name again: another account
    m = refused(by_account(c, d["id"]))
    assert "your account holds none of its seats" in m["message"]
    assert c.get("/api/account/tables").json() == {"tables": []}
    # the seat's own link still opens it
    p = join(c, d, 0)
    assert p.state["seat"] == 0
    p.close()


def test_a_rated_tables_seats_open_only_for_their_own_accounts(client):
    c = client
    ann = browser(c, "Ann", new=True)
    bob = browser(c, "Bob", new=True)
    be(c, ann)
    r = c.post("/api/tables", json={"game": "ribauds", "rated": True})
    assert r.status_code == 201, r.text
    d = r.json()
    be(c, bob)
    join(c, d, 1).close()  # Bob takes seat 1 by its link: it is his account's
    be(c, ann)
    assert welcomed(p := by_account(c, d["id"]))["seat"] == 0  # hers, never Bob's
    p.close()
    be(c, bob)
    assert welcomed(p := by_account(c, d["id"]))["seat"] == 1
    p.close()
    # Bob's token with Ann's session: the token's seat, which needs Bob's account
    be(c, ann)
    refused(by_account(c, d["id"], token=d["seats"][1]["token"]), "rated_other_account")
    be(c, None)
    refused(by_account(c, d["id"]))
    browser(c, "Cyril", new=True)
    refused(by_account(c, d["id"]))


def test_the_accounts_tables_being_played_are_listed_with_whose_turn_it_is(client):
    c = client
    assert c.get("/api/account/tables").status_code == 401
    d = adopted_ribauds(c, "Hal")
    solo = new_table(c, "regicide", ["human"], seed=3)
    p = join(c, solo, 0)
    c.post("/api/account/tables", json={"tables": [{"id": solo["id"],
                                                    "token": solo["seats"][0]["token"]}]})
    browser(c, "Hal")
    r = c.get("/api/account/tables")
    assert r.status_code == 200, r.text
    got = {x["id"]: x for x in r.json()["tables"]}
    assert got[solo["id"]] == {"id": solo["id"], "game": "regicide", "players": 1, "seat": 0,
                               "rated": False, "to_act": True}
    ribauds = c.get(f"/api/tables/{d['id']}").json()
    assert got[d["id"]]["game"] == "ribauds" and got[d["id"]]["players"] == 2
    assert got[d["id"]]["to_act"] == (ribauds["current"] == 0)
    assert set(got) == {d["id"], solo["id"]}
    # a finished table is no longer listed
    p.send({"type": "stop", "agree": True})
    p.finished()
    p.close()
    assert [x["id"] for x in c.get("/api/account/tables").json()["tables"]] == [d["id"]]
    browser(c, "Ivy", new=True)  # another account: none of these
    assert c.get("/api/account/tables").json() == {"tables": []}


def test_the_account_tables_list_is_counted_in_the_message_rate(db_url):
    with running_app(db_url, passwords=Passwords(PasswordHasher(
            time_cost=1, memory_cost=1024, parallelism=1)), sign_up_rate="1000/second",
            message_rate="3/minute") as c:
        browser(c, "Jay", new=True)
        codes = [c.get("/api/account/tables").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert "too_fast" in c.get("/api/account/tables").text


def test_a_seat_given_a_new_token_no_longer_opens_by_its_former_account(client):
    """A new token (the seat given to another player) cuts the seat's link to the account
    that proved the old one: the account's session opens it no more."""
    c = client
    d = adopted_ribauds(c, "Kit")
    browser(c, "Kit")
    assert welcomed(p := by_account(c, d["id"]))["seat"] == 0
    p.close()
    c.app.state.manager.store.update_seat(d["id"], 0, token_hash="f" * 64)
    m = refused(by_account(c, d["id"]))
    assert "your account holds none of its seats" in m["message"]
