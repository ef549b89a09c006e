"""Simulation and evaluation.

* ``regicide_fast``: the Regicide fast path, a compact position (one ``int64`` array) and a
  numba-compiled kernel with the full rules (checked against the reference engine by
  ``tests/sim/test_regicide_fast.py``); ``benchmarks/bench_fast.py`` times it.
* ``regicide_policy``: the compiled heuristic policy (the "heuristic" bot, and the rollout
  policy of the "montecarlo" and "ismcts" bots); its weights, ``policy_weights.json``, come from
  ``python -m regalia.sim.tune_policy`` (self-play on the fast path).
* ``batch``: the batch simulator, ``N`` Regicide games stepped at once on the fast path with
  the research interfaces' encoding (``regalia.adapters.encoding``); ``benchmarks/
  bench_batch.py`` times it against the PettingZoo and Gymnasium environments.
* ``deals``: the published benchmark deal sets (``deals/*.json``, 1,000 seeds per player
  count, from a fixed master seed).
* ``evaluate`` and ``report``: ``regalia eval``, bots on the deal sets on a process pool or
  a Ray cluster; win rates with Wilson 95% intervals, solo medals, enemies defeated,
  decision times; JSON and PNG output.

Examples::

    regalia eval --game regicide --players 1 --bot montecarlo --deals 500 --budget 0.1 \\
        --workers 2 --out solo.json --chart solo.png
    regalia eval --game regicide --players 2,3,4 --bot ismcts --deals 200 --budget 0.1
    regalia eval --game ribauds --bot ismcts --opponent random,heuristic --deals 500
    regalia eval --game regicide --players 1 --bot heuristic --deals 1000 --ray auto
"""
