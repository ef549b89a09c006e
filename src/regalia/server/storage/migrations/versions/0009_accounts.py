"""Optional accounts: ``accounts`` (a name unique after case and width folding, an Argon2
password hash or none), ``sessions`` (signed-in browsers: a hash of each cookie's token),
and on each seat the account that proved its token (``seats.account_id``) and whether the
seat won a finished game (``seats.won``, worked out from the move log when first asked).

The seats' new columns are plain ADD COLUMNs (no table copy: the seats keep their rows and
foreign keys); SQLite takes the column's reference in the ADD COLUMN itself, PostgreSQL as a
constraint of its own. A later table of passkeys refers to ``accounts.id`` as the sessions
do.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("folded", sa.String(128), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("folded", name="uq_accounts_folded"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    if op.get_bind().dialect.name == "sqlite":  # the reference in the ADD COLUMN itself
        op.execute("ALTER TABLE seats ADD COLUMN account_id INTEGER "
                   "CONSTRAINT fk_seats_account_id REFERENCES accounts (id)")
    else:
        op.add_column("seats", sa.Column("account_id", sa.Integer(), nullable=True))
        op.create_foreign_key("fk_seats_account_id", "seats", "accounts",
                              ["account_id"], ["id"])
    op.add_column("seats", sa.Column("won", sa.Boolean(), nullable=True))
    op.create_index("ix_seats_account_id", "seats", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_seats_account_id", "seats")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_seats_account_id", "seats", type_="foreignkey")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("won")
        batch.drop_column("account_id")
    op.drop_index("ix_sessions_expires_at", "sessions")
    op.drop_index("ix_sessions_account_id", "sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
