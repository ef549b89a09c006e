"""A move a bot played for a human seat (handed to a bot, timed out, left): ``moves.by_bot``.

A game a bot played any part of earns no medal, and its log says "Bot for NAME"; the table
remembers it across restarts from its moves.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("moves", sa.Column("by_bot", sa.Boolean, nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("by_bot")
