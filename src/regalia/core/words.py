"""English words for counted things, shared by the games' sentences and the terminal."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "card")`` -> ``"1 card"``; ``count(3, "card")`` -> ``"3 cards"``;
    ``plural`` names an irregular plural."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
