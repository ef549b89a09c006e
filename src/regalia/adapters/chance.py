"""Explicit chance for the adapters: the engines' random draws as a sequence of chance nodes.

The engines take a ``random.Random`` and draw from it inside ``new_game`` and ``apply``
(a shuffle, a random first player, a Reine's inspection). Interfaces such as OpenSpiel want
those draws as chance nodes with listed outcomes instead. ``ScriptedRandom`` is a
``random.Random`` whose draws come from a list of chance outcomes; when the list runs out
it raises ``NeedChance`` saying which draws come next. ``ChanceDriver`` runs an engine call
with the outcomes known so far and, while more are needed, exposes the next draw as a
chance node: the engine itself is unchanged.

Every draw is a uniform choice among ``n`` (``random.Random._randbelow``). A shuffle of a
list of ``L`` cards is the ``L - 1`` draws of the Fisher-Yates shuffle, from the top card
(the end of the list) down: draw ``k`` picks which of the cards not yet placed goes next,
so each chance node is one card drawn, with at most as many outcomes as the list has cards.
The draws of a shuffle are announced together (their counts do not depend on the outcomes),
so an engine call is re-run only once per shuffle or single draw, not once per card.
"""

from __future__ import annotations

import random
from typing import Any, Callable


class NeedChance(Exception):
    """Raised by ``ScriptedRandom`` when the engine asks for a draw beyond the outcomes given.

    ``sizes``: the number of outcomes of each of the next draws, in order (one draw, or the
    remaining draws of a shuffle); ``cards``: for a shuffle, the list as it stands before
    the first of them (its first ``sizes[0]`` items are the candidates), else ``None``.
    """

    def __init__(self, sizes: list[int], cards: list[Any] | None) -> None:
        super().__init__(f"{len(sizes)} more chance draw(s) needed")
        self.sizes = sizes
        self.cards = cards


class ScriptedRandom(random.Random):
    """A ``random.Random`` whose draws are the given chance outcomes, in order.

    ``outcomes``: ints, draw ``k`` being in ``range(n_k)`` for the ``n_k`` the engine asks
    for (draws among one outcome take none). ``_randbelow`` (behind ``randrange``, ``choice``, ``sample``) and ``shuffle`` read
    them; floats (``random()``) raise ``TypeError``, as they have no finite chance outcomes.
    Raises ``NeedChance`` once the outcomes are used up, ``ValueError`` for an outcome out
    of range.
    """

    def __init__(self, outcomes: list[int]) -> None:
        # Random.__init__ would seed the Mersenne Twister, never used here: skipped (speed).
        self._outcomes = outcomes
        self._next = 0

    @property
    def used(self) -> int:
        """How many outcomes the engine has read."""
        return self._next

    def _take(self, n: int) -> int:
        k = self._next
        if k >= len(self._outcomes):
            raise NeedChance([n], None)
        j = self._outcomes[k]
        if not 0 <= j < n:
            raise ValueError(f"chance outcome {j} out of range for a draw among {n}")
        self._next = k + 1
        return j

    def _randbelow(self, n: int) -> int:
        return self._take(n) if n > 1 else 0  # one outcome is no chance node

    def shuffle(self, x: list) -> None:
        for i in range(len(x) - 1, 0, -1):
            if self._next >= len(self._outcomes):
                raise NeedChance(list(range(i + 1, 1, -1)), list(x))
            j = self._take(i + 1)
            x[i], x[j] = x[j], x[i]

    def random(self) -> float:
        raise TypeError("a chance adapter supports only draws among finitely many outcomes")

    def getrandbits(self, k: int) -> int:
        raise TypeError("a chance adapter supports only draws among finitely many outcomes")


class ChanceDriver:
    """One engine call (``call(rng)``) whose random draws are supplied as chance outcomes.

    ``start()`` runs it: it returns the result when no (more) chance is needed, else
    ``None``, and then ``sizes()`` gives the outcome count of the next draw and ``apply(j)``
    supplies outcome ``j`` (running the call again once the draws announced are all known).
    The driver is immutable except through ``apply``; ``copy()`` gives an independent one.
    """

    __slots__ = ("call", "outcomes", "pending", "cards", "result")

    def __init__(self, call: Callable[[random.Random], Any]) -> None:
        self.call = call
        self.outcomes: list[int] = []
        self.pending: list[int] = []  # announced draw sizes not yet supplied
        self.cards: list[Any] | None = None  # the shuffle's list, as of the next draw
        self.result: Any = None

    def __deepcopy__(self, memo) -> "ChanceDriver":
        return self.copy()

    def copy(self) -> "ChanceDriver":
        d = ChanceDriver.__new__(ChanceDriver)
        d.call = self.call
        d.outcomes = self.outcomes[:]
        d.pending = self.pending[:]
        d.cards = self.cards[:] if self.cards is not None else None
        d.result = self.result
        return d

    @property
    def done(self) -> bool:
        """Whether the call has run to its end (``result`` is set)."""
        return not self.pending

    def start(self) -> Any:
        """Run the call with the outcomes so far; its result, or ``None`` if chance is needed."""
        rng = ScriptedRandom(self.outcomes)
        try:
            self.result = self.call(rng)
        except NeedChance as need:
            self.pending = need.sizes
            self.cards = need.cards
            return None
        if rng.used != len(self.outcomes):
            raise RuntimeError("the engine read fewer chance outcomes than it was given")
        self.pending = []
        self.cards = None
        return self.result

    def size(self) -> int:
        """Number of outcomes of the next draw (each has probability ``1 / size``)."""
        return self.pending[0]

    def drawn_card(self, j: int) -> Any:
        """The card outcome ``j`` of the next draw places, when the draw belongs to a
        shuffle; ``None`` otherwise."""
        return self.cards[j] if self.cards is not None else None

    def apply(self, j: int) -> Any:
        """Supply outcome ``j`` of the next draw; the call's result once it could finish.

        Raises ``ValueError`` for an outcome out of range (nothing changes then).
        """
        n = self.pending[0]
        if not 0 <= j < n:
            raise ValueError(f"chance outcome {j} is not among the {n} of this draw")
        self.outcomes.append(j)
        if self.cards is not None:
            i = n - 1
            self.cards[i], self.cards[j] = self.cards[j], self.cards[i]
        self.pending = self.pending[1:]
        if self.pending:
            return None
        return self.start()
