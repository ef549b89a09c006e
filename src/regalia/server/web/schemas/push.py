"""Web Push's models (``web.push``): a browser's subscription, given and taken back.
"""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, Field, StrictStr

from regalia.server.web.schemas.common import Closed, SeatAdopted, SeatProof

PUSH_ENDPOINT_MAX = 1024  # characters of a push subscription's endpoint (its column's)
B64URL = r"^[A-Za-z0-9_-]+={0,2}$"


class PushKeys(Closed):
    """A push subscription's keys, base64url, as the browser's ``PushSubscription.toJSON()``
    gives them."""

    p256dh: StrictStr = Field(min_length=80, max_length=100, pattern=B64URL, description=(
        "the browser's P-256 public key (65 bytes, base64url)"))
    auth: StrictStr = Field(min_length=16, max_length=32, pattern=B64URL, description=(
        "the subscription's authentication secret (16 bytes, base64url)"))


class PushSubscriptionInfo(Closed):
    """A browser's push subscription (``PushSubscription.toJSON()``, without
    ``expirationTime``)."""

    endpoint: StrictStr = Field(min_length=12, max_length=PUSH_ENDPOINT_MAX, description=(
        "the push service's https URL for this browser"))
    keys: PushKeys
    expirationTime: Optional[float] = Field(None, description="ignored")


class Subscribe(Closed):
    """``POST /api/push/subscriptions``: notify this browser of its turns (and, signed in, of
    its account's turns, friend requests and invitations)."""

    subscription: PushSubscriptionInfo
    seats: list[SeatProof] = Field(default_factory=list, max_length=100, description=(
        "seats to be notified for, each a table's id and the seat's token (at most 100); "
        "a signed-in account's seats are notified without them"))


class Unsubscribe(Closed):
    """``DELETE /api/push/subscriptions``: stop notifying this browser."""

    endpoint: StrictStr = Field(min_length=1, max_length=PUSH_ENDPOINT_MAX, description=(
        "the subscription's endpoint"))


class PushPublicKey(BaseModel):
    """The site's VAPID public key: a page's ``applicationServerKey``."""

    key: str = Field(description="the P-256 public key, uncompressed, base64url")


class Subscribed(BaseModel):
    """A subscription stored: whether it notifies for the signed-in ``account``, and the
    ``seats`` it notifies for (those whose token proved the seat)."""

    account: bool
    seats: list[SeatAdopted]


class Unsubscribed(BaseModel):
    deleted: bool = Field(description="a subscription with that endpoint was deleted")
