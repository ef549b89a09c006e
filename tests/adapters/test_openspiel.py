"""The OpenSpiel adapter: registration, GameType and GameInfo, OpenSpiel's
own checker, explicit chance, the fixed Regicide action encoding, information hiding and
OpenSpiel's ISMCTS running on both games."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pyspiel  # the test extra brings open-spiel, so the checker always runs
import pytest

import regalia.adapters.openspiel  # noqa: F401  (registers the games)
from regalia.adapters import encoding as E
from regalia.adapters.openspiel import regicide_actions as RA
from regalia.adapters.openspiel.regicide import RegicideState
from regalia.adapters.openspiel.ribauds import RibaudsState
from regalia.games.regicide import REGICIDE
from regalia.games.regicide import actions as A
from regalia.games.regicide.rules import discard_options, legal_actions
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds.state import UNKNOWN

REGICIDE_PARAMS = [{"players": n} for n in (1, 2, 3, 4)] + [
    {"players": 2, "minimal_discard": True, "jester_choose_self": False, "first_player": 1},
    {"players": 4, "minimal_discard": True},
]
RIBAUDS_PARAMS = [{}, {"replaced_card": "discard", "first_player": 0}]
ALL = [("python_regicide", p) for p in REGICIDE_PARAMS] + [("python_ribauds", p)
                                                            for p in RIBAUDS_PARAMS]


def play_randomly(state, rng: random.Random, stop=lambda s: False):
    """Play chance and player actions uniformly at random until the end or ``stop(state)``."""
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    return state


@pytest.mark.parametrize("name,params", ALL)
def test_openspiel_random_sim_test_passes_with_serialization(name, params):
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_types_are_sequential_stochastic_imperfect_with_terminal_rewards():
    regicide = pyspiel.load_game("python_regicide", {"players": 3}).get_type()
    ribauds = pyspiel.load_game("python_ribauds").get_type()
    for t in (regicide, ribauds):
        assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert regicide.utility == pyspiel.GameType.Utility.IDENTICAL
    assert ribauds.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (regicide.min_num_players, regicide.max_num_players) == (1, 4)


@pytest.mark.parametrize("name,params", ALL)
def test_game_info_bounds_hold_over_random_games(name, params):
    game = pyspiel.load_game(name, params)
    rng = random.Random(11)
    for _ in range(3):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert 2 <= len(outcomes) <= game.max_chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                assert legal and all(0 <= a < game.num_distinct_actions() for a in legal)
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        assert decisions <= game.max_game_length()
        returns = state.returns()
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        if name == "python_regicide":
            assert len(set(returns)) == 1
        else:
            assert sum(returns) == 0


class _Recording(random.Random):
    """A ``random.Random`` noting each of its ``_randbelow`` draws among 2 or more."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.draws: list[int] = []

    def _randbelow(self, n: int) -> int:
        j = super()._randbelow(n)
        if n > 1:
            self.draws.append(j)
        return j


@pytest.mark.parametrize("name,players,engine", [("python_regicide", 1, REGICIDE),
                                                  ("python_regicide", 4, REGICIDE),
                                                  ("python_ribauds", 2, RIBAUDS)])
def test_setup_chance_nodes_deal_as_the_engine_does_with_the_same_draws(name, players, engine):
    for seed in range(5):
        rng = _Recording(seed)
        expected = engine.new_game({"players": players}, rng)
        state = pyspiel.load_game(name, {"players": players}).new_initial_state()
        for j in rng.draws:
            assert state.is_chance_node()
            state.apply_action(j)
        assert not state.is_chance_node()
        assert engine.to_json(state.engine) == engine.to_json(expected)
        # one card per chance node: the setup of Regicide is 3 + 3 + 3 + (tavern - 1) draws
        if name == "python_regicide":
            tavern = 40 + {1: 0, 2: 0, 3: 1, 4: 2}[players]
            assert len(rng.draws) == 9 + tavern - 1 + (1 if players > 1 else 0)


def _regicide_at(rng, params, stop):
    game = pyspiel.load_game("python_regicide", params)
    for _ in range(200):
        state = play_randomly(game.new_initial_state(), rng, stop)
        if not state.is_terminal():
            return state
    raise AssertionError("no random game reached the position wanted")


def test_rules_1_6_hearts_heal_draws_the_discard_pile_one_card_per_chance_node():
    rng = random.Random(5)
    # after the setup, a Regicide chance node is a Hearts heal: a shuffle of the discard pile
    state = _regicide_at(rng, {"players": 2},
                         lambda s: s.is_chance_node() and s.engine is not None)
    before = state.engine
    drawn = []
    while state.is_chance_node():
        assert len(state.chance_outcomes()) == len(before.discard) - len(drawn)
        j = rng.randrange(len(state.chance_outcomes()))
        drawn.append(state.driver.drawn_card(j))
        state.apply_action(j)
    assert len(drawn) == len(before.discard) - 1  # the Fisher-Yates draws, top card first
    heal = next(e for e in reversed(_events(state.engine)) if e.kind == "heal")
    n = heal.data["count"]
    # draw k placed its card k places from the top of the shuffled pile; the top n go under
    order = [c for c in before.discard if c not in drawn] + drawn[::-1]
    assert state.engine.tavern[:n] == order[len(order) - n:]


def _events(s):
    from regalia.core.game import log_events
    return log_events(s.log)


def test_regicide_encoding_has_every_play_shape_once():
    assert len(RA.PLAYS) == len(set(RA.PLAYS)) == 53 + 198 + 33
    assert RA.NUM_ACTIONS == 344
    texts = {RA.to_text(a) for a in range(RA.NUM_ACTIONS)}
    assert len(texts) == RA.NUM_ACTIONS


@pytest.mark.parametrize("hand_text,attack,minimal", [
    ("AC 5D 9H KS X X", 12, False),
    ("2C 3C 4D 7S 8H TD JC QS", 15, False),
    ("2C 3C 4D 7S 8H TD JC QS", 15, True),
    ("AH X", 1, False),
])
def test_rules_1_8_picking_card_by_card_reaches_exactly_the_legal_discards(hand_text, attack,
                                                                           minimal):
    hand = A.from_text("play " + hand_text, lambda _: (1 << 52) | (1 << 53)) & A.ARG_MASK
    legal = {m & A.ARG_MASK for m in discard_options(hand, attack, minimal, A.DISCARD)}
    reached = set()

    def walk(picked):
        for a in RA.pick_ids([A.DISCARD | m for m in legal], picked, hand):
            if a == RA.DISCARD_DONE:
                assert picked not in reached  # one sequence per discard
                reached.add(picked)
            else:
                c = RA.pick_card(a, hand, picked)
                assert hand >> c & 1 and not picked >> c & 1
                walk(picked | 1 << c)

    walk(0)
    assert reached == legal


def test_regicide_turn_ids_round_trip_the_engine_codes():
    rng = random.Random(3)
    game = pyspiel.load_game("python_regicide", {"players": 3})
    seen = 0
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node() or state.engine.phase == "suffer":
                play_randomly(state, rng, lambda s: not s.is_chance_node()
                              and s.engine.phase != "suffer")
                continue
            s = state.engine
            codes = legal_actions(s)
            ids = [RA.turn_id(c) for c in codes]
            assert sorted(set(ids)) == state.legal_actions()
            for c, a in zip(codes, ids):
                assert RA.turn_code(a, s.hands[s.current]) == c
                seen += 1
            state.apply_action(state.legal_actions()[rng.randrange(len(ids))])
    assert seen > 100


def _same_for(state_a, state_b, seat):
    return (state_a.information_state_string(seat) == state_b.information_state_string(seat)
            and state_a.observation_string(seat) == state_b.observation_string(seat)
            and np.array_equal(state_a.information_state_tensor(seat),
                               state_b.information_state_tensor(seat))
            and np.array_equal(state_a.observation_tensor(seat), state_b.observation_tensor(seat)))


def test_rules_1_15_regicide_cards_hidden_from_a_seat_do_not_change_its_information():
    rng = random.Random(8)
    state = _regicide_at(rng, {"players": 3}, lambda s: not s.is_chance_node()
                         and len(s.history()) > 90 and s.engine.phase == "play")
    s = state.engine
    me = s.current
    other = (me + 1) % 3
    t = s.copy()
    # swap a card of another seat's hand with a hidden Tavern card
    mine = [c for c in range(54) if t.hands[other] >> c & 1]
    hidden = len(t.tavern) - t.known_top
    j = next(i for i in range(hidden) if t.tavern[i] not in mine)
    c = mine[0]
    t.hands[other] = t.hands[other] & ~(1 << c) | 1 << t.tavern[j]
    t.tavern[j] = c
    twin = RegicideState(state.get_game(), t, deal=False)
    assert REGICIDE.to_json(t) != REGICIDE.to_json(s)
    assert _same_for(state, twin, me)
    assert _same_for(state, twin, (me + 2) % 3)
    assert not _same_for(state, twin, other)  # the seat holding the card sees it


def test_rules_2_7_ribauds_face_down_court_cards_hidden_from_a_seat_do_not_change_its_information():
    rng = random.Random(4)
    game = pyspiel.load_game("python_ribauds")
    for _ in range(100):
        state = play_randomly(game.new_initial_state(), rng,
                              lambda s: not s.is_chance_node() and len(s.history()) > 30)
        if state.is_terminal():
            continue
        s = state.engine
        for me in (0, 1):
            slots = [i for i in range(4) if not s.up >> i & 1 and s.know[me][i] == UNKNOWN]
            deck = [k for k, c in enumerate(s.deck) if slots and c != s.court[slots[0]]]
            if slots and deck and len(s.deck) > s.bottom_reines:
                i, k = slots[0], deck[-1]
                if k < s.bottom_reines:
                    continue
                t = s.copy()
                t.court[i], t.deck[k] = t.deck[k], t.court[i]
                opp = 1 - me
                t.know[opp][i] = t.court[i] if t.know[opp][i] != UNKNOWN else UNKNOWN
                twin = RibaudsState(game, t, deal=False)
                twin.moves = state.moves  # the public decision count (the draw clock)
                assert RIBAUDS.to_json(t) != RIBAUDS.to_json(s)
                assert _same_for(state, twin, me)
                return
    raise AssertionError("no position with a face-down Court card hidden from a seat")


@pytest.mark.parametrize("name,params", [("python_regicide", {"players": 2}),
                                         ("python_ribauds", {})])
def test_resampled_states_keep_the_information_state_and_hide_the_rest(name, params):
    rng = random.Random(2)
    game = pyspiel.load_game(name, params)
    state = play_randomly(game.new_initial_state(), rng,
                          lambda s: not s.is_chance_node() and len(s.history()) > 60)
    me = state.current_player()
    differ = 0
    for k in range(10):
        sample = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(k, 1.0))
        assert sample.information_state_string(me) == state.information_state_string(me)
        assert sample.information_state_tensor(me) == state.information_state_tensor(me)
        assert sample.observation_tensor(me) == state.observation_tensor(me)
        assert sample.legal_actions() == state.legal_actions()
        differ += str(sample) != str(state)
    assert differ > 0


def test_bad_parameters_are_refused_saying_what_is_allowed():
    with pytest.raises(Exception, match="1 to 4 players"):
        pyspiel.load_game("python_regicide", {"players": 5})
    with pytest.raises(Exception, match="solo_yield"):
        pyspiel.load_game("python_regicide", {"players": 1, "solo_yield": True})
    with pytest.raises(Exception, match="'hand' or 'discard'"):
        pyspiel.load_game("python_ribauds", {"replaced_card": "deck"})


def test_a_ribauds_game_reaching_max_game_length_is_a_draw():
    game = pyspiel.load_game("python_ribauds", {"max_game_length": 3})
    state = play_randomly(game.new_initial_state(), random.Random(1))
    assert state.is_terminal() and state.returns() in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])
    assert state.move_number() <= len(state.history())
    assert state.moves <= 3


def test_illegal_action_is_refused_and_changes_nothing():
    state = play_randomly(pyspiel.load_game("python_ribauds").new_initial_state(),
                          random.Random(1), lambda s: not s.is_chance_node())
    before, history = str(state), state.history()
    bad = next(a for a in range(E.RIBAUDS_ACTIONS) if a not in state.legal_actions())
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(bad)
    assert str(state) == before and state.history() == history
    dealing = pyspiel.load_game("python_ribauds").new_initial_state()
    with pytest.raises(Exception, match="not among the 16"):
        dealing.apply_action(16)
    assert dealing.history() == [] and len(dealing.chance_outcomes()) == 16


def test_importing_without_open_spiel_names_the_extra_to_install():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "try:\n import regalia.adapters.openspiel\n"
            "except ImportError as e: print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60).stdout
    assert "pip install -e '.[research]'" in out


@pytest.mark.parametrize("name,params", [("python_regicide", {"players": 1}),
                                         ("python_ribauds", {})])
def test_openspiel_ismcts_plays_the_games(name, params):
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(name, params)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)), 2.0,
                           10, random_state=np.random.RandomState(1))
    rng = random.Random(1)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < 4:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            action = bot.step(state)  # asserts its samples share the root's information state
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
    assert decisions == 4 or state.is_terminal()


@pytest.mark.parametrize("name,params", [("python_regicide", {"players": 3}),
                                         ("python_ribauds", {})])
def test_public_observer_shows_every_seat_the_same_and_no_hand(name, params):
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(name, params)
    state = play_randomly(game.new_initial_state(), random.Random(6),
                          lambda s: not s.is_chance_node() and len(s.history()) > 70)
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    strings = {public.string_from(state, p) for p in range(game.num_players())}
    assert len(strings) == 1
    private = {state.observation_string(p) for p in range(game.num_players())}
    assert len(private) == game.num_players()  # each seat's own observation shows its hand
    assert '"hand":null' in strings.pop() or '"hand"' not in public.string_from(state, 0)


def _adapter_ids(name, code):
    """The adapter's decision ids for the engine action ``code``."""
    if name == "python_ribauds":
        return [E.ribauds_action_id(None, code)]
    if A.kind(code) != A.DISCARD:
        return [RA.turn_id(code)]
    return [RA.PICK + min(c, 52) for c in range(54) if code >> c & 1] + [RA.DISCARD_DONE]


@pytest.mark.parametrize("name,params,engine", [
    ("python_regicide", {"players": 1}, REGICIDE), ("python_regicide", {"players": 2}, REGICIDE),
    ("python_regicide", {"players": 4}, REGICIDE), ("python_ribauds", {}, RIBAUDS)])
def test_whole_games_match_the_engine_given_the_same_draws_and_actions(name, params, engine):
    game = pyspiel.load_game(name, params)
    config = {"players": params.get("players", 2)}
    for seed in range(6):
        rng = _Recording(seed)  # the engine's draws, fed to the adapter's chance nodes
        choose = random.Random(seed)
        s = engine.new_game(config, rng)
        state = game.new_initial_state()
        fed = 0
        while True:
            while state.is_chance_node():  # the draws the engine made so far
                state.apply_action(rng.draws[fed])
                fed += 1
            assert fed == len(rng.draws)
            assert engine.to_json(state.engine) == engine.to_json(s)
            assert state.is_terminal() == engine.is_terminal(s)
            if engine.is_terminal(s):
                break
            legal = engine.legal_actions(s)
            code = legal[choose.randrange(len(legal))]
            for a in _adapter_ids(name, code):
                state.apply_action(a)
            s, _ = engine.apply(s, code, rng)
        assert state.returns() == [engine.returns(s)[0] if name == "python_regicide"
                                   else (1.0 if engine.returns(s)[p] else -1.0)
                                   for p in range(game.num_players())]
