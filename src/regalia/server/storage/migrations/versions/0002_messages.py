"""Table messages (the communication the rules allow) and a table's last-activity time.

Revision ID: 0002
Revises: 0001
Create Date: 2026-01-12
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_messages_table_id", "messages", ["table_id"])
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE game_tables SET updated_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("updated_at")
    op.drop_table("messages")
