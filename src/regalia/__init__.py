"""Regalia: exact rules engines, tables and bots for Regicide and Le Roy des Ribauds.

The packages, in layers; each imports only the layers below it:

* ``core``: the Game protocol, errors, events, rule options, game records;
* ``games``: the rules, ``regicide`` and ``ribauds``, each a ``Game`` (``get_game(name)``);
* ``fast``: the compiled Regicide fast path (numba);
* ``bots``: the bots of each game and their one registry table (``make_bot``);
* ``lab`` (evaluation, solver, analysis, policy tuning) and ``adapters`` (OpenSpiel,
  PettingZoo, Gymnasium, the batch simulator);
* ``server`` (the online tables) and ``cli`` (the ``regalia`` command, the terminal table).
"""

__version__ = "0.1.0"
