"""Solo tables "with hints": a table's hints flag (its games earn no medal).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("hints", sa.Boolean, nullable=False,
                                           server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("hints")
