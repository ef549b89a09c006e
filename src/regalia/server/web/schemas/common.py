"""What the request and answer models share: the closed body, the names' and player
counts' bounds, a seat's proof, and ``Problem``, every error answer.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from regalia.games import GAME_NAMES, get_game
from regalia.server.tables import gamekit

GameName = Literal[GAME_NAMES]  # type: ignore[valid-type] - the games registry's names


def _players_range() -> tuple[int, int]:
    games = [get_game(n) for n in GAME_NAMES]
    return min(g.min_players for g in games), max(g.max_players for g in games)


MIN_PLAYERS, MAX_PLAYERS = _players_range()
NAME = {"minLength": 1, "maxLength": gamekit.NAME_MAX}  # a nickname, as the schema tells it
ACCOUNT_NAME = {"minLength": gamekit.ACCOUNT_NAME_MIN, "maxLength": gamekit.ACCOUNT_NAME_MAX}


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatProof(Closed):
    """A seat this browser holds: its table and its secret token (from its link)."""

    id: StrictStr = Field(max_length=32, description="the table's id")
    token: StrictStr = Field(max_length=100, description="the seat's token")


class SeatAdopted(BaseModel):
    id: str
    seat: int


class Problem(BaseModel):
    """Every error answer (4xx, 5xx): what was wrong and what is allowed, a code for
    programs, and over a rate limit (429) the seconds to wait (``Retry-After`` too)."""

    error: str
    code: str
    retry_after: Optional[int] = None
