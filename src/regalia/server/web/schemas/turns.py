"""The turns' models (``web.turns``): the seats whose player is to act, and a signed-in
account's tables still being played.
"""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, Field

from regalia.server.web.schemas.common import Closed, SeatProof


class SeatProofs(Closed):
    """``POST /api/turns``: the seats this browser holds (its tables, ``static/js/mytables.js``)."""

    tables: list[SeatProof] = Field(max_length=100, description=(
        "each table's id and the seat's token from its link (at most 100)"))


class Turn(BaseModel):
    """A seat whose player is to act now."""

    id: str = Field(description="the table's id")
    game: str
    players: int
    seat: int = Field(description="the seat to act (from 0)")
    per_move: bool = Field(description="a turn-based table (its clock gives a time per move)")
    deadline: Optional[float] = Field(description=(
        "when the seat's time runs out (seconds since the epoch); null without a clock"))


class Turns(BaseModel):
    """The seats asked about whose player is to act now, the earliest deadline first (then
    the ones without a clock, by table id). Only the seats asked about are ever named."""

    turns: list[Turn]


class AccountTable(BaseModel):
    """A seat of the signed-in account at a table still being played: its page ``/t/{id}``
    opens it by the account's session, without the seat's link."""

    id: str = Field(description="the table's id")
    game: str
    players: int
    seat: int = Field(description="the account's seat (from 0)")
    rated: bool
    to_act: bool = Field(description="the seat's player is to act now")


class AccountTables(BaseModel):
    """The signed-in account's seats at tables still being played, the table played latest
    first."""

    tables: list[AccountTable]
