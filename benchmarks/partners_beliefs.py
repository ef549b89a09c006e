"""A diagnostic, not a bot: how much the partners' logged decisions tell about their hands
(``regalia.bots.regicide.partners``). It reads hidden cards, so it is never offered to play.

Plays Regicide games with ``MonteCarloBot`` in every seat (``POSITIONS`` per decision, the
given ``policy_lean``, no partners' model, so that the games do not depend on what is
measured) and, at each decision with partner decisions to read, samples ``SAMPLES``
positions from the seat's knowledge and reports, averaged over those decisions:

* the share of the partners' true cards that a sampled partner hand holds, for plain samples
  and for samples weighted by the likelihood of the partners' decisions at each temperature;
* the mean absolute error of the partners' hand values (summed over partners), likewise;
* the effective sample size of the weights (how many of the ``SAMPLES`` count).

Usage::

    python benchmarks/partners_beliefs.py GAMES PLAYERS TAUS [EPS] [LEAN]

e.g. ``python benchmarks/partners_beliefs.py 20 4 1,3,8 0.2 0.05`` (TAUS comma separated;
EPS, the uniform share, default 0.2; LEAN, the playing bots' ``policy_lean``, default 0).
The deals are the reference engine's seeds 1000, 1001, ...
"""

from __future__ import annotations

import random
import sys

import numpy as np

from regalia.bots.regicide import partners as R
from regalia.bots.regicide import policy as P
from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.montecarlo import MonteCarloBot
from regalia.core.records import Match
from regalia.fast import regicide as F
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A

POSITIONS = 64
SAMPLES = 256


def measure(view, true: np.ndarray, taus, eps: float, rng: random.Random, w, acc) -> None:
    """Add one decision's figures to ``acc`` (per temperature: cards weighted, cards plain,
    value error weighted, value error plain, effective sample size, count)."""
    k = Knowledge.from_view(view)
    obs = R.observations(k)
    if not len(obs):
        return
    worlds = k.sample_arrays(rng, SAMPLES, wishes=True)
    seat = view["seat"]
    held = np.zeros(len(worlds))
    verr = np.zeros(len(worlds))
    total = 0
    for q in range(view["players"]):
        if q == seat:
            continue
        hand = int(true[F.HANDS + q])
        total += bin(hand).count("1")
        held += [bin(int(x) & hand).count("1") for x in worlds[:, F.HANDS + q]]
        verr += [abs(F.hand_value(int(x)) - F.hand_value(hand)) for x in worlds[:, F.HANDS + q]]
    if not total:
        return
    for tau in taus:
        ll = np.empty(len(worlds))
        R.log_likelihoods(worlds, obs.positions, obs.seats, obs.actions, obs.since, w, tau,
                          eps, ll)
        p = np.exp(ll - ll.max())
        p /= p.sum()
        a = acc.setdefault(tau, np.zeros(6))
        a += [(p * held).sum() / total, held.mean() / total, (p * verr).sum(), verr.mean(),
              1 / (p * p).sum(), 1]


def main() -> None:
    games, players = int(sys.argv[1]), int(sys.argv[2])
    taus = [float(x) for x in sys.argv[3].split(",")]
    eps = float(sys.argv[4]) if len(sys.argv) > 4 else 0.2
    lean = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    w = P.weights_for(players)
    acc: dict[float, np.ndarray] = {}
    for g in range(games):
        match = Match(G, {"players": players}, 1000 + g)
        bots = [MonteCarloBot(iterations=POSITIONS, policy_lean=lean, partner_tau=0.0)
                for _ in range(players)]
        rng = random.Random(g)
        while not G.is_terminal(match.state):
            s = match.state
            seat = s.current
            if s.phase == "choose":
                for q in range(players):
                    wish = bots[q].wish(G.view(s, q), rng) if q != seat else None
                    if wish and match.state.preferences[q] != wish:
                        match.play(A.prefer(q, wish == "yes"))
                s = match.state
            view = G.view(s, seat)
            if s.phase != "choose":
                measure(view, F.encode(s), taus, eps, rng, w, acc)
            match.play(bots[seat].act(view, G.legal_actions(s), rng))
    print(f"{games} games, {players} players, eps {eps}, playing bots' policy_lean {lean}")
    for tau in taus:
        cw, cp, vw, vp, ess, n = acc[tau]
        print(f"tau {tau}: partners' true cards held {cw / n:.4f} weighted, {cp / n:.4f} plain; "
              f"hand value error {vw / n:.2f} weighted, {vp / n:.2f} plain; "
              f"effective samples {ess / n:.0f} of {SAMPLES} ({int(n)} decisions)")


if __name__ == "__main__":
    main()
