"""Property tests over random Regicide games (rules 1.1-1.15, formats.md 1.2).

Invariants: cards are conserved (set-aside solo Jesters included), every legal action is
accepted, every refused action leaves the position unchanged, the same seed and actions
give the same game, positions round-trip through JSON, and no view changes when the cards
hidden from that seat are moved around.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regalia.core.errors import IllegalAction
from regalia.core.records import GameRecord, Match
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import JESTERS, RANK, cards_of
from regalia.games.regicide.state import JESTERS_IN_TAVERN

seeds = st.integers(0, 2**32 - 1)
player_counts = st.integers(1, 4)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(seed: int, players: int, options: dict | None = None):
    """Yield every state of one random game (uniform over legal actions)."""
    rng = random.Random(seed)
    state = G.new_game({"players": players, **(options or {})}, rng)
    yield state, rng
    while not G.is_terminal(state):
        legal = G.legal_actions(state)
        state, _ = G.apply(state, legal[rng.randrange(len(legal))], rng)
        yield state, rng


def all_cards(s) -> list[int]:
    cards = list(s.castle) + list(s.tavern) + list(s.discard)
    if s.enemy is not None:
        cards.append(s.enemy)
    for m in s.table:
        cards += cards_of(m)
    for h in s.hands:
        cards += cards_of(h)
    return cards


@SETTINGS
@given(seeds, player_counts)
def test_cards_conserved(seed, players):
    """54 cards: the 52 + the Jesters in the Tavern deck; solo sets the 2 Jesters aside."""
    for s, _ in random_game(seed, players):
        cards = all_cards(s)
        assert len(cards) == len(set(cards)), "a card stands in two places"
        in_play = JESTERS_IN_TAVERN[players]
        assert len(cards) == 52 + in_play
        assert set(cards) >= set(range(52))
        set_aside = 2 if players == 1 else 0
        assert len(cards) + set_aside + (2 - in_play - set_aside) == 54
        assert sum(1 for c in cards if c in JESTERS) == in_play
        assert all(h.bit_count() <= s.max_hand for h in s.hands)
        if s.players == 1:
            assert 0 <= s.jesters <= 2


@SETTINGS
@given(seeds, player_counts)
def test_every_legal_action_is_accepted(seed, players):
    for s, rng in random_game(seed, players):
        legal = list(G.legal_actions(s)) + G.side_actions(s)
        texts = [A.to_text(a) for a in legal]
        assert len(texts) == len(set(texts)), "a legal action is listed twice"
        if not G.is_terminal(s):
            assert legal, "a game in progress has a legal action"
        for a in rng.sample(legal, min(len(legal), 12)):
            before = G.to_json(s)
            G.apply(s, a, random.Random(0))
            assert G.to_json(s) == before, "apply changed the state it was given"


def random_codes(s, rng: random.Random, n: int) -> list[int]:
    """Random action codes, mostly near-legal: cards from the hand and around it."""
    hand = s.hands[s.current]
    out = []
    for _ in range(n):
        kind = rng.choice([A.PLAY, A.DISCARD, A.YIELD, A.JESTER_REFRESH, A.CHOOSE, A.PREFER])
        if kind in (A.PLAY, A.DISCARD):
            pool = cards_of(hand) + rng.sample(range(54), 2)
            mask = 0
            for c in rng.sample(pool, rng.randint(1, min(4, len(pool)))):
                mask |= 1 << c
            out.append(kind | mask)
        elif kind in (A.CHOOSE, A.PREFER):
            out.append(kind | rng.randrange(10))
        else:
            out.append(kind)
    return out


@SETTINGS
@given(seeds, player_counts)
def test_refused_actions_change_nothing(seed, players):
    for s, rng in random_game(seed, players):
        # The two Jesters read as the same text "X": a code naming the Jester that the seat
        # does not hold is rightly refused even though its text is legal.
        legal_texts = set(G.all_legal_texts(s))
        hand = s.hands[s.current]
        for a in random_codes(s, rng, 6):
            before = G.to_json(s)
            try:
                text = A.to_text(a)
            except ValueError:
                text = None
            names_unheld = A.kind(a) in (A.PLAY, A.DISCARD) and A.arg(a) & ~hand
            try:
                G.apply(s, a, random.Random(0))
            except IllegalAction as e:
                assert str(e), "a refusal says why"
                assert text not in legal_texts or names_unheld, \
                    f"legal action {text} was refused: {e}"
            else:
                assert text in legal_texts and not names_unheld, \
                    f"illegal action {text} was accepted"
            assert G.to_json(s) == before


@SETTINGS
@given(seeds, player_counts)
def test_same_seed_same_game(seed, players):
    rng = random.Random(seed ^ 0x5EED)
    match = Match(G, {"players": players}, seed)
    while not G.is_terminal(match.state):
        legal = G.legal_actions(match.state)
        match.play(legal[rng.randrange(len(legal))])
    again = Match.from_record(G, GameRecord.from_json(match.record().to_json()))
    assert G.to_json(again.state) == G.to_json(match.state)
    for seat in range(players):
        assert G.view(again.state, seat) == G.view(match.state, seat)


@SETTINGS
@given(seeds, player_counts)
def test_position_json_round_trip(seed, players):
    for s, _ in random_game(seed, players):
        assert G.to_json(G.from_json(G.to_json(s))) == G.to_json(s)
        back = G.from_json(G.to_json(s))
        # The two Jesters are the same card: compare actions as text.
        assert sorted(G.all_legal_texts(back)) == sorted(G.all_legal_texts(s))


def shuffle_hidden(s, seat: int, rng: random.Random):
    """A state that differs from ``s`` only in cards hidden from ``seat``: the other hands,
    the Tavern below its publicly known top, and the suits within each Castle rank."""
    t = s.copy()
    others = [q for q in range(s.players) if q != seat]
    unknown_tavern = t.tavern[: len(t.tavern) - t.known_top]
    pool = unknown_tavern + [c for q in others for c in cards_of(t.hands[q])]
    rng.shuffle(pool)
    t.tavern[: len(unknown_tavern)] = pool[: len(unknown_tavern)]
    rest = pool[len(unknown_tavern):]
    for q in others:
        n = t.hands[q].bit_count()
        t.hands[q] = sum(1 << c for c in rest[:n])
        rest = rest[n:]
    for r in (11, 12, 13):
        idx = [i for i, c in enumerate(t.castle) if RANK[c] == r]
        vals = [t.castle[i] for i in idx]
        rng.shuffle(vals)
        for i, c in zip(idx, vals):
            t.castle[i] = c
    return t


@SETTINGS
@given(seeds, player_counts)
def test_views_hide_what_the_seat_may_not_know(seed, players):
    """Rules 1.15: moving hidden cards around never changes a seat's view."""
    for s, rng in random_game(seed, players):
        for seat in list(range(players)) + [None]:
            other = shuffle_hidden(s, -1 if seat is None else seat, rng)
            assert G.view(other, seat) == G.view(s, seat)
        spectator = G.view(s, None)
        assert "hand" not in spectator


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(seeds, player_counts)
def test_thousands_of_games_conserve_and_replay(seed, players):
    """The long run of the invariants (CI runs the slow group)."""
    match = Match(G, {"players": players}, seed)
    rng = random.Random(seed + 1)
    while not G.is_terminal(match.state):
        cards = all_cards(match.state)
        assert len(cards) == len(set(cards)) == 52 + JESTERS_IN_TAVERN[players]
        legal = G.legal_actions(match.state)
        match.play(legal[rng.randrange(len(legal))])
    again = Match.from_record(G, match.record())
    assert G.to_json(again.state) == G.to_json(match.state)


def test_a_move_played_with_its_text_is_recorded_as_without_it():
    """``Match.play(code, text)``: the server hands over the text it read, and the record
    is the same as when ``play`` writes it; a text action ignores the ``text`` given."""
    with_text, without = Match(G, {"players": 2}, 7), Match(G, {"players": 2}, 7)
    rng = random.Random(7)
    while not G.is_terminal(without.state):
        legal = G.legal_actions(without.state)
        code = legal[rng.randrange(len(legal))]
        with_text.play(code, G.action_to_text(with_text.state, code))
        without.play(code)
    assert with_text.record() == without.record()
    assert G.to_json(with_text.state) == G.to_json(without.state)
    fresh = Match(G, {"players": 2}, 7)
    first = G.action_to_text(fresh.state, G.legal_actions(fresh.state)[0])
    fresh.play(first, "not the text")
    assert fresh.actions == [first]
