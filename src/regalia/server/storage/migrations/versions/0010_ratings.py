"""Ratings: rated tables (``game_tables.rated``), each account's rating per game
(``ratings``: OpenSkill's mu and sigma, the number shown, the rated record), what each
finished rated game did to each seat's rating (``rating_changes``, keyed by table and seat:
a game is rated once), and the solo Regicide medal a seat won (``seats.medal``).

Every change adds: the tables' rows stay as they are (plain ADD COLUMNs with defaults, no
table copy). The medals of solo Regicide games already worked out are not known: those
seats' ``won`` is cleared, and a profile works both out again from the move log when it is
next viewed.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("rated", sa.Boolean(), nullable=False,
                                           server_default=sa.false()))
    op.create_index("ix_game_tables_rated", "game_tables", ["rated"])
    op.add_column("seats", sa.Column("medal", sa.String(8), nullable=True))
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_game_rating", "ratings", ["game", "rating"])
    op.create_table(
        "rating_changes",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("rating_before", sa.Integer(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_changes_account_id", "rating_changes", ["account_id"])
    # the solo Regicide wins worked out before medals were kept: worked out again
    op.execute("UPDATE seats SET won = NULL WHERE won IS NOT NULL AND account_id IS NOT NULL "
               "AND table_id IN (SELECT id FROM game_tables WHERE game = 'regicide') "
               "AND (SELECT count(*) FROM seats AS s WHERE s.table_id = seats.table_id) = 1")


def downgrade() -> None:
    """Drops what the upgrade added; the columns in place (SQLite 3.35's own DROP COLUMN: a
    table copy would drop ``game_tables`` under its seats' and moves' foreign keys)."""
    op.drop_index("ix_rating_changes_account_id", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_game_rating", "ratings")
    op.drop_table("ratings")
    op.drop_index("ix_game_tables_rated", "game_tables")
    for table, column in (("seats", "medal"), ("game_tables", "rated")):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
