"""A diagnostic, not a bot: ``MonteCarloBot`` given the true position instead of positions
sampled from its seat's knowledge, so that its win rate against the real bot's on the same
deals says what perfect knowledge would be worth (the rest of the gap to a win every time is
the search and the rollout policy). It reads hidden cards, so it is never offered to play.
``know=all`` (the default): every position searched is the true one (the partners' hands and
the Tavern's order); ``know=hands``: the partners' hands are the true ones, the Tavern's
unknown cards in a random order within each pool of slots (``reshuffle_tavern``), so the
difference between the two is what knowing the deck's order adds. Plays the Regicide tuning
deals at a fixed number of positions per decision; prints one JSON line as
``montecarlo_tuning.py`` does. Usage::

    python benchmarks/montecarlo_oracle.py NAME DEALS OFFSET PLAYERS [know=hands] [KEY=VALUE ...]

(the other arguments are those of ``montecarlo_tuning.py``).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import numpy as np

from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.montecarlo import reshuffle_tavern, tavern_groups
from regalia.fast import regicide as F
from regalia.games.regicide import REGICIDE as G

_truth: list = [None]  # the position of the last view handed out


def _view(state, seat, **kw):
    _truth[0] = state
    return _seat_view(state, seat, **kw)


def _true_positions(self, rng, n, wishes=False):
    true = F.encode(_truth[0])
    if _know == "all":
        return np.repeat(true[None, :], n, axis=0)
    groups = tavern_groups(self) if self.consistent else []
    return np.stack([reshuffle_tavern(true, groups, rng) for _ in range(n)])


_know = "all"
for arg in sys.argv[5:]:
    if arg.startswith("know="):
        _know = arg.split("=", 1)[1]
        if _know not in ("all", "hands"):
            raise SystemExit(f"know={_know}: give know=all or know=hands")
        sys.argv.remove(arg)
_seat_view = G.view
G.view = _view
Knowledge.sample_arrays = _true_positions
sys.argv[0] = str(Path(__file__).with_name("montecarlo_tuning.py"))
runpy.run_path(sys.argv[0], run_name="__main__")
