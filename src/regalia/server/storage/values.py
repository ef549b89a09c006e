"""The plain values a ``Store`` answers with (``TableData``, ``SeatData``) and takes
(``NewSeat``, ``NewPasskey``), apart from the database's models (``models``), and the
conflicts a write may meet (``Conflict``, ``SeatHandedOver``, ``PasskeyTaken``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from regalia.core.records import Ending


class Conflict(Exception):
    """The move's ply is already taken: someone else's move was stored first."""


class SeatHandedOver(Conflict):
    """A human's move on a table with clocks came after the seat's time ran out: another
    replica handed the seat to a bot first (``set_bot_replaces``)."""



@dataclass
class SeatData:
    seat: int
    kind: str
    bot: str | None
    token_hash: str | None
    bot_replaces: bool
    name: str | None = None
    claimed: bool = False
    account_id: int | None = None  # the account linked to the seat (migration 0009)


@dataclass
class TableData:
    """Everything stored about one table, as plain values."""

    id: str
    game: str
    config: dict[str, Any]
    seed: int
    status: str
    created_at: datetime
    seats: list[SeatData]
    watch_token: str | None = None
    moves: list[tuple[int, int | None, str]] = field(default_factory=list)  # (ply, seat, action)
    messages: list[dict[str, Any]] = field(default_factory=list)
    is_open: bool = False
    clock: dict[str, Any] | None = None        # {"preset", "bank", "increment"} in seconds
    clock_state: dict[str, Any] | None = None  # tables.Clock.to_json()
    next_table: str | None = None
    hints: bool = False  # a solo table with the Hint button (no medal)
    bot_moves: list[int] = field(default_factory=list)  # plies a bot played for a human seat
    ending: Ending | None = None  # the players ended the game (its ending row), after ``moves``
    rated: bool = False  # a rated game (migration 0010)


@dataclass
class NewSeat:
    """A seat of a table being created: ``token_hash`` reuses a seat token (a rematch keeps
    each player's link); ``None`` for a human seat draws a fresh token."""

    kind: str
    bot: str | None = None
    name: str | None = None
    claimed: bool = False
    token_hash: str | None = None
    account_id: int | None = None  # the creator's account, at a rated table


@dataclass(frozen=True)
class NewPasskey:
    """A passkey being stored (its registration verified): ``credential_id`` and
    ``user_handle`` as base64url text, ``public_key`` the COSE key's bytes."""

    credential_id: str
    public_key: bytes
    sign_count: int
    transports: list[str]
    user_handle: str
    label: str

    def values(self) -> dict[str, Any]:
        """Its ``PasskeyRow`` columns (but its account and time)."""
        return {"credential_id": self.credential_id, "public_key": self.public_key,
                "sign_count": self.sign_count, "transports": list(self.transports),
                "user_handle": self.user_handle, "label": self.label}


class PasskeyTaken(Conflict):
    """A passkey's credential id is stored already (for this account or another)."""
