"""Ratings of Le Roy des Ribauds players: OpenSkill's Plackett-Luce model with its default
parameters (the ``openskill`` library does every update; nothing here is home-made math).

A rating is ``mu`` (the skill believed, 25 for a newcomer) and ``sigma`` (how unsure that
belief is, 25/3 for a newcomer; it shrinks as games are played, and grows a little with
time between games: the model's ``tau``). The number people see is conservative::

    shown = round(1500 + 24 * (mu - 3 * sigma))

OpenSkill's ``ordinal(z=3, alpha=24, target=1500)``: 99.7% sure the player is at least that
strong. A newcomer shows 1500. 24 points are one twenty-fourth of ``beta`` = 25/6, the
spread of one game's performance: two well-known players 100 points apart win about 76% and
24% of their games (``Φ(1 / √2)``). A win always raises ``mu`` and a loss lowers it; the
shown number may rise a little after a loss that was expected (its ``sigma`` shrinks more
than its ``mu`` drops), and it rises while a newcomer's ``sigma`` shrinks.

The bots' published ratings (``regalia.bots.levels.LEVEL_RATINGS``) were fitted on the same
model from the levels' measured games (``benchmarks/fit_level_ratings.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from regalia.bots.levels import LEVEL_RATINGS

__all__ = ["BASE", "MODEL", "RATED_GAMES", "SCALE", "Z", "Rating", "bot_ratings", "rate", "shown"]

MODEL = PlackettLuce()
"""The model of every rating: OpenSkill's Plackett-Luce, default parameters (``mu`` 25,
``sigma`` 25/3, ``beta`` 25/6, ``tau`` 25/300)."""

BASE = 1500  # the shown rating of a newcomer
SCALE = 24   # shown points per unit of mu - 3 sigma
Z = 3        # sigmas taken off mu: the conservative estimate

RATED_GAMES = ("ribauds",)
"""The games a table may be rated in: two players against each other."""


@dataclass(frozen=True)
class Rating:
    """A player's rating: ``mu`` and ``sigma`` in OpenSkill's units (module docstring)."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def shown(self) -> int:
        """The conservative number people see (``shown``)."""
        return shown(self.mu, self.sigma)


def shown(mu: float, sigma: float) -> int:
    """``round(1500 + 24 * (mu - 3 * sigma))``: OpenSkill's ordinal of the rating
    (``z=3, alpha=24, target=1500``), rounded to an integer."""
    return round(MODEL.rating(mu=mu, sigma=sigma).ordinal(z=Z, alpha=SCALE, target=BASE))


def rate(ratings: list[Rating], scores: list[float]) -> list[Rating]:
    """The players' ratings after one game between them: ``ratings`` and ``scores`` per seat
    (the game's returns: 1 won, 0 lost; equal scores: a draw). OpenSkill's update, each seat
    a team of one. Raises ``ValueError`` for lists of different lengths or fewer than two
    seats."""
    if len(ratings) != len(scores) or len(ratings) < 2:
        raise ValueError("rate: one rating and one score per seat, at least two seats")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    after = MODEL.rate(teams, scores=[float(s) for s in scores])
    return [Rating(team[0].mu, team[0].sigma) for team in after]


def bot_ratings(game: str) -> dict[str, Rating]:
    """The published ratings of ``game``'s bot levels by name, weakest first (none for a
    game without rated play): ``LEVEL_RATINGS``."""
    fixed = LEVEL_RATINGS.get(game, {})
    return {name: Rating(mu, sigma) for name, (mu, sigma) in fixed.items()}
