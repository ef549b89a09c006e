"""The fixed action ids and observation vectors (regalia.adapters.encoding)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from regalia.adapters import encoding as E
from regalia.games.regicide import REGICIDE
from regalia.games.regicide import actions as RA
from regalia.games.regicide.cards import parse_card
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds import actions as BA
from regalia.adapters import batch as B
from regalia.fast import regicide as F


def _regicide_positions(players: int, seed: int, count: int, **options):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = REGICIDE.new_game({"players": players, **options}, rng)
        while not REGICIDE.is_terminal(s) and len(out) < count:
            out.append(s)
            legal = REGICIDE.legal_actions(s)
            s, _ = REGICIDE.apply(s, legal[rng.randrange(len(legal))], rng)
    return out


def _kind_range(code: int) -> range:
    return {RA.PLAY: range(0, 255), RA.DISCARD: range(255, 510), RA.YIELD: range(510, 511),
            RA.JESTER_REFRESH: range(511, 512), RA.CHOOSE: range(512, 516)}[RA.kind(code)]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_regicide_legal_actions_get_distinct_ids_of_their_kind(players):
    """Every legal action (rules 1.5, 1.8, 1.10, 1.11, 1.14) has its own id, and the
    compiled decoder of the batch simulator turns the id back into the same action."""
    for s in _regicide_positions(players, players, 150):
        view = REGICIDE.view(s, s.current)
        legal = list(REGICIDE.legal_actions(s))
        ids = E.legal_ids(view, legal, E.regicide_action_id)
        assert len(ids) == len(legal)
        st = F.encode(s)
        for i, code in ids.items():
            assert i in _kind_range(code)
            assert B.action_code(st, i) == code


def test_two_jesters_in_hand_play_and_discard_as_the_engine_lists_them():
    """rules 1.5: "play X" is one action; the first X slot stands for it."""
    s = _regicide_positions(4, 3, 1)[0]
    seat = s.current
    s.hands[seat] = (1 << parse_card("5C")) | (1 << 52) | (1 << 53)
    view = REGICIDE.view(s, seat)
    assert view["hand"] == ["5C", "X", "X"]
    ids = E.legal_ids(view, REGICIDE.legal_actions(s), E.regicide_action_id)
    assert ids[E.PLAY_IDS + 0b010 - 1] == RA.PLAY | 1 << 52
    assert E.PLAY_IDS + 0b100 - 1 not in ids
    assert E.regicide_action_id(view, RA.DISCARD | 1 << 52 | 1 << 53) == E.DISCARD_IDS + 0b110 - 1


def test_choose_ids_count_seats_from_the_chooser():
    s = _regicide_positions(3, 1, 1)[0]
    view = REGICIDE.view(s, 2)
    assert [E.regicide_action_id(view, RA.CHOOSE | k) for k in range(3)] == [513, 514, 512]


def test_prefer_a_card_not_held_and_spectator_views_are_refused():
    s = _regicide_positions(3, 1, 1)[0]
    with pytest.raises(ValueError, match="no action id"):
        E.regicide_action_id(REGICIDE.view(s, 0), RA.prefer(1, True))
    with pytest.raises(ValueError, match="not in the hand"):
        E.regicide_action_id(REGICIDE.view(s, 0), RA.PLAY | (s.hands[1] & -s.hands[1]))
    with pytest.raises(ValueError, match="spectator"):
        E.regicide_observation(REGICIDE.view(s, None))
    with pytest.raises(ValueError, match="spectator"):
        E.ribauds_observation(RIBAUDS.view(RIBAUDS.new_game({}, random.Random(1)), None))


@pytest.mark.parametrize("players", [1, 4])
def test_regicide_observation_holds_the_hand_slots_and_stays_in_bounds(players):
    for s in _regicide_positions(players, 9, 60):
        seat = s.current
        view = REGICIDE.view(s, seat)
        o = E.regicide_observation(view)
        assert o.shape == (E.REGICIDE_OBS,) and o.dtype == np.float32
        assert 0.0 <= o.min() and o.max() <= 1.0
        for i, text in enumerate(view["hand"]):
            slot = o[E.R_SLOTS + E.SLOT_SIZE * i:E.R_SLOTS + E.SLOT_SIZE * (i + 1)]
            if text == "X":
                assert slot[13] == 1.0 and slot.sum() == 1.0
            else:
                c = parse_card(text)
                assert slot[c // 4] == 1.0 and slot[14 + c % 4] == 1.0 and slot.sum() == 2.0
        empty = o[E.R_SLOTS + E.SLOT_SIZE * len(view["hand"]):E.R_ENEMY]
        assert not empty.any()
        assert o[E.R_PLAYERS + players - 1] == 1.0


def test_ribauds_ids_number_every_valid_code_once():
    assert E.RIBAUDS_ACTIONS == sum(BA.VALID) == 67
    view = RIBAUDS.view(RIBAUDS.new_game({}, random.Random(2)), 0)
    for i, code in enumerate(E.RIBAUDS_CODES):
        assert E.ribauds_action_id(view, code) == i and E.ribauds_code(i) == code
    with pytest.raises(ValueError, match="not a Le Roy des Ribauds action"):
        E.ribauds_action_id(view, 31)


def test_ribauds_observation_stays_in_bounds_and_shows_the_hand():
    rng = random.Random(6)
    s = RIBAUDS.new_game({}, rng)
    for _ in range(200):
        if RIBAUDS.is_terminal(s):
            s = RIBAUDS.new_game({}, rng)
        for seat in (0, 1):
            view = RIBAUDS.view(s, seat)
            o = E.ribauds_observation(view)
            assert o.shape == (E.RIBAUDS_OBS,) and 0.0 <= o.min() and o.max() <= 1.0
            assert round(float(o[24:28].sum()) * 4) == len(view["hand"])
            assert o[51] == (view["current"] == seat)
        legal = RIBAUDS.legal_actions(s)
        s, _ = RIBAUDS.apply(s, legal[rng.randrange(len(legal))], rng)


def test_phase_entries_follow_the_fast_path_phase_codes():
    """The batch simulator writes the phase one-hot at the fast path's phase code."""
    assert [F._PHASE_CODE[p] for p in E.REGICIDE_PHASES] == [F.PH_PLAY, F.PH_SUFFER,
                                                             F.PH_CHOOSE, F.PH_WON, F.PH_LOST]
    assert [F.PH_PLAY, F.PH_SUFFER, F.PH_CHOOSE, F.PH_WON, F.PH_LOST] == list(range(5))


def test_a_spectators_view_encodes_from_a_given_seat_without_the_hidden_parts():
    """The public parts of a spectator's view counted from seat k are those of seat k's own
    view; the hand (Regicide) and what the seats know of hands (Ribauds) stay zero."""
    for s in _regicide_positions(3, 4, 40):
        for seat in range(3):
            own = E.regicide_observation(REGICIDE.view(s, seat))
            public = E.regicide_observation(REGICIDE.view(s, None), seat=seat)
            assert not public[E.R_HAND:E.R_ENEMY].any()
            assert np.array_equal(own[E.R_ENEMY:], public[E.R_ENEMY:])
    rng = random.Random(3)
    s = RIBAUDS.new_game({}, rng)
    court_cards = [6 * i + k for i in range(4) for k in range(4)]
    private = court_cards + list(range(24, 28)) + list(range(30, 38))
    for _ in range(150):
        if RIBAUDS.is_terminal(s):
            s = RIBAUDS.new_game({}, rng)
        for seat in (0, 1):
            own = E.ribauds_observation(RIBAUDS.view(s, seat))
            public = E.ribauds_observation(RIBAUDS.view(s, None), seat)
            assert not public[24:28].any() and not public[30:38].any()
            assert np.array_equal(np.delete(own, private), np.delete(public, private))
            assert 0.0 <= public.min() and public.max() <= 1.0
        legal = RIBAUDS.legal_actions(s)
        s, _ = RIBAUDS.apply(s, legal[rng.randrange(len(legal))], rng)
    with pytest.raises(ValueError, match="encoded for that seat only"):
        E.ribauds_observation(RIBAUDS.view(s, 0), seat=1)


def test_layouts_name_every_value_of_the_vectors_once():
    for layout, size in [(E.REGICIDE_LAYOUT, E.REGICIDE_OBS), (E.RIBAUDS_LAYOUT, E.RIBAUDS_OBS)]:
        names = [name for name, _ in layout]
        assert len(set(names)) == len(names)
        assert sum(int(np.prod(shape)) for _, shape in layout) == size
    starts, at = {}, 0
    for name, shape in E.REGICIDE_LAYOUT:
        starts[name] = at
        at += int(np.prod(shape))
    assert [starts[n] for n in ("hand", "slots", "enemy", "stats", "phase", "players",
                                "current", "hand_sizes", "yielded", "can_yield", "castle",
                                "piles", "discard_top", "known", "table", "options",
                                "defeated")] == [
        E.R_HAND, E.R_SLOTS, E.R_ENEMY, E.R_STATS, E.R_PHASE, E.R_PLAYERS, E.R_CURRENT,
        E.R_HAND_SIZES, E.R_YIELDED, E.R_CAN_YIELD, E.R_CASTLE, E.R_PILES, E.R_DISCARD_TOP,
        E.R_KNOWN, E.R_TABLE, E.R_OPTIONS, E.R_DEFEATED]
