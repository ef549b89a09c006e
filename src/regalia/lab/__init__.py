"""The lab: measuring, solving and tuning, on top of the bots and the fast path.

* ``deals``: the published benchmark deal sets (``deals/*.json``, 1,000 seeds per player
  count, from a fixed master seed).
* ``evaluate`` and ``report``: ``regalia eval``, bots on the deal sets on a process pool or
  a Ray cluster; win rates with Wilson 95% intervals, solo medals, enemies defeated,
  decision times; JSON and PNG output.
* ``solve`` and ``solve_set``: ``regalia solve``, the clairvoyant solo solver of one deal or
  of a deal set.
* ``analyse``: ``regalia analyse``, the win chances of a seat's moves in a saved game.
* ``tune_policy``: ``python -m regalia.lab.tune_policy``, self-play on the fast path that
  writes the compiled policy's weights (``regalia/bots/regicide/policy_weights.json``).

Examples::

    regalia eval --game regicide --players 1 --bot montecarlo --deals 500 --budget 0.1 \\
        --workers 2 --out solo.json --chart solo.png
    regalia eval --game regicide --players 2,3,4 --bot ismcts --deals 200 --budget 0.1
    regalia eval --game ribauds --bot ismcts --opponent random,heuristic --deals 500
    regalia eval --game regicide --players 1 --bot heuristic --deals 1000 --ray auto
"""
