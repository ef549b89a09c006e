"""Friends: ``friendships`` (one row per pair of accounts, the smaller id first: a request
until ``accepted_at`` is set), ``blocks`` (an account that blocks another) and
``table_invitations`` (an account's invitation of a friend to a free seat of a table,
one per table and invitee). New tables only: no existing row is touched.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-15
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("low_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("high_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("requester_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_friendships_high_id", "friendships", ["high_id"])
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("blocked_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "table_invitations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("from_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("to_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "to_id", name="uq_table_invitations_to"),
    )
    op.create_index("ix_table_invitations_from_id", "table_invitations", ["from_id"])
    op.create_index("ix_table_invitations_to_id", "table_invitations", ["to_id"])


def downgrade() -> None:
    op.drop_index("ix_table_invitations_to_id", "table_invitations")
    op.drop_index("ix_table_invitations_from_id", "table_invitations")
    op.drop_table("table_invitations")
    op.drop_index("ix_blocks_blocked_id", "blocks")
    op.drop_table("blocks")
    op.drop_index("ix_friendships_high_id", "friendships")
    op.drop_table("friendships")
