"""Regalia's Ribauds search bot against OpenSpiel's ISMCTS, on ``python_ribauds`` (not a test).

Game ``i`` (from ``--first``) gives Regalia's bot seat ``i % 2`` (seats alternate); chance
is drawn from ``--seed + i``. OpenSpiel's bot is its Python ``ISMCTSBot``
(``open_spiel.python.algorithms.ismcts``: information-set MCTS over determinizations that
it draws with the state's ``resample_from_infostate``, random roll-outs); Regalia's bot is
``ismcts`` (``regalia.bots.ribauds.play.ISMCTSBot``), deciding from the seat's view only. A game
stopped at ``max_game_length`` counts as a draw. Prints the Regalia bot's win rate with a
Wilson 95% interval (draws count as not won), per seat, and the seconds per decision; stops
early at ``--max-seconds`` and says how many games were played. Usage::

    python benchmarks/eval_openspiel_ismcts.py --games 1000 --simulations 100 \
        --regalia-iterations 200 --max-seconds 3600
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import regalia.adapters.openspiel  # noqa: F401  (registers python_ribauds)
from regalia.adapters.encoding import ribauds_action_id
from regalia.bots.ribauds.play import ISMCTSBot as RegaliaISMCTS
from regalia.games.ribauds import RIBAUDS
from regalia.lab.evaluate import wilson


def play(game, seed: int, regalia_seat: int, args, clock: dict[str, list[float]]) -> float:
    """One game; the Regalia bot's utility (+1 won, -1 lost, 0 drawn)."""
    rng = random.Random(seed)
    regalia = RegaliaISMCTS(budget=args.regalia_budget, iterations=args.regalia_iterations)
    openspiel = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)), args.uct_c,
        args.simulations, random_state=np.random.RandomState(seed))
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            continue
        seat = state.current_player()
        start = time.perf_counter()
        if seat == regalia_seat:
            s = state.engine
            code = regalia.act(RIBAUDS.view(s, seat), RIBAUDS.legal_actions(s), rng)
            action = ribauds_action_id(None, code)  # python_ribauds numbers the codes
            clock["regalia"].append(time.perf_counter() - start)
        else:
            action = openspiel.step(state)
            clock["openspiel"].append(time.perf_counter() - start)
        state.apply_action(action)
    return state.returns()[regalia_seat]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0,
                    help="index of the first game (to split a run into shards: --first 500 --games 500)")
    ap.add_argument("--simulations", type=int, default=100, help="OpenSpiel ISMCTS simulations per decision")
    ap.add_argument("--uct-c", type=float, default=2.0, help="OpenSpiel ISMCTS exploration constant")
    ap.add_argument("--regalia-iterations", type=int, default=None,
                    help="Regalia ISMCTS iterations per decision (machine-independent)")
    ap.add_argument("--regalia-budget", type=float, default=0.05, help="Regalia seconds per decision")
    ap.add_argument("--max-seconds", type=float, default=None, help="stop after this much wall time")
    args = ap.parse_args(argv)

    game = pyspiel.load_game("python_ribauds")
    clock: dict[str, list[float]] = {"regalia": [], "openspiel": []}
    results = {0: [], 1: []}
    start = time.perf_counter()
    for i in range(args.first, args.first + args.games):
        if args.max_seconds is not None and time.perf_counter() - start > args.max_seconds:
            break
        seat = i % 2
        results[seat].append(play(game, args.seed + i, seat, args, clock))
        if (i + 1) % 10 == 0:
            done = results[0] + results[1]
            print(f"{len(done)} games: Regalia won {sum(r > 0 for r in done)}", flush=True)
    done = results[0] + results[1]
    n = len(done)
    wins = sum(r > 0 for r in done)
    draws = sum(r == 0 for r in done)
    lo, hi = wilson(wins, n)
    print(f"games: {n} of {args.games} asked ({time.perf_counter() - start:.0f} s)"
          + ("" if n == args.games else " -- stopped early at --max-seconds"))
    print(f"Regalia ismcts won {wins}/{n} = {wins / max(n, 1):.1%}, Wilson 95% {lo:.1%}-{hi:.1%}; "
          f"draws (max_game_length) {draws}")
    for seat in (0, 1):
        r = results[seat]
        w = sum(x > 0 for x in r)
        slo, shi = wilson(w, len(r))
        print(f"  Regalia as seat {seat}: {w}/{len(r)}, Wilson 95% {slo:.1%}-{shi:.1%}")
    for who, times in clock.items():
        if times:
            print(f"  {who}: {sum(times) / len(times):.3f} s/decision over {len(times)} decisions")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
