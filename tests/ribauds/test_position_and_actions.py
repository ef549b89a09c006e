"""Position JSON (formats.md 2.2), action notation (formats.md 2.3), configuration and
rule options of Le Roy des Ribauds."""

from __future__ import annotations

import json
import random

import pytest

from regalia.core.errors import IllegalAction, InvalidPosition
from regalia.games import get_game
from regalia.games.ribauds import RIBAUDS as G
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.cards import KING

from .helpers import card_totals, events_of, hand, ms, play, position, state


def test_get_game_and_protocol_attributes():
    assert get_game("ribauds") is G
    assert (G.name, G.min_players, G.max_players) == ("ribauds", 2, 2)


def test_new_game_config():
    s = G.new_game({"players": 2, "first_player": 1, "replaced_card": "discard"},
                   random.Random(0))
    assert s.current == 1 and G.to_json(s)["options"] == {"first_player": 1,
                                                          "replaced_card": "discard"}
    for bad, field in (({"players": 3}, "players"), ({"players": 1}, "players"),
                       ({"colour": 1}, "options.colour"),
                       ({"replaced_card": "bin"}, "options.replaced_card"),
                       ({"first_player": 2}, "options.first_player")):
        with pytest.raises(InvalidPosition, match=field):
            G.new_game(bad, random.Random(0))


def test_first_player_is_random_by_default():
    firsts = {G.new_game({}, random.Random(seed)).current for seed in range(40)}
    assert firsts == {0, 1}


def test_round_trip_and_canonical_writing():
    obj = position("K+ Q- N- A+", ("ANQ", "QKK"), deck="ANKQNA", discard="")
    s = G.from_json(obj)
    out = G.to_json(s)
    assert out["hands"] == [["Q", "N", "A"], ["K", "K", "Q"]]  # canonical order K Q N A
    assert out["deck"] == list("ANKQNA") and out["court"] == ["K+", "Q-", "N-", "A+"]
    assert G.to_json(G.from_json(json.loads(json.dumps(out)))) == out
    assert set(out) == {"game", "current", "phase", "court", "hands", "deck", "discard",
                        "winner", "conspiracy", "options"}


def test_reading_initialises_knowledge_to_the_public():
    s = state("K+ Q- N- A+", ("ANQ", "QKK"), deck="AN")
    assert s.know == [[KING, -1, -1, 3], [KING, -1, -1, 3]]
    assert s.seen == [[0] * 4, [0] * 4] and s.bottom_reines == 0 and s.log is None


def test_lower_case_and_defaults_are_read():
    """formats.md 2.2: ``options`` may be left out (``{}``, as in Regicide's table); the
    other fields are required."""
    obj = position("k+ q- n- a-", ("anq", "qkk"), deck="an")
    del obj["options"]
    assert G.to_json(G.from_json(obj))["court"] == ["K+", "Q-", "N-", "A-"]
    for key in ("winner", "conspiracy"):
        with pytest.raises(InvalidPosition, match=f"^{key}: missing"):
            G.from_json({k: v for k, v in obj.items() if k != key})


@pytest.mark.parametrize("change, field", [
    (lambda o: o.update(colour="red"), "colour: unknown field"),
    (lambda o: o.pop("deck"), "deck: missing"),
    (lambda o: o.pop("court"), "court: missing"),
    (lambda o: o.update(game="regicide"), "game"),
    (lambda o: o.update(current=2), "current"),
    (lambda o: o.update(phase="dance"), "phase"),
    (lambda o: o.update(court=["K+", "Q-", "N-"]), "court"),
    (lambda o: o.update(court=["K*", "Q-", "N-", "A-"]), r"court\[0\]"),
    (lambda o: o.update(court=["X+", "Q-", "N-", "A-"]), r"court\[0\]"),
    (lambda o: o.update(hands=[["K"]]), "hands"),
    (lambda o: o.update(hands=[["K", "K", "K", "N"], []]), r"hands\[0\]"),
    (lambda o: o.update(deck=["K", "K", "K"]), "deck: one K"),  # a fifth Roi
    (lambda o: o.update(discard="KQ"), "discard"),
    (lambda o: o.update(winner=0), "winner"),
    (lambda o: o.update(conspiracy="murder"), "conspiracy"),
    (lambda o: o.update(phase="won"), "winner"),
    (lambda o: o.update(phase="won", winner=0, conspiracy="coronation"), "conspiracy"),
    (lambda o: o.update(phase="won", winner=0, conspiracy="marriage"), "conspiracy"),
    (lambda o: o.update(options={"speed": 1}), "options.speed"),
    (lambda o: o.update(phase="knight_swap"), "phase: knight_swap"),
    (lambda o: o.update(phase="king_discard", hands=[["A"], ["Q"]]), r"hands\[0\]: the Roi"),
    (lambda o: o.update(court=["K+", "K+", "K+", "A-"], hands=[["A", "Q", "N"], ["N", "Q", "A"]]),
     "court"),
    (lambda o: o.update(court=["A+", "N+", "A+", "Q-"]), "court: shows the murder"),
])
def test_invalid_positions_name_the_field(change, field):
    obj = position("K+ Q- N- A-", ("ANQ", "QKK"), deck="AN")
    change(obj)
    with pytest.raises(InvalidPosition, match=field):
        G.from_json(obj)


@pytest.mark.parametrize("obj, message", [
    # directly stuck: seat 0 holds nothing to replace with and nothing is face down
    (position("K+ Q+ N+ A+", ("", "QNA"), deck="KQNA"),
     r"^hands\[0\]: 0 cards; a hand holds 3 cards \(rules 2\.2 step 3, 2\.3 step 2, "
     r"2\.8\), 1 or 2 only when the draw and discard piles hold at least 2 cards between "
     r"them \(3\.L12\), 5 only for the Roi's player in phase king_discard \(rules 2\.4\)$"),
    # stuck after "reveal 3": the Assassin finds nothing face down, seat 1 holds nothing
    (position("K+ Q+ N+ A-", ("KQN", ""), deck="KQNA"), r"^hands\[1\]: 0 cards; a hand"),
    # stuck after "draw": both piles are empty, so seat 0 holds 1 card to discard 2
    (position("K+ Q- N- A-", ("Q", "KNA"), phase="king"), r"^hands\[0\]: 1 card; a hand"),
    (position("K+ Q- N- A-", ("KQ", "KNA"), phase="knight_swap"), r"^hands\[0\]: 2 cards"),
    (position("K+ Q- N- A-", ("KQN", "KNAA"), phase="king"), r"^hands\[1\]: 4 cards"),
    # the opponent of the Roi's player holds 3 in king_discard, not 5
    (position("K+ Q- N- A-", ("KQNAA", "KQNAN"), phase="king_discard"),
     r"^hands\[1\]: 5 cards; a hand holds 3"),
    (position("K+ Q- N- A-", ("KQ", "KNA"), phase="king_discard"),
     r"^hands\[0\]: the Roi's player holds 5 cards in phase king_discard \(3 plus the 2 "
     r"drawn; rules 2\.4, 2\.8\), 3 or 4 when the piles held fewer than 2 \(3\.L12\), "
     r"not 2$"),
    (position("K+ Q- N- A-", ("Q", "KNA"), phase="king_discard"),
     r"^hands\[0\]: the Roi's player holds 5 cards in phase king_discard .*, not 1$"),
    # a won position too: no game ends with an empty hand
    (position("K+ K+ K+ N-", ("", "QQA"), phase="won", winner=0, conspiracy="coronation"),
     r"^hands\[0\]: 0 cards"),
])
def test_rules_2_3_and_2_8_a_hand_of_another_size_is_refused_so_no_position_read_gets_stuck(obj, message):
    """Rules 2.3 step 2 (passing is not allowed; Replace is always possible with a card in
    hand) and 2.8 (3 + 3 cards in hand between actions; 5 for the Roi's player in
    king_discard, 2.4; fewer only after a Roi's draw fell short, 3.L12): a hand of another
    size is refused, since it can leave the player to act with no legal action, at once or
    after legal moves (the examples above)."""
    with pytest.raises(InvalidPosition, match=message):
        G.from_json(obj)


def test_rules_3_L12_a_short_draw_leaves_hands_that_are_read_back():
    """Rules 3.L12 with formats.md's cards left out: from piles of fewer than 2 cards a
    Roi's draw falls short, the Roi's player discards from 3 or 4 cards and keeps 1 or 2;
    every position on the way is read back (the command line's apply and legal chain)."""
    start = position("Q- N- A- K-", ("KQN", "ANA"))
    s, _ = play(G.from_json(start), "replace 0 K up", "draw")
    assert G.to_json(s)["phase"] == "king_discard" and len(G.to_json(s)["hands"][0]) == 3
    assert G.to_json(G.from_json(G.to_json(s))) == G.to_json(s)
    s, _ = play(s, "discard Q N")
    out = G.to_json(s)
    assert out["hands"][0] == ["Q"] and len(out["discard"]) == 2
    assert G.to_json(G.from_json(out)) == out
    # a short hand with at least 2 cards in the piles is read, and so is a 4-card Roi's hand
    assert G.from_json(position("K+ Q- N- A-", ("Q", "KNA"), phase="king", deck="KA"))
    assert G.from_json(position("K+ Q- N- A-", ("QKNA", "KNA"), phase="king_discard"))


def test_rules_2_3_short_hands_got_stuck_before_the_hand_check(monkeypatch):
    """What the refused positions above did when read: the game got stuck, not over and
    no legal action for the player to act."""
    from regalia.games.ribauds import position as P

    monkeypatch.setattr(P, "_hand_problem", lambda *args: None)
    stuck = [(position("K+ Q+ N+ A-", ("KQN", ""), deck="KQNA"), ["reveal 3"]),
             (position("K+ Q- N- A-", ("Q", "KNA"), phase="king"), ["draw"])]
    for obj, actions in stuck:
        s, _ = play(G.from_json(obj), *actions)
        assert not G.is_terminal(s) and G.legal_actions(s) == []


def test_rules_2_3_the_reader_never_hands_out_a_stuck_game(monkeypatch):
    """Rules 2.3 step 2: a last check refuses any position not won whose player to act
    has no legal action, whatever let it through the checks before it."""
    from regalia.games.ribauds import position as P

    monkeypatch.setattr(P, "legal_actions", lambda s: [])
    with pytest.raises(InvalidPosition, match=r"^phase: the player to act \(seat 1\) has no "
                                              r"legal action in phase knight_flip, and passing "
                                              r"is not allowed \(rules 2\.3 step 2\)$"):
        G.from_json(position("N+ Q- K- A-", ("KQA", "KNA"), phase="knight_flip", current=1))
    won = position("K+ K+ K+ N-", ("QNA", "QQA"), phase="won", winner=0,
                   conspiracy="coronation")
    assert G.is_terminal(G.from_json(won))  # a won position has no action and is read


def test_invalid_position_not_an_object():
    with pytest.raises(InvalidPosition, match="position"):
        G.from_json([1, 2])


def test_won_position_is_read():
    s = state("K+ K+ K+ A-", ("ANQ", "QNN"), phase="won", winner=1, conspiracy="coronation",
              current=1)
    assert G.is_terminal(s) and G.current_seat(s) is None and G.returns(s) == [0.0, 1.0]
    assert G.outcome(s) == {"winner": 1, "conspiracy": "coronation"}


# --------------------------------------------------------------------------- actions


def test_every_action_code_round_trips_through_its_text():
    codes = [c for c in range(A.N_CODES) if A.VALID[c]]
    assert len(codes) == 4 + 32 + 6 + 4 + 1 + 10 + 10
    s = state("K+ Q- N- A-", ("ANQ", "QKK"), deck="AN")
    for code in codes:
        text = G.action_to_text(s, code)
        assert G.action_from_text(s, text) == code
        assert G.action_from_text(s, text.upper()) == code


def test_readers_accept_any_order():
    s = state("K+ Q- N- A-", ("ANQ", "QKK"), deck="AN")
    assert G.action_from_text(s, "swap 3 0") == G.action_from_text(s, "swap 0 3")
    assert G.action_from_text(s, "peek 3 1") == G.action_from_text(s, "peek 1 3")
    assert G.action_to_text(s, G.action_from_text(s, "discard a q")) == "discard Q A"
    assert G.action_to_text(s, G.action_from_text(s, "REPLACE 2 q UP")) == "replace 2 Q up"


@pytest.mark.parametrize("text, why", [
    ("", "empty"), ("pass", "unknown action"), ("reveal", "reveal SLOT"),
    ("reveal 4", "not a Court slot"), ("reveal -1", "not a Court slot"),
    ("replace 1 X up", "not a card"), ("replace 1 K sideways", "up"),
    ("replace 1 K", "replace SLOT CARD"), ("swap 1 1", "two different slots"),
    ("swap 1", "swap SLOT SLOT"), ("draw 2", "no argument"), ("discard Q", "exactly 2"),
    ("peek", "1 or 2"), ("peek 0 1 2", "1 or 2"), ("peek 1 1", "named twice"),
])
def test_unreadable_actions(text, why):
    s = state("K+ Q- N- A-", ("ANQ", "QKK"), deck="AN")
    with pytest.raises(IllegalAction, match=why):
        G.action_from_text(s, text)


def test_refusals_name_action_reason_rule_and_allowed():
    s = state("K+ Q- N- A-", ("ANQ", "QKK"), deck="AN")
    cases = {
        "replace 1 K up": ("holds no K", "2.3"),
        "swap 0 1": ("knight_swap", "2.4"),
        "draw": ("phase king", "2.4"),
        "reveal 0": ("face up", "2.3"),
        "peek 1 2": ("assassin", "2.4"),
        "discard Q A": ("king_discard", "2.4"),
        "flip 0": ("knight_flip", "2.4"),
    }
    for text, (why, section) in cases.items():
        with pytest.raises(IllegalAction) as e:
            G.apply(s, G.action_from_text(s, text), random.Random(0))
        msg = str(e.value)
        assert msg.startswith(f"{text} is refused") and why in msg and section in msg
        assert "seat 0 may: reveal 1, reveal 2, reveal 3, replace 0 Q down" in msg
    for junk in (-1, A.N_CODES, 31, True, "reveal 1", None):
        with pytest.raises(IllegalAction, match="not a Le Roy des Ribauds action"):
            G.apply(s, junk, random.Random(0))
    with pytest.raises(IllegalAction):
        G.action_to_text(s, 31)
    assert G.problem(s, G.action_from_text(s, "reveal 1")) is None
    assert "face up" in G.problem(s, G.action_from_text(s, "reveal 0"))


def test_peek_count_and_face_up_refusals():
    s, _ = play(state("A- K- Q- N-", ("KNA", "QKA"), deck="NQ"), "reveal 0")
    assert s.phase == "assassin" and len(G.legal_actions(s)) == 3  # 2 of the 3 face-down
    for text, why in (("peek 1", "looks at 2"), ("peek 0 1", "slot 0 is face up")):
        with pytest.raises(IllegalAction, match=why):
            G.apply(s, G.action_from_text(s, text), random.Random(0))


def test_assassin_with_one_face_down_card_and_with_none():
    s, _ = play(state("A- K+ Q+ N-", ("KNA", "QKA"), deck="NQ"), "reveal 0")
    assert G.all_legal_texts(s) == ["peek 3"]
    s, evs = play(state("A- K+ Q+ N+", ("KNA", "QNA"), deck="NQ"), "reveal 0")
    assert s.phase == "act" and s.current == 1  # no assassin phase when nothing is hidden
    assert events_of(evs, "peek")[0].data["slots"] == []


def test_discard_needs_the_cards():
    s = state("K+ N- A- Q-", ("KQA", "KQN"), deck="NQ", phase="king")
    s, _ = play(s, "draw")  # hand K Q A + N Q
    legal = set(G.all_legal_texts(s))
    assert legal == {"discard K Q", "discard K N", "discard K A", "discard Q Q",
                     "discard Q N", "discard Q A", "discard N A"}
    with pytest.raises(IllegalAction, match=r"seat 0 holds only one K \(Roi\); the hand is "
                                            r"K Q Q N A \(rules 2\.4\)"):
        play(s, "discard K K")
    s = state("K+ N- A- Q-", ("KQA", "KQN"), deck="QA", phase="king")
    s, _ = play(s, "draw")  # hand K Q A + Q A: no Chevalier
    with pytest.raises(IllegalAction, match=r"seat 0 holds no N \(Chevalier\); the hand is "
                                            r"K Q Q A A \(rules 2\.4\)"):
        play(s, "discard N A")


# --------------------------------------------------------------------------- options


def test_option_replaced_card_discard():
    s = state("K+ Q- N- A-", ("ANQ", "QKK"), deck="ANK", options={"replaced_card": "discard"})
    s, evs = play(s, "replace 0 N down")
    assert hand(s, 0) == ms("AQA")  # N placed, the top card (A) drawn
    assert G.to_json(s)["discard"] == ["K"]  # the replaced Roi, face up
    assert len(s.deck) == 2
    ev = events_of(evs, "replace")[0]
    assert ev.data["discarded"] == "K" and "taken" not in ev.data
    assert events_of(evs, "draw")[0].data["count"] == 1
    assert G.view(s, 1)["opponent_hand_known"] == []


def test_option_replaced_card_discard_keeps_the_invariants():
    rng = random.Random(11)
    for _ in range(100):
        s = G.new_game({"replaced_card": "discard"}, rng)
        n = 0
        while not G.is_terminal(s) and n < 500:
            s, _ = G.apply(s, rng.choice(G.legal_actions(s)), rng)
            n += 1
            assert card_totals(s) == [4, 4, 4, 4]
            if s.phase != "king_discard":
                assert len(s.deck) + len(s.discard) == 6

