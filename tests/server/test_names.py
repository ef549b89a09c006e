"""Names (issue 9, item 1): a nickname per seat, given in ``hello`` or at creation,
changed with a ``name`` message, cleaned and limited by the server, kept in the database and
shown in the seat list and the replay."""

from __future__ import annotations

from server_helpers import Peer, join, new_table, running_app


def seats_of(peer: Peer, pred) -> list[dict]:
    return peer.recv_until(lambda m: m["type"] in ("seats", "state") and pred(m["seats"]))["seats"]


def test_hello_names_the_seat_and_everyone_sees_it(client):
    d = new_table(client, "regicide", ["human", "human"])
    a = Peer(client, d["id"], d["seats"][0]["token"], "a")
    a.ws.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": "x"})  # ignored
    a.recv_until(lambda m: m["type"] == "state")
    with client.websocket_connect(f"/ws/{d['id']}") as b:
        b.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": "  Bea \n Maria "})
        seats = seats_of(a, lambda s: s[1]["name"] is not None)
    assert seats[1]["name"] == "Bea Maria" and seats[1]["claimed"] and seats[0]["name"] is None


def test_names_are_cleaned_limited_and_a_bad_one_is_refused_with_nothing_changed(client):
    d = new_table(client, "regicide", ["human", "human"])
    a = join(client, d, 0)
    a.send({"type": "name", "name": "<b>Zé</b>\x07  da\tSilva"})
    seats = seats_of(a, lambda s: s[0]["name"])
    assert seats[0]["name"] == "<b>Zé</b> da Silva"  # text, shown as text by the pages
    for bad in ("", "   ", "x" * 25, 7, None, "\ud800"):
        a.send({"type": "name", "name": bad})
        err = a.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "bad_message" and "1 to 24" in err["message"]
    assert client.get(f"/api/tables/{d['id']}").json()["seats"][0]["name"] == "<b>Zé</b> da Silva"
    spec = join(client, d, None)
    spec.send({"type": "name", "name": "Eve"})
    assert spec.recv_until(lambda m: m["type"] == "error")["code"] == "spectator"


def test_a_too_long_name_in_hello_leaves_the_name_as_it_was(client):
    d = new_table(client, "regicide", ["human"])
    p = Peer(client, d["id"], d["seats"][0]["token"])
    p.ws.send_json({"type": "hello", "token": d["seats"][0]["token"], "name": "y" * 40})
    st = p.recv_until(lambda m: m["type"] == "state")
    assert st["seats"][0]["name"] is None and not p.errors()


def test_the_creator_names_seat_one_and_names_survive_a_restart(db_url):
    with running_app(db_url) as c:
        r = c.post("/api/tables", json={"game": "regicide", "players": 2, "name": "Olga",
                                        "seats": [{"kind": "human"}, {"kind": "bot"}]})
        assert r.status_code == 201
        tid = r.json()["id"]
        seats = c.get(f"/api/tables/{tid}").json()["seats"]
        assert seats[0]["name"] == "Olga" and seats[1]["name"] is None
        bad = c.post("/api/tables", json={"game": "regicide", "players": 1, "name": "z" * 30,
                                          "seats": [{"kind": "human"}]})
        assert bad.status_code == 400 and "name" in bad.json()["error"]
    with running_app(db_url) as c:
        assert c.get(f"/api/tables/{tid}").json()["seats"][0]["name"] == "Olga"


def test_the_replay_names_the_seats(client):
    r = client.post("/api/tables", json={"game": "regicide", "players": 2, "name": "Ivo",
                                         "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]})
    d = r.json()
    p = join(client, d, 0)
    from server_helpers import play_randomly
    import random

    spec = join(client, d, None)
    play_randomly({0: p}, spec, random.Random(1), chatter=False)
    rep = client.get(f"/api/tables/{d['id']}/replay").json()
    assert rep["seats"][0]["name"] == "Ivo" and rep["seats"][1]["bot"] == "random"
