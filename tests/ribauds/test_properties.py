"""Property tests over many random Le Roy des Ribauds games (rules 2.7, 2.8).

Each example plays one whole game from a random seed, choosing uniformly among the legal
actions, and checks after every action: the 16 cards are conserved; draw pile + discard
pile = 6 whenever no Roi (b) is half done (2.8); every seat's knowledge is right; no view
changes when the cards its seat does not know are exchanged; every legal action is accepted
and leaves the state it was applied to unchanged; illegal actions are refused and change
nothing; the position JSON round-trips.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from regalia.core.errors import IllegalAction, InvalidPosition
from regalia.games.ribauds import RIBAUDS as G
from regalia.games.ribauds import actions as A

from .helpers import card_totals

MAX_ACTIONS = 400
OPTIONS = st.sampled_from([{}, {"replaced_card": "discard"}, {"first_player": 1}])


def random_game(seed: int, options: dict | None = None):
    """Yield ``(state_before, action, state_after, events)`` along one random game."""
    rng = random.Random(seed)
    s = G.new_game(dict(options or {}), rng)
    for _ in range(MAX_ACTIONS):
        if G.is_terminal(s):
            return
        a = rng.choice(G.legal_actions(s))
        t, events = G.apply(s, a, rng)
        yield s, a, t, events
        s = t


def check_knowledge(s) -> None:
    """``know`` and ``seen`` are never wrong (state docstring)."""
    for seat in (0, 1):
        for i in range(4):
            k = s.know[seat][i]
            assert k == -1 or k == s.court[i], (seat, i, k, s.court)
            if s.up >> i & 1:
                assert k == s.court[i]
        opp = s.hands[1 - seat]
        assert all(s.seen[seat][c] <= opp[c] for c in range(4)), (seat, s.seen, s.hands)


def hidden_shuffle(s, seat: int, rng: random.Random):
    """A copy of ``s`` in which the cards ``seat`` does not know are dealt out again at
    random among their places: the opponent's hand beyond what ``seat`` saw, the face-down
    Court cards ``seat`` does not know, the draw pile above its public bottom Reines."""
    t = s.copy()
    opp = 1 - seat
    pool: list[int] = []
    free_hand = [t.hands[opp][c] - t.seen[seat][c] for c in range(4)]
    for c in range(4):
        pool += [c] * free_hand[c]
    slots = [i for i in range(4) if t.know[seat][i] < 0]
    pool += [t.court[i] for i in slots]
    top = len(t.deck) - t.bottom_reines  # the deck is top last: its unknown part is on top
    pool += t.deck[len(t.deck) - top:]
    rng.shuffle(pool)
    n_hand = sum(free_hand)
    hand = list(t.seen[seat])
    for c in pool[:n_hand]:
        hand[c] += 1
    t.hands[opp] = hand
    rest = pool[n_hand:]
    for i, c in zip(slots, rest):
        t.court[i] = c
    rest = rest[len(slots):]
    t.deck = t.deck[:len(t.deck) - top] + rest
    return t


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), OPTIONS)
def test_invariants_along_random_games(seed, options):
    for s, a, t, events in random_game(seed, options):
        assert card_totals(t) == [4, 4, 4, 4]
        if t.phase != "king_discard":
            assert len(t.deck) + len(t.discard) == 6
            assert [sum(h) for h in t.hands] == [3, 3]
        else:
            assert sum(t.hands[t.current]) == 5
        if t.current != s.current or G.is_terminal(t):  # the action ended a turn
            assert len(t.deck) + len(t.discard) == 6
        check_knowledge(t)
        assert all(e.kind for e in events)
        if not G.is_terminal(t):
            assert G.legal_actions(t), "a seat to act always has an action (no passing)"


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_views_hide_what_the_seat_does_not_know(seed):
    rng = random.Random(seed ^ 0x5EED)
    for _, _, t, _ in random_game(seed):
        for seat in (0, 1):
            v = G.view(t, seat)
            json.dumps(v)
            for _ in range(2):
                u = hidden_shuffle(t, seat, rng)
                assert card_totals(u) == card_totals(t)
                assert G.view(u, seat) == v
            for i, slot in enumerate(v["court"]):
                if not slot["face_up"] and t.know[seat][i] < 0:
                    assert slot["card"] is None
        spectator = G.view(t, None)
        assert all(c["card"] is None for c in spectator["court"] if not c["face_up"])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_legal_actions_accepted_and_illegal_refused_without_change(seed):
    rng = random.Random(seed)
    for s, _, _, _ in random_game(seed):
        snapshot = s.copy()
        position = json.dumps(G.to_json(s), sort_keys=True)
        legal = G.legal_actions(s)
        assert len(legal) == len(set(legal)) and legal == sorted(legal)
        texts = G.all_legal_texts(s)
        assert [G.action_from_text(s, x) for x in texts] == legal
        for a in legal:
            assert G.problem(s, a) is None
            G.apply(s, a, random.Random(0))  # raises if refused
        legal_set = set(legal)
        for a in rng.sample(range(-2, A.N_CODES + 2), 24):
            if a in legal_set:
                continue
            try:
                G.apply(s, a, random.Random(0))
            except IllegalAction as e:
                assert str(e)
            else:
                raise AssertionError(f"code {a} accepted but not listed as legal")
        assert s == snapshot and s.log is snapshot.log
        assert json.dumps(G.to_json(s), sort_keys=True) == position


def test_every_code_agrees_with_legal_actions_in_every_phase():
    seen_phases = set()
    for seed in range(40):
        for s, _, _, _ in random_game(seed):
            seen_phases.add(s.phase)
            legal = set(G.legal_actions(s))
            for code in range(A.N_CODES):
                assert (G.problem(s, code) is None) == (code in legal), (s, code)
    assert seen_phases == {"act", "knight_swap", "knight_flip", "king", "king_discard",
                           "assassin"}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_same_seed_same_game_and_position_round_trip(seed):
    def history():
        return [(G.action_to_text(s, a), json.dumps(G.to_json(t)), G.view(t, 0), G.view(t, 1))
                for s, a, t, _ in random_game(seed)]

    first = history()
    assert first == history() and first
    for _, _, t, _ in random_game(seed):
        obj = G.to_json(t)
        assert G.to_json(G.from_json(obj)) == obj


def test_random_games_end_with_every_conspiracy():
    found = set()
    for seed in range(300):
        last = None
        for _, _, t, _ in random_game(seed):
            last = t
        if last is not None and G.is_terminal(last):
            out = G.outcome(last)
            found.add(out["conspiracy"])
            assert G.returns(last)[out["winner"]] == 1.0 and sum(G.returns(last)) == 1.0
    assert found == {"coronation", "marriage", "murder"}


def test_every_position_reached_in_play_is_read_back():
    """formats.md 2.2 and rules 2.8: every state of 300 seeded random games (each option)
    is written and read back unchanged, so the reader refuses no position of a real game
    (in particular no hand of real play: 3 cards, 5 for the Roi's player in
    king_discard)."""
    options = [{}, {"replaced_card": "discard"}, {"first_player": 1}]
    read = 0
    for seed in range(300):
        game = random_game(seed, options[seed % 3])
        for _, _, t, _ in game:
            obj = G.to_json(t)
            assert G.to_json(G.from_json(obj)) == obj, (seed, obj)
            read += 1
    assert read > 10_000


def random_position(rng: random.Random) -> dict:
    """A position built at random from the 16 cards: any Court and orientation, any phase
    not won, any seat to act, hands mostly of their real size but sometimes of 0 to 5
    cards, piles of any size (cards left out), any option."""
    cards = list("KQNA" * 4)
    rng.shuffle(cards)
    phase = rng.choice(["act", "knight_swap", "knight_flip", "king", "king_discard",
                        "assassin"])
    current = rng.randrange(2)
    court = [c + rng.choice("+-") for c in cards[:4]]
    rest = cards[4:]
    hands = []
    for seat in (0, 1):
        real = 5 if phase == "king_discard" and seat == current else 3
        n = real if rng.random() < 0.7 else rng.randrange(6)
        hands.append(rest[:n])
        rest = rest[n:]
    n_deck = rng.randrange(len(rest) + 1)
    n_discard = rng.randrange(len(rest) - n_deck + 1)
    return {"game": "ribauds", "current": current, "phase": phase, "court": court,
            "hands": hands, "deck": rest[:n_deck], "discard": rest[n_deck:n_deck + n_discard],
            "winner": None, "conspiracy": None,
            "options": rng.choice([{}, {"replaced_card": "discard"}])}


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_rules_2_3_no_position_read_gets_stuck(seed):
    """Rules 2.3 step 2 (no passing): a position the reader accepts is over or gives the
    player to act a legal action, and so does every state reached from it by legal moves.
    The reader refuses the others with an ``InvalidPosition``, never another error, and
    reads back every state reached (with piles of fewer than 2 cards a Roi's draw falls
    short, 3.L12, and leaves hands that no game has, read all the same)."""
    rng = random.Random(seed)
    obj = random_position(rng)
    try:
        s = G.from_json(obj)
    except InvalidPosition:
        return
    for _ in range(60):
        if G.is_terminal(s):
            return
        legal = G.legal_actions(s)
        assert legal, f"stuck: {G.to_json(s)} reached from {obj}"
        s, _ = G.apply(s, rng.choice(legal), rng)
        out = G.to_json(s)
        assert G.to_json(G.from_json(out)) == out, (out, obj)
