"""Card tracking of a Regicide seat at 3 and 4 players (rules 1.3, 1.6, 1.10, 1.15): the
knowledge read from a view stays consistent at every decision, two Jesters that look alike
included, and every sample is drawn from it (never from the crude fallback), with the
partners' Jester-window wishes matched."""

from __future__ import annotations

import random

import pytest

from regalia.bots import make_bot
from regalia.bots.regicide.belief import Knowledge, _conserved
from regalia.bots.regicide.wishes import wish_rule
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A


def _track(players: int, games: int, first_seed: int) -> dict[str, int]:
    """Plays ``games`` games with heuristic bots (wishes stated) and reads, at every
    decision, the acting seat's knowledge; returns counts of what went wrong."""
    bots = [make_bot("regicide", "heuristic") for _ in range(players)]
    out = {"decisions": 0, "inconsistent": 0, "crude": 0, "not_conserved": 0,
           "wishes": 0, "unmet": 0, "jester_choices": 0}
    for g in range(first_seed, first_seed + games):
        rng = random.Random(g)
        brng = [random.Random(g * 7 + q) for q in range(players)]
        s = G.new_game({"players": players}, rng)
        while not G.is_terminal(s):
            seat = s.current
            if s.phase == "choose":
                for q in range(players):
                    if q != seat:
                        w = bots[q].wish(G.view(s, q), brng[q])
                        if w and s.preferences[q] != w:
                            s, _ = G.apply(s, A.prefer(q, w == "yes"), rng)
            view = G.view(s, seat)
            k = Knowledge.from_view(view)
            out["decisions"] += 1
            out["inconsistent"] += not k.consistent
            out["jester_choices"] += bool(k._branch)
            d = k.sample(random.Random(g), wish_rule=wish_rule)
            out["not_conserved"] += not _conserved(d)
            out["crude"] += k.simple_samples
            out["unmet"] += k.unmet_wishes
            out["wishes"] += sum(1 for q, w in enumerate(view["preferences"])
                                 if w is not None and q != seat)
            s, _ = G.apply(s, bots[seat].act(view, G.legal_actions(s), brng[seat]), rng)
    return out


def _check(out: dict[str, int]) -> None:
    assert out["decisions"] > 0
    assert out["inconsistent"] == 0, out
    assert out["crude"] == 0, out
    assert out["not_conserved"] == 0, out
    # The heals a partner's replayed card came from are guessed (the earliest possible),
    # so a wish can rarely find no matching hand; it is then ignored, never resampled.
    assert out["unmet"] <= 0.03 * out["wishes"], out


@pytest.mark.parametrize("players", [3, 4])
def test_knowledge_stays_consistent_at_every_decision(players):
    """1.10/1.15: a few games (before the Jesters were told apart by hypotheses, the seat
    lost track in game 1 at 3 players and game 7 at 4)."""
    out = _track(players, 12, 0)
    _check(out)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_knowledge_stays_consistent_over_a_thousand_games(players):
    out = _track(players, 1000, 10_000)
    _check(out)
    if players == 4:  # two Jesters alike: which one a partner showed was in doubt somewhere
        assert out["jester_choices"] > 0
