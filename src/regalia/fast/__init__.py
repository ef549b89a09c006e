"""The compiled fast paths, under the bots and the lab: ``regicide`` (a Regicide position as
one ``int64`` array and a numba-compiled kernel with the full rules, checked against the
reference engine by ``tests/fast/test_regicide_fast.py``; ``benchmarks/bench_fast.py`` times
it), ``ribauds`` (the same for Le Roy des Ribauds, each seat's knowledge included, drawing
from the Regicide path's generator; ``tests/fast/test_ribauds_fast.py``) and ``_jit``
(numba's ``njit`` when numba is installed, otherwise a do-nothing decorator, and the helpers
that keep numba's on-disk cache fresh). Importing this package compiles nothing.
"""
