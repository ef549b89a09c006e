"""The daily deal's models (``web.daily``): playing it, and a day's report.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional

from pydantic import BaseModel, Field, StrictStr

from regalia.server.web.schemas.common import NAME, Closed


class DailyPlay(Closed):
    """``POST /api/daily/play``: play today's daily deal."""

    name: Optional[StrictStr] = Field(None, json_schema_extra=NAME, description=(
        "the nickname of a player without an account (a signed-in player plays under the "
        "account's name)"))


class DailyStarted(BaseModel):
    """The answer to ``POST /api/daily/play`` (201): the new table and its one seat."""

    id: str
    date: str = Field(description="the day whose deal it is (YYYY-MM-DD, UTC)")
    seat: int
    token: str = Field(description="the seat's secret token")
    link: str = Field(description="the seat's link")
    spectate: str = Field(description="the spectators' link, with their secret token")
    replay: str
    ranked: bool = Field(description="played with an account: on the day's leaderboard")


class DailyResult(BaseModel):
    won: bool
    medal: Optional[Literal["gold", "silver", "bronze"]] = Field(description=(
        "a win's medal (rules 1.14); null for a loss or a game a bot played part of"))
    enemies: int = Field(description="enemies defeated, 0 to 12")
    moves: int = Field(description="actions played")
    finished_at: Optional[datetime]
    assisted: bool = Field(description="a bot played some move: not ranked")


class DailyYou(BaseModel):
    account: Optional[str] = Field(description="the account signed in, or null")
    table: Optional[str] = Field(description="your table of that day's deal")
    status: Optional[Literal["playing", "finished", "abandoned"]]
    ranked: bool
    result: Optional[DailyResult] = Field(description="once your game is over")
    rank: Optional[int] = Field(description="your place on the leaderboard (1: best)")
    can_play: bool = Field(description="today's deal, not played by this account (a "
                                       "player without an account: not by this table)")


class DailyEntry(BaseModel):
    rank: int
    name: str
    profile: str
    won: bool
    medal: Optional[str]
    enemies: int
    moves: int
    finished_at: datetime
    you: bool
    replay: Optional[str] = Field(description="the game's replay, once the day is over (or "
                                              "your own)")


class DailyVerdict(BaseModel):
    state: Literal["hidden", "pending", "ready"] = Field(description=(
        "hidden until your game of that day is over; pending while the solver works"))
    result: Optional[Literal["won", "lost", "undecided"]] = None
    winnable: Optional[bool] = Field(None, description="null: not proven in the time allowed")
    best_medal: Optional[str] = None
    medal_proven: Optional[bool] = None
    line_moves: Optional[int] = None
    line: Optional[str] = Field(None, description="the replay page of a winning line")
    seconds: Optional[float] = None
    limit: Optional[float] = None


class DailyReport(BaseModel):
    """``GET /api/daily``: a day's daily deal, your status, its leaderboard and verdict."""

    date: str
    today: str
    previous: str
    next: Optional[str]
    you: DailyYou
    played: int = Field(description="tables dealt that day's deal, ranked or not")
    ranked: int = Field(description="ranked results that day")
    leaderboard: list[DailyEntry] = Field(description="best first: medal, then enemies "
                                                      "defeated, then fewer moves, then "
                                                      "the earlier finish")
    verdict: DailyVerdict
