"""A low-noise measure of ``MonteCarloBot``'s decisions at a fixed number of sampled
positions: their regret against reference values, on positions of four-player games (or
of another player count: ``collect ... players=N``).

Win rates over 100-150 deals cannot tell apart two settings closer than about 10 points
(two runs of one bot on the same 150 deals disagree on a third of them: the bots' random
sources differ). This script instead collects decision positions of games on the tuning
deal set (``benchmarks/deals/regicide_tuning.json`` from its 301st deal on, apart from the
published deals), values every candidate of each position on ``REFERENCE`` sampled
positions by the same rollouts (no pruning, up to 24 candidates) and then measures, for a
setting, the mean of (best reference value - reference value of the action the bot
chooses), over every position and ``REPEATS`` random sources. It measures how well a setting
spends its samples, not the beliefs or the rollout policy (the reference shares them). Usage::

    python benchmarks/montecarlo_regret.py collect 150 /tmp/regret.pkl [players=4]
    python benchmarks/montecarlo_regret.py eval /tmp/regret.pkl [KEY=VALUE ...]

e.g. ``eval /tmp/regret.pkl min_worlds=1000000`` (no pruning) or ``candidates=16``;
``iterations`` defaults to 128. Results: ``benchmarks/results/regicide4p_montecarlo_regret.txt``.
"""

from __future__ import annotations

import ast
import pickle
import random
import sys
import time
from pathlib import Path

import numpy as np

from regalia.bots.regicide import policy as P
from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.montecarlo import MonteCarloBot, policy_candidates
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A
from regalia.lab.deals import load_deals

DEALS = Path(__file__).with_name("deals") / "regicide_tuning.json"
REFERENCE = 1024
REPEATS = 4


def collect(n: int, players: int = 4) -> list[tuple[dict, list[int]]]:
    """Every fourth decision with two legal actions or more, of games played by
    ``montecarlo`` at 16 positions per decision, until ``n``."""
    out: list[tuple[dict, list[int]]] = []
    rng = random.Random(1)
    for seed in load_deals("regicide", players, DEALS)[300:]:
        m = Match(G, {"players": players}, seed)
        bots = [MonteCarloBot(iterations=16) for _ in range(players)]
        k = 0
        while not G.is_terminal(m.state):
            s = m.state
            seat = s.current
            if s.phase == "choose":
                for q in range(players):
                    if q != seat:
                        w = bots[q].wish(G.view(s, q), rng)
                        if w in ("yes", "no") and m.state.preferences[q] != w:
                            m.play(A.prefer(q, w == "yes"))
                s = m.state
            v, legal = G.view(s, seat), G.legal_actions(s)
            if len(legal) > 1:
                k += 1
                if k % 4 == 0:
                    out.append((v, legal))
            m.play(bots[seat].act(v, legal, rng))
        if len(out) >= n:
            break
    return out[:n]


def reference(view: dict, legal: list[int], worlds: int = REFERENCE) -> dict[int, float]:
    """Mean rollout value of each candidate (up to 24) on ``worlds`` sampled positions."""
    rng = random.Random(0)
    kn = Knowledge.from_view(view)
    w = P.weights_for(view["players"])
    wishes = view["players"] > 1
    cands = policy_candidates(kn.sample_array(rng, wishes), legal, w, 24)
    ws = kn.sample_arrays(rng, worlds, wishes)
    seeds = np.array([rng.getrandbits(64) | 1 for _ in range(worlds)], dtype=np.uint64)
    out = np.zeros((worlds, len(cands)))
    P.evaluate_actions(ws, cands.copy(), len(cands), seeds, w, out, 0.0)
    return {int(a): float(x) for a, x in zip(cands, out.mean(axis=0))}


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("collect", "eval") \
            or (sys.argv[1] == "collect" and len(sys.argv) < 4):
        raise SystemExit(__doc__)
    if sys.argv[1] == "collect":
        players = int(sys.argv[4].split("=", 1)[1]) if len(sys.argv) > 4 else 4
        positions = collect(int(sys.argv[2]), players)
        refs = [reference(v, legal) for v, legal in positions]
        Path(sys.argv[3]).write_bytes(pickle.dumps((positions, refs)))
        return
    positions, refs = pickle.loads(Path(sys.argv[2]).read_bytes())
    kw: dict = {"iterations": 128}
    for a in sys.argv[3:]:
        k, v = a.split("=", 1)
        kw[k] = ast.literal_eval(v)
    regret = []
    t0 = time.process_time()
    for j, ((v, legal), ref) in enumerate(zip(positions, refs)):
        best, worst = max(ref.values()), min(ref.values())
        for r in range(REPEATS):
            a = MonteCarloBot(**kw).act(v, legal, random.Random(1000 * r + j))
            regret.append(best - ref.get(int(a), worst))
    x = np.array(regret)
    print(f"{kw}: regret {x.mean():.5f} (se {x.std() / np.sqrt(len(x)):.5f}), "
          f"P(regret > 0.01) {(x > 0.01).mean():.3f}, "
          f"{(time.process_time() - t0) / len(x):.4f} s/decision (process time), "
          f"{len(positions)} positions x {REPEATS}")


if __name__ == "__main__":
    main()
