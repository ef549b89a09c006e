"""The reason a hint gives for its move (``regalia.games.regicide.hints``): one kind per
telling fact of the rules, read from the acting seat's view only, whose numbers are the
engine's own (the damage dealt, the cards drawn or healed, the shield, the attack)."""

from __future__ import annotations

import random

import pytest

from regalia.bots import make_bot
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide.hints import REASONS, hint_reason
from regicide_helpers import state

TAVERN = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "2D"]


def reason(s, text: str) -> dict:
    """The reason for ``text`` (a legal action) at ``s``, from the seat to act's view."""
    action = G.action_from_text(s, text)
    assert action in G.legal_actions(s), text
    return G.hint_reason(G.view(s, s.current), action)


# (kind, position, action, the reason expected); the positions are solo unless said.
CASES = [
    # 1.7: the last King falls
    ("won", dict(players=1, enemy="KH", damage=30, castle=[], hands=[["TS", "2C"]]),
     "play TS", {"enemy": "KH"}),
    # 1.7 R-22: an exact kill (5 doubled is 10: 30 + 10 = 40)
    ("exact_kill", dict(players=1, enemy="KH", damage=30, hands=[["5C", "9D"]]),
     "play 5C", {"enemy": "KH"}),
    # 1.7 R-23: an overkill
    ("kill", dict(players=1, enemy="JS", damage=14, hands=[["4C", "2D"]]),
     "play 4C", {"enemy": "JS", "damage": 8}),
    # 1.10: the Jester against an immune enemy, then against one whose immunity is gone
    ("jester", dict(players=3, enemy="JD", hands=[["X", "5C"], ["2C"], ["3C"]]),
     "play X", {"enemy": "JD", "suit": "D"}),
    ("jester_again", dict(players=4, enemy="JD", immunity_cancelled=True, table=[["X"]],
                          hands=[["X", "5C"], ["2C"], ["3C"], ["4C"]]),
     "play X", {"enemy": "JD"}),
    # 1.9: the shield of 3 already there and 7 more stop the Jack's 10
    ("shield_all", dict(players=1, enemy="JH", table=[["3S"]], damage=3,
                        hands=[["7S", "2C"]]),
     "play 7S", {"attack": 10}),
    # 1.9 R-04: Clubs against a Clubs enemy: only the value counts
    ("blocked_anyway", dict(players=1, enemy="JC", hands=[["8C", "5D", "2S"]]),
     "play 8C", {"suit": "C", "damage": 8}),
    # 1.9 R-10: the 7 of Hearts would heal nothing against a Hearts enemy
    ("avoid_immune", dict(players=1, enemy="JH", discard=["9S"],
                          hands=[["7H", "6C", "2S"]]),
     "play 6C", {"suit": "H", "suits": ["C"]}),
    # 1.6 R-03: Clubs double
    ("double", dict(players=1, enemy="JH", hands=[["6C", "2S"]]),
     "play 6C", {"damage": 12, "enemy": "JH", "left": 8}),
    # 1.6 R-05: Spades shield part of a Queen's 15
    ("shield", dict(players=1, enemy="QH", hands=[["8S", "2D"]]),
     "play 8S", {"shield": 8, "attack": 15}),
    # 1.6, 1.14: Diamonds draw up to 8 in hand
    ("draw", dict(players=1, enemy="JC", tavern=TAVERN, hands=[["5D", "2S", "3S"]]),
     "play 5D", {"n": 5}),
    # 1.6 R-08: Hearts heal from the discard pile
    ("heal", dict(players=1, enemy="JC", discard=["9S", "3S", "4S", "5S", "6S", "7S"],
                  hands=[["4H", "2S"]]),
     "play 4H", {"n": 4}),
    # 1.6: Hearts with an empty discard pile heal nothing: only the damage counts
    ("damage", dict(players=1, enemy="JC", hands=[["7H", "2S"]]),
     "play 7H", {"damage": 7, "enemy": "JC", "left": 13}),
    # 1.8: Step 4, every card needed
    ("discard_all", dict(players=1, enemy="JH", phase="suffer", hands=[["6C", "4D"]]),
     "discard 6C 4D", {"attack": 10, "total": 10}),
    # 1.8, 1.9: the Clubs a Clubs enemy blocks go first
    ("discard_blocked", dict(players=1, enemy="JC", phase="suffer",
                             hands=[["TC", "5D", "3S"]]),
     "discard TC", {"suit": "C", "attack": 10}),
    # 1.8: every Club is kept (the Clubs are worth more than the Spade kept too)
    ("discard_keep", dict(players=1, enemy="JH", phase="suffer",
                          hands=[["TD", "5C", "3C", "2S"]]),
     "discard TD", {"suit": "C", "attack": 10}),
    # 1.8: exactly the attack, no suit kept whole
    ("discard_exact", dict(players=1, enemy="JH", phase="suffer",
                           hands=[["5C", "5D", "3C", "2D"]]),
     "discard 5C 5D", {"attack": 10}),
    ("discard", dict(players=1, enemy="JH", phase="suffer", hands=[["5C", "5D", "3C", "2D"]]),
     "discard 5C 5D 2D", {"attack": 10, "total": 12, "n": 1}),
    # 1.14 R-45: a Jester at the start of Step 4 when the hand cannot absorb the attack
    ("refresh_survive", dict(players=1, enemy="KH", phase="suffer", tavern=TAVERN,
                             hands=[["5C", "4D"]]),
     "jester", {"attack": 20, "total": 9}),
    # 1.14: at the start of Step 1
    ("refresh_empty", dict(players=1, enemy="JH", tavern=TAVERN, hands=[[]]), "jester", {}),
    ("refresh", dict(players=1, enemy="JH", tavern=TAVERN, hands=[["2C", "3S"]]),
     "jester", {"n": 2}),
    # 1.11 R-07: a yield behind a shield of 12
    ("yield_shielded", dict(players=2, enemy="JD", table=[["7S"], ["5S"]], damage=12,
                            hands=[[], ["2C"]]),
     "yield", {"shield": 12}),
    ("yield", dict(players=2, enemy="JH", hands=[["5C"], ["2C"]]), "yield", {"attack": 10}),
    # 1.10: who goes next after a Jester
    ("choose_wish", dict(players=3, enemy="JD", phase="choose", table=[["X"]],
                         immunity_cancelled=True,
                         preferences=[None, None, "yes"],
                         hands=[["2C", "3C"], ["4C", "5C", "6C", "7C", "8C"], ["9C"]]),
     "choose 2", {"who": 2}),
    ("choose_hand", dict(players=3, enemy="JD", phase="choose", table=[["X"]],
                         immunity_cancelled=True,
                         hands=[["2C", "3C"], ["4C", "5C", "6C", "7C", "8C"], ["9C"]]),
     "choose 1", {"who": 1, "n": 5}),
    ("choose", dict(players=3, enemy="JD", phase="choose", table=[["X"]],
                         immunity_cancelled=True,
                    hands=[["2C", "3C"], ["4C", "5C", "6C", "7C", "8C"], ["9C"]]),
     "choose 0", {"who": 0}),
]


@pytest.mark.parametrize("kind, position, text, params", CASES, ids=[c[0] for c in CASES])
def test_each_reason_kind_from_a_constructed_position(kind, position, text, params):
    s = state(**position)
    said = reason(s, text)
    assert said == {"key": kind, **params}
    assert set(said) - {"key"} == set(REASONS[kind])
    agrees_with_the_engine(s, text, said)


def test_every_reason_kind_has_a_case():
    assert {c[0] for c in CASES} == set(REASONS)


def agrees_with_the_engine(s, text: str, said: dict) -> None:
    """The reason's facts are what the engine does with the move (rules 1.6-1.11)."""
    after, events = G.apply(s, G.action_from_text(s, text), random.Random(0))
    kinds = {e.kind: e.data for e in events}
    key = said["key"]
    if key == "won":
        assert after.phase == "won"
    if key in ("exact_kill", "kill"):
        assert kinds["defeat"]["exact"] is (key == "exact_kill")
        assert kinds["defeat"]["enemy"] == said["enemy"]
    if key in ("kill", "double", "damage", "blocked_anyway"):
        assert kinds["play"]["damage"] == said["damage"]
    if key in ("double", "damage"):
        assert G.view(after, s.current)["health"] - after.damage == said["left"]
    if key == "shield_all":
        assert "shielded" in kinds
    if key == "shield":
        assert G.view(after, s.current)["shield"] == said["shield"] < said["attack"]
    if key == "draw":
        assert sum(kinds["draw"]["counts"].values()) == said["n"]
    if key == "heal":
        assert kinds["heal"]["count"] == said["n"]
    if key in ("jester", "jester_again"):
        assert after.cancelled and after.phase == "choose"
    if key in ("refresh_survive", "refresh_empty", "refresh"):
        assert "refresh" in kinds
    if key == "yield_shielded":
        assert "shielded" in kinds
    if key.startswith("choose"):
        assert after.current == said["who"]


def test_a_reason_comes_from_the_view_alone():
    """Two positions that differ in hidden cards only (the Tavern order, a partner's hand)
    give the same reason: only the view is read (rules 1.15)."""
    s = state(players=2, enemy="JC", tavern=TAVERN, hands=[["5D", "2S"], ["3S", "4S"]])
    other = state(players=2, enemy="JC", tavern=["4S" if c == "2D" else c for c in TAVERN][::-1],
                  hands=[["5D", "2S"], ["3S", "2D"]])
    assert G.view(s, 0) == G.view(other, 0)
    for a in G.legal_actions(s):
        assert G.hint_reason(G.view(s, 0), a) == G.hint_reason(G.view(other, 0), a)
    with pytest.raises(ValueError, match="spectator"):
        hint_reason(G.view(s, None), G.legal_actions(s)[0])


@pytest.mark.parametrize("players", [1, 3])
def test_every_move_of_whole_games_gets_a_reason_the_engine_agrees_with(players):
    """Every legal move of every decision of bot-played games: a kind of ``REASONS`` with
    its parameters, whose facts the engine confirms."""
    bot = make_bot("regicide", "heuristic")
    rng = random.Random(players)
    seen = set()
    for seed in range(3):
        m = Match(G, {"players": players}, seed)
        while not G.is_terminal(m.state):
            s = m.state
            view = G.view(s, s.current)
            for a in G.legal_actions(s)[:40]:
                said = G.hint_reason(view, a)
                assert set(said) - {"key"} == set(REASONS[said["key"]]), said
                agrees_with_the_engine(s, G.action_to_text(s, a), said)
                seen.add(said["key"])
            m.play(bot.act(view, list(G.legal_actions(s)), rng))
    assert len(seen) >= 10, seen
