"""The passkeys' database calls (``PasskeyStore``, over a store's engine): an account's
WebAuthn credentials (``PasskeyRow``) and the challenges of the ceremonies begun and not
answered yet (``ChallengeRow``).

A ceremony's challenge is kept in the database, not in the replica that began it: its
answer may reach any replica. It is single use (``take_ceremony`` deletes it in the
transaction that reads it, so of two answers racing on two replicas one only gets it) and
short-lived (its ``expires_at``; expired ones are deleted whenever a ceremony begins). The
page holds the ceremony's token; the database keeps its SHA-256 only.

An account's passkeys share one WebAuthn user handle (``handle_of``), so that an
authenticator keeps one passkey per account. An account keeps a way to sign in: its last
passkey may be removed only when it has a password (``remove``).

Every call is blocking: the server makes them on its database thread (``writer.Writer``),
as the tables' calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from regalia.server.storage.database import Database
from regalia.server.storage.models import AccountRow, ChallengeRow, PasskeyRow, now, utc
from regalia.server.storage.values import Conflict, NewPasskey, PasskeyTaken

__all__ = ["Ceremony", "PasskeyData", "PasskeyStore", "TooManyPasskeys", "PURPOSES",
           "REGISTER", "SIGN_UP", "SIGN_IN", "CONFIRM"]

REGISTER, SIGN_UP, SIGN_IN, CONFIRM = "register", "sign-up", "sign-in", "confirm"
PURPOSES = (REGISTER, SIGN_UP, SIGN_IN, CONFIRM)
"""What a ceremony is begun for: adding a passkey to the signed-in account, creating an
account with a passkey, signing in, confirming the account's deletion."""

REMOVED, UNKNOWN, LAST = "removed", "unknown", "last"  # what ``remove`` did


class TooManyPasskeys(Conflict):
    """The account has as many passkeys as it may have."""


@dataclass(frozen=True)
class PasskeyData:
    """A stored passkey (``PasskeyRow``'s values; ``public_key`` the COSE key's bytes)."""

    id: int
    account_id: int
    credential_id: str
    public_key: bytes
    sign_count: int
    transports: list[str]
    user_handle: str
    label: str
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True)
class Ceremony:
    """A ceremony taken by its answer (``ChallengeRow``'s values): ``challenge`` as
    base64url text."""

    purpose: str
    challenge: str
    account_id: int | None
    name: str | None
    user_handle: str | None
    expires_at: datetime


PASSKEY = tuple(PasskeyRow.__table__.c)
CHALLENGE = tuple(ChallengeRow.__table__.c)


def _passkey(r: Any) -> PasskeyData:
    return PasskeyData(r.id, r.account_id, r.credential_id, bytes(r.public_key),
                       int(r.sign_count), list(r.transports or []), r.user_handle, r.label,
                       utc(r.created_at), utc(r.last_used_at) if r.last_used_at else None)


class PasskeyStore:
    """The blocking passkey calls on ``db``'s engine (one per database, beside its
    ``store.Store``)."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine

    # -- ceremonies ------------------------------------------------------------------

    def open_ceremony(self, key: str, purpose: str, challenge: str, expires_at: datetime,
                      account_id: int | None = None, name: str | None = None,
                      user_handle: str | None = None) -> None:
        """Keep a ceremony begun: ``key`` the SHA-256 of its token, ``purpose`` one of
        ``PURPOSES``, ``challenge`` base64url text, valid until ``expires_at``; the
        ceremonies already expired are deleted."""
        if purpose not in PURPOSES:
            raise ValueError(f"purpose: one of {', '.join(PURPOSES)}, not {purpose!r}")
        t = now()
        with self.engine.begin() as conn:
            conn.execute(delete(ChallengeRow).where(ChallengeRow.expires_at < t))
            conn.execute(ChallengeRow.__table__.insert().values(
                key=key, purpose=purpose, challenge=challenge, account_id=account_id,
                name=name, user_handle=user_handle, created_at=t, expires_at=expires_at))

    def take_ceremony(self, key: str, purpose: str) -> Ceremony | None:
        """The ceremony whose token hashes to ``key``, deleted as it is read (single use):
        ``None`` when there is none (never begun, taken already), it has expired, or it was
        begun for another purpose (deleted all the same)."""
        t = now()
        with self.engine.begin() as conn:
            r = conn.execute(select(*CHALLENGE).where(ChallengeRow.key == key)).first()
            if r is None:
                return None
            gone = conn.execute(delete(ChallengeRow).where(ChallengeRow.key == key)).rowcount
        if gone != 1 or r.purpose != purpose or utc(r.expires_at) <= t:
            return None
        return Ceremony(r.purpose, r.challenge, r.account_id, r.name, r.user_handle,
                        utc(r.expires_at))

    # -- passkeys --------------------------------------------------------------------

    def of_account(self, account_id: int) -> list[PasskeyData]:
        """The account's passkeys, the oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(*PASSKEY).where(PasskeyRow.account_id == account_id)
                                .order_by(PasskeyRow.id)).all()
        return [_passkey(r) for r in rows]

    def handle_of(self, account_id: int) -> str | None:
        """The WebAuthn user handle of the account's passkeys (``None``: it has none)."""
        with self.engine.connect() as conn:
            return conn.execute(select(PasskeyRow.user_handle)
                                .where(PasskeyRow.account_id == account_id)
                                .order_by(PasskeyRow.id).limit(1)).scalar()

    def find(self, credential_id: str) -> PasskeyData | None:
        """The passkey whose credential id (base64url) is ``credential_id``, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*PASSKEY)
                               .where(PasskeyRow.credential_id == credential_id)).first()
        return _passkey(row) if row is not None else None

    def add(self, account_id: int, passkey: NewPasskey, most: int) -> PasskeyData:
        """Store a passkey of ``account_id``; raises ``PasskeyTaken`` when its credential id
        is stored already, ``TooManyPasskeys`` when the account has ``most`` already
        (nothing stored either way)."""
        t = now()
        try:
            with self.engine.begin() as conn:
                count = conn.execute(select(func.count()).select_from(PasskeyRow)
                                     .where(PasskeyRow.account_id == account_id)).scalar_one()
                if count >= most:
                    raise TooManyPasskeys(f"an account has at most {most} passkeys")
                if conn.execute(select(PasskeyRow.id).where(
                        PasskeyRow.credential_id == passkey.credential_id)).first():
                    raise PasskeyTaken("this passkey is stored already")
                new_id = conn.execute(PasskeyRow.__table__.insert().values(
                    account_id=account_id, created_at=t, **passkey.values())
                ).inserted_primary_key[0]
        except IntegrityError as e:  # stored meanwhile by another replica
            raise PasskeyTaken("this passkey is stored already") from e
        return PasskeyData(int(new_id), account_id, passkey.credential_id, passkey.public_key,
                           passkey.sign_count, list(passkey.transports), passkey.user_handle,
                           passkey.label, t, None)

    def used(self, passkey_id: int, seen_count: int, new_count: int) -> bool:
        """Record a sign-in with the passkey: its counter becomes ``new_count`` and its
        ``last_used_at`` now, only while its counter is still ``seen_count`` (the one the
        answer was checked against); ``False``: another sign-in with it was recorded in
        between (the answer is refused: a replayed or cloned authenticator's)."""
        with self.engine.begin() as conn:
            return conn.execute(update(PasskeyRow).where(PasskeyRow.id == passkey_id,
                                                         PasskeyRow.sign_count == seen_count)
                                .values(sign_count=new_count, last_used_at=now())
                                ).rowcount == 1

    def remove(self, account_id: int, passkey_id: int) -> str:
        """Delete the account's passkey ``passkey_id``: ``REMOVED``; ``UNKNOWN`` when the
        account has no such passkey; ``LAST`` (nothing deleted) when it is the account's
        last way to sign in (no password, no other passkey)."""
        with self.engine.begin() as conn:
            ids = list(conn.execute(select(PasskeyRow.id)
                                    .where(PasskeyRow.account_id == account_id)).scalars())
            if passkey_id not in ids:
                return UNKNOWN
            password = conn.execute(select(AccountRow.password_hash)
                                    .where(AccountRow.id == account_id)).scalar()
            if password is None and len(ids) == 1:
                return LAST
            conn.execute(delete(PasskeyRow).where(PasskeyRow.id == passkey_id))
        return REMOVED

