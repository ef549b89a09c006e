"""Legal actions on the wire: a ``state`` message lists every legal
action as text except Regicide's Step 4 discards, which go as the hand and the total to
reach (``gamekit.legal_message``); the client writes them out again (``expand_discards``
here, ``legal.js`` in the page). Written out, they are exactly the engine's legal actions
(rules 1.8 and 3.R10: any set totalling at least the attack; with ``minimal_discard`` only
sets in which every card is needed; two Jesters are one ``X``)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regalia.games import get_game
from regalia.server.tables import gamekit
from server_helpers import join, new_table

REGICIDE = get_game("regicide")


def engine_texts(state) -> list[str]:
    return [REGICIDE.action_to_text(state, a) for a in list(REGICIDE.legal_actions(state))]


def random_states(seed: int, players: int, options: dict, games: int):
    """Every position of ``games`` random games."""
    rng = random.Random(seed)
    for _ in range(games):
        s = REGICIDE.new_game({"players": players, **options}, rng)
        while not REGICIDE.is_terminal(s):
            yield s
            legal = list(REGICIDE.legal_actions(s))
            s, _ = REGICIDE.apply(s, legal[rng.randrange(len(legal))], rng)


def check_written_out(seed: int, players: int, minimal: bool, games: int) -> int:
    """Compare the written-out compact form with the engine in every position of random
    games; the number of Step 4 positions with discards."""
    suffer = 0
    for s in random_states(seed, players, {"minimal_discard": minimal}, games):
        texts, discards = gamekit.legal_message(REGICIDE, s)
        written = gamekit.legal_texts({"legal": texts, "discards": discards})
        expected = engine_texts(s)
        assert sorted(written) == sorted(expected) and len(set(written)) == len(written)
        if s.phase == "suffer" and discards is not None:
            suffer += 1
            assert not any(t.startswith("discard") for t in texts)
            assert discards["from"] == REGICIDE.view(s, s.current)["hand"]
            assert discards["minimal"] is minimal
        else:
            assert texts == expected  # every other phase: the engine's list, in its order
    return suffer


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("minimal", [False, True])
def test_step_4_discards_written_out_are_the_engines_legal_actions(players, minimal):
    assert check_written_out(players, players, minimal, 25) >= 20


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4), minimal=st.booleans())
def test_random_games_written_out_are_the_engines_legal_actions(seed, players, minimal):
    check_written_out(seed, players, minimal, 2)


def test_two_jesters_and_the_minimal_option_in_the_compact_form():
    both = {"from": ["5C", "9H", "X", "X"], "at_least": 5, "minimal": False}
    written = gamekit.expand_discards(both)
    assert "discard 5C X" in written and written.count("discard 5C X") == 1
    assert "discard X X" not in written and "discard X" not in written  # 0 < 5
    assert len(written) == len(set(written)) == 3 * 3  # 5C and/or 9H, with 0, 1 or 2 Jesters
    minimal = gamekit.expand_discards({**both, "minimal": True})
    assert sorted(minimal) == ["discard 5C", "discard 9H"]  # a Jester is never needed
    assert gamekit.expand_discards(None) == []


def test_a_step_4_state_message_sends_the_discards_compactly(client):
    # a solo game played until Step 4 with a hand that can discard in many ways
    d = new_table(client, "regicide", ["human"], seed=5)
    p = join(client, d, 0)
    rng = random.Random(3)
    for _ in range(60):
        if p.state["finished"]:
            break
        raw = p.reader.wire  # the latest state as the server sent it
        if p.state["view"]["phase"] == "suffer" and p.state["legal"] != ["jester"]:
            assert raw["discards"]["from"] == p.state["view"]["hand"]
            assert not any(a.startswith("discard") for a in raw["legal"])
            assert any(a.startswith("discard") for a in p.state["legal"])  # written out
            return
        p.act(rng.choice([a for a in p.state["legal"] if a != "jester"] or p.state["legal"]))
        p.recv_until(lambda m: m["type"] in ("state", "error"))
    pytest.fail("no Step 4 reached in 60 moves")
