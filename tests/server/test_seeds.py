"""Nobody can rig a deal: the server draws each table's seed (and so the
first player) from ``secrets``, refuses one from a client, and shows it only in a finished
game's record. (Bots' random sources: tests/lab/test_evaluate.py, tests/test_terminal.py.)"""

from __future__ import annotations

from server_helpers import join, new_table

BODY = {"game": "ribauds", "players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]}


def test_a_client_can_choose_neither_the_seed_nor_the_first_player(client):
    store = client.app.state.manager.store
    before = store.count_tables()
    for body, word in [({**BODY, "seed": 7}, "seed"),
                       ({**BODY, "seed": "7"}, "seed"),
                       ({**BODY, "options": {"first_player": 0}}, "first_player"),
                       ({**BODY, "first_player": 1}, "first_player")]:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400, body
        assert word in r.json()["error"]
    assert store.count_tables() == before


def test_each_deal_comes_from_the_secret_source(client, monkeypatch):
    import regalia.server.settings as S

    drawn = []

    class Secret:
        @staticmethod
        def randbits(k):
            drawn.append(k)
            return 424242

    monkeypatch.setattr(S, "secrets", Secret)
    d = new_table(client, "regicide", ["human", "human"])
    assert drawn == [52]
    assert client.app.state.manager.store.load_table(d["id"]).seed == 424242


def test_the_seed_is_shown_only_in_a_finished_games_record(client):
    seed = 3141592653589
    d = new_table(client, "regicide", ["random", "random"], seed=seed)
    assert str(seed) not in str(d)
    spec = join(client, d, None)
    assert str(seed) not in client.get(f"/api/tables/{d['id']}").text
    spec.finished()
    assert not any(str(seed) in raw for raw in spec.raw)
    replay = client.get(f"/api/tables/{d['id']}/replay").json()
    assert replay["record"]["seed"] == seed
