"""The passkeys' models (``web.passkeys``): the WebAuthn ceremonies' requests, in the
browser's JSON form, and an account's passkeys.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from regalia.server.web.ceremonies import LABEL_MAX
from regalia.server.web.schemas.common import ACCOUNT_NAME, Closed

B64URL = r"^[A-Za-z0-9_-]*={0,2}$"  # WebAuthn's binary fields in JSON


def _b64(most: int, what: str) -> Any:
    return Field(max_length=most, pattern=B64URL, description=f"{what} (base64url)")


class Lenient(BaseModel):
    """A part of the browser's answer: the fields read, any other ignored (browsers add
    fields of their own)."""

    model_config = ConfigDict(extra="ignore")


class AttestationResponse(Lenient):
    clientDataJSON: StrictStr = _b64(8192, "the client data")
    attestationObject: StrictStr = _b64(32768, "the attestation object")
    transports: list[StrictStr] = Field(default_factory=list, max_length=10, description=(
        "how the authenticator is reached (usb, nfc, ble, internal, hybrid...)"))


class AssertionResponse(Lenient):
    clientDataJSON: StrictStr = _b64(8192, "the client data")
    authenticatorData: StrictStr = _b64(4096, "the authenticator data")
    signature: StrictStr = _b64(2048, "the signature")
    userHandle: Optional[StrictStr] = _b64(256, "the account's WebAuthn user handle")


class RegistrationCredential(Lenient):
    """The answer of ``navigator.credentials.create()`` in WebAuthn's JSON form."""

    id: StrictStr = _b64(1400, "the credential's id")
    rawId: StrictStr = _b64(1400, "the credential's id")
    type: Literal["public-key"]
    response: AttestationResponse
    authenticatorAttachment: Optional[StrictStr] = Field(None, max_length=32)


class AuthenticationCredential(Lenient):
    """The answer of ``navigator.credentials.get()`` in WebAuthn's JSON form."""

    id: StrictStr = _b64(1400, "the credential's id")
    rawId: StrictStr = _b64(1400, "the credential's id")
    type: Literal["public-key"]
    response: AssertionResponse
    authenticatorAttachment: Optional[StrictStr] = Field(None, max_length=32)


CEREMONY = Field(min_length=20, max_length=100, description=(
    "the ceremony's token, as its beginning answered it"))


class BeginPasskey(Closed):
    """The beginning of a passkey sign-in, addition or confirmation: no field."""


class PasskeySignUp(Closed):
    """``POST /api/account/passkeys/sign-up/begin``: the new account's name."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the account's name (unique whatever its case or width)"))


class PasskeyRegistration(Closed):
    """``POST /api/account/passkeys/register/finish`` and ``.../sign-up/finish``: the
    browser's new passkey, answering the ceremony begun."""

    ceremony: StrictStr = CEREMONY
    credential: RegistrationCredential
    label: Optional[StrictStr] = Field(None, max_length=64, description=(
        f"a name for the passkey, 1 to {LABEL_MAX} characters (default: Passkey N)"))


class PasskeyAnswer(Closed):
    """``POST /api/account/passkeys/sign-in/finish`` (and ``DELETE /api/account``'s
    ``passkey``): the browser's passkey signing the ceremony's challenge."""

    ceremony: StrictStr = CEREMONY
    credential: AuthenticationCredential


class PasskeyOptions(BaseModel):
    """A ceremony begun: its token (to send back with the answer) and the options to hand
    to ``navigator.credentials.create()`` or ``.get()`` as ``publicKey`` (WebAuthn's JSON
    form: binary values as base64url)."""

    ceremony: str
    publicKey: dict[str, Any]


class PasskeyInfo(BaseModel):
    id: int
    label: str
    created_at: datetime
    last_used_at: Optional[datetime] = Field(description="the last sign-in with it")
    transports: list[str]


class PasskeyList(BaseModel):
    """The signed-in account's passkeys (the oldest first) and whether it has a password
    (without one, its last passkey cannot be removed)."""

    passkeys: list[PasskeyInfo]
    password: bool
