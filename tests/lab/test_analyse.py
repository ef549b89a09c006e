"""Game analysis: win chances estimated from one seat's view only
(rules 1.15: hands and the Tavern order are hidden)."""

from __future__ import annotations

import json
import re
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from regalia.bots import make_bot
from regalia.cli.app import app, span
from regalia.core.records import GameRecord, Match
from regalia.games.regicide import REGICIDE as G
from regalia.lab.analyse import (MARK_FROM, MARKED, Decision, analyse_record,
                                  decision_chances, hint_chances, paired_range)

runner = CliRunner()


def _heuristic_game(players: int, seed: int) -> Match:
    m = Match(G, {"players": players}, seed)
    bot = make_bot("regicide", "heuristic")
    rng = random.Random(seed)
    while not G.is_terminal(m.state):
        m.play(bot.act(G.view(m.state, m.state.current), list(G.legal_actions(m.state)), rng))
    return m


def test_the_estimate_depends_on_the_view_only():
    """rules 1.15: a position whose hidden cards differ (the Tavern order, a partner's
    hand) but whose view is the same gets the same estimate; the estimate reads no more."""
    for players in (1, 3):
        m = Match(G, {"players": players}, 11)
        bot = make_bot("regicide", "heuristic")
        rng = random.Random(2)
        for _ in range(6):
            m.play(bot.act(G.view(m.state, m.state.current), list(G.legal_actions(m.state)),
                           rng))
        s = m.state
        seat = s.current
        other = s.copy()
        random.Random(5).shuffle(other.tavern)
        if players > 1:  # swap a partner's hand card with a Tavern card of no public history
            q = (seat + 1) % players
            c = next(x for x in range(52) if other.hands[q] >> x & 1)
            t = other.tavern[0]
            other.hands[q] = other.hands[q] & ~(1 << c) | 1 << t
            other.tavern[0] = c
        assert other.tavern != s.tavern
        assert G.view(other, seat) == G.view(s, seat)
        legal = list(G.legal_actions(s))
        assert list(G.legal_actions(other)) == legal
        played = legal[-1]
        a = decision_chances(G.view(s, seat), legal, played, random.Random(9), worlds=24)
        b = decision_chances(G.view(other, seat), legal, played, random.Random(9), worlds=24)
        assert a[0] == b[0] and np.array_equal(a[1], b[1])
        assert played in a[0]


def test_the_estimate_samples_positions_as_the_search_bot(monkeypatch):
    """rules 1.10, 1.15: with partners, the sampled positions are the search bot's
    (``position_sampler``): the partners' hands match their stated Jester-window wishes and
    are weighted by the partners' logged decisions (``PARTNER_TAU``); solo has neither."""
    from regalia.bots.regicide import montecarlo

    asked = []
    real = montecarlo.position_sampler

    def spy(knowledge, rng, wishes, tau=montecarlo.PARTNER_TAU, eps=montecarlo.PARTNER_EPS,
            pool=montecarlo.PARTNER_POOL):
        asked.append((knowledge.players, wishes, tau))
        return real(knowledge, rng, wishes, tau, eps, pool)

    monkeypatch.setattr(montecarlo, "position_sampler", spy)
    m = Match(G, {"players": 4}, 3)
    bot = make_bot("regicide", "heuristic")
    rng = random.Random(2)
    for _ in range(6):  # partner decisions in the log
        m.play(bot.act(G.view(m.state, m.state.current), list(G.legal_actions(m.state)), rng))
    for s in (Match(G, {"players": 1}, 3).state, m.state):
        legal = list(G.legal_actions(s))
        decision_chances(G.view(s, s.current), legal, legal[0], random.Random(1), worlds=8)
    assert asked == [(1, False, 0.0), (4, True, montecarlo.PARTNER_TAU)]


def test_analysis_of_a_record_marks_the_three_costliest_moves_of_the_seat(monkeypatch):
    """Each decision of the seat is estimated from exactly that seat's view then."""
    import regalia.lab.analyse as AN

    m = _heuristic_game(2, 5)
    record = m.record()
    inputs = []
    real = AN.decision_chances

    def spy(view, *args, **kwargs):
        inputs.append(view)
        return real(view, *args, **kwargs)

    monkeypatch.setattr(AN, "decision_chances", spy)
    decisions = analyse_record(record, 1, worlds=16, candidates=4)
    states = [st for _, st, _ in Match.replay(G, record)]
    assert decisions and len(inputs) == len(decisions)
    for d, view in zip(decisions, inputs):
        before = states[d.index]
        assert view == G.view(before, 1)
        assert before.current == 1 and len(list(G.legal_actions(before))) > 1
        assert record.actions[d.index] == d.played
        assert 0.0 <= d.played_win <= 1.0 and 0.0 <= d.best_win <= 1.0
        assert d.cost == pytest.approx(max(0.0, d.best_win - d.played_win))
        for chance, (lo, hi) in ((d.played_win, d.played_range), (d.best_win, d.best_range)):
            assert 0.0 <= lo <= chance <= hi <= 1.0 and hi - lo > 0  # each chance's interval
        lo, hi = d.cost_range  # the paired difference's interval holds the cost
        assert -1.0 <= lo <= d.cost <= hi <= 1.0 or (lo == hi == d.cost == 0.0)
    marked = [d for d in decisions if d.marked]
    # the three costliest of the mistakes: beyond the noise and at least MARK_FROM
    mistakes = [d for d in decisions if d.cost_range[0] > 0 and d.cost >= MARK_FROM]
    assert len(marked) == min(MARKED, len(mistakes))
    if marked:
        assert min(d.cost for d in marked) >= max(d.cost for d in mistakes if not d.marked)


def test_a_mistake_is_marked_only_when_the_paired_interval_is_above_zero():
    """Paired sampling: the positions where both moves end alike add no spread; a gap
    within the noise is no mistake, however large its point estimate."""
    same = np.array([1, 0, 1, 1, 0, 0, 1, 0] * 5)
    assert paired_range(same, same) == (0.0, 0.0)
    lost = same.copy()
    lost[same == 1] = 0  # the played move lost every game the best one won
    lo, hi = paired_range(same, lost)
    assert 0.3 < lo < 0.5 < hi < 0.7  # cost 0.5 measured on 40 positions
    few = paired_range(np.array([1, 0, 1, 0]), np.array([0, 0, 0, 1]))  # cost 0.25, n=4
    assert few[0] < 0 < 0.25 < few[1]
    decision = Decision(0, "play", "5C", 0.25, "JS", 0.5, 0.25, 8)
    assert not decision.mistake  # no interval given: (-1, 1)
    decision.cost_range = few
    assert not decision.mistake
    decision.cost_range = (lo, hi)
    assert decision.mistake
    decision.cost, decision.cost_range = MARK_FROM / 2, (0.01, 0.04)
    assert not decision.mistake  # beyond the noise, but negligible


def test_cli_analyse(tmp_path):
    path = tmp_path / "game.json"
    _heuristic_game(1, 3).record().save(path)
    r = runner.invoke(app, ["analyse", str(path), "--worlds", "8", "--candidates", "3",
                            "--json"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["seat"] == 1 and obj["decisions"]
    text = runner.invoke(app, ["analyse", str(path), "--worlds", "8", "--candidates", "3"])
    assert text.exit_code == 0 and "player 1" in text.stdout
    assert "suffer" not in text.stdout and "step " in text.stdout  # the rules' words
    assert re.search(r"\d+\.\d% \(\d+-\d+\)", text.stdout)  # a chance and its interval
    assert all(len(d["played_range"]) == 2 for d in obj["decisions"])


def test_cli_analyse_writes_an_interval_below_zero_with_to():
    """A loss's interval may reach below zero: "(-6 to 20)", never "(-6-20)" or "-0"."""
    assert span((0.09, 0.224)) == "(9-22)"
    assert span((-0.06, 0.2)) == "(-6 to 20)"
    assert span((-0.001, 0.1)) == "(0-10)"


@pytest.mark.parametrize("make, args, words", [
    ("solo", ["--seat", "2"], "--seat 2"),
    ("solo", ["--worlds", "1"], "--worlds"),
    ("ribauds", [], "Regicide"),
    ("none", [], "cannot read"),
])
def test_cli_analyse_refuses_bad_input_with_one_line(tmp_path, make, args, words):
    path = tmp_path / "game.json"
    if make == "solo":
        Match(G, {"players": 1}, 1).record().save(path)
    elif make == "ribauds":
        GameRecord("ribauds", {"players": 2}, 1, []).save(path)
    r = runner.invoke(app, ["analyse", str(path), *args])
    assert r.exit_code == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


def _same_view_pair(players: int, seed: int):
    """A position after a few heuristic moves and a copy whose hidden cards differ (the
    Tavern order, a partner's hand) but whose view for the seat to act is the same."""
    m = Match(G, {"players": players}, seed)
    bot = make_bot("regicide", "heuristic")
    rng = random.Random(2)
    for _ in range(6):
        m.play(bot.act(G.view(m.state, m.state.current), list(G.legal_actions(m.state)), rng))
    s = m.state
    other = s.copy()
    random.Random(5).shuffle(other.tavern)
    if players > 1:
        q = (s.current + 1) % players
        c = next(x for x in range(52) if other.hands[q] >> x & 1)
        t = other.tavern[0]
        other.hands[q] = other.hands[q] & ~(1 << c) | 1 << t
        other.tavern[0] = c
    assert other.tavern != s.tavern and G.view(other, s.current) == G.view(s, s.current)
    return s, other


def test_a_hints_chances_depend_on_the_view_only():
    """rules 1.15: the chances of a hint (and the next best move) are the same for two
    positions with the same view at the same random seed."""
    for players in (1, 3):
        s, other = _same_view_pair(players, 11)
        legal = list(G.legal_actions(s))
        a = hint_chances(G.view(s, s.current), legal, legal[-1], random.Random(4), worlds=40)
        b = hint_chances(G.view(other, s.current), legal, legal[-1], random.Random(4), worlds=40)
        assert a == b


def test_a_hints_next_best_is_another_legal_move_measured_on_the_same_positions():
    """Along a solo game: the next best move is legal and another move; the lead's interval
    holds the difference of the two chances and does not lie below zero (the hint's move is
    not worse beyond the sampling noise); both chances are shares of the same positions."""
    m = Match(G, {"players": 1}, 3)
    bot = make_bot("regicide", "heuristic")
    rng = random.Random(1)
    checked = 0
    while not G.is_terminal(m.state) and checked < 12:
        s = m.state
        legal = list(G.legal_actions(s))
        proposed = bot.act(G.view(s, 0), legal, rng)
        c = hint_chances(G.view(s, 0), legal, proposed, random.Random(checked), worlds=60)
        assert c.move in legal and c.worlds == 30
        assert c.move == proposed or c.swapped
        if len(legal) > 1:
            assert c.next in legal and c.next != c.move
            low, high = c.lead_range
            assert low - 1e-9 <= c.win - c.next_win <= high + 1e-9 and high >= 0.0
            for x in (c.win, c.next_win):
                assert round(x * c.worlds) == pytest.approx(x * c.worlds)
            checked += 1
        m.play(c.move)
    assert checked == 12


def _solo(**fields):
    """A solo position (formats.md 1.2): an empty Castle behind the enemy unless given."""
    obj = {"game": "regicide", "players": 1, "current": 0, "phase": "play", "enemy": "JH",
           "damage": 0, "immunity_cancelled": False, "table": [], "castle": [], "tavern": [],
           "discard": [], "hands": [[]], "yielded": [False], "jesters": 2,
           "preferences": [None], "options": {}}
    return G.from_json({**obj, **fields})


def test_a_hint_worse_beyond_the_noise_gives_way_to_the_next_best():
    """The last King at 30 damage (rules 1.7): 10 of Spades wins at once; a proposed 2 of
    Clubs (4 damage, then the King's 20 against a hand of 10, and no Jester left) loses,
    so the hint becomes the winning move, measured again on fresh positions."""
    s = _solo(enemy="KH", damage=30, hands=[["TS", "2C"]], jesters=0,
              tavern=["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH"])
    legal = list(G.legal_actions(s))
    two = G.action_from_text(s, "play 2C")
    c = hint_chances(G.view(s, 0), legal, two, random.Random(0), worlds=80)
    assert c.swapped and G.action_to_text(s, c.move) == "play TS" and c.next == two
    assert (c.win, c.next_win, c.worlds) == (1.0, 0.0, 40) and c.lead_range[0] > 0.0


def test_a_hint_with_one_legal_move_has_no_next_best():
    s = _solo(enemy="JH", hands=[["5C"]], tavern=["2H"], jesters=0)
    legal = list(G.legal_actions(s))
    assert len(legal) == 1
    c = hint_chances(G.view(s, 0), legal, legal[0], random.Random(0), worlds=10)
    assert (c.move, c.next, c.next_win, c.lead_range, c.worlds) == (legal[0], None, None, None, 5)
    with pytest.raises(ValueError, match="2 or more"):
        hint_chances(G.view(s, 0), legal, legal[0], random.Random(0), worlds=1)
