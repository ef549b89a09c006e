"""The random source's hot path: a shuffle that draws exactly what ``random.Random`` draws.

Games take a seeded ``random.Random`` (design.md, "core"); published deals and the solver
depend on the exact stream a shuffle consumes, so ``shuffle`` below must give the same order
and leave the generator in the same state as ``rng.shuffle`` (a test checks it).
"""

from __future__ import annotations

import random


class DrawOnUse:
    """The random source of one move: ``base``'s stream, copied from it at the first draw.
    ``base`` is never changed, so a refused move needs no undo, and a move that draws
    nothing (most moves) costs no copy of the generator's state. ``copy``: the generator
    drawn from (``None`` when nothing was drawn)."""

    __slots__ = ("base", "copy")

    def __init__(self, base: random.Random) -> None:
        self.base = base
        self.copy: random.Random | None = None

    def __getattr__(self, name: str):
        if self.copy is None:
            self.copy = random.Random()
            self.copy.setstate(self.base.getstate())
        return getattr(self.copy, name)


# The draws of a shuffle of a list of n items (n below 64, enough for a deck of cards):
# ``(i, k)`` for i from n - 1 down to 1, k = (i + 1).bit_length() bits per draw.
_DRAWS = tuple(tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1)) for n in range(64))


def shuffle(x: list, rng: random.Random) -> None:
    """Shuffle ``x`` in place exactly as ``rng.shuffle(x)`` does.

    For a plain ``random.Random`` it runs CPython's Fisher-Yates loop itself, drawing the
    same ``getrandbits(k)`` values (rejection sampling below ``i + 1``, ``i`` and ``k`` read
    from a table) without a call to ``Random._randbelow`` per card; any other generator (or
    a list longer than the table) uses the generator's own ``shuffle``.
    """
    if type(rng) is not random.Random or len(x) >= len(_DRAWS):
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i, k in _DRAWS[len(x)]:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
