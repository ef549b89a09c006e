"""The players' records (``web.accounts``, ``web.ratings``): a profile (games, ratings,
Regicide's medals and streaks) and the leaderboard.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional

from pydantic import BaseModel, Field


class GameCount(BaseModel):
    game: str
    players: int
    played: int = Field(description="finished games")
    won: int


class RecentGame(BaseModel):
    id: str
    game: str
    players: int
    seat: int
    status: Literal["finished", "abandoned"]
    won: Optional[bool] = Field(description="null for an abandoned game")
    ended_at: Optional[datetime]
    replay: str


class RatedGameRow(BaseModel):
    id: str
    seat: int
    won: bool
    opponent: Optional[str] = Field(description="the opponent's seat name")
    before: int = Field(description="the shown rating before the game")
    after: int = Field(description="the shown rating after the game")
    at: datetime
    replay: str


class RatingSummary(BaseModel):
    """An account's rating in one game (``lab.ratings``): ``rating`` is the number shown,
    ``round(1500 + 24 * (mu - 3 * sigma))``."""

    rating: int
    mu: float
    sigma: float
    games: int = Field(description="rated games played")
    wins: int
    losses: int
    rank: int = Field(description="on the game's leaderboard, 1: the top")
    recent: list[RatedGameRow] = Field(description="the latest rated games, newest first")


class PlayerCountRecord(BaseModel):
    players: int
    played: int = Field(description="finished games")
    won: int
    win_rate: Optional[float] = Field(description="won / played, 0 to 1")


class Medals(BaseModel):
    gold: int
    silver: int
    bronze: int


class RegicideRecord(BaseModel):
    """An account's Regicide (cooperative) record: its finished games by player count, its
    solo medals (none for a game played with hints or with a bot's moves for the person),
    and its solo streaks: consecutive solo wins (``streak``: the latest run, 0 after a loss;
    a game stopped by agreement is a loss)."""

    by_players: list[PlayerCountRecord]
    medals: Medals
    best_streak: int
    streak: int


class Profile(BaseModel):
    """``GET /api/players/{name}``: an account's games."""

    name: str
    created_at: datetime
    games: list[GameCount] = Field(description="per game and player count")
    recent: list[RecentGame] = Field(description="the latest ended games, newest first")
    ratings: dict[str, RatingSummary] = Field(description=(
        "by game, the games it played rated (Le Roy des Ribauds)"))
    regicide: RegicideRecord


class LeaderRow(BaseModel):
    rank: int
    name: str
    profile: str
    rating: int = Field(description="the shown rating, round(1500 + 24 * (mu - 3 * sigma))")
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int


class BotRow(BaseModel):
    level: str = Field(description="a bot level (easy, medium, hard, strongest)")
    rating: int
    mu: float
    sigma: float


class Leaderboard(BaseModel):
    """``GET /api/leaderboard``: the rated accounts, the highest shown rating first, and
    the bot levels' fixed published ratings (reference rows)."""

    game: str
    total: int = Field(description="rated accounts in all")
    limit: int
    offset: int
    formula: str
    players: list[LeaderRow]
    bots: list[BotRow] = Field(description="the strongest level first")
