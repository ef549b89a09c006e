"""A diagnostic, not a bot: ``MonteCarloBot`` given the true position instead of positions
sampled from its seat's knowledge, so that its win rate against the real bot's on the same
deals says what perfect beliefs would be worth (the rest of the gap to a win every time is
the search and the rollout policy). It reads hidden cards, so it is never offered to play.
Plays the Regicide tuning deals at a fixed number of positions per decision; prints one
JSON line as ``montecarlo_tuning.py`` does. Usage::

    python benchmarks/montecarlo_oracle.py NAME DEALS OFFSET PLAYERS [KEY=VALUE ...]

(the arguments of ``montecarlo_tuning.py``).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import numpy as np

from regalia.bots.regicide.belief import Knowledge
from regalia.fast import regicide as F
from regalia.games.regicide import REGICIDE as G

_truth: list = [None]  # the position of the last view handed out


def _view(state, seat, **kw):
    _truth[0] = state
    return _seat_view(state, seat, **kw)


def _true_positions(self, rng, n, wish_rule=None):
    return np.repeat(F.encode(_truth[0])[None, :], n, axis=0)


_seat_view = G.view
G.view = _view
Knowledge.sample_arrays = _true_positions
sys.argv[0] = str(Path(__file__).with_name("montecarlo_tuning.py"))
runpy.run_path(sys.argv[0], run_name="__main__")
