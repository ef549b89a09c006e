"""An open table's creator, as a key (``creation.creator_key``: a hash of the creating
client's address, never the address), so that every replica counts the open tables one
address has listed in the lobby (``--open-tables-per-address``). Tables stored before have
none (NULL): each counts as its own creator.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("creator", sa.String(64), nullable=True))
    op.create_index("ix_game_tables_creator", "game_tables", ["creator"])


def downgrade() -> None:
    op.drop_index("ix_game_tables_creator", "game_tables")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("creator")
