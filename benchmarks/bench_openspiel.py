"""Random-playout speed of the OpenSpiel adapter (not a test).

For each game, plays whole games through the ``pyspiel`` API for about ``--seconds`` seconds
of this process's CPU time (``time.process_time``, so that the figures stay meaningful on a
shared machine): chance outcomes drawn from ``chance_outcomes()``, decisions uniformly among
``legal_actions()``, all applied with ``apply_action``. Prints steps (chance nodes and
decisions), decisions and games per CPU second; ``--observe`` also builds the acting seat's
information-state tensor at each decision. Usage::

    python benchmarks/bench_openspiel.py --seconds 5 [--observe]
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel

import regalia.adapters.openspiel  # noqa: F401  (registers the games)

GAMES = [("python_regicide", {"players": n}) for n in (1, 2, 3, 4)] + [("python_ribauds", {})]


def rate(name: str, params: dict, seconds: float, observe: bool, seed: int = 1):
    """``(steps, decisions, games)`` per CPU second of random playouts of ``name``."""
    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    steps = decisions = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                n = len(state.chance_outcomes())
                state.apply_action(rng.randrange(n))
            else:
                if observe:
                    state.information_state_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
            steps += 1
        games += 1
    elapsed = time.process_time() - start
    return steps / elapsed, decisions / elapsed, games / elapsed


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--observe", action="store_true",
                    help="also build the information-state tensor at each decision")
    args = ap.parse_args(argv)
    for name, params in GAMES:
        steps, decisions, games = rate(name, params, args.seconds, args.observe)
        label = name + "".join(f" {k}={v}" for k, v in params.items())
        print(f"{label:32s} {steps:9.0f} steps/s  {decisions:8.0f} decisions/s  "
              f"{games:7.1f} games/s  (per CPU second)")


if __name__ == "__main__":
    main()
