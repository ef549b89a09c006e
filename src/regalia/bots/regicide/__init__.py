"""Regicide bots: ``belief`` (what a seat knows, and full positions sampled from it),
``policy`` (the compiled heuristic policy and its tuned weights, ``policy_weights.json``),
``heuristic`` ("simple", "heuristic"), ``montecarlo`` ("montecarlo", "montecarlo-medal",
"montecarlo-choices") and ``ismcts`` ("ismcts", "ismcts-medal"). Importing this package
imports none of them: ``regalia.bots.make_bot`` loads the one a bot needs.
"""
