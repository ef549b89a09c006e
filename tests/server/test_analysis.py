"""Game analysis on the server: ``GET /api/tables/{id}/analysis?seat=K``
for a finished Regicide game, from that player's view only, worked out once in the bot
pool; refused before the end, for Le Roy des Ribauds, for a seat out of range and over the
analysis rate."""

from __future__ import annotations

import time

from regalia.lab.solve import solve_seed
from server_helpers import join, new_table, running_app

SEED = 2227728569


def finished_solo(client) -> dict:
    line = solve_seed(SEED, time_limit=30).line
    d = new_table(client, "regicide", ["human"], seed=SEED)
    me = join(client, d, 0)
    for ply, action in enumerate(line):
        me.act(action, ply)
        me.state_at(ply + 1)
    assert me.state["finished"]
    return d | {"line": line}


def test_a_finished_game_is_analysed_once_for_its_player(client):
    d = finished_solo(client)
    r = client.get(f"/api/tables/{d['id']}/analysis?seat=0")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["seat"] == 0 and body["decisions"]
    for dec in body["decisions"]:
        assert d["line"][dec["index"]] == dec["played"]
        assert 0 <= dec["played_win"] <= 1 and 0 <= dec["best_win"] <= 1
        assert dec["cost"] >= 0 and dec["worlds"] == 100
    assert sum(dec["marked"] for dec in body["decisions"]) <= 3
    assert client.get(f"/api/tables/{d['id']}/analysis?seat=0").json() == body  # kept


def test_analysis_is_refused_before_the_end_for_ribauds_and_bad_seats(client):
    playing = new_table(client, "regicide", ["human"])
    r = client.get(f"/api/tables/{playing['id']}/analysis?seat=0")
    assert r.status_code == 409 and r.json()["code"] == "not_finished"
    d = finished_solo(client)
    for seat in (-1, 1):
        r = client.get(f"/api/tables/{d['id']}/analysis?seat={seat}")
        assert r.status_code == 400 and "seat: 0 to 0" in r.json()["error"]
    rib = new_table(client, "ribauds", ["random", "random"])
    for _ in range(200):
        if client.get(f"/api/tables/{rib['id']}").json()["status"] == "finished":
            break
        time.sleep(0.05)
    r = client.get(f"/api/tables/{rib['id']}/analysis?seat=0")
    assert r.status_code == 400 and "Regicide" in r.json()["error"]
    assert client.get("/api/tables/nosuchtbl/analysis?seat=0").status_code == 404
    r = client.get(f"/api/tables/{d['id']}/analysis?seat=abc")
    assert r.status_code == 400 and r.json()["code"] == "bad_request"
    assert r.json()["error"].startswith("seat: ")


def test_analyses_are_rate_limited_per_address(db_url):
    with running_app(db_url, analysis_rate="1/minute") as client:
        a, b = finished_solo(client), finished_solo(client)
        playing = new_table(client, "regicide", ["human"])
        for _ in range(3):  # refusals are no work: they do not count
            assert client.get(f"/api/tables/{playing['id']}/analysis?seat=0").status_code == 409
            assert client.get(f"/api/tables/{a['id']}/analysis?seat=5").status_code == 400
        assert client.get(f"/api/tables/{a['id']}/analysis?seat=0").status_code == 200
        assert client.get(f"/api/tables/{a['id']}/analysis?seat=0").status_code == 200  # kept: free
        r = client.get(f"/api/tables/{b['id']}/analysis?seat=0")
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
