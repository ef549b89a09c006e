"""The lobby's "Your turn" list: ``POST /api/turns`` answers, of the seats whose tokens a
browser gives, those whose player is to act now, and nothing about any other seat;
``GET /api/turns`` the same for the seats linked to the signed-in account."""

from __future__ import annotations

from server_helpers import join, new_table, running_app


def proof(d, seat, token=None):
    return {"id": d["id"], "token": token or d["seats"][seat]["token"]}


def turns(c, *proofs):
    r = c.post("/api/turns", json={"tables": list(proofs)})
    assert r.status_code == 200, r.text
    return r.json()["turns"]


def test_only_the_seats_given_and_to_act_are_answered(db_url):
    with running_app(db_url, turn_presets="long=3600") as c:
        a = new_table(c, "ribauds", ["human", "human"], clock="long", seed=2)
        b = new_table(c, "regicide", ["human", "human"], seed=3)
        waiting = new_table(c, "ribauds", ["human", "human"])  # seat 1 never opened
        for d in (a, b):
            join(c, d, 0), join(c, d, 1)
        cur_a = c.get(f"/api/tables/{a['id']}").json()["current"]
        cur_b = c.get(f"/api/tables/{b['id']}").json()["current"]
        every = [proof(d, s) for d in (a, b) for s in (0, 1)] + [proof(waiting, 0)]
        got = turns(c, *every)
        assert [(t["id"], t["seat"]) for t in got] == [(a["id"], cur_a), (b["id"], cur_b)]
        assert got[0]["per_move"] and got[0]["game"] == "ribauds" and got[0]["players"] == 2
        assert got[0]["deadline"] == c.get(f"/api/tables/{a['id']}").json()["clock"]["deadline"]
        assert not got[1]["per_move"] and got[1]["deadline"] is None
        # the seat not to act, a made-up token, another table's token: nothing at all
        assert turns(c, proof(a, 1 - cur_a)) == []
        assert turns(c, proof(a, 0, token="x" * 24)) == []
        assert turns(c, {"id": b["id"], "token": a["seats"][cur_a]["token"]}) == []
        assert turns(c, {"id": "nosuchid", "token": "t"}, {"id": "../..", "token": "é"}) == []
        assert turns(c) == []
        # a seat handed to a bot is not its player's turn
        p = join(c, a, cur_a)
        p.send({"type": "bot", "seat": cur_a, "on": True})
        p.recv_until(lambda m: m["type"] == "state" and m["seats"][cur_a]["bot_replaces"])
        assert all(t["id"] != a["id"] or t["seat"] != cur_a
                   for t in turns(c, *[proof(a, s) for s in (0, 1)]))


def test_bad_bodies_are_refused_with_what_is_allowed(db_url):
    with running_app(db_url) as c:
        for body in ({}, {"tables": "x"}, {"tables": [{"id": "a"}]},
                     {"tables": [{"id": "a", "token": "b"}] * 101}, {"tables": [], "more": 1}):
            r = c.post("/api/turns", json=body)
            assert r.status_code == 400, body
            assert r.json()["code"] == "bad_request" and r.json()["error"], r.json()
        r = c.post("/api/turns", json={"tables": [{"id": "a"}]})
        assert "token" in r.json()["error"] and "at most 100" in r.json()["error"]


def test_the_signed_in_account_gets_its_linked_seats_turns(db_url):
    with running_app(db_url, sign_up_rate="100/second", sign_in_rate="100/second") as c:
        assert c.get("/api/turns").status_code == 401
        d = new_table(c, "ribauds", ["human", "human"], seed=11)
        other = new_table(c, "ribauds", ["human", "human"], seed=12)
        for x in (d, other):
            join(c, x, 0), join(c, x, 1)
        assert c.post("/api/account/sign-up",
                      json={"name": "Turner", "password": "a good password"}).status_code == 201
        assert c.get("/api/turns").json() == {"turns": []}  # no seat linked yet
        mine = c.get(f"/api/tables/{d['id']}").json()["current"]
        r = c.post("/api/account/tables", json={"tables": [proof(d, mine)]})
        assert r.json()["adopted"] == [{"id": d["id"], "seat": mine}]
        got = c.get("/api/turns").json()["turns"]
        assert [(t["id"], t["seat"]) for t in got] == [(d["id"], mine)]
        c.cookies.clear()
        assert c.get("/api/turns").status_code == 401
