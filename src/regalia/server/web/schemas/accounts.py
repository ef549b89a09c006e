"""The accounts' models (``web.accounts``): signing up and in with a password, the
seats a browser links to its account, deleting it, and who is signed in.
"""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from pydantic import BaseModel, Field, StrictStr

from regalia.server.web.passwords import PASSWORD_MAX, PASSWORD_MIN
from regalia.server.web.schemas.common import ACCOUNT_NAME, Closed, SeatAdopted, SeatProof
from regalia.server.web.schemas.passkeys import PasskeyAnswer

PASSWORD = {"minLength": PASSWORD_MIN, "maxLength": PASSWORD_MAX}


class Credentials(Closed):
    """``POST /api/account/sign-up`` and ``POST /api/account/sign-in``."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the account's name (unique whatever its case or width)"))
    password: StrictStr = Field(max_length=256, json_schema_extra=PASSWORD)


class AdoptTables(Closed):
    """``POST /api/account/tables``: the seats this browser holds, to link to the account."""

    tables: list[SeatProof] = Field(max_length=100)


class ConfirmDeletion(Closed):
    """``DELETE /api/account``: the account's password again, or a passkey's answer to the
    ceremony of ``POST /api/account/passkeys/confirm/begin`` (one of the two)."""

    password: Optional[StrictStr] = Field(None, max_length=256)
    passkey: Optional[PasskeyAnswer] = None


class AccountInfo(BaseModel):
    name: str
    created_at: datetime
    profile: str = Field(description="the account's profile page")


class Me(BaseModel):
    """Who the browser is signed in as (``account``: ``null`` when it is not)."""

    account: Optional[AccountInfo]


class Adopted(BaseModel):
    """The seats linked to the account (now or before), in the order asked."""

    adopted: list[SeatAdopted]
