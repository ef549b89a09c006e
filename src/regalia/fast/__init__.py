"""The compiled fast path, under the bots and the lab: ``regicide`` (a Regicide position as
one ``int64`` array and a numba-compiled kernel with the full rules, checked against the
reference engine by ``tests/fast/test_regicide_fast.py``; ``benchmarks/bench_fast.py`` times
it) and ``_jit`` (numba's ``njit`` when numba is installed, otherwise a do-nothing decorator,
and the helpers that keep numba's on-disk cache fresh). Importing this package compiles
nothing.
"""
