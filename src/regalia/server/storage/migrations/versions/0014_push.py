"""Turn-based tables and Web Push: ``game_tables.turn_deadline`` (when the player to act at a
turn-based table runs out of time, so that the server can load the table in time however
long it was unloaded), ``push_keys`` (the site's VAPID key pair, made at the first start and
shared by every replica), ``push_subscriptions`` (a browser's push subscription: its
endpoint, unique, its keys, and the account it notifies for, if any) and ``push_seats`` (the
seats an anonymous subscription notifies for: a table and the hash of the seat's token).

Every change adds: the existing rows stay as they are (a plain ADD COLUMN, nullable, no
table copy); a turn-based table cannot exist before this revision, so no deadline is missing.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("turn_deadline", sa.DateTime(timezone=True),
                                           nullable=True))
    op.create_index("ix_game_tables_turn_deadline", "game_tables", ["turn_deadline"])
    op.create_table(
        "push_keys",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("public_key", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("endpoint", sa.String(1024), nullable=False),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("endpoint", name="uq_push_subscriptions_endpoint"),
    )
    op.create_index("ix_push_subscriptions_account_id", "push_subscriptions", ["account_id"])
    op.create_table(
        "push_seats",
        sa.Column("subscription_id", sa.Integer(), sa.ForeignKey("push_subscriptions.id"),
                  primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_push_seats_table_id", "push_seats", ["table_id"])


def downgrade() -> None:
    """Drops what the upgrade added; the column in place (SQLite 3.35's own DROP COLUMN: a
    table copy would drop ``game_tables`` under its seats' and moves' foreign keys)."""
    op.drop_index("ix_push_seats_table_id", "push_seats")
    op.drop_table("push_seats")
    op.drop_index("ix_push_subscriptions_account_id", "push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("push_keys")
    op.drop_index("ix_game_tables_turn_deadline", "game_tables")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE game_tables DROP COLUMN turn_deadline")
    else:
        op.drop_column("game_tables", "turn_deadline")
