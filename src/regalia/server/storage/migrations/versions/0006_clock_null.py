"""A table without clock stores SQL NULL in ``clock`` and ``clock_state``.

Until 0005 the store wrote Python's ``None`` there as the JSON text ``null``, which the
queries for tables with a clock (``clock IS NOT NULL``: the tables a server loads at start,
and those a replica takes the lease of) took for a clock.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for column in ("clock", "clock_state"):
        op.execute(f"UPDATE game_tables SET {column} = NULL "
                   f"WHERE CAST({column} AS TEXT) = 'null'")


def downgrade() -> None:
    """Nothing to undo: NULL is what 0005 meant by no clock."""
