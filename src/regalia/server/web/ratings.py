"""Ratings and the leaderboard, ``/api/leaderboard`` (the page: ``/leaderboard``), and the
rating part of a player's profile (``profile_ratings``, for ``web.accounts``).

* ``GET /api/leaderboard?game=ribauds&limit=50&offset=0``: ``Leaderboard``: the accounts
  that played at least one rated game of ``game``, the highest shown rating first (then the
  higher ``mu``, then the name), ``limit`` of them (1 to ``LIMIT_MAX``: a larger one is
  cut to it) from ``offset`` (0 to ``OFFSET_MAX``), with ``total``; and the bot levels'
  fixed published ratings (``bots``: reference rows, "where you stand"). 400 for another
  game or a limit or offset out of range. Games whose end was stored but not rated yet are
  rated first (``TableRegistry.settle_ratings``).

The shown rating is ``round(1500 + 24 * (mu - 3 * sigma))`` (``lab.ratings``): OpenSkill's
Plackett-Luce ``mu`` and ``sigma``, a newcomer 1500.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query

from regalia.lab.ratings import BASE, RATED_GAMES, SCALE, Z, bot_ratings
from regalia.server.web.deps import Tables
from regalia.server.web.schemas.common import Problem
from regalia.server.web.schemas.players import Leaderboard

PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 404, 413, 415, 429, 503)}

router = APIRouter(prefix="/api", responses=PROBLEMS)

LIMIT_DEFAULT, LIMIT_MAX = 50, 100  # rows of a leaderboard's page
OFFSET_MAX = 1_000_000
RECENT_RATED = 10  # rated games a profile lists
FORMULA = f"{BASE} + {SCALE} × (mu − {Z} × sigma)"
RatedGame = Literal[RATED_GAMES]  # type: ignore[valid-type] - lab.ratings' games


def profile_link(name: str) -> str:
    return f"/players/{quote(name)}"


@router.get("/leaderboard", response_model=Leaderboard)
async def leaderboard(m: Tables, game: RatedGame = "ribauds",  # type: ignore[valid-type]
                      limit: int = Query(LIMIT_DEFAULT, ge=1, le=OFFSET_MAX),
                      offset: int = Query(0, ge=0, le=OFFSET_MAX)) -> Any:
    await m.settle_ratings()
    limit = min(limit, LIMIT_MAX)
    rows, total = await m.db(m.ratings.leaderboard, game, limit, offset)
    return {"game": game, "total": total, "limit": limit, "offset": offset,
            "formula": FORMULA,
            "players": [{"rank": offset + i + 1, "name": r.name, "profile": profile_link(r.name),
                         "rating": r.rating, "mu": r.mu, "sigma": r.sigma, "games": r.games,
                         "wins": r.wins, "losses": r.losses} for i, r in enumerate(rows)],
            "bots": [{"level": name, "rating": b.shown, "mu": b.mu, "sigma": b.sigma}
                     for name, b in reversed(bot_ratings(game).items())]}


async def profile_ratings(m: Tables, account_id: int) -> dict[str, Any]:
    """An account's ratings for its profile, by game (only the games it played rated):
    ``{"rating", "mu", "sigma", "games", "wins", "losses", "rank", "recent": [{"id",
    "seat", "won", "opponent", "before", "after", "at", "replay"}]}`` (its latest rated
    games, the latest first; ``before``/``after``: the shown rating)."""
    await m.settle_ratings()
    out: dict[str, Any] = {}
    for game in RATED_GAMES:
        found = await m.db(m.ratings.rating_of, account_id, game)
        if found is None:
            continue
        r, rank = found
        recent = await m.db(m.ratings.games_of, account_id, game, RECENT_RATED)
        out[game] = {"rating": r.rating, "mu": r.mu, "sigma": r.sigma, "games": r.games,
                     "wins": r.wins, "losses": r.losses, "rank": rank,
                     "recent": [{"id": g.table_id, "seat": g.seat, "won": g.score > 0.5,
                                 "opponent": g.opponent, "before": g.rating_before,
                                 "after": g.rating_after, "at": g.at,
                                 "replay": f"/replay/{g.table_id}"} for g in recent]}
    return out
