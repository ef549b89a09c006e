"""OpenSpiel's ISMCTS playing Regalia's games through the OpenSpiel adapter.

OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``: it
searches over determinizations drawn with the state's ``resample_from_infostate``, which
samples the hidden cards from the seat's view) plays a game of solo Regicide, then a game of
Le Roy des Ribauds against a uniformly random player. Prints each decision and the result.
The C++ ``pyspiel.ISMCTSBot`` cannot play these Python games: pyspiel does not forward
``ResampleFromInfostate`` to Python (README.md, "OpenSpiel"). Usage::

    python examples/openspiel_ismcts.py [--simulations 100] [--seed 1]
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import regalia.adapters.openspiel  # noqa: F401  (registers python_regicide, python_ribauds)


def play(game, bots: dict, seed: int) -> list[float]:
    """One game; ``bots[seat]`` is an ISMCTS bot or ``None`` (uniformly random)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            continue
        seat = state.current_player()
        bot = bots.get(seat)
        legal = state.legal_actions()
        action = bot.step(state) if bot else legal[rng.randrange(len(legal))]
        print(f"  seat {seat} ({'ismcts' if bot else 'random'}): "
              f"{state.action_to_string(seat, action)}")
        state.apply_action(action)
    return state.returns()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--simulations", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    def ismcts_bot(game):
        return ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(args.seed)),
                                2.0, args.simulations, random_state=np.random.RandomState(args.seed))

    regicide = pyspiel.load_game("python_regicide", {"players": 1})
    print("Solo Regicide, OpenSpiel ISMCTS:")
    result = play(regicide, {0: ismcts_bot(regicide)}, args.seed)
    print("won" if result[0] > 0 else "lost")

    ribauds = pyspiel.load_game("python_ribauds")
    print("Le Roy des Ribauds, OpenSpiel ISMCTS (seat 0) against random (seat 1):")
    result = play(ribauds, {0: ismcts_bot(ribauds)}, args.seed)
    print("returns", result)


if __name__ == "__main__":
    main()
