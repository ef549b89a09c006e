"""The daily deal: ``server_secrets`` (the key the daily deals' seeds are drawn with),
``daily_deals`` (one row per UTC day that was played: its seed and the solver's verdict)
and ``daily_plays`` (each table dealt a day's deal, the account that plays it ranked, and
its result once worked out).

New tables only: no existing table is copied or changed.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "daily_deals",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("verdict", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("solved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("solver", sa.String(64), nullable=True),
        sa.Column("solving_since", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "daily_plays",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("day", sa.String(10), sa.ForeignKey("daily_deals.day"), nullable=False),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("scored", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.Column("medal", sa.String(8), nullable=True),
        sa.Column("medal_rank", sa.Integer(), nullable=True),
        sa.Column("enemies", sa.Integer(), nullable=True),
        sa.Column("moves", sa.Integer(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("assisted", sa.Boolean(), nullable=True),
        sa.UniqueConstraint("table_id", name="uq_daily_plays_table_id"),
        sa.UniqueConstraint("day", "account_id", name="uq_daily_plays_day_account"),
    )
    op.create_index("ix_daily_plays_day", "daily_plays", ["day"])
    op.create_index("ix_daily_plays_account_id", "daily_plays", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_daily_plays_account_id", "daily_plays")
    op.drop_index("ix_daily_plays_day", "daily_plays")
    op.drop_table("daily_plays")
    op.drop_table("daily_deals")
    op.drop_table("server_secrets")
