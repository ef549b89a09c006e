"""Rule points beyond the numbered scenarios, and whole random games checked against the
invariants of rules/regicide.md (card conservation, hand limits, no dead ends)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from regalia.core.records import GameRecord, Match
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import rules as R

from regicide_helpers import HEALTH, act, is_legal, js, legal, ms, pos, refused, state


def test_solo_attack_zero_skips_step4_without_refresh_offer():
    """Rules 1.8.2, 3.R8: D = 0 skips Step 4; the next Step 1 offers the refresh instead."""
    s = state(1, "JH", hands=[["2C", "3C"]], table=[["TS"]], damage=5, tavern=["4C"])
    s = act(s, "play 2C")
    p = js(s)
    assert p["phase"] == "play" and p["current"] == 0
    assert "jester" in legal(s)


def test_jester_in_hand_discarded_for_zero():
    """Rules 1.10 last point, 1.8.4: a Jester can be discarded in Step 4, worth 0."""
    s = state(3, "JH", hands=[["X", "TC"], ["2C"], ["2D"]], phase="suffer")
    assert R.effective_attack(s) == 10
    assert is_legal(s, "discard TC X") and is_legal(s, "discard TC")
    assert not is_legal(s, "discard X") and refused(s, "discard X")
    p = js(act(s, "discard X TC"))
    assert ms(p["discard"]) == ms(["X", "TC"]) and p["current"] == 1


def test_jester_choose_self_with_empty_hand_when_others_yielded_loses():
    """Rules 1.10, 1.11, 1.13: naming yourself with an empty hand while every other player
    yielded on their last turn leaves no play and no yield."""
    s = state(3, "JH", hands=[["X"], ["2C"], ["2D"]], yielded=[False, True, True])
    s = act(s, "play X", "choose 0")
    assert js(s)["phase"] == "lost"


def test_jester_turn_counts_as_non_yield_for_the_others():
    """Rules 1.11: P1 yields, P2 yields, P3 plays a Jester and names P1: P1 may yield."""
    s = state(3, "JH", hands=[["2C"], ["2D"], ["X", "3C"]], table=[["TS"]], damage=10)
    s = act(s, "yield", "yield")
    assert "yield" not in legal(s)
    s = act(s, "play X", "choose 0")
    assert js(s)["yielded"] == [True, True, False]
    assert "yield" in legal(s)


def test_solo_refresh_with_empty_tavern_and_hand_loses():
    """Rules 1.14, 1.13: the refresh draws nothing; with no Jester left and no card: loss."""
    s = act(state(1, "JH", hands=[["6C"]], damage=15, tavern=[], jesters=1,
                  castle=["JS", "QS"]), "play 6C")
    assert js(s)["phase"] == "play"
    s = act(s, "jester")
    assert js(s)["phase"] == "lost"


def test_solo_refresh_is_refused_at_other_moments():
    """Rules 1.14: refresh only at the start of Step 1 or Step 4; not when none are left."""
    s = state(1, "JH", hands=[["2C"]], tavern=["3C"], jesters=0)
    assert "jester" not in legal(s) and refused(s, "jester")


def test_multiplayer_has_no_refresh():
    s = state(2, "JH", hands=[["2C"], ["3C"]], tavern=["4C"])
    assert "jester" not in legal(s) and refused(s, "jester")


def test_actions_out_of_phase_are_refused():
    s = state(2, "JH", hands=[["2C", "TD"], ["3C"]], tavern=["4C"])
    assert refused(s, "discard TD") and refused(s, "choose 1")
    s = state(2, "JH", hands=[["2C", "TD"], ["3C"]], tavern=["4C"], phase="suffer")
    assert refused(s, "play 2C") and refused(s, "yield")
    assert refused(s, "discard 3C")  # not in the hand


def test_won_position_with_royals_left_in_castle_is_refused():
    """Rules 1.13: the game is won only once the 12th enemy is defeated."""
    from regalia.core.errors import InvalidPosition

    p = pos(2, None, hands=[["2C"], []], castle=["KH"], phase="won")
    with pytest.raises(InvalidPosition):
        G.from_json(p)


# --------------------------------------------------------------------------- random games

TOTAL_CARDS = {1: 52, 2: 52, 3: 53, 4: 54}


def _all_cards(p):
    cards = list(p["castle"]) + p["tavern"] + p["discard"]
    cards += [c for h in p["hands"] for c in h] + [c for x in p["table"] for c in x]
    if p["enemy"] is not None:
        cards.append(p["enemy"])
    return cards


def _check_invariants(s, players):
    p = js(s)
    cards = _all_cards(p)
    assert len(cards) == TOTAL_CARDS[players], "cards appeared or vanished"
    c = Counter(cards)
    assert c["X"] == TOTAL_CARDS[players] - 52
    assert all(n == 1 for k, n in c.items() if k != "X")
    max_hand = {1: 8, 2: 7, 3: 6, 4: 5}[players]
    assert all(len(h) <= max_hand for h in p["hands"])
    ranks = [x[0] for x in p["castle"]]
    assert ranks == sorted(ranks, key="JQK".index)
    if p["phase"] in ("play", "suffer", "choose"):
        assert p["damage"] < HEALTH[p["enemy"][0]]
        assert G.legal_actions(s), "a game in progress with no legal action"
        assert not G.is_terminal(s)
    if p["phase"] == "suffer":
        assert R.effective_attack(s) > 0
    if p["phase"] == "choose":
        assert p["table"] and "X" in p["table"][-1]
    if p["phase"] != "choose":
        assert p["preferences"] == [None] * players
    if p["phase"] == "won":
        assert p["castle"] == [] and p["enemy"] is None
    assert js(G.from_json(p)) == p


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_keep_invariants(players):
    for seed in range(12):
        rng = random.Random(seed)
        s = G.new_game({"players": players}, rng)
        for _ in range(400):
            _check_invariants(s, players)
            if G.is_terminal(s):
                break
            acts = list(G.legal_actions(s)) + list(G.side_actions(s))
            # favour cards over yields/refreshes so that games progress
            plays = [a for a in acts if G.action_to_text(s, a).startswith("play")]
            a = rng.choice(plays if plays and rng.random() < 0.8 else acts)
            before = js(s)
            s2, _ = G.apply(s, a, rng)
            assert js(s) == before, "apply changed its input state"
            s = s2


def test_match_replay_is_deterministic():
    """formats.md 3: the same seed and actions give the same result (Hearts included)."""
    m = Match(G, {"players": 3}, 11)
    pick = random.Random(4)
    while not G.is_terminal(m.state) and len(m.actions) < 200:
        m.play(pick.choice(list(G.legal_actions(m.state))))
    rec = GameRecord.from_json(m.record().to_json())
    again = Match.from_record(G, rec)
    assert js(again.state) == js(m.state)


def test_1_6_a_power_with_nothing_to_act_on_says_so_in_the_log():
    """Rules 1.6: Hearts with an empty discard pile and Diamonds with an empty Tavern do
    nothing; the play's event says so (``idle``), so the log can tell the players why."""
    from regalia.games.regicide.describe import describe

    def play_event(s, text):
        _, events = G.apply(s, G.action_from_text(s, text), random.Random(0))
        assert not any(e.kind in ("heal", "draw") for e in events)
        return next(e for e in events if e.kind == "play").data

    s = state(2, "JS", hands=[["6H", "6D"], ["9S"]], discard=[], tavern=["2C"])
    hearts = play_event(s, "play 6H")
    assert hearts["idle"] == ["discard_empty"]
    said = describe({"kind": "play", "seat": 0, **hearts})
    assert said.endswith("6 damage. Hearts: the discard pile is empty, nothing to heal."), said
    s = state(2, "JS", hands=[["6H", "6D"], ["9S"]], discard=["2C"], tavern=[])
    assert play_event(s, "play 6D")["idle"] == ["tavern_empty"]
    s = state(2, "JS", hands=[["AH", "6D"], ["9S"]], discard=[], tavern=[])
    assert play_event(s, "play AH 6D")["idle"] == ["discard_empty", "tavern_empty"]
    # a power that acts, or one blocked by immunity, is not idle
    s = state(2, "JH", hands=[["6H", "6D"], ["9S"]], discard=[], tavern=["2C"])
    assert "idle" not in play_event(s, "play 6H")
    s = state(2, "JS", hands=[["6H"], ["9S"]], discard=["2C"], tavern=[])
    _, events = G.apply(s, G.action_from_text(s, "play 6H"), random.Random(0))
    assert [e.kind for e in events][:2] == ["play", "heal"] and "idle" not in events[0].data
