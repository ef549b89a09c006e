"""Open tables: the creator may list a table in the lobby; it waits, with
no move and no bot acting, until its human seats are taken; ``POST .../join`` takes a free
seat and hands out its secret token; a full table leaves the list; invitation links still
work; joins are rate limited per address."""

from __future__ import annotations

from server_helpers import Peer, join, running_app


def create_open(client, seats, name="Ana", **extra) -> dict:
    body = {"game": "regicide", "players": len(seats), "open": True, "name": name,
            "options": extra.pop("options", {}),
            "seats": [{"kind": "human"} if s == "human" else {"kind": "bot", "bot": s}
                      for s in seats], **extra}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def listed(client) -> dict[str, dict]:
    r = client.get("/api/open")
    assert r.status_code == 200
    return {t["id"]: t for t in r.json()}


def test_an_open_table_is_listed_with_its_free_seats_names_and_options(client):
    d = create_open(client, ["human", "human", "heuristic"], options={"minimal_discard": True})
    closed = client.post("/api/tables", json={"game": "regicide", "players": 2,
                                              "seats": [{"kind": "human"}, {"kind": "human"}]})
    entry = listed(client)[d["id"]]
    assert closed.json()["id"] not in listed(client)
    assert entry["game"] == "regicide" and entry["players"] == 3 and entry["free"] == 1
    assert entry["options"] == {"minimal_discard": True}
    assert [s["name"] for s in entry["seats"]] == ["Ana", None, None]
    assert [s["free"] for s in entry["seats"]] == [False, True, False]
    assert entry["seats"][2]["bot"] == "heuristic" and 0 <= entry["waited_s"] < 60
    assert "token" not in str(entry)


def test_an_open_table_waits_for_its_players_then_join_seats_the_newcomer(client):
    d = create_open(client, ["human", "human", "heuristic"])
    a = join(client, d, 0)
    assert a.state["waiting"] and a.state["legal"] == [] and a.state["ply"] == 0
    a.act("yield", 0)
    assert a.recv_until(lambda m: m["type"] == "error")["code"] == "waiting"
    a.send({"type": "bot", "seat": 1, "on": True})  # the free seat waits for a person
    refusal = a.recv_until(lambda m: m["type"] == "error")
    assert refusal["code"] == "wrong_seat" and "from the lobby" in refusal["message"]
    r = client.post(f"/api/tables/{d['id']}/join", json={"name": "Bruno"})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["seat"] == 1 and j["link"] == f"/t/{d['id']}#s={j['token']}"
    assert d["id"] not in listed(client)  # full: it leaves the list
    b = Peer(client, d["id"], j["token"], "b")
    st = b.recv_until(lambda m: m["type"] == "state")
    assert st["seat"] == 1 and not st["waiting"] and st["seats"][1]["name"] == "Bruno"
    # the invitation link made for seat 2 at creation no longer opens it
    old = Peer(client, d["id"], d["seats"][1]["token"], "old")
    assert old.recv_until(lambda m: m["type"] == "error")["code"] == "no_access"
    full = client.post(f"/api/tables/{d['id']}/join", json={"name": "Caio"})
    assert full.status_code == 409 and full.json()["code"] == "full"
    # the game goes on (a bot may move now too)
    a.state_at(0)
    b.state_at(0)


def test_an_invitation_link_still_takes_a_seat_of_an_open_table(client):
    d = create_open(client, ["human", "human"])
    assert d["id"] in listed(client)
    join(client, d, 1)
    assert d["id"] not in listed(client)


def test_join_refusals_change_nothing(client):
    d = create_open(client, ["human", "human"])
    for bad in ({}, {"name": ""}, {"name": "n" * 25}, {"name": 3}, {"name": "ok", "x": 1}):
        r = client.post(f"/api/tables/{d['id']}/join", json=bad)
        assert r.status_code == 400, (bad, r.text)
    assert listed(client)[d["id"]]["free"] == 1
    closed = client.post("/api/tables", json={"game": "regicide", "players": 2,
                                              "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
    r = client.post(f"/api/tables/{closed['id']}/join", json={"name": "Eva"})
    assert r.status_code == 409 and r.json()["code"] == "not_open"
    assert client.post("/api/tables/abcdefgh/join", json={"name": "Eva"}).status_code == 404
    bad_open = client.post("/api/tables", json={"game": "regicide", "players": 1, "open": "yes",
                                                "seats": [{"kind": "human"}]})
    assert bad_open.status_code == 400 and "open" in bad_open.json()["error"]


def test_joins_are_rate_limited_per_address(db_url):
    with running_app(db_url, join_rate="2/minute") as c:
        ids = [create_open(c, ["human", "human"])["id"] for _ in range(3)]
        for _ in range(3):  # no such table, or no name: refused, not counted
            assert c.post("/api/tables/AAAAAAAA/join", json={"name": "Rui"}).status_code == 404
            assert c.post(f"/api/tables/{ids[0]}/join", json={"name": ""}).status_code == 400
        codes = [c.post(f"/api/tables/{i}/join", json={"name": "Rui"}).status_code for i in ids]
        assert codes == [200, 200, 429]
        assert ids[2] in listed(c)


def test_bots_wait_at_an_open_table_until_it_is_full(client):
    d = create_open(client, ["human", "random", "random", "human"])
    a = join(client, d, 0)
    a.drain(0.5)
    assert a.state["ply"] == 0 and a.state["waiting"]
    client.post(f"/api/tables/{d['id']}/join", json={"name": "Lia"})
    a.recv_until(lambda m: m["type"] == "state" and not m["waiting"])
