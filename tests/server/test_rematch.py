"""Rematch: a seated player of a finished table asks for a rematch; it has
the same seats, options, bots, names and clock and a new deal; every human keeps their seat
token (their links move with them) and every page of the old table is told."""

from __future__ import annotations

import random

from server_helpers import Peer, join, new_table, play_randomly, running_app


def finished_table(client, seats, seed=11, options=None):
    d = new_table(client, "regicide", seats, options=options, seed=seed)
    humans = {k: join(client, d, k) for k, s in enumerate(seats) if s == "human"}
    spec = join(client, d, None)
    play_randomly(humans, spec, random.Random(seed), chatter=False)
    return d, humans, spec


def test_play_again_deals_a_new_game_for_the_same_seats_and_moves_both_humans(client):
    d, humans, spec = finished_table(client, ["human", "human", "random"], options={"minimal_discard": True})
    humans[1].send({"type": "name", "name": "Tia"})
    humans[0].recv_until(lambda m: m["type"] == "seats" and m["seats"][1]["name"] == "Tia")
    client.seeds.next.append(99)
    r = client.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][0]["token"]})
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["id"] != d["id"] and new["seat"] == 0
    assert new["link"] == f"/t/{new['id']}#s={d['seats'][0]['token']}"
    for p in (*humans.values(), spec):
        assert p.recv_until(lambda m: m["type"] == "rematch")["table"] == new["id"]
    again = client.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][1]["token"]})
    assert again.json()["id"] == new["id"]  # one rematch, whoever asks
    humans[1].send({"type": "name", "name": "hv AD AS"})  # the rematch's hand, told here
    assert humans[1].recv_until(lambda m: m["type"] == "error")["code"] == "name_fixed"
    # seat 2's old link opens its seat at the new table
    b = Peer(client, new["id"], d["seats"][1]["token"], "b")
    st = b.recv_until(lambda m: m["type"] == "state")
    assert st["seat"] == 1 and st["ply"] == 0 and not st["finished"]
    assert [s["kind"] for s in st["seats"]] == ["human", "human", "bot"]
    assert st["seats"][2]["bot"] == "random" and st["seats"][1]["name"] == "Tia"
    summary = client.get(f"/api/tables/{new['id']}").json()
    assert summary["options"] == {"minimal_discard": True}
    m = client.app.state.manager
    assert m.tables[new["id"]].seed == 99 != m.tables[d["id"]].seed
    assert client.get(f"/api/tables/{d['id']}").json()["next_table"] == new["id"]


def test_a_rematch_needs_a_finished_game_and_a_seat_token(client):
    d = new_table(client, "regicide", ["human", "random"])
    r = client.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][0]["token"]})
    assert r.status_code == 409 and r.json()["code"] == "not_finished"
    d2, _, spec = finished_table(client, ["human", "random"], seed=5)
    for token in ("nope", d2["spectate"].split("#s=")[1], d["seats"][0]["token"], 5):
        r = client.post(f"/api/tables/{d2['id']}/rematch", json={"token": token})
        assert r.status_code == 403, r.text
    assert client.get(f"/api/tables/{d2['id']}").json()["next_table"] is None
    assert client.post(f"/api/tables/{d2['id']}/rematch", json={}).status_code == 403
    assert client.post(f"/api/tables/{d2['id']}/rematch", json={"token": "a", "b": 1}).status_code == 400


def test_a_page_that_opens_a_finished_table_later_learns_of_the_rematch(client):
    d, humans, _ = finished_table(client, ["human", "random"], seed=8)
    new = client.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][0]["token"]}).json()
    late = join(client, d, 0)
    assert late.state["next_table"] == new["id"]


def test_the_rematch_already_made_is_handed_back_without_counting_a_table(db_url):
    with running_app(db_url, table_rate="2/minute") as c:
        d, _, _ = finished_table(c, ["human", "random"], seed=5)                 # 1 of 2
        first = c.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][0]["token"]})
        assert first.status_code == 200                                          # 2 of 2
        for _ in range(3):
            again = c.post(f"/api/tables/{d['id']}/rematch", json={"token": d["seats"][0]["token"]})
            assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
        r = c.post("/api/tables", json={"game": "regicide", "players": 1})
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
