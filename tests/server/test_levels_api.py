"""Bot levels at the online tables: ``GET /api/games`` offers each game's levels by name
with what each plays and the level the lobby suggests (medium in Le Roy des Ribauds, not
the strongest); a seat's ``bot`` may be a level, and the level's own bot plays it; an
unknown name is refused with the levels and the bots allowed; the bots' technical names
are still accepted. The levels' descriptions are the lobby's English texts, translated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regalia.bots import LEVEL_NAMES, level_descriptions
from regalia.games import GAME_NAMES
from regalia.bots.levels import level_of
from regalia.server.tables import botwork
from server_helpers import join, new_table

I18N = Path(__file__).resolve().parents[2] / "src" / "regalia" / "server" / "static" / "i18n"


def test_games_offer_the_levels_by_name_and_ribauds_suggests_medium(client):
    games = {g["name"]: g for g in client.get("/api/games").json()}
    for name, g in games.items():
        assert [lv["name"] for lv in g["levels"]] == list(LEVEL_NAMES)
        assert {lv["name"]: lv["description"] for lv in g["levels"]} == level_descriptions(name)
        assert g["default_level"] in LEVEL_NAMES
    assert games["ribauds"]["default_level"] == "medium"
    assert games["ribauds"]["default_level"] != "strongest"
    assert games["regicide"]["default_level"] == "strongest"  # a partner, not an opponent
    # the bots by their own names are still listed, and still the API's default
    assert games["ribauds"]["default_bot"] == "ismcts" and "tactical" in games["ribauds"]["bots"]


@pytest.mark.parametrize("game,seats", [
    ("ribauds", ["easy", "medium"]),
    ("ribauds", ["hard", "strongest"]),
    ("regicide", ["easy", "medium"]),
    ("regicide", ["hard", "strongest"]),
])
def test_bots_seated_by_level_play_the_game_to_its_end(client, game, seats):
    d = new_table(client, game, seats, seed=5)
    assert [s["bot"] for s in d["seats"]] == seats
    end = join(client, d, None).finished(timeout=60)
    assert [s["bot"] for s in end["seats"]] == seats
    assert end["ply"] >= 2
    summary = client.get(f"/api/tables/{d['id']}").json()
    assert summary["status"] == "finished"
    # the table's bots were the levels' own configurations, not a fallback
    for level in seats:
        bot = botwork._BOTS[(game, level)]
        spec = level_of(game, level)
        assert bot.name == level
        assert all(getattr(bot, k) == v for k, v in spec.params.items())


def test_a_person_plays_against_a_level_bot_that_answers(client):
    d = new_table(client, "ribauds", ["human", "hard"], seed=9)
    me = join(client, d, 0)
    answered = False
    for _ in range(50):
        st = me.state
        if st["finished"]:
            break
        if st["current"] == 0 and st["legal"]:
            me.act(st["legal"][0])
            me.state_at(st["ply"] + 1)
        else:  # the bot is to act: its move comes
            me.state_at(st["ply"] + 1, timeout=10)
            answered = True
            break
    assert answered or me.state["finished"]


def test_an_unknown_level_is_refused_listing_the_levels_and_bots(client):
    body = {"game": "ribauds", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "expert"}]}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400
    assert r.json()["error"] == (
        "seats[1].bot: unknown ribauds bot 'expert'; choose a level (easy, medium, hard, "
        "strongest) or a bot (heuristic, ismcts, random, tactical)")
    body["seats"][1]["bot"] = "x" * 500  # a long name is cut in the answer
    assert "'" + "x" * 40 + "'" in client.post("/api/tables", json=body).json()["error"]
    body["seats"][1]["bot"] = 3
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400 and "easy, medium, hard, strongest" in r.json()["error"]


def test_the_technical_bot_names_are_still_accepted(client):
    d = new_table(client, "regicide", ["human", "montecarlo", "simple"])
    assert [s["bot"] for s in d["seats"]] == [None, "montecarlo", "simple"]


def test_the_descriptions_are_the_lobby_english_texts_and_translated():
    texts = {lang: json.loads((I18N / f"{lang}.json").read_text())
             for lang in ("en", "es", "pt-BR")}
    for game in GAME_NAMES:
        for level, description in level_descriptions(game).items():
            assert texts["en"][f"botlevel.{game}.{level}"] == description
            for lang in ("es", "pt-BR"):
                assert texts[lang][f"botlevel.{game}.{level}"] != description, (lang, level)
                assert texts[lang][f"botlevel.{level}"]
