"""The lobby API and the pages (ASGI test client)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from server_helpers import join, new_table

STATIC = Path(__file__).resolve().parents[2] / "src" / "regalia" / "server" / "static"


def test_games_lists_both_games_with_bots_and_options(client):
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert set(games) == {"regicide", "ribauds"}
    assert games["regicide"]["min_players"] == 1 and games["regicide"]["max_players"] == 4
    assert "heuristic" in games["regicide"]["bots"] and "random" in games["ribauds"]["bots"]
    assert {o["key"] for o in games["regicide"]["options"]} >= {"solo_yield", "minimal_discard"}
    assert games["regicide"]["talk"] == "say" and games["ribauds"]["talk"] == "chat"
    # the tables' default bot is each game's strongest (regalia.bots.default_bot)
    assert games["regicide"]["default_bot"] == "montecarlo"
    assert games["ribauds"]["default_bot"] == "ismcts"


def test_create_table_gives_one_secret_link_per_human_seat(client):
    d = new_table(client, "regicide", ["human", "heuristic", "human"])
    assert d["you"] == 0 and d["players"] == 3
    humans = [s for s in d["seats"] if s["kind"] == "human"]
    assert len(humans) == 2 and all(s["link"] == f"/t/{d['id']}#s={s['token']}" for s in humans)
    assert len({s["token"] for s in humans}) == 2
    assert "token" not in d["seats"][1] and d["seats"][1]["bot"] == "heuristic"
    summary = client.get(f"/api/tables/{d['id']}").json()
    assert summary["status"] == "playing" and summary["players"] == 3
    assert "token" not in json.dumps(summary)


def test_create_table_refuses_bad_requests(client):
    bad = [
        {"game": "chess", "players": 2, "seats": [{"kind": "human"}] * 2},
        {"game": "regicide", "players": 5, "seats": [{"kind": "human"}] * 5},
        {"game": "regicide", "players": 2, "seats": [{"kind": "human"}]},
        {"game": "regicide", "players": 1, "seats": [{"kind": "alien"}]},
        {"game": "regicide", "players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "bot": "nobody"}]},
        {"game": "regicide", "players": 1, "seats": [{"kind": "human"}], "options": {"no_such": True}},
        {"game": "ribauds", "players": 2, "seats": [{"kind": "human"}] * 2, "options": {"replaced_card": "sky"}},
        {"game": "regicide", "players": 1, "seats": [{"kind": "human"}], "seed": -3},
        {"game": "regicide", "players": 1, "seats": [{"kind": "human", "token": "AAAA"}]},
        {"game": "regicide", "players": 1, "seats": [{"kind": "human", "bot": "random"}]},
        {"game": "regicide", "players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "bot": ""}]},
    ]
    for body in bad:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400, body
        assert r.json()["error"]
    r = client.post("/api/tables", json=bad[-3])
    assert r.json()["error"].startswith("seats[0]: unknown field 'token'")
    assert client.post("/api/tables", content=b"{not json",
                       headers={"Content-Type": "application/json"}).status_code == 400
    assert client.post("/api/tables", json=[1, 2]).status_code == 400


def test_options_the_server_refuses_are_not_listed_as_options():
    """The server draws who starts: an unknown option's message lists only the options a
    table may set (those of the lobby form), never ``first_player``."""
    from dataclasses import fields

    from regalia.games.regicide.state import Options as RegicideOptions
    from regalia.games.ribauds.state import Options as RibaudsOptions
    from regalia.server.tables.gamekit import OPTIONS, options_problem

    assert options_problem("regicide", {"solo_yeild": True}) == (
        "options.solo_yeild: unknown option; the options are jester_choose_self, "
        "minimal_discard, solo_yield")
    assert options_problem("ribauds", {"replaced": "hand"}) == (
        "options.replaced: unknown option; the options are replaced_card")
    for game in ("regicide", "ribauds"):
        assert options_problem(game, {"first_player": 0}) == (
            "options.first_player: the server draws who starts")
    assert options_problem("regicide", {"solo_yield": True, "minimal_discard": "yes"}) is None
    assert options_problem("ribauds", {}) is None
    # every engine option but first_player is offered
    for game, options in (("regicide", RegicideOptions), ("ribauds", RibaudsOptions)):
        assert {o["key"] for o in OPTIONS[game]} == {f.name for f in fields(options)} - {"first_player"}


def test_create_table_with_a_misspelled_option_lists_only_the_options_allowed(client):
    body = {"game": "regicide", "players": 1, "seats": [{"kind": "human"}],
            "options": {"solo_yeild": True}}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400
    assert r.json()["error"] == ("options.solo_yeild: unknown option; the options are "
                                 "jester_choose_self, minimal_discard, solo_yield")


def test_create_table_without_seats_seats_people_and_ribauds_needs_no_player_count(client):
    r = client.post("/api/tables", json={"game": "regicide", "players": 2})
    assert r.status_code == 201, r.text
    assert [s["kind"] for s in r.json()["seats"]] == ["human", "human"]
    r = client.post("/api/tables", json={"game": "ribauds"})
    assert r.status_code == 201, r.text
    assert len(r.json()["seats"]) == 2
    r = client.post("/api/tables", json={"game": "ribauds", "players": 3})
    assert r.status_code == 400 and r.json()["error"] == "players: ribauds is for exactly 2 players"


def test_unknown_table_is_404(client):
    assert client.get("/api/tables/nope").status_code == 404
    assert client.get("/api/tables/nope/replay").status_code == 404


def test_replay_opens_only_when_the_game_is_over(client):
    d = new_table(client, "regicide", ["human"])
    assert client.get(f"/api/tables/{d['id']}/replay").status_code == 409


def test_pages_and_static_files_are_served(client):
    for path in ("/", "/t/abc", "/replay/abc", "/rules"):
        r = client.get(path)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"]
        assert '<script type="module"' in r.text
    for path in ("/static/css/regalia.css", "/static/js/table.js", "/static/js/lobby.js",
                 "/static/js/regicide.js", "/static/js/ribauds.js", "/static/js/rules.js",
                 "/static/i18n/pt-BR.json",
                 "/favicon.ico"):
        assert client.get(path).status_code == 200, path


def test_the_three_languages_have_the_same_texts():
    dicts = {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text())
             for lang in ("en", "pt-BR", "es")}
    keys = set(dicts["en"])
    for lang, d in dicts.items():
        assert set(d) == keys, lang
        assert all(isinstance(v, str) and v for v in d.values()), lang
    # card names and rule terms are translated too
    assert dicts["pt-BR"]["regicide.tavern"] == "Taverna" and dicts["es"]["regicide.castle"] == "Castillo"
    assert dicts["pt-BR"]["card.jester"] == "Bufão" and dicts["es"]["suit.S"] == "Picas"
    assert dicts["pt-BR"]["rib.court"] == "A Corte"


def test_a_replay_starts_with_the_deal_and_shows_what_each_seat_drew(client):
    d = new_table(client, "regicide", ["heuristic", "heuristic"], seed=11)
    join(client, d, None).finished()
    for _ in range(100):  # the replay opens once the table has marked the game finished
        r = client.get(f"/api/tables/{d['id']}/replay")
        if r.status_code == 200:
            break
        time.sleep(0.05)
    steps = r.json()["steps"]
    # the start: the setup event, as the live log began (no hidden card in it)
    assert [e["kind"] for e in steps[0]["events"]] == ["setup"]
    assert steps[0]["events"][0]["first"] in (0, 1) and steps[0]["events"][0]["private"] == {}
    # a Diamonds draw (an event of no seat) carries each drawing seat's cards for the replay
    draws = [e for s in steps[1:] for e in s["events"] if e["kind"] == "draw"]
    assert draws and all(e["seat"] is None for e in draws)
    assert all(sum(len(p["cards"]) for p in e["private"].values()) == sum(e["counts"].values())
               for e in draws)
