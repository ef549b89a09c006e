"""OpenSpiel's C++ algorithms on the Python games, as README.md ("OpenSpiel") describes them.

pyspiel's trampoline for Python states (``PyState``, open_spiel/python/pybind11/
python_games.h) forwards to Python only the methods it overrides, and
``ResampleFromInfostate`` is not among them: a C++ caller reaches ``State::
ResampleFromInfostate`` (spiel.cc), which raises for imperfect-information games, never the
games' Python ``resample_from_infostate``. ``ISMCTSBot::SetResampler``, the C++ bot's hook
for another resampler, is not bound in pyspiel. So the C++ ``ISMCTSBot`` searches no decision
with two or more legal actions, while Python's ISMCTS (test_openspiel.py) plays. The C++
bots' ``step`` releases the GIL before calling the Python state and crashes the process;
``step_with_policy`` / ``get_policy`` (ISMCTS) and ``mcts_search`` (MCTS) keep it.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pyspiel
import pytest

import regalia.adapters.openspiel  # noqa: F401  (registers the games)

GAMES = [("python_regicide", {"players": 2}), ("python_ribauds", {})]
NOT_IMPLEMENTED = r"ResampleFromInfostate\(\) not implemented"


def _decision(game, seed: int, legal_count=lambda n: n >= 2):
    """A decision reached by random play whose number of legal actions passes
    ``legal_count``."""
    rng = random.Random(seed)
    for _ in range(50):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            legal = state.legal_actions()
            if legal_count(len(legal)) and len(state.history()) > 40:
                return state
            state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError("no such decision in 50 random games")


def _ismcts(seed: int = 1):
    return pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, 20, -1,
                             pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT)


@pytest.mark.parametrize("name,params", GAMES)
def test_cpp_ismcts_cannot_reach_the_python_resample_from_infostate(name, params):
    game = pyspiel.load_game(name, params)
    state = _decision(game, 3)
    me = state.current_player()
    # the games' Python method samples a world the seat cannot tell from this one ...
    sample = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(1, 1.0))
    assert sample.information_state_string(me) == state.information_state_string(me)
    # ... but the C++ method that C++ callers reach is State's own
    with pytest.raises(pyspiel.SpielError, match=NOT_IMPLEMENTED):
        pyspiel.State.resample_from_infostate(state, me, lambda: 0.5)
    with pytest.raises(pyspiel.SpielError, match=NOT_IMPLEMENTED):
        _ismcts().step_with_policy(state)
    with pytest.raises(pyspiel.SpielError, match=NOT_IMPLEMENTED):
        pyspiel.evaluate_bots(state.clone(), [_ismcts(), _ismcts(2)], 1)


@pytest.mark.parametrize("name,params", GAMES)
def test_cpp_ismcts_answers_a_forced_move_without_searching(name, params):
    game = pyspiel.load_game(name, params)
    state = _decision(game, 0, lambda n: n == 1)
    policy, action = _ismcts().step_with_policy(state)
    assert policy == [(state.legal_actions()[0], 1.0)] and action == state.legal_actions()[0]


@pytest.mark.parametrize("name,params", GAMES)
def test_cpp_mcts_search_and_outcome_sampling_mccfr_run(name, params):
    game = pyspiel.load_game(name, params)
    state = _decision(game, 5)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, 10, 100, False, 1,
                          False)
    assert bot.mcts_search(state).best_child().action in state.legal_actions()
    solver = pyspiel.OutcomeSamplingMCCFRSolver(game, 0.6, 1)
    for _ in range(3):
        solver.run_iteration()
    bots = [pyspiel.make_uniform_random_bot(p, p + 1) for p in range(game.num_players())]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 1)
    assert len(returns) == game.num_players()


def test_cpp_bot_step_crashes_the_process_on_a_python_game():
    """``MCTSBot.step`` releases the GIL (bots.cc: ``py::call_guard<py::gil_scoped_release>``)
    and then calls the Python state: the process dies. Run apart, in a child process."""
    code = (
        "import random, pyspiel\n"
        "import regalia.adapters.openspiel\n"
        "game = pyspiel.load_game('python_ribauds')\n"
        "state = game.new_initial_state()\n"
        "rng = random.Random(1)\n"
        "while state.is_chance_node():\n"
        "    state.apply_action(rng.choice(state.chance_outcomes())[0])\n"
        "bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, 5, 10, False,"
        " 1, False)\n"
        "bot.step(state)\n"
        "print('stepped')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "stepped" not in done.stdout
