"""A table's spectator token and the index that finds abandoned tables.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("watch_token", sa.String(64), nullable=True))
    op.create_index("ix_game_tables_updated_at", "game_tables", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_game_tables_updated_at", "game_tables")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("watch_token")
