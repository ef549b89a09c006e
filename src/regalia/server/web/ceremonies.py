"""Passkeys' WebAuthn ceremonies, with py_webauthn: the options a page hands to
``navigator.credentials.create()`` or ``.get()``, and the check of the browser's answer.

A ceremony is begun by an endpoint (``begin``): a random challenge, kept in the database
with its purpose and an expiry of ``CEREMONY_TTL`` (``storage.passkeys.PasskeyStore``: so
that any replica may check the answer), and a random ceremony token handed to the page
with the options (``{"ceremony", "publicKey"}``). The answer names the token; it is taken
(``take``) whether the answer is then accepted or not: a challenge is answered once.

The relying party: its id is ``Settings.rp_id``, or else the host the request was sent to
(its ``Host`` header without the port: the site must be reached by a domain name, such as
``localhost``, since WebAuthn refuses IP addresses); the origin an answer must come from is
the request's own (its scheme, ``https`` behind a trusted proxy that says so, and its
``Host``). Browsers offer passkeys only to secure pages: HTTPS, or ``http://localhost``.

Options: a new passkey is a discoverable credential (``residentKey: required``, so that a
sign-in needs no name), with user verification preferred, attestation ``none``, the
algorithms ES256, EdDSA and RS256, and the account's passkeys excluded (one per
authenticator); a sign-in names no credential (``allowCredentials`` empty: the browser
offers the site's passkeys), a deletion's confirmation the account's own.

Every failure to read or check an answer (malformed, another challenge, another origin or
relying party, a bad signature, an unknown passkey) is the one refusal
``passkey_refused``, which says nothing of the accounts there are.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import secrets
import unicodedata
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from webauthn import (generate_authentication_options, generate_registration_options,
                      options_to_json, verify_authentication_response,
                      verify_registration_response)
from webauthn.authentication.verify_authentication_response import VerifiedAuthentication
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import (AttestationConveyancePreference,
                                      AuthenticatorSelectionCriteria, AuthenticatorTransport,
                                      PublicKeyCredentialDescriptor, ResidentKeyRequirement,
                                      UserVerificationRequirement)
from webauthn.registration.verify_registration_response import VerifiedRegistration

from regalia.server.refusal import Refusal
from regalia.server.settings import Settings
from regalia.server.storage.models import now, token_hash
from regalia.server.storage.passkeys import Ceremony, PasskeyData, PasskeyStore

log = logging.getLogger("regalia.server")

RP_NAME = "Regalia"
CEREMONY_TTL = timedelta(minutes=5)  # a challenge's life: the answer must come before
TIMEOUT_MS = int(CEREMONY_TTL.total_seconds() * 1000)  # the browser's hint, the same
MOST_PASSKEYS = 20  # passkeys an account may have
LABEL_MAX = 40
LABEL_RULE = f"label: 1 to {LABEL_MAX} characters (a name for the passkey, e.g. 'my phone')"
ALGORITHMS = [COSEAlgorithmIdentifier.ECDSA_SHA_256, COSEAlgorithmIdentifier.EDDSA,
              COSEAlgorithmIdentifier.RSASSA_PKCS1_v1_5_SHA_256]
TRANSPORTS = {t.value for t in AuthenticatorTransport}

EXPIRED = Refusal("passkey_expired", "this passkey request is unknown, answered already or "
                                     "expired (each lasts 5 minutes and is answered once): "
                                     "start again")
REFUSED_WORDS = "the passkey was not accepted"


def refused() -> Refusal:
    """The one refusal of an answer that does not check out (``passkey_refused``)."""
    return Refusal("passkey_refused", REFUSED_WORDS)


def b64(data: bytes) -> str:
    """Bytes as base64url text without padding (WebAuthn's JSON form)."""
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def unb64(text: str) -> bytes:
    """Base64url text (padding optional) as bytes; raises ``ValueError``."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url text")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as e:
        raise ValueError("not base64url text") from e


def credential_key(raw_id: str) -> str:
    """A credential id as stored (base64url, no padding), from the answer's ``rawId``;
    raises ``Refusal("passkey_refused")`` for one that is not base64url."""
    try:
        raw = unb64(raw_id)
    except ValueError:
        raise refused() from None
    if not raw:
        raise refused()
    return b64(raw)


def relying_party(request: HTTPConnection, settings: Settings) -> tuple[str, str]:
    """``(rp_id, origin)`` for ``request``: ``settings.rp_id`` or the request's host name,
    and the request's origin (module docstring)."""
    host = request.headers.get("host") or ""
    scheme = "https" if request.url.scheme in ("https", "wss") else "http"
    try:
        name = urlsplit(f"//{host}").hostname or ""
    except ValueError:
        name = ""
    if not (settings.rp_id or name):
        raise Refusal("bad_request", "passkeys need the site's name: send the Host header")
    return settings.rp_id or name, f"{scheme}://{host}"


def clean_label(label: str | None, default: str) -> str:
    """A passkey's label made safe (control characters made spaces, invisible formatting
    removed, spaces collapsed), or ``default`` when none is given; raises
    ``Refusal("bad_request")`` (``LABEL_RULE``) for one empty or too long."""
    if label is None:
        return default
    try:
        label.encode("utf-8")
    except UnicodeEncodeError:
        raise Refusal("bad_request", LABEL_RULE) from None
    text = " ".join("".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in label
                            if unicodedata.category(ch) != "Cf").split())
    if not text or len(text) > LABEL_MAX:
        raise Refusal("bad_request", LABEL_RULE)
    return text


def transports_of(names: list[str]) -> list[str]:
    """The transports WebAuthn knows among ``names`` (others dropped), in order, once."""
    return list(dict.fromkeys(n for n in names if n in TRANSPORTS))


def descriptors(passkeys: list[PasskeyData]) -> list[PublicKeyCredentialDescriptor]:
    return [PublicKeyCredentialDescriptor(
        id=unb64(p.credential_id),
        transports=[AuthenticatorTransport(t) for t in transports_of(p.transports)] or None)
        for p in passkeys]


class Ceremonies:
    """The ceremonies of one server: begun and taken through ``store`` (on the registry's
    database thread and writer: ``db``, ``write``)."""

    def __init__(self, store: PasskeyStore, db: Any, write: Any, settings: Settings) -> None:
        self.store = store
        self.db = db
        self.write = write
        self.settings = settings

    async def _open(self, purpose: str, challenge: bytes, **what: Any) -> str:
        token = secrets.token_urlsafe(32)
        await self.write(self.store.open_ceremony, token_hash(token), purpose, b64(challenge),
                         now() + CEREMONY_TTL, what.get("account_id"), what.get("name"),
                         what.get("user_handle"))
        return token

    async def begin_registration(self, request: HTTPConnection, purpose: str, name: str,
                                 user_handle: str, account_id: int | None = None,
                                 exclude: list[PasskeyData] = ()) -> dict[str, Any]:
        """Begin adding a passkey (``purpose``: ``REGISTER`` for ``account_id``, or
        ``SIGN_UP`` of an account named ``name``): ``{"ceremony", "publicKey"}``, the
        options for ``navigator.credentials.create()``."""
        rp_id, _ = relying_party(request, self.settings)
        challenge = secrets.token_bytes(32)
        options = generate_registration_options(
            rp_id=rp_id, rp_name=RP_NAME, user_name=name, user_display_name=name,
            user_id=unb64(user_handle), challenge=challenge, timeout=TIMEOUT_MS,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED),
            exclude_credentials=descriptors(list(exclude)), supported_pub_key_algs=ALGORITHMS)
        token = await self._open(purpose, challenge, account_id=account_id, name=name,
                                 user_handle=user_handle)
        return {"ceremony": token, "publicKey": json.loads(options_to_json(options))}

    async def begin_assertion(self, request: HTTPConnection, purpose: str,
                              account_id: int | None = None,
                              allow: list[PasskeyData] = ()) -> dict[str, Any]:
        """Begin a sign-in (``SIGN_IN``: any of the site's passkeys) or a confirmation
        (``CONFIRM``: one of ``allow``, the passkeys of ``account_id``):
        ``{"ceremony", "publicKey"}``, the options for ``navigator.credentials.get()``."""
        rp_id, _ = relying_party(request, self.settings)
        challenge = secrets.token_bytes(32)
        options = generate_authentication_options(
            rp_id=rp_id, challenge=challenge, timeout=TIMEOUT_MS,
            allow_credentials=descriptors(list(allow)),
            user_verification=UserVerificationRequirement.PREFERRED)
        token = await self._open(purpose, challenge, account_id=account_id)
        return {"ceremony": token, "publicKey": json.loads(options_to_json(options))}

    async def take(self, token: str, purpose: str, account_id: int | None = None) -> Ceremony:
        """The ceremony ``token`` names, taken (never to be answered again); raises
        ``Refusal("passkey_expired")`` when there is none for ``purpose`` (unknown, taken,
        expired) or it was begun by another account than ``account_id`` (when given)."""
        if not isinstance(token, str) or not 20 <= len(token) <= 100:
            raise EXPIRED
        ceremony = await self.write(self.store.take_ceremony, token_hash(token), purpose)
        if ceremony is None or (account_id is not None and ceremony.account_id != account_id):
            raise EXPIRED
        return ceremony

    async def check_registration(self, request: HTTPConnection, ceremony: Ceremony,
                                 credential: dict[str, Any]) -> VerifiedRegistration:
        """The answer of ``navigator.credentials.create()`` (its JSON form) to ``ceremony``,
        verified; raises ``Refusal("passkey_refused")``."""
        rp_id, origin = relying_party(request, self.settings)
        try:
            return await asyncio.to_thread(
                verify_registration_response, credential=credential,
                expected_challenge=unb64(ceremony.challenge), expected_rp_id=rp_id,
                expected_origin=origin, supported_pub_key_algs=ALGORITHMS)
        except Exception as e:  # whatever the library could not read or check
            log.info("passkey registration refused: %s", e)
            raise refused() from None

    async def check_assertion(self, request: HTTPConnection, ceremony: Ceremony,
                              credential: dict[str, Any],
                              account_id: int | None = None) -> PasskeyData:
        """The answer of ``navigator.credentials.get()`` (its JSON form) to ``ceremony``,
        verified against the stored passkey it names (of ``account_id`` when given) and its
        signature counter, which is then stored with the passkey's last use; returns the
        passkey. Raises ``Refusal("passkey_refused")`` for any failure, an unknown passkey
        or another account's included."""
        rp_id, origin = relying_party(request, self.settings)
        passkey = await self.db(self.store.find, credential_key(credential.get("rawId")))
        if passkey is None or (account_id is not None and passkey.account_id != account_id):
            raise refused()
        handle = (credential.get("response") or {}).get("userHandle")
        if handle:  # the authenticator's user handle, when it gives one, is the passkey's
            try:
                if b64(unb64(handle)) != passkey.user_handle:
                    raise refused()
            except ValueError:
                raise refused() from None
        try:
            verified: VerifiedAuthentication = await asyncio.to_thread(
                verify_authentication_response, credential=credential,
                expected_challenge=unb64(ceremony.challenge), expected_rp_id=rp_id,
                expected_origin=origin, credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count)
        except Exception as e:  # whatever the library could not read or check
            log.info("passkey sign-in refused: %s", e)
            raise refused() from None
        if not await self.write(self.store.used, passkey.id, passkey.sign_count,
                                verified.new_sign_count):
            raise refused()
        return passkey


def new_handle() -> str:
    """A new WebAuthn user handle (32 random bytes, base64url): no account's id or name."""
    return b64(secrets.token_bytes(32))
