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
from regalia.cli.app import app
from regalia.core.records import GameRecord, Match
from regalia.games.regicide import REGICIDE as G
from regalia.lab.analyse import (MARK_FROM, MARKED, Decision, analyse_record,
                                  decision_chances, paired_range)

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
