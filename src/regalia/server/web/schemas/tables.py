"""The tables' models (``web.api``): creating, joining and rematching a table, its
time controls, and a tutorial's moves.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, Field, StrictBool, StrictInt, StrictStr

from regalia.server import tutorials
from regalia.server.web.schemas.common import MAX_PLAYERS, MIN_PLAYERS, NAME, Closed, GameName


class SeatRequest(Closed):
    """One seat of a new table: a person's or a bot's."""

    kind: Literal["human", "bot"]
    bot: Optional[StrictStr] = Field(None, description=(
        "a level (easy, medium, hard, strongest) or a bot of the game, by name (GET "
        "/api/games: levels, bots); default: the game's default bot"))


class CreateTable(Closed):
    """``POST /api/tables``. The server draws the seed and the first player: a ``seed``
    or ``options.first_player`` is refused."""

    game: GameName
    players: Optional[StrictInt] = Field(None, ge=MIN_PLAYERS, le=MAX_PLAYERS, description=(
        "the game's player count (default: its only one)"))
    options: Optional[dict[str, Any]] = Field(None, description="rule options (GET /api/games)")
    seats: Optional[list[SeatRequest]] = Field(None, description=(
        "one entry per player, seat 0 first (default: every seat for a person)"))
    open: Optional[StrictBool] = Field(None, description=(
        "listed in the lobby; the table waits until its human seats are taken"))
    clock: Optional[StrictStr] = Field(None, description=(
        "a time control by name (GET /api/clocks: live clocks, and turn-based ones with "
        "per_move); null: none"))
    name: Optional[StrictStr] = Field(None, json_schema_extra=NAME, description=(
        "the creator's nickname; the creator takes seat 0"))
    hints: Optional[StrictBool] = Field(None, description=(
        "a Hint button (solo Regicide played by a human; no medal)"))
    rated: Optional[StrictBool] = Field(None, description=(
        "a rated game (Le Roy des Ribauds, two people): asked by a signed-in browser, whose "
        "account takes seat 0; the other seat is taken by another signed-in account"))


class JoinTable(Closed):
    """``POST /api/tables/{id}/join``: take a free seat of an open table."""

    name: StrictStr = Field(json_schema_extra=NAME, description="the player's nickname")


class Rematch(Closed):
    """``POST /api/tables/{id}/rematch``, by a seated player of a finished table."""

    token: Optional[StrictStr] = Field(None, description="the player's seat token")


class TutorialMoves(Closed):
    """``POST /api/tutorials/{game}``: the learner's moves so far, in order."""

    moves: list[StrictStr] = Field(default_factory=list, max_length=tutorials.MAX_MOVES,
                                   description="actions in notation (formats.md), the "
                                               "learner's only")


class SeatCreated(BaseModel):
    seat: int
    kind: Literal["human", "bot"]
    bot: Optional[str]
    token: Optional[str] = Field(None, description="a human seat's secret token")
    link: Optional[str] = Field(None, description="a human seat's invitation link")


class TableCreated(BaseModel):
    """The answer to ``POST /api/tables`` (201)."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    seats: list[SeatCreated]
    open: bool
    clock: Optional[dict[str, Any]]
    rated: bool = Field(False, description="a rated game")
    you: Optional[int] = Field(description="the creator's seat (the first human seat)")
    spectate: str = Field(description="the spectators' link, with their secret token")
    replay: str


class SeatTaken(BaseModel):
    """The answer to ``POST /api/tables/{id}/join``."""

    id: str
    game: str
    players: int
    seat: int
    token: str
    link: str


class RematchMade(BaseModel):
    """The answer to ``POST /api/tables/{id}/rematch``: the new table, the same seat."""

    id: str
    game: str
    players: int
    seat: Optional[int]
    link: str


class Clock(BaseModel):
    """A time control a table may be created with (``clock``: its ``name``)."""

    name: str
    bank: float = Field(description="seconds each player starts with (turn-based: seconds "
                                    "for each move)")
    increment: float = Field(description="seconds added after each move (turn-based: 0)")
    per_move: bool = Field(False, description=(
        "a turn-based clock: the player to act has bank seconds for each move, real time "
        "(a day is a day), and a player out of time is replaced by a bot"))
