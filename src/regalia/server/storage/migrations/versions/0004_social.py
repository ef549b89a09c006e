"""Names, open tables, rematches and clocks: a seat's nickname and whether it was claimed,
a table's open flag, time control, clock state and the table of its rematch.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no table copy: the seats and moves keep their foreign keys).
    op.add_column("game_tables", sa.Column("is_open", sa.Boolean, nullable=False,
                                           server_default=sa.false()))
    op.add_column("game_tables", sa.Column("clock", sa.JSON, nullable=True))
    op.add_column("game_tables", sa.Column("clock_state", sa.JSON, nullable=True))
    op.add_column("game_tables", sa.Column("next_table", sa.String(32), nullable=True))
    op.add_column("seats", sa.Column("name", sa.String(64), nullable=True))
    op.add_column("seats", sa.Column("claimed", sa.Boolean, nullable=False,
                                     server_default=sa.false()))
    op.create_index("ix_game_tables_is_open", "game_tables", ["is_open"])


def downgrade() -> None:
    op.drop_index("ix_game_tables_is_open", "game_tables")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("claimed")
        batch.drop_column("name")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("next_table")
        batch.drop_column("clock_state")
        batch.drop_column("clock")
        batch.drop_column("is_open")
