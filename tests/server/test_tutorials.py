"""The tutorials (``regalia.server.tutorials``): each game's script replays through the
engine, every step's lesson really happens at that step (the step teaching Hearts heals,
the exact kill puts the enemy on top of the Tavern deck, the Reine discards the Reines it
finds...), and ``POST /api/tutorials/{game}`` keeps the learner to the script."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from regalia.server.tutorials import MAX_MOVES, play, script

GAMES = ("regicide", "ribauds")


class Moment:
    """One step of a replayed script: the positions before and after the step's move, the
    learner's views of them, the move's public events and the legal actions after it."""

    def __init__(self, g, before, after, events, seat) -> None:
        self.g = g
        self.before = g.to_json(before)
        self.after = g.to_json(after)
        self.view_before = g.view(before, seat, log=False)
        self.view = g.view(after, seat, log=False)
        self.events = [e.seen_by(None) for e in events]
        self.legal = g.all_legal_texts(after)

    def event(self, kind: str) -> dict[str, Any]:
        found = [e for e in self.events if e["kind"] == kind]
        assert found, (kind, self.events)
        return found[0]

    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.events]


def replay(game: str) -> list[tuple[Any, Moment]]:
    """Every step of ``game``'s script with its moment (a note's: the position at it)."""
    sc = script(game)
    g, state, rng = sc.start()
    out = []
    for step in sc.steps:
        before = state
        events = []
        if step.move is not None:
            assert step.move in g.all_legal_texts(state), (step, g.all_legal_texts(state))
            assert g.current_seat(state) == step.by, step
            state, events = g.apply_text(state, step.move, rng)
        out.append((step, Moment(g, before, state, events, sc.seat)))
    return out


# -- what each lesson's rule looks like when it happens (rules/regicide.md) -----------------

def r_enemy(m: Moment) -> None:  # 1.2, 1.3: a Jack attacks for 10, has 20 health; 8 cards
    assert m.view["enemy"][0] == "J" and m.view["attack"] == 10 and m.view["health"] == 20
    assert len(m.view["hand"]) == 8 and m.view["jesters"] == 2


def r_attack(m: Moment) -> None:  # 1.7: the play's value is dealt as damage
    play = m.event("play")
    assert play["damage"] == play["value"] == m.view["damage"] - m.view_before["damage"]
    assert m.view["phase"] == "suffer"


def r_suffer(m: Moment) -> None:  # 1.8: discard at least the attack, then a new turn
    d = m.event("discard")
    assert d["total"] >= d["attack"] == m.view_before["attack_to_absorb"] > 0
    assert m.view["phase"] == "play"


def r_shield(m: Moment) -> None:  # 1.6 Spades: the value comes off the enemy's attack
    play = m.event("play")
    assert "S" in play["powers"] and m.view["shield"] == play["value"]
    assert m.view["attack_to_absorb"] == m.view["attack"] - play["value"]


def r_shield_holds(m: Moment) -> None:  # 1.6 / 3.R5: the shield lasts for the enemy's life
    d = m.event("discard")
    assert m.view_before["shield"] > 0 and m.view_before["enemy"] == m.view["enemy"]
    assert d["attack"] == m.view_before["attack"] - m.view_before["shield"]


def r_hearts(m: Moment) -> None:  # 1.6 Hearts: discards go under the Tavern
    play, heal = m.event("play"), m.event("heal")
    assert "H" in play["powers"]
    pile = len(m.before["discard"])
    assert pile > 0 and heal["count"] == min(play["value"], pile)
    n = heal["count"]
    assert len(m.after["tavern"]) == len(m.before["tavern"]) + n
    assert set(m.after["tavern"][-n:]) <= set(m.before["discard"])  # under the Tavern deck
    assert len(m.after["discard"]) == pile - n


def r_diamonds(m: Moment) -> None:  # 1.6 Diamonds: draw up to the value, at most 8 in hand
    play, draw = m.event("play"), m.event("draw")
    drawn = sum(draw["counts"].values())
    assert "D" in play["powers"] and 0 < drawn <= play["value"]
    assert all(c in m.view["hand"] for c in m.before["tavern"][:drawn])


def r_clubs(m: Moment) -> None:  # 1.6 Clubs: double damage
    play = m.event("play")
    assert "C" in play["powers"] and play["damage"] == 2 * play["value"]


def r_immunity(m: Moment) -> None:  # 1.9: the enemy's own suit's power is blocked
    play = m.event("play")
    suit = m.view["enemy"][1]
    assert suit in play["blocked"] and suit not in play["powers"]
    assert play["damage"] == play["value"]  # the value still counts
    assert m.view["shield"] == m.view_before["shield"]


def r_combo(m: Moment) -> None:  # 1.5 sets, 1.6: every suit once, at the combo's value
    play = m.event("play")
    cards = play["cards"]
    assert len(cards) >= 2 and len({c[0] for c in cards}) == 1 and play["value"] <= 10
    assert {"H", "D"} <= set(play["powers"])
    assert m.event("heal")["count"] == play["value"]
    assert sum(m.event("draw")["counts"].values()) == play["value"]


def r_companion_exact(m: Moment) -> None:  # 1.5 Animal Companion; 1.7 exact kill
    play = m.event("play")
    assert any(c[0] == "A" for c in play["cards"]) and len(play["cards"]) == 2
    defeat = m.event("defeat")
    assert defeat["exact"] is True and defeat["enemy"] == m.before["enemy"]
    assert m.after["tavern"][0] == m.before["enemy"]  # face down on top of the Tavern deck
    assert m.view["tavern_top"] == [m.before["enemy"]]
    assert "enemy" in m.kinds() and m.view["phase"] == "play"  # a new turn, no Step 4


def r_no_yield(m: Moment) -> None:  # 1.11: no yield in solo; a weak hand
    assert "yield" not in m.legal and "jester" in m.legal
    worth = sum(1 if c[0] == "A" else 10 if c[0] == "T" else int(c[0]) for c in m.view["hand"])
    assert worth < m.view["attack"]


def r_jester(m: Moment) -> None:  # 1.14: discard the hand, draw up to 8
    refresh = m.event("refresh")
    assert m.view["jesters"] == m.view_before["jesters"] - 1
    assert sorted(refresh["discarded"]) == sorted(m.view_before["hand"])
    assert len(m.view["hand"]) == 8 and m.before["tavern"][0] in m.view["hand"]
    assert m.before["tavern"][0][0] == "J"  # the royal of the exact kill is recruited


def r_recruited(m: Moment) -> None:  # 1.12: a recruited royal is worth 10 and keeps its power
    play = m.event("play")
    assert play["cards"][0][0] == "J" and play["value"] == 10 and "S" in play["powers"]
    assert "shielded" in m.kinds()  # shield 10 against attack 10: no Step 4


# -- rules/ribauds.md -----------------------------------------------------------------------

def b_court(m: Moment) -> None:  # 2.1, 2.2: 4 face-down Court cards, hands of 3, pile of 6
    assert [s["face_up"] for s in m.view["court"]] == [False] * 4
    assert m.view["hand_sizes"] == [3, 3] and m.view["deck"] == 6


def b_reveal(m: Moment) -> None:  # 2.3 Reveal: the card acts
    e = m.event("reveal")
    assert e["seat"] == 0 and m.view["court"][e["slot"]]["face_up"]
    assert m.view["phase"] == "assassin" and e["card"] == "A"


def b_assassin(m: Moment) -> None:  # 2.4 Assassin: look at 2 face-down cards
    e = m.event("peek")
    assert len(e["slots"]) == 2
    for i in e["slots"]:
        assert not m.view["court"][i]["face_up"] and m.view["court"][i]["card"]
        assert m.view["court"][i]["card"] == m.after["court"][i][0]


def b_replace_down(m: Moment) -> None:  # 2.3 Replace face down: no effect, old card to hand
    e = m.event("replace")
    assert e["seat"] == 1 and e["up"] is False and e["card"] is None
    assert m.view["phase"] == "act" and m.view["current"] == 0
    assert m.after["court"][e["slot"]].endswith("-")


def b_replace_up(m: Moment) -> None:  # 2.3 Replace face up: the card acts
    e = m.event("replace")
    assert e["up"] is True and e["card"] == "N" and m.view["phase"] == "knight_swap"


def b_knight_swap(m: Moment) -> None:  # 2.4 Chevalier: swap, each card keeps its side
    i, j = m.event("swap")["slots"]
    assert m.after["court"][i] == m.before["court"][j]
    assert m.after["court"][j] == m.before["court"][i]
    assert m.view["phase"] == "knight_flip"


def b_knight_flip(m: Moment) -> None:  # 2.4: the flip never resolves an effect
    e = m.event("flip")
    assert e["up"] is True and e["card"] == "Q"
    assert m.kinds() == ["flip"] and m.view["current"] == 1  # no Reine, the turn passes


def b_roi_draw(m: Moment) -> None:  # 2.4 Roi (b): draw 2, then discard 2
    assert m.view_before["phase"] == "king" and m.event("draw")["count"] == 2
    assert m.view["phase"] == "king_discard" and m.view["hand_sizes"][1] == 5


def b_marriage_threat(m: Moment) -> None:  # 2.5 Marriage: the opponent holds 3 Reines
    assert m.event("discard")["cards"]
    assert m.after["hands"][1] == ["Q", "Q", "Q"] and m.after["current"] == 0


def b_reine(m: Moment) -> None:  # 2.4 Reine: 2 random cards seen, the Reines discarded
    e = m.event("inspect")
    assert e["target"] == 1 and e["count"] == 2 and e["discarded"] == ["Q", "Q"]
    assert m.event("draw")["count"] == 2
    assert m.after["hands"][1].count("Q") < 3 and m.after["winner"] is None  # no Marriage


def b_seen(m: Moment) -> None:  # 2.7: the opponent's Reine saw 2 of the learner's cards
    e = m.event("inspect")
    assert e["seat"] == 1 and e["target"] == 0 and e["discarded"] == []
    assert len(m.view["hand_known_by_opponent"]) >= 2


def b_roi(m: Moment) -> None:  # 2.4 Roi, 2.5: 2 face-up Rois are no Coronation yet
    assert m.view["phase"] == "king" and "reveal 2" in m.legal and "draw" in m.legal
    assert sum(1 for s in m.after["court"] if s == "K+") == 2


def b_coronation(m: Moment) -> None:  # 2.4 Roi (a) reveals without effect; 2.5 Coronation
    assert m.event("king_reveal")["card"] == "K"
    assert m.event("win")["conspiracy"] == "coronation"
    assert m.after["winner"] == 0 and m.after["court"].count("K+") == 3


LESSONS: dict[str, dict[str, Callable[[Moment], None]]] = {
    "regicide": {"enemy": r_enemy, "attack": r_attack, "suffer": r_suffer, "shield": r_shield,
                 "shield_holds": r_shield_holds, "hearts": r_hearts, "diamonds": r_diamonds,
                 "clubs": r_clubs, "immunity": r_immunity, "combo": r_combo,
                 "companion_exact": r_companion_exact, "no_yield": r_no_yield,
                 "jester": r_jester, "recruited": r_recruited},
    "ribauds": {"court": b_court, "reveal": b_reveal, "assassin": b_assassin,
                "replace_down": b_replace_down, "replace_up": b_replace_up,
                "knight_swap": b_knight_swap, "knight_flip": b_knight_flip,
                "roi_draw": b_roi_draw, "marriage_threat": b_marriage_threat, "reine": b_reine,
                "seen": b_seen, "roi": b_roi, "coronation": b_coronation},
}

# the order in which the lessons must come (rules pages; "as they occur" in the game)
ORDER = {
    "regicide": ["enemy", "attack", "suffer", "shield", "shield_holds", "hearts", "diamonds",
                 "clubs", "immunity", "combo", "companion_exact", "no_yield", "jester",
                 "recruited"],
    "ribauds": ["court", "reveal", "assassin", "replace_down", "replace_up", "knight_swap",
                "knight_flip", "roi_draw", "marriage_threat", "reine", "seen", "roi",
                "coronation"],
}


@pytest.mark.parametrize("game", GAMES)
def test_the_script_replays_legally_and_every_lesson_happens_at_its_step(game):
    seen = []
    for step, moment in replay(game):
        if step.lesson:
            LESSONS[game][step.lesson](moment)
            seen.append(step.lesson)
    first = [x for i, x in enumerate(seen) if x not in seen[:i]]
    assert first == ORDER[game]


@pytest.mark.parametrize("game", GAMES)
def test_every_move_of_the_learner_has_its_words_and_the_others_are_the_opponents(game):
    sc = script(game)
    for step in sc.steps:
        if step.move is None or step.by == sc.seat:
            assert step.coach and step.coach.startswith(f"tutorial.{game}."), step
        if step.move is not None and step.by == sc.seat:
            assert step.shows and step.shows.startswith(f"tutorial.{game}."), step
    assert sc.summary == f"tutorial.{game}.summary"


def test_the_regicide_tutorial_teaches_solo_and_ends_with_the_game_going_on():
    sc = script("regicide")
    assert sc.position["players"] == 1 and len(sc.position["hands"][0]) == 8
    moments = replay("regicide")
    last = moments[-1][1]
    assert last.view["phase"] == "play" and last.view["enemies_defeated"] == 2


def test_the_ribauds_tutorial_ends_with_the_learners_coronation():
    step, last = replay("ribauds")[-1]
    assert last.after["winner"] == 0 and last.after["conspiracy"] == "coronation"


# -- the API ------------------------------------------------------------------------------

def learner_moves(game: str) -> list[str]:
    sc = script(game)
    return [s.move for s in sc.moves if s.by == sc.seat]


def test_a_tutorial_starts_at_its_deal_with_the_first_step_legal(client):
    r = client.post("/api/tutorials/regicide", json={"moves": []})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["welcome"]["tutorial"] is True and body["welcome"]["seat"] == 0
    assert body["done"] == 0 and len(body["states"]) == 1
    st = body["states"][0]
    assert "play 3H" in st["legal"] and st["view"]["enemy"] == "JC" and st["ply"] == 0
    moves = [s["move"] for s in body["script"]["steps"] if s["move"]]
    assert moves[:2] == ["play 3H", "discard TC"]
    assert "position" not in body["script"]  # the page knows the view only


def test_the_opponents_moves_come_from_the_script_one_state_each(client):
    moves = learner_moves("ribauds")[:2]  # reveal 0, peek 1 2; then the opponent's move
    body = client.post("/api/tutorials/ribauds", json={"moves": moves}).json()
    assert body["done"] == 3
    states = body["states"]
    assert [s["ply"] for s in states] == [2, 3]
    assert states[0]["current"] == 1 and states[0]["legal"] == []
    assert states[1]["current"] == 0 and "replace 3 N up" in states[1]["legal"]
    assert states[1]["log"][-1]["kind"] == "replace" and states[1]["log"][-1]["seat"] == 1
    assert states[1]["seats"][1] == {**states[1]["seats"][1], "kind": "bot", "bot": "tutorial"}
    # what the learner may not know stays hidden: the opponent's hand and face-down cards
    assert "hands" not in states[1]["view"] and states[1]["view"]["court"][3]["card"] is None


def test_a_move_the_step_does_not_ask_for_is_refused_and_names_the_step(client):
    r = client.post("/api/tutorials/regicide", json={"moves": ["play 3H", "discard 9S"]})
    assert r.status_code == 400
    assert r.json()["code"] == "off_script" and "discard TC" in r.json()["error"]
    # the same cards in another order are the same move
    ok = client.post("/api/tutorials/regicide",
                     json={"moves": ["play 3H", "discard TC", "play 9s"]})
    assert ok.status_code == 200 and ok.json()["done"] == 3


def test_after_the_regicide_script_the_learner_plays_on_by_the_rules(client):
    moves = learner_moves("regicide")
    body = client.post("/api/tutorials/regicide", json={"moves": moves}).json()
    assert body["done"] == len(script("regicide").moves)
    st = body["states"][-1]
    assert not st["finished"] and st["legal"]
    more = client.post("/api/tutorials/regicide", json={"moves": moves + [st["legal"][0]]})
    assert more.status_code == 200 and more.json()["states"][-1]["ply"] == st["ply"] + 1
    bad = client.post("/api/tutorials/regicide", json={"moves": moves + ["play KH"]})
    assert bad.status_code == 400 and bad.json()["code"] == "illegal"


def test_after_the_ribauds_win_no_move_is_taken(client):
    moves = learner_moves("ribauds")
    body = client.post("/api/tutorials/ribauds", json={"moves": moves}).json()
    assert body["states"][-1]["finished"] and body["states"][-1]["outcome"]["winner"] == 0
    r = client.post("/api/tutorials/ribauds", json={"moves": moves + ["reveal 3"]})
    assert r.status_code == 400 and r.json()["code"] == "off_script"


def test_unknown_tutorials_and_bad_bodies_are_refused(client):
    assert client.post("/api/tutorials/chess", json={"moves": []}).status_code == 404
    r = client.post("/api/tutorials/regicide", json={"moves": "play 3H"})
    assert r.status_code == 400 and r.json()["error"].startswith("moves:")
    r = client.post("/api/tutorials/regicide", json={"moves": ["play 3H"] * (MAX_MOVES + 1)})
    assert r.status_code == 400
    r = client.post("/api/tutorials/regicide", json={"moves": [], "seed": 3})
    assert r.status_code == 400


def test_the_tutorial_pages_are_served(client):
    for game in GAMES:
        r = client.get(f"/tutorial/{game}")
        assert r.status_code == 200 and "table.js" in r.text


def test_play_is_the_engine_replay():
    body = play("regicide", learner_moves("regicide")[:8])
    st = body["states"][-1]
    assert st["view"]["enemy"] == "JS" and st["view"]["enemies_defeated"] == 1
