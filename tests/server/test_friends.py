"""Friends by account name: requests accepted, declined, withdrawn, friendships removed,
players blocked (and a block never told); presence seen by friends only, expiring, kept by
a table page's websocket, and shared by the replicas through Redis; invitations of a friend
to a free seat (the invitee seated with a seat token of its own, linked to its account),
refused to non-friends and blocked players and to tables that wait for nobody, expired when
the seat is taken or the game ends; the rate limits, the same-origin rule, the database
upgraded with its tables, and the endpoints fuzzed."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

import pytest
from argon2 import PasswordHasher
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from regalia.server.storage.engine import current_revision, make_engine, migrate
from regalia.server.web.friends import Notifier
from regalia.server.web.passwords import Passwords
from server_helpers import Peer, as_address, join, latest_revision, new_table, running_app

PASSWORD = "correct horse battery"
NAMES = ("Alice", "Bruno", "Carla", "Dmitri")


def cheap() -> Passwords:
    return Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


class People:
    """Accounts signed up on one test client, which acts as one of them at a time (its
    session cookie swapped: ``as_``)."""

    def __init__(self, client, names=NAMES) -> None:
        self.c = client
        self.tokens: dict[str, str] = {}
        for name in names:
            client.cookies.clear()
            r = client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD})
            assert r.status_code == 201, r.text
            self.tokens[name] = client.cookies.get("regalia_session")
        client.cookies.clear()

    def as_(self, name: str | None):
        self.c.cookies.clear()
        if name is not None:
            self.c.cookies.set("regalia_session", self.tokens[name])
        return self.c

    def post(self, who: str, path: str, body=None, **kw):
        return self.as_(who).post(path, json={} if body is None else body, **kw)

    def ask(self, who: str, action: str, name: str, **kw):
        return self.post(who, f"/api/friends/{action}", {"name": name}, **kw)

    def circle(self, who: str) -> dict:
        r = self.as_(who).get("/api/friends")
        assert r.status_code == 200, r.text
        return r.json()

    def names(self, who: str, part: str) -> list[str]:
        return [p["name"] for p in self.circle(who)[part]]

    def befriend(self, a: str, b: str) -> None:
        assert self.ask(a, "requests", b).json()["state"] == "requested"
        assert self.ask(b, "accept", a).json() == {"name": a, "state": "friends"}


@pytest.fixture
def client(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     friend_rate="1000/second", invite_rate="1000/second") as c:
        yield c


@pytest.fixture
def people(client) -> People:
    return People(client)


# -- requests and friendships -----------------------------------------------------------


def test_a_request_by_name_waits_until_it_is_accepted(people):
    r = people.ask("Alice", "requests", "bRUNO")  # any case
    assert r.status_code == 200 and r.json() == {"name": "Bruno", "state": "requested"}
    assert people.names("Alice", "outgoing") == ["Bruno"]
    assert people.names("Bruno", "incoming") == ["Alice"]
    assert people.names("Alice", "friends") == people.names("Bruno", "friends") == []
    again = people.ask("Alice", "requests", "Bruno")  # asked again: the same request
    assert again.json()["state"] == "requested" and people.names("Bruno", "incoming") == ["Alice"]
    r = people.ask("Bruno", "accept", "ａｌｉｃｅ")  # any width
    assert r.status_code == 200 and r.json() == {"name": "Alice", "state": "friends"}
    assert people.names("Alice", "friends") == ["Bruno"]
    assert people.names("Bruno", "friends") == ["Alice"]
    for who in ("Alice", "Bruno"):
        c = people.circle(who)
        assert c["incoming"] == c["outgoing"] == [] and c["friends"][0]["profile"].startswith("/players/")
    assert people.ask("Bruno", "accept", "Alice").status_code == 404  # nothing left to accept


def test_a_request_to_someone_who_asked_first_makes_friends_at_once(people):
    people.ask("Alice", "requests", "Bruno")
    r = people.ask("Bruno", "requests", "Alice")
    assert r.json() == {"name": "Alice", "state": "friends"}
    assert people.names("Alice", "friends") == ["Bruno"]
    assert people.ask("Alice", "requests", "Bruno").json()["state"] == "friends"


def test_a_declined_request_is_gone_and_may_be_sent_again(people):
    people.ask("Alice", "requests", "Bruno")
    r = people.ask("Bruno", "decline", "Alice")
    assert r.status_code == 200 and r.json()["state"] == "none"
    assert people.names("Alice", "outgoing") == [] and people.names("Bruno", "incoming") == []
    assert people.ask("Bruno", "decline", "Alice").status_code == 404
    assert people.ask("Alice", "accept", "Bruno").status_code == 404  # one's own: not to accept
    assert people.ask("Alice", "requests", "Bruno").json()["state"] == "requested"


def test_either_friend_may_remove_the_friendship_and_a_request_may_be_withdrawn(people):
    people.befriend("Alice", "Bruno")
    r = people.ask("Bruno", "remove", "Alice")
    assert r.status_code == 200 and r.json()["state"] == "none"
    assert people.names("Alice", "friends") == people.names("Bruno", "friends") == []
    assert people.ask("Alice", "remove", "Bruno").status_code == 404
    people.ask("Carla", "requests", "Alice")
    assert people.ask("Alice", "remove", "Carla").status_code == 404  # theirs: decline it
    assert people.ask("Carla", "remove", "Alice").json()["state"] == "none"  # withdrawn
    assert people.names("Alice", "incoming") == []


def test_unknown_names_and_ones_own_are_refused_as_a_profile_would_be(people):
    profile = people.as_("Alice").get("/api/players/nobody-here")
    for action in ("requests", "accept", "decline", "remove", "block", "unblock"):
        r = people.ask("Alice", action, "Nobody Here")
        assert r.status_code == 404 and r.json() == profile.json() == {
            "error": "no such player", "code": "not_found"}, action
        r = people.ask("Alice", action, "ALICE")
        assert r.status_code == 400 and r.json()["error"] == "name: that is your own account"
    r = people.post("Alice", "/api/friends/requests", {"name": "x" * 65})
    assert r.status_code == 400 and r.json()["error"] == "name: a player's account name"
    r = people.post("Alice", "/api/friends/requests", {"name": "Bruno", "extra": 1})
    assert r.status_code == 400 and "only 'name'" in r.json()["error"]


def test_friends_need_an_account(people):
    c = people.as_(None)
    assert c.get("/api/friends").json()["code"] == "signed_out"
    assert c.get("/api/friends/invitations").status_code == 401
    for action in ("requests", "accept", "decline", "remove", "block", "unblock"):
        r = c.post(f"/api/friends/{action}", json={"name": "Alice"})
        assert r.status_code == 401 and r.json()["code"] == "signed_out"
    assert c.post("/api/friends/invitations/1/accept", json={}).status_code == 401


def test_a_cross_origin_request_that_changes_friends_is_refused(people):
    evil = {"Origin": "https://evil.example"}
    for action in ("requests", "accept", "decline", "remove", "block", "unblock"):
        r = people.ask("Alice", action, "Bruno", headers=evil)
        assert r.status_code == 403 and r.json()["code"] == "cross_origin", action
    for path in ("/api/friends/invite", "/api/friends/invitations/1/accept",
                 "/api/friends/invitations/1/decline"):
        r = people.post("Alice", path, {}, headers=evil)
        assert r.status_code == 403 and r.json()["code"] == "cross_origin", path
    assert people.names("Bruno", "incoming") == []
    # a cross-site form cannot send JSON: refused before the application sees it
    r = people.as_("Alice").post("/api/friends/requests", content="name=Bruno",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415


# -- blocks ------------------------------------------------------------------------------


def test_a_block_ends_the_friendship_and_is_never_told(people):
    people.befriend("Alice", "Bruno")
    r = people.ask("Bruno", "block", "Alice")
    assert r.status_code == 200 and r.json() == {"name": "Alice", "state": "blocked"}
    assert people.names("Alice", "friends") == people.names("Bruno", "friends") == []
    assert people.names("Bruno", "blocked") == ["Alice"]
    assert people.circle("Alice")["blocked"] == []
    # Alice's new request is answered as any other and waits; Bruno never sees it
    r = people.ask("Alice", "requests", "Bruno")
    assert r.json() == {"name": "Bruno", "state": "requested"}
    assert people.names("Alice", "outgoing") == ["Bruno"]
    assert people.names("Bruno", "incoming") == []
    assert people.ask("Bruno", "accept", "Alice").status_code == 404
    # Bruno cannot ask Alice while he blocks her
    r = people.ask("Bruno", "requests", "Alice")
    assert r.status_code == 409 and r.json()["code"] == "blocked_by_you"
    assert people.ask("Bruno", "block", "Alice").status_code == 200  # blocked again: the same
    r = people.ask("Bruno", "unblock", "Alice")
    assert r.status_code == 200 and r.json()["state"] == "none"
    assert people.names("Bruno", "blocked") == [] and people.names("Bruno", "incoming") == []
    assert people.names("Alice", "outgoing") == []  # the request sent meanwhile is gone
    assert people.ask("Bruno", "unblock", "Alice").status_code == 404


def test_a_block_tells_the_notifier_nothing(db_url):
    class Told(Notifier):
        def __init__(self):
            self.said = []

        async def friend_request(self, to, sender):
            self.said.append(("request", to, sender))

        async def friend_accepted(self, to, friend):
            self.said.append(("accepted", to, friend))

        async def invited(self, to, invitation):
            self.said.append(("invited", to, invitation.from_name, invitation.game))

    told = Told()
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     notifier=told) as c:
        p = People(c, ("Alice", "Bruno", "Carla"))
        ids = {n: i for i, n in enumerate(("Alice", "Bruno", "Carla"), 1)}
        p.befriend("Alice", "Bruno")
        p.ask("Carla", "block", "Alice")
        p.ask("Alice", "requests", "Carla")  # stored, shown to nobody, told to nobody
        t = new_table(c, "ribauds", ["human", "human"])
        p.post("Alice", "/api/friends/invite",
               {"name": "Bruno", "table": t["id"], "token": t["seats"][0]["token"]})
    assert told.said == [("request", ids["Bruno"], "Alice"), ("accepted", ids["Alice"], "Bruno"),
                         ("invited", ids["Bruno"], "Alice", "ribauds")]


# -- presence ----------------------------------------------------------------------------


def online(people: People, who: str) -> dict[str, bool]:
    return {f["name"]: f["online"] for f in people.circle(who)["friends"]}


def test_only_friends_see_who_is_online(people):
    people.befriend("Alice", "Bruno")
    people.ask("Carla", "requests", "Alice")  # a request: no presence
    people.circle("Alice")  # Alice's lobby asks: she is online
    assert online(people, "Bruno") == {"Alice": True}
    for part in ("incoming", "outgoing", "blocked"):
        for who in NAMES:
            assert all("online" not in p for p in people.circle(who)[part])
    carla = people.circle("Carla")
    assert "Alice" not in json.dumps(carla["friends"]) and "online" not in json.dumps(
        carla["outgoing"])
    assert "online" not in people.as_("Carla").get("/api/players/Alice").json()
    assert online(people, "Alice") == {"Bruno": True}  # Bruno's own poll above


def test_presence_expires_without_a_sign_of_life(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     online_ttl=1.5) as c:
        p = People(c, ("Alice", "Bruno"))
        p.befriend("Alice", "Bruno")
        p.circle("Alice")
        assert online(p, "Bruno") == {"Alice": True}
        time.sleep(2.0)
        assert online(p, "Bruno") == {"Alice": False}
        p.circle("Alice")  # her lobby's next poll
        assert online(p, "Bruno") == {"Alice": True}


def test_an_open_table_page_keeps_its_account_online(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     online_ttl=1.5) as c:
        p = People(c, ("Alice", "Bruno"))
        p.befriend("Alice", "Bruno")
        time.sleep(2.0)
        assert online(p, "Bruno") == {"Alice": False}
        t = new_table(c, "regicide", ["human"])
        p.as_("Alice")
        page = join(c, t, 0)  # the websocket sends Alice's session cookie
        time.sleep(2.0)  # longer than the time to live: the open page keeps her online
        assert online(p, "Bruno") == {"Alice": True}
        page.close()
        assert online(p, "Bruno") == {"Alice": True}  # a page reloading is no leave
        time.sleep(2.0)
        assert online(p, "Bruno") == {"Alice": False}
        p.as_(None)  # an anonymous page makes nobody online
        anonymous = join(c, t, 0)
        time.sleep(0.1)
        assert online(p, "Bruno") == {"Alice": False}
        anonymous.close()


# -- invitations -------------------------------------------------------------------------


def invite(people: People, who: str, friend: str, table: dict, seat: int = 0, **kw):
    return people.post(who, "/api/friends/invite",
                       {"name": friend, "table": table["id"],
                        "token": table["seats"][seat]["token"]}, **kw)


def invitations(people: People, who: str) -> list[dict]:
    r = people.as_(who).get("/api/friends/invitations")
    assert r.status_code == 200, r.text
    assert r.json()["invitations"] == people.circle(who)["invitations"]
    return r.json()["invitations"]


def accept(people: People, who: str, invitation: dict):
    return people.post(who, f"/api/friends/invitations/{invitation['id']}/accept")


def test_an_invited_friend_accepts_and_takes_the_free_seat(people, client):
    people.befriend("Alice", "Bruno")
    t = new_table(client, "regicide", ["human", "human"], seed=5)
    creator = join(client, t, 0)  # Alice's page: the game waits for seat 1
    assert creator.state["waiting"]
    r = invite(people, "Alice", "bruno", t)
    assert r.status_code == 201 and r.json()["name"] == "Bruno" and r.json()["table"] == t["id"]
    [inv] = invitations(people, "Bruno")
    assert (inv["name"], inv["game"], inv["players"], inv["free"], inv["table"]) == (
        "Alice", "regicide", 2, 1, t["id"])
    assert invitations(people, "Alice") == []
    r = accept(people, "Bruno", inv)
    assert r.status_code == 200, r.text
    seat = r.json()
    assert seat["id"] == t["id"] and seat["seat"] == 1 and seat["link"] == (
        f"/t/{t['id']}#s={seat['token']}")
    assert seat["token"] != t["seats"][1]["token"]  # a token of its own: the old link is void
    assert invitations(people, "Bruno") == []
    info = client.get(f"/api/tables/{t['id']}").json()
    assert info["seats"][1]["name"] == "Bruno" and info["seats"][1]["claimed"]
    assert not info["waiting"]  # the game starts
    creator.recv_until(lambda m: m["type"] == "state" and not m["waiting"])
    with client.app.state.manager.store.engine.connect() as conn:  # linked to the account
        linked = conn.execute(text("SELECT a.name FROM seats s JOIN accounts a ON "
                                   "a.id = s.account_id WHERE s.table_id = :t AND s.seat = 1"),
                              {"t": t["id"]}).scalar()
    assert linked == "Bruno"
    guest = Peer(client, t["id"], seat["token"], hello_name="Bruno")  # the seat's link opens
    assert guest.recv_until(lambda m: m["type"] == "welcome")["seat"] == 1
    old = Peer(client, t["id"], t["seats"][1]["token"], hello_name="Old")
    assert old.recv_until(lambda m: m["type"] == "error")["code"] == "no_access"
    assert accept(people, "Bruno", inv).status_code == 404  # used: gone


def test_a_player_who_joined_may_invite_too_and_declining_forgets_the_invitation(people, client):
    people.befriend("Bruno", "Carla")
    t = new_table(client, "regicide", ["human"] * 4)
    r = invite(people, "Bruno", "Carla", t, seat=1)  # a link nobody opened: no player yet
    assert r.status_code == 403 and r.json()["code"] == "no_access"
    join(client, t, 1)  # Bruno opens his link
    r = invite(people, "Bruno", "Carla", t, seat=1)  # a seated player, not the creator
    assert r.status_code == 201
    [inv] = invitations(people, "Carla")
    r = people.post("Carla", f"/api/friends/invitations/{inv['id']}/decline")
    assert r.status_code == 200 and r.json() == {"id": inv["id"]}
    assert invitations(people, "Carla") == []
    assert people.post("Carla", f"/api/friends/invitations/{inv['id']}/decline").status_code == 404
    r = invite(people, "Bruno", "Carla", t, seat=1)  # invited again
    [again] = invitations(people, "Carla")
    assert again["id"] == r.json()["id"]
    assert people.post("Dmitri", f"/api/friends/invitations/{again['id']}/accept").status_code == 404
    assert people.post("Dmitri", f"/api/friends/invitations/{again['id']}/decline").status_code == 404
    r = people.post("Carla", f"/api/friends/invitations/{again['id']}/accept")
    assert r.status_code == 200 and r.json()["seat"] == 2  # the first free seat
    r = invite(people, "Bruno", "Carla", t, seat=1)  # seated now: not again
    assert r.status_code == 409 and r.json()["code"] == "already_seated"
    assert people.post("Carla", "/api/friends/invitations/999999/accept").status_code == 404
    assert people.post("Carla", "/api/friends/invitations/0/accept").status_code == 400
    assert people.post("Carla", f"/api/friends/invitations/{2**40}/accept").status_code == 400


def test_only_a_friend_may_be_invited_by_a_seated_player(people, client):
    people.befriend("Alice", "Bruno")
    people.ask("Alice", "requests", "Dmitri")  # asked, not accepted
    t = new_table(client, "ribauds", ["human", "human"])
    for friend in ("Carla", "Dmitri"):
        r = invite(people, "Alice", friend, t)
        assert r.status_code == 403 and r.json()["code"] == "not_friends", friend
    r = people.post("Alice", "/api/friends/invite",
                    {"name": "Bruno", "table": t["id"], "token": "not-a-seat-token"})
    assert r.status_code == 403 and r.json()["code"] == "no_access"
    spectate = t["spectate"].split("#s=")[1]
    r = people.post("Alice", "/api/friends/invite",
                    {"name": "Bruno", "table": t["id"], "token": spectate})
    assert r.status_code == 403 and r.json()["code"] == "no_access"
    r = people.post("Alice", "/api/friends/invite",
                    {"name": "Bruno", "table": "zzzzzzzz", "token": t["seats"][0]["token"]})
    assert r.status_code == 404
    r = invite(people, "Alice", "Nobody", t)
    assert r.status_code == 404 and r.json()["error"] == "no such player"
    assert invitations(people, "Carla") == invitations(people, "Dmitri") == []


def test_a_blocked_player_cannot_invite_and_a_block_drops_its_invitations(people, client):
    people.befriend("Alice", "Bruno")
    t = new_table(client, "ribauds", ["human", "human"])
    assert invite(people, "Alice", "Bruno", t).status_code == 201
    people.ask("Bruno", "block", "Alice")
    assert invitations(people, "Bruno") == []
    r = invite(people, "Alice", "Bruno", t)
    assert r.status_code == 403 and r.json()["code"] == "not_friends"
    # removed friends' invitations go with the friendship
    people.befriend("Alice", "Carla")
    assert invite(people, "Alice", "Carla", t).status_code == 201
    [inv] = invitations(people, "Carla")
    people.ask("Alice", "remove", "Carla")
    assert invitations(people, "Carla") == []
    r = accept(people, "Carla", inv)
    assert r.status_code == 404


def test_an_invitation_to_a_table_that_waits_for_nobody_is_refused(people, client):
    people.befriend("Alice", "Bruno")
    full = new_table(client, "ribauds", ["human", "random"])  # the creator's seat is held
    r = invite(people, "Alice", "Bruno", full)
    assert r.status_code == 409 and r.json()["code"] == "full"
    waiting = new_table(client, "ribauds", ["human", "human"])
    join(client, waiting, 1)  # the invitation link was opened: the seat is held
    r = invite(people, "Alice", "Bruno", waiting)
    assert r.status_code == 409 and r.json()["code"] == "full"


def test_an_invitation_expires_when_the_seat_is_taken(people, client):
    people.befriend("Alice", "Bruno")
    t = new_table(client, "ribauds", ["human", "human"], open=True, name="Alice")
    assert invite(people, "Alice", "Bruno", t).status_code == 201
    [inv] = invitations(people, "Bruno")
    people.as_(None)
    r = client.post(f"/api/tables/{t['id']}/join", json={"name": "Stranger"})  # the lobby
    assert r.status_code == 200
    assert invitations(people, "Bruno") == []  # expired, and forgotten
    r = accept(people, "Bruno", inv)
    assert r.status_code == 404


def test_an_invitation_accepted_after_the_seat_was_taken_is_expired(people, client):
    people.befriend("Alice", "Bruno")
    t = new_table(client, "ribauds", ["human", "human"])
    assert invite(people, "Alice", "Bruno", t).status_code == 201
    [inv] = invitations(people, "Bruno")
    join(client, t, 1)  # the seat's own link is opened before Bruno answers
    r = accept(people, "Bruno", inv)
    assert r.status_code == 409 and r.json()["code"] == "invitation_expired"
    assert accept(people, "Bruno", inv).status_code == 404  # forgotten


def test_an_invitation_expires_when_the_table_starts_with_a_bot_or_ends(people, client):
    people.befriend("Alice", "Bruno")
    t = new_table(client, "ribauds", ["human", "human"])
    creator = join(client, t, 0)
    assert invite(people, "Alice", "Bruno", t).status_code == 201
    creator.send({"type": "bot", "seat": 1, "on": True})  # the table starts with a bot
    creator.recv_until(lambda m: m["type"] == "state" and not m["waiting"])
    assert invitations(people, "Bruno") == []
    old = new_table(client, "regicide", ["human", "human"])
    assert invite(people, "Alice", "Bruno", old).status_code == 201
    [inv] = invitations(people, "Bruno")
    with client.app.state.manager.store.engine.begin() as conn:  # abandoned: the game ended
        conn.execute(text("UPDATE game_tables SET status = 'abandoned' WHERE id = :t"),
                     {"t": old["id"]})
    r = accept(people, "Bruno", inv)
    assert r.status_code == 409 and r.json()["code"] == "invitation_expired"
    assert invitations(people, "Bruno") == []


# -- limits ------------------------------------------------------------------------------


def test_friend_requests_and_invitations_are_rate_limited_per_account(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     friend_rate="2/minute", invite_rate="1/minute") as c:
        p = People(c)
        assert p.ask("Alice", "requests", "Bruno").status_code == 200
        assert p.ask("Alice", "requests", "Nobody").status_code == 404  # counted too
        r = p.ask("Alice", "requests", "Carla")
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
        assert "friend requests" in r.json()["error"] and int(r.headers["Retry-After"]) >= 1
        as_address(c, "10.9.8.7")  # another address: the same account, the same count
        assert p.ask("Alice", "requests", "Carla").status_code == 429
        assert p.ask("Dmitri", "requests", "Carla").status_code == 200  # another account
        p.ask("Bruno", "accept", "Alice")  # answers are not counted
        p.ask("Carla", "accept", "Dmitri")
        t = new_table(c, "regicide", ["human", "human", "human"])
        assert invite(p, "Alice", "Bruno", t).status_code == 201
        r = invite(p, "Alice", "Bruno", t)
        assert r.status_code == 429 and "table invitations" in r.json()["error"]


# -- the database ------------------------------------------------------------------------


def test_a_database_before_friends_is_upgraded_with_its_tables_and_accounts(db_url):
    engine = make_engine(db_url)
    migrate(engine, "0009")
    now = datetime.now(timezone.utc)
    with engine.begin() as c:
        c.execute(text("INSERT INTO game_tables (id, game, config, seed, status, created_at, "
                       "is_open, hints) VALUES ('keep0001', 'ribauds', :cfg, 7, 'playing', :t, "
                       "0, 0)"), {"cfg": json.dumps({"players": 2}), "t": now})
        for seat in (0, 1):
            c.execute(text("INSERT INTO seats (table_id, seat, kind, token_hash, bot_replaces, "
                           "name, claimed) VALUES ('keep0001', :s, 'human', :h, 0, :n, :c)"),
                      {"s": seat, "h": f"h{seat}", "n": "Old" if seat == 0 else None,
                       "c": seat == 0})
        c.execute(text("INSERT INTO accounts (name, folded, password_hash, created_at) "
                       "VALUES ('Olga', 'olga', NULL, :t)"), {"t": now})
    engine.dispose()
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second") as c:  # upgrades
        store = c.app.state.manager.store
        assert current_revision(store.engine) == latest_revision()
        t = store.load_table("keep0001")
        assert t is not None and t.seats[0].name == "Old" and not t.seats[1].claimed
        assert c.get("/api/tables/keep0001").json()["waiting"]
        p = People(c, ("Petra",))
        assert p.ask("Petra", "requests", "olga").json() == {"name": "Olga", "state": "requested"}
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM friendships")).scalar() == 1


def test_deleting_an_account_deletes_its_friends_blocks_and_invitations(people, client):
    people.befriend("Alice", "Bruno")
    people.ask("Carla", "requests", "Alice")
    people.ask("Dmitri", "block", "Alice")
    t = new_table(client, "ribauds", ["human", "human"])
    invite(people, "Alice", "Bruno", t)
    r = people.as_("Alice").request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    assert people.circle("Bruno")["friends"] == [] and invitations(people, "Bruno") == []
    assert people.names("Carla", "outgoing") == [] and people.names("Dmitri", "blocked") == []
    with client.app.state.manager.store.engine.connect() as conn:
        for table in ("friendships", "blocks", "table_invitations"):
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0, table


# -- fuzz --------------------------------------------------------------------------------

ACTIONS = ["requests", "accept", "decline", "remove", "block", "unblock"]
ODD = st.sampled_from(["Alice", "alice", "ＢＲＵＮＯ", "Carla", "", " ", "\x00", "\ud800",
                       "a" * 64, "a" * 65, "Bot", "<b>", "Dmitri ", "..", "Nobody"])
VALUE = ODD | st.text(max_size=12) | st.integers() | st.none() | st.booleans() \
    | st.lists(st.text(max_size=3), max_size=2)
BODY = st.fixed_dictionaries({}, optional={"name": VALUE, "table": VALUE, "token": VALUE,
                                           "x": VALUE}) | VALUE


@pytest.mark.slow
def test_the_friends_endpoints_fuzzed_by_body_shapes(people, client):
    """Random bodies and orders of every friends endpoint, from several accounts: never a
    5xx, always the API's one error form, and the table's stored game untouched."""
    people.befriend("Alice", "Bruno")
    t = new_table(client, "ribauds", ["human", "human"])
    before = client.app.state.manager.store.load_table(t["id"]).moves
    targets = ["/api/friends/" + a for a in ACTIONS] + ["/api/friends/invite"]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(who=st.sampled_from(NAMES + (None,)), path=st.sampled_from(targets), body=BODY,
           invitation=st.integers(-2, 5) | st.sampled_from(["x", "1e3", "99999999999"]),
           verb=st.sampled_from(["accept", "decline"]), seat=st.booleans(),
           kind=st.integers(0, 3),
           read=st.sampled_from(["/api/friends", "/api/friends/invitations"]))
    def check(who, path, body, invitation, verb, seat, kind, read):
        c = people.as_(who)
        if path.endswith("/invite") and isinstance(body, dict) and seat:
            body = {**body, "table": t["id"], "token": t["seats"][0]["token"]}
        sent = json.dumps(body)  # ASCII: lone surrogates escaped, as a browser may send
        plain = {"Content-Type": "application/json"}
        if kind == 0:
            r = c.post(path, content=sent, headers=plain)
        elif kind == 1:
            r = c.post(f"/api/friends/invitations/{invitation}/{verb}", content=sent,
                       headers=plain)
        elif kind == 2:
            r = c.post(path, content=b"\xff{" + sent.encode(), headers=plain)
        else:
            r = c.get(read)
        assert r.status_code < 500, (who, path, body, r.status_code, r.text[:200])
        assert "application/json" in r.headers["content-type"]
        if r.status_code >= 400:
            assert r.json().get("error") and r.json().get("code"), r.text

    check()
    assert client.app.state.manager.store.load_table(t["id"]).moves == before


# -- many replicas -----------------------------------------------------------------------


@pytest.fixture
def replicas(two_replicas):
    """Two replicas (``a``, ``b``) on one SQLite file and one Redis; presence lives 1 s."""
    with two_replicas(passwords=cheap(), sign_up_rate="1000/second", friend_rate="1000/second",
                      invite_rate="1000/second", online_ttl=1.0) as both:
        yield both


def test_presence_is_shared_by_the_replicas_and_expires(replicas):
    a, b = replicas
    pa = People(a, ("Alice", "Bruno"))
    pb = People(b, ())
    pb.tokens = pa.tokens  # the same sessions, read by either replica from the database
    pa.befriend("Alice", "Bruno")
    time.sleep(1.2)
    assert online(pb, "Bruno") == {"Alice": False}
    pa.circle("Alice")  # Alice's lobby polls replica a; Bruno's reaches replica b
    assert online(pb, "Bruno") == {"Alice": True}
    time.sleep(1.2)
    assert online(pb, "Bruno") == {"Alice": False}
    t = new_table(a, "regicide", ["human"])
    pa.as_("Alice")
    page = join(a, t, 0)  # her table page's websocket on replica a
    time.sleep(2.0)  # twice the time to live: its key is set again while the page is open
    assert online(pb, "Bruno") == {"Alice": True}
    page.close()
    time.sleep(1.5)
    assert online(pb, "Bruno") == {"Alice": False}
    assert online(pa, "Alice") == {"Bruno": True}  # Bruno's own polls, on replica b


def test_an_invitation_sent_on_one_replica_is_accepted_on_the_other(replicas):
    a, b = replicas
    pa = People(a, ("Alice", "Bruno"))
    pb = People(b, ())
    pb.tokens = pa.tokens
    pa.befriend("Alice", "Bruno")
    t = new_table(a, "ribauds", ["human", "human"])
    creator = join(a, t, 0)
    assert invite(pa, "Alice", "Bruno", t).status_code == 201
    [inv] = invitations(pb, "Bruno")
    r = accept(pb, "Bruno", inv)
    assert r.status_code == 200, r.text
    creator.recv_until(lambda m: m["type"] == "state" and not m["waiting"], timeout=10)
    assert creator.state["seats"][1]["name"] == "Bruno"
