"""Passkeys: ``passkeys`` (an account's WebAuthn credentials: the credential's id as
base64url text, unique; its COSE public key; the authenticator's signature counter; the
transports the browser named; the WebAuthn user handle the account's passkeys share; a
label; when it was added and last used) and ``passkey_challenges`` (the challenges of the
WebAuthn ceremonies begun and not answered yet: each kept with its purpose, its expiry and
what it was begun for, so that any replica may check the answer, once).

Both refer to ``accounts.id`` with ON DELETE CASCADE (the account's deletion also deletes
them itself, whatever the database's foreign-key enforcement). New tables only: no existing
table is copied or changed.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(),
                  sa.ForeignKey("accounts.id", name="fk_passkeys_account_id",
                                ondelete="CASCADE"), nullable=False),
        sa.Column("credential_id", sa.String(1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("transports", sa.JSON(), nullable=False),
        sa.Column("user_handle", sa.String(128), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("credential_id", name="uq_passkeys_credential_id"),
    )
    op.create_index("ix_passkeys_account_id", "passkeys", ["account_id"])
    op.create_table(
        "passkey_challenges",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("challenge", sa.String(128), nullable=False),
        sa.Column("account_id", sa.Integer(),
                  sa.ForeignKey("accounts.id", name="fk_passkey_challenges_account_id",
                                ondelete="CASCADE"), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("user_handle", sa.String(128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_passkey_challenges_expires_at", "passkey_challenges", ["expires_at"])
    op.create_index("ix_passkey_challenges_account_id", "passkey_challenges", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_passkey_challenges_account_id", "passkey_challenges")
    op.drop_index("ix_passkey_challenges_expires_at", "passkey_challenges")
    op.drop_table("passkey_challenges")
    op.drop_index("ix_passkeys_account_id", "passkeys")
    op.drop_table("passkeys")
