"""One encoding for every interface: OpenSpiel's tensors are the shared encoding's vectors
(regalia.adapters.encoding), every value in [0, 1]; Ribauds' action ids are the same in
OpenSpiel and PettingZoo; Regicide's OpenSpiel ids map to the encoding's ids and back."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

import regalia.adapters.openspiel  # noqa: F401  (registers the games)
from regalia.adapters import encoding as E
from regalia.adapters.openspiel import regicide_actions as RA
from regalia.adapters.openspiel.regicide import RegicideObserver
from regalia.adapters.pettingzoo import regicide_env, ribauds_env
from regalia.games.regicide import REGICIDE
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import card_text, cards_of, parse_card
from regalia.games.regicide.state import SUFFER
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds import actions as BA

REGICIDE_PARAMS = [{"players": n} for n in (1, 2, 3, 4)] + [
    {"players": 3, "minimal_discard": True, "jester_choose_self": False}]


def _decisions(game, seed: int, count: int, every: int = 1):
    """``count`` decision states (copies) reached by uniformly random play from new deals,
    one in ``every`` decisions."""
    rng = random.Random(seed)
    out = []
    seen = 0
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            if seen % every == 0:
                out.append(state.clone())
            seen += 1
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    return out


def _public(game):
    return game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


def _check_bounds(*tensors) -> None:
    for t in tensors:
        t = np.asarray(t)
        assert t.dtype in (np.float32, np.float64)
        assert t.min() >= 0.0 and t.max() <= 1.0


@pytest.mark.parametrize("params", REGICIDE_PARAMS)
def test_regicide_observation_tensor_is_the_encodings_vector_for_every_seat(params):
    game = pyspiel.load_game("python_regicide", params)
    assert game.observation_tensor_shape() == [E.REGICIDE_OBS + E.MAX_SLOTS]
    assert game.information_state_tensor_shape() == [E.REGICIDE_OBS + E.MAX_SLOTS + 107]
    public = _public(game)
    picking = 0
    for state in _decisions(game, 40 + params["players"], 60, every=3):
        for seat in range(game.num_players()):
            obs = np.asarray(state.observation_tensor(seat))
            info = np.asarray(state.information_state_tensor(seat))
            view = state.view(seat)
            assert np.array_equal(obs[:E.REGICIDE_OBS], E.regicide_observation(view))
            assert np.array_equal(info[:obs.size], obs)
            picked = obs[E.REGICIDE_OBS:]
            if seat == state.current_player() and state.picked:
                picking += 1
                assert picked.sum() == state.picked.bit_count()
            else:
                assert not picked.any()
            public.set_from(state, seat)
            spectator = E.regicide_observation(state.view(None), seat=seat)
            assert np.array_equal(public.tensor[:E.REGICIDE_OBS], spectator)
            assert not public.tensor[E.R_HAND:E.R_ENEMY].any()  # no hand seen
            _check_bounds(obs, info, public.tensor)
    assert picking > 0 or params["players"] == 1


def test_ribauds_observation_tensor_is_the_encodings_vector_for_both_seats():
    game = pyspiel.load_game("python_ribauds")
    assert game.observation_tensor_shape() == [E.RIBAUDS_OBS]
    assert game.information_state_tensor_shape() == [E.RIBAUDS_OBS + 9]
    public = _public(game)
    for state in _decisions(game, 7, 150, every=2):
        for seat in (0, 1):
            obs = np.asarray(state.observation_tensor(seat))
            info = np.asarray(state.information_state_tensor(seat))
            assert np.array_equal(obs, E.ribauds_observation(state.view(seat)))
            assert np.array_equal(info[:obs.size], obs)
            assert info[-1] == pytest.approx(state.moves / game.max_game_length())
            public.set_from(state, seat)
            assert np.array_equal(public.tensor, E.ribauds_observation(state.view(None), seat))
            _check_bounds(obs, info, public.tensor)


@pytest.mark.parametrize("name,params", [("python_regicide", {"players": 2}),
                                         ("python_ribauds", {})])
def test_every_tensor_value_stays_in_bounds_to_the_end_of_whole_games(name, params):
    game = pyspiel.load_game(name, params)
    rng = random.Random(9)
    for _ in range(4):
        state = game.new_initial_state()
        while True:
            for seat in range(game.num_players()):
                _check_bounds(state.observation_tensor(seat),
                              state.information_state_tensor(seat))
            if state.is_terminal():
                break
            legal = (state.legal_actions() if not state.is_chance_node()
                     else [a for a, _ in state.chance_outcomes()])
            state.apply_action(legal[rng.randrange(len(legal))])


def test_observer_pieces_follow_the_encodings_layout():
    for game, layout, extra in [
            (pyspiel.load_game("python_regicide", {"players": 2}), E.REGICIDE_LAYOUT,
             [("picked", (8,))]),
            (pyspiel.load_game("python_ribauds"), E.RIBAUDS_LAYOUT, [])]:
        observer = game.make_py_observer()
        assert [(k, v.shape) for k, v in observer.dict.items()] == list(layout) + extra


def test_regicide_picked_slots_show_the_cards_picked_so_far():
    game = pyspiel.load_game("python_regicide", {"players": 2})
    for state in _decisions(game, 12, 400):
        if state.picked and state.engine.phase == SUFFER:
            seat = state.current_player()
            obs = np.asarray(state.observation_tensor(seat))
            hand = state.view(seat)["hand"]
            picked = [hand[i] for i in np.flatnonzero(obs[E.REGICIDE_OBS:])]
            assert picked == state.view(seat)["picked"]
            return
    pytest.fail("no discard being picked in the positions played")


def _move_sequences(state) -> list[list[int]]:
    """Every legal move of the seat to act as OpenSpiel ids: one id, or a discard's picks
    and ``DISCARD_DONE`` (each discard walked from an empty pick)."""
    out = []

    def walk(s, prefix):
        for a in s.legal_actions():
            if RA.PICK <= a <= RA.DISCARD_DONE:
                if a == RA.DISCARD_DONE:
                    out.append(prefix + [a])
                else:
                    t = s.clone()
                    t.apply_action(a)
                    walk(t, prefix + [a])
            else:
                out.append(prefix + [a])

    walk(state, [])
    return out


@pytest.mark.parametrize("params", REGICIDE_PARAMS)
def test_regicide_openspiel_moves_and_encoding_ids_map_both_ways(params):
    """Each legal move, as OpenSpiel ids, maps to the encoding id of the same engine action
    and back; together they are exactly the PettingZoo environment's legal ids."""
    game = pyspiel.load_game("python_regicide", params)
    env = regicide_env(**params)
    moves = discards = 0
    for state in _decisions(game, params["players"], 80, every=2):
        if state.picked:
            continue  # a discard half picked: its moves start before this state
        seat = state.current_player()
        view = state.view(seat)
        s = state.engine
        legal = E.legal_ids(view, REGICIDE.legal_actions(s), E.regicide_action_id)
        hand = s.hands[s.current]
        mapped = {}
        for seq in _move_sequences(state):
            i = RA.to_encoding_id(view, seq)
            assert i not in mapped
            mapped[i] = seq
            assert RA.from_encoding_id(view, i) == seq
            code = legal[i]  # the id of a legal move is a legal id ...
            if seq[-1] == RA.DISCARD_DONE:  # ... of the same engine action
                discards += 1
                t = state.clone()
                for a in seq[:-1]:
                    t.apply_action(a)
                assert A.kind(code) == A.DISCARD
                assert ([card_text(c) for c in cards_of(t.picked)]
                        == [card_text(c) for c in cards_of(code & A.ARG_MASK)])
            else:
                assert RA.turn_code(seq[0], hand) == code
            moves += 1
        assert set(mapped) == set(legal)
        for i in legal:
            assert RA.to_encoding_id(view, RA.from_encoding_id(view, i)) == i
        env.reset(options={"state": s})
        mask = env.observe(env.possible_agents[seat])["action_mask"]
        assert set(np.flatnonzero(mask)) == set(mapped)
    assert moves > 200 and (discards > 20 or params["players"] == 1)


def test_ribauds_action_ids_and_observations_are_the_same_in_openspiel_and_pettingzoo():
    game = pyspiel.load_game("python_ribauds")
    assert game.num_distinct_actions() == E.RIBAUDS_ACTIONS
    env = ribauds_env()
    for state in _decisions(game, 5, 120, every=3):
        seat = state.current_player()
        s = state.engine
        codes = RIBAUDS.legal_actions(s)
        assert state.legal_actions() == sorted(E.ribauds_action_id(None, c) for c in codes)
        for a in state.legal_actions():
            assert state.action_to_string(seat, a) == BA.to_text(E.ribauds_code(a))
        env.reset(options={"state": s})
        out = env.observe(env.possible_agents[seat])
        assert list(np.flatnonzero(out["action_mask"])) == state.legal_actions()
        assert np.array_equal(out["observation"], state.observation_tensor(seat))


def test_regicide_id_mapping_refuses_what_is_not_one_move():
    game = pyspiel.load_game("python_regicide", {"players": 2})
    state = _decisions(game, 1, 1)[0]
    with pytest.raises(ValueError, match="spectator"):
        RA.to_encoding_id(state.view(None), [RA.YIELD])
    with pytest.raises(ValueError, match="spectator"):
        RA.from_encoding_id(state.view(None), E.YIELD_ID)
    view = dict(state.view(state.current_player()), hand=["AC", "5C", "9D", "X"])
    pick = {t: RA.PICK + min(parse_card(t), 52) for t in ("AC", "5C", "9D", "X", "KS")}
    # what maps: the Animal Companion pair, a discard, a choice (slots 0 and 2: AC and 9D)
    assert RA.to_encoding_id(view, RA.from_encoding_id(view, E.PLAY_IDS + 0b0101 - 1)) == 4
    assert RA.from_encoding_id(view, E.DISCARD_IDS + 0b1010 - 1) == [
        pick["5C"], pick["X"], RA.DISCARD_DONE]
    assert RA.to_encoding_id(view, [pick["5C"], pick["X"], RA.DISCARD_DONE]) == 264
    seat = view["seat"]
    assert RA.from_encoding_id(view, E.CHOOSE_IDS + 1) == [RA.CHOOSE + (seat + 1) % 2]
    with pytest.raises(ValueError, match="not a Regicide OpenSpiel action id"):
        RA.to_encoding_id(view, [RA.NUM_ACTIONS])
    with pytest.raises(ValueError, match="no OpenSpiel id"):
        RA.to_encoding_id(view, [])
    with pytest.raises(ValueError, match="not one move"):
        RA.to_encoding_id(view, [RA.YIELD, RA.YIELD])
    with pytest.raises(ValueError, match="not one move"):
        RA.to_encoding_id(view, [pick["5C"]])
    with pytest.raises(ValueError, match="only picks"):
        RA.to_encoding_id(view, [RA.YIELD, RA.DISCARD_DONE])
    with pytest.raises(ValueError, match="ascending"):
        RA.to_encoding_id(view, [pick["9D"], pick["5C"], RA.DISCARD_DONE])
    with pytest.raises(ValueError, match="ascending"):
        RA.to_encoding_id(view, [pick["5C"], pick["5C"], RA.DISCARD_DONE])
    with pytest.raises(ValueError, match="not in the hand"):
        RA.to_encoding_id(view, [pick["KS"], RA.DISCARD_DONE])
    with pytest.raises(ValueError, match="no Jester left"):
        RA.to_encoding_id(view, [pick["X"], pick["X"], RA.DISCARD_DONE])
    with pytest.raises(ValueError, match="not in the hand"):
        RA.to_encoding_id(view, [RA.PLAYS.index(1 << parse_card("KS"))])
    with pytest.raises(ValueError, match="2 players"):
        RA.to_encoding_id(view, [RA.CHOOSE + 3])
    with pytest.raises(ValueError, match="not a Regicide encoding id"):
        RA.from_encoding_id(view, E.REGICIDE_ACTIONS)
    with pytest.raises(ValueError, match="2 players"):
        RA.from_encoding_id(view, E.CHOOSE_IDS + 2)
    with pytest.raises(ValueError, match="past the hand"):
        RA.from_encoding_id(view, E.PLAY_IDS + 0b10000 - 1)
    with pytest.raises(ValueError, match="no play shape"):
        RA.from_encoding_id(view, E.PLAY_IDS + 0b0110 - 1)  # 5C and 9D
    with pytest.raises(ValueError, match="no play shape"):
        RA.from_encoding_id(view, E.PLAY_IDS + 0b1010 - 1)  # 5C and a Jester


def test_regicide_observer_caps_history_counts_into_the_unit_interval():
    game = pyspiel.load_game("python_regicide", {"players": 1})
    observer = RegicideObserver(game, pyspiel.IIGObservationType(perfect_recall=True))
    state = _decisions(game, 3, 1)[0]
    view = state.view(0)
    view["log"] = [{"kind": "play", "cards": ["5C"]}] * 9 + [{"kind": "heal"}] * 30
    observer.tensor.fill(0)
    observer.fill_history(state, view, 0)
    assert observer.dict["played"][16] == 1.0 and observer.dict["heals"][0] == 1.0
    view["log"] = [{"kind": "play", "cards": ["5C"]}] + [{"kind": "heal"}] * 3
    observer.fill_history(state, view, 0)
    assert observer.dict["played"][16] == 0.25 and observer.dict["heals"][0] == 0.25
