"""Tables, seats and the move log.

Revision ID: 0001
Revises:
Create Date: 2026-01-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_game_tables_status", "game_tables", ["status"])
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("bot_replaces", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.UniqueConstraint("table_id", "seat", name="uq_seats_table_seat"),
    )
    op.create_index("ix_seats_table_id", "seats", ["table_id"])
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "ply", name="uq_moves_table_ply"),
    )
    op.create_index("ix_moves_table_id", "moves", ["table_id"])


def downgrade() -> None:
    op.drop_table("moves")
    op.drop_table("seats")
    op.drop_table("game_tables")
