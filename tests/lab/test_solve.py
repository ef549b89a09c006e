"""The clairvoyant solo solver (rules 1.6 Hearts shuffle, 1.14 solo mode and medals).

The solver's chance must be ``Match``'s chance: its shuffle is checked against
``random.Random.shuffle``, and its winning lines are replayed through ``Match`` (the
reference engine) to the won state with the medal claimed. Its answers on small positions
are compared with a plain exhaustive search through the reference engine, including
positions it proves lost.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from regalia.cli.app import app
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide.cards import RANK
from regalia.games.regicide.rules import medal
from regalia.fast import regicide as F
from regalia.lab import solve as S
from regalia.lab.deals import load_deals

runner = CliRunner()


@pytest.fixture(scope="module")
def solver() -> S.Solver:
    return S.Solver(table_bits=16)


def test_hearts_shuffle_from_the_stream_is_random_shuffle():
    """rules 1.6 Hearts: the solver's shuffle of the discard pile is the engine's."""
    for seed in range(40):
        rng = random.Random(seed)
        for _ in range(seed % 5):
            rng.random()  # the stream is taken from any point of the generator
        pile = list(range(seed % 40 + 1))
        st = np.zeros(F.SIZE, np.int64)
        st[F.NDISC] = len(pile)
        st[F.DISC:F.DISC + len(pile)] = pile
        copy = random.Random()
        copy.setstate(rng.getstate())
        stream = np.array([copy.getrandbits(32) for _ in range(400)], np.int64)
        out = np.zeros(64, np.int64)
        used = S.shuffle_from_stream(st, stream, 0, out)
        expected = pile[:]
        rng.shuffle(expected)
        assert list(out[:len(pile)]) == expected
        follow = random.Random()
        follow.setstate(rng.getstate())
        assert stream[used] == follow.getrandbits(32), "the offset is where the engine is"


def _replay_through_match(seed: int, line: list[str], options=None) -> Match:
    m = Match(G, {"players": 1, **(options or {})}, seed)
    for text in line:
        m.play(text)
    return m


def test_winning_lines_replay_to_a_win_through_match(solver):
    """rules 1.14: the line wins in Match with the medal the solver states."""
    heals = 0
    for seed in load_deals("regicide", 1)[:3]:
        sol = solver.solve(S.Deal.from_seed(seed), time_limit=30, medals=False)
        assert sol.result == S.WON, seed
        m = _replay_through_match(seed, sol.line)
        assert m.state.phase == "won"
        assert medal(m.state) == sol.medal
        assert len(m.actions) == len(sol.line)
        heals += sum(e.kind == "heal" for _, _, evs in Match.replay(G, m.record()) for e in evs)
    assert heals > 0, "the lines went through Hearts shuffles"


def test_medal_search_finds_a_proven_best_medal(solver):
    """rules 1.14 medals: a Gold line is proven best at once; a lower medal is proven best
    only when the search for a better one was exhausted."""
    sol = solver.solve(S.Deal.from_seed(load_deals("regicide", 1)[4]), time_limit=20)
    assert sol.result == S.WON and sol.medal == "gold" and sol.medal_proven
    assert _replay_through_match(sol.seed, sol.line).state.jesters == 2


def test_options_reach_the_deal(solver):
    """Rule options: with solo_yield the solver may yield, and its line replays under it."""
    seed = load_deals("regicide", 1)[1]
    sol = solver.solve(S.Deal.from_seed(seed, {"solo_yield": True}), 20, medals=False)
    assert sol.result == S.WON
    m = _replay_through_match(seed, sol.line, {"solo_yield": True})
    assert m.state.phase == "won"


# ----------------------------------------------------------------------------- brute force

def _brute(state, rng: random.Random) -> int:
    """Most Jesters left at a win from ``state`` (-1: no line wins), by trying every legal
    action through the reference engine with a copy of the random source."""
    if state.phase == "won":
        return state.jesters
    if state.phase == "lost":
        return -1
    best = -1
    for a in list(G.legal_actions(state)):
        r = random.Random()
        r.setstate(rng.getstate())
        t, _ = G.apply(state, a, r)
        best = max(best, _brute(t, r))
        if best == state.jesters:
            break
    return best


def _small_position(k: int):
    """A small solo endgame: the last royal (every other one: a Jack after it), 2-5 cards in
    hand, a short Tavern, a discard pile to heal from, 0-2 Jesters."""
    rng = random.Random(1000 + k)
    s = Match(G, {"players": 1}, k).state.copy()
    numbers = [c for c in range(40)]
    rng.shuffle(numbers)
    royals = [c for c in range(40, 52)]
    rng.shuffle(royals)
    s.enemy = next(c for c in royals if RANK[c] >= 12)
    s.castle = [c for c in royals[:1] if c != s.enemy and RANK[c] == 11] if k % 2 == 0 else []
    health = 30 if RANK[s.enemy] == 12 else 40
    s.damage = rng.randrange(health - 18, health - 2)
    hand = numbers[:rng.randrange(2, 6)]
    s.hands = [sum(1 << c for c in hand)]
    s.tavern = numbers[5:5 + rng.randrange(0, 5)]
    s.discard = numbers[10:10 + rng.randrange(0, 8)]
    s.table, s.spades, s.known_top = [], 0, 0
    s.jesters = rng.randrange(0, 3)
    s.phase = "play"
    return s, rng


def test_solver_agrees_with_exhaustive_search_on_small_positions(solver):
    """rules 1.4-1.14: won / proven lost and the best medal match a brute-force search
    through the reference engine, on positions of both kinds."""
    seen = set()
    for k in range(120):
        s, rng = _small_position(k)
        expected = _brute(s, rng)
        sol = solver.solve(S.Deal.from_state(s, rng), time_limit=30)
        if expected < 0:
            assert sol.result == S.LOST, k
        else:
            assert sol.result == S.WON and sol.medal_proven, k
            assert sol.medal == S.MEDAL_OF_JESTERS[expected], k
            t, r = s, random.Random()
            r.setstate(rng.getstate())
            for text in sol.line:
                t, _ = G.apply(t, G.action_from_text(t, text), r)
            assert t.phase == "won" and t.jesters == expected
        seen.add(expected >= 0)
    assert seen == {True, False}, "the sample holds winnable and unwinnable positions"


def test_a_position_proven_lost_is_lost_by_hand(solver):
    """rules 1.8, 1.13: last King at full health, one 5 in hand, no Jester, empty Tavern:
    no play survives the King's 20, so the solver proves the loss."""
    s = Match(G, {"players": 1}, 1).state.copy()
    s.enemy, s.castle, s.damage = 51, [], 0  # KS
    s.hands, s.tavern, s.discard, s.table, s.jesters = [1 << 16], [], [], [], 0  # 5C
    sol = solver.solve(S.Deal.from_state(s, random.Random(0)), time_limit=10)
    assert sol.result == S.LOST and sol.line == []


# ----------------------------------------------------------------------------- command line

def test_cli_solves_one_seed_as_json():
    seed = load_deals("regicide", 1)[4]
    r = runner.invoke(app, ["solve", "--seed", str(seed), "--json", "--time-limit", "20"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["result"] == "won" and obj["medal"] == "gold" and obj["medal_proven"]
    assert _replay_through_match(seed, obj["line"]).state.phase == "won"


def test_cli_solves_a_deal_set(tmp_path):
    out = tmp_path / "solve.json"
    r = runner.invoke(app, ["solve", "--deals", "2", "--offset", "2", "--time-limit", "10",
                            "--no-medals", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "winnable: 2 of 2" in r.stdout
    rep = json.loads(out.read_text())
    assert rep["deals"] == 2 and rep["won"] + rep["lost"] + rep["undecided"] == 2
    assert [x["seed"] for x in rep["results"]] == load_deals("regicide", 1)[2:4]


@pytest.mark.parametrize("args, words", [
    ([], "--seed"),
    (["--seed", "1", "--deals", "2"], "either"),
    (["--seed", "1", "--option", "players=2"], "solo"),
    (["--seed", "1", "--option", "solo_yield=3"], "solo_yield"),
    (["--seed", "1", "--option", "nonsense=1"], "nonsense"),
    (["--seed", "1", "--time-limit", "0"], "--time-limit"),
    (["--deals", "2000"], "1000"),
    (["--deals", "0"], "--deals"),
    (["--deals", "2", "--deal-file", "/nonexistent/deals.json"], "/nonexistent"),
    (["--seed", "1", "--offset", "3"], "--offset"),
])
def test_cli_refuses_bad_input_with_one_line(args, words):
    """formats.md 3: bad input exits 2 with one line on standard error, nothing on stdout."""
    r = runner.invoke(app, ["solve", *args])
    assert r.exit_code == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]
