"""The friends' models (``web.friends``): requests, blocks, invitations to a table, and
an account's friends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, StrictStr

from regalia.server.web.schemas.common import ACCOUNT_NAME, Closed


class FriendName(Closed):
    """``POST /api/friends/requests``, ``.../accept``, ``.../decline``, ``.../remove``,
    ``.../block``, ``.../unblock``: another player, by account name."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the player's account name (in any case or width)"))


class InviteFriend(Closed):
    """``POST /api/friends/invite``: invite a friend to a free seat of a table one sits at."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the friend's account name (in any case or width)"))
    table: StrictStr = Field(max_length=32, description="the table's id")
    token: StrictStr = Field(max_length=100, description=(
        "the inviter's seat token at that table (from its seat's link)"))


class Player(BaseModel):
    name: str
    profile: str = Field(description="the player's profile page")
    since: datetime = Field(description=(
        "when the friendship was accepted, the request made or the block set"))


class Friend(Player):
    online: bool = Field(description=(
        "a lobby or a table page of the friend's is open (now, or a few seconds ago)"))


class InvitationInfo(BaseModel):
    id: int
    name: str = Field(description="who invites")
    profile: str
    table: str = Field(description="the table's id")
    game: str
    players: int
    free: int = Field(description="the table's seats waiting for a player")
    at: datetime


class FriendList(BaseModel):
    """``GET /api/friends``: the account's friends (by name, each with ``online``), the
    friend requests it received and sent, the players it blocks, and the invitations to a
    table it may accept now (the newest first)."""

    friends: list[Friend]
    incoming: list[Player]
    outgoing: list[Player]
    blocked: list[Player]
    invitations: list[InvitationInfo]


class Invitations(BaseModel):
    """``GET /api/friends/invitations``: the invitations the account may accept now."""

    invitations: list[InvitationInfo]


class FriendState(BaseModel):
    """What the account and the player named are to each other after a change:
    ``friends``, ``requested`` (its request waits for an answer), ``blocked`` (the
    account blocks the player) or ``none``."""

    name: str
    state: Literal["friends", "requested", "blocked", "none"]


class InvitationSent(BaseModel):
    """The answer to ``POST /api/friends/invite`` (201)."""

    id: int
    name: str = Field(description="the friend invited")
    table: str


class InvitationDeclined(BaseModel):
    id: int
