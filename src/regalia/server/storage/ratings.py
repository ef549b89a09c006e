"""The ratings' database calls (``RatingStore``, over a store's engine): rating a finished
rated game, the games still to rate, the leaderboard, an account's rating and its rated
games.

A rated game is rated **once**, whoever processes its end and however often (the replica
that stored its last move or its ending, a retry, another replica catching up after a
crash): ``apply`` is one transaction that stores what the game did to each seat's rating
(``rating_changes``, keyed by the table and the seat: a second attempt finds them, or fails
on the key and is rolled back) together with the two new ratings and the seats' ``won``.
A rating's row changes only from the version it was read at (its ``games`` count, checked
in the UPDATE): two games of one account rated at once on two replicas cannot lose either
update; the later one is read again and retried. The accounts' rows are written in the
order of their ids (no deadlock between two such transactions on PostgreSQL).

Every call is blocking: the server makes them on its database thread (``writer.Writer``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from regalia.lab.ratings import Rating, rate
from regalia.server.storage.accounts import table_record
from regalia.server.storage.database import Database, busy
from regalia.server.storage.models import (FINISHED, AccountRow, GameTable, RatingChangeRow,
                                           RatingRow, SeatRow, now, utc)
from regalia.server.storage.values import Conflict

__all__ = ["RatedGame", "RatingData", "RatingStore", "SeatChange"]

RETRIES = 5  # attempts of a rating whose accounts' ratings changed meanwhile


class _Moved(Exception):
    """An account's rating changed since it was read (another game rated meanwhile)."""


@dataclass(frozen=True)
class RatingData:
    """An account's rating in one game: ``rating`` the number shown
    (``lab.ratings.shown``), its rated record (``games``, ``wins``, ``losses``)."""

    account_id: int
    name: str
    game: str
    mu: float
    sigma: float
    rating: int
    games: int
    wins: int
    losses: int
    updated_at: datetime


@dataclass(frozen=True)
class SeatChange:
    """What a rated game did to one seat's rating: its account, its ``score`` (1 won, 0
    lost), the rating ``before`` and ``after``."""

    seat: int
    account_id: int
    score: float
    before: Rating
    after: Rating


@dataclass(frozen=True)
class RatedGame:
    """One rated game of an account (``RatingStore.games_of``): its table, the account's
    seat and score, the opponent's seat name (``gamekit.DELETED_PLAYER`` for a deleted
    account), the shown rating before and after, and when it was rated."""

    table_id: str
    seat: int
    score: float
    opponent: str | None
    rating_before: int
    rating_after: int
    at: datetime


class RatingStore:
    """The blocking rating calls on ``db``'s engine (module docstring)."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine

    # -- rating a game ---------------------------------------------------------------

    def apply(self, table_id: str, scores: list[float]) -> list[SeatChange] | None:
        """Rate the finished rated game of ``table_id`` whose seats scored ``scores`` (its
        returns: 1 won, 0 lost), in one transaction. Returns the seats' changes, or ``None``
        when nothing was done: the game was rated already (here or elsewhere), it is not a
        finished rated game, or a seat has no account any more (deleted). Raises
        ``Conflict`` when its accounts' ratings kept changing meanwhile (``RETRIES``
        attempts), and the database's errors."""
        for _ in range(RETRIES):
            try:
                with self.engine.begin() as conn:
                    return self._apply(conn, table_id, [float(x) for x in scores])
            except _Moved:
                continue
            except (IntegrityError, OperationalError) as e:
                # its changes stored meanwhile (the key), an account's first rating stored
                # meanwhile, or two writers' locks: read again
                if self.rated(table_id):
                    return None
                if isinstance(e, OperationalError) and not _retryable(e):
                    raise
        raise Conflict(f"table {table_id}: its players' ratings kept changing; not rated yet")

    def _apply(self, conn: Connection, table_id: str,
               scores: list[float]) -> list[SeatChange] | None:
        table = conn.execute(select(GameTable.game, GameTable.status, GameTable.rated)
                             .where(GameTable.id == table_id)).first()
        if table is None or not table.rated or table.status != FINISHED:
            return None
        seats = conn.execute(select(SeatRow.seat, SeatRow.account_id)
                             .where(SeatRow.table_id == table_id).order_by(SeatRow.seat)).all()
        accounts = [r.account_id for r in seats]
        if (len(seats) != len(scores) or len(seats) < 2 or None in accounts
                or len(set(accounts)) != len(accounts)):
            return None
        if conn.execute(select(RatingChangeRow.seat).where(RatingChangeRow.table_id == table_id)
                        .limit(1)).first() is not None:
            return None
        game = table.game
        stored = {r.account_id: r for r in conn.execute(
            select(RatingRow).where(RatingRow.game == game, RatingRow.account_id.in_(accounts)))}
        before = [Rating(stored[a].mu, stored[a].sigma) if a in stored else Rating()
                  for a in accounts]
        after = rate(before, scores)
        t = now()
        changes = [SeatChange(r.seat, a, sc, b, n)
                   for r, a, sc, b, n in zip(seats, accounts, scores, before, after)]
        # the key: a second rating of this game fails here (or waits here, then fails)
        conn.execute(insert(RatingChangeRow), [
            {"table_id": table_id, "seat": c.seat, "account_id": c.account_id, "game": game,
             "score": c.score, "mu_before": c.before.mu, "sigma_before": c.before.sigma,
             "rating_before": c.before.shown, "mu_after": c.after.mu,
             "sigma_after": c.after.sigma, "rating_after": c.after.shown, "created_at": t}
            for c in changes])
        best = max(scores)
        for c in sorted(changes, key=lambda c: c.account_id):
            won = int(c.score == best and scores.count(best) == 1)
            lost = int(c.score < best)
            values = {"mu": c.after.mu, "sigma": c.after.sigma, "rating": c.after.shown,
                      "updated_at": t}
            old = stored.get(c.account_id)
            if old is None:
                conn.execute(insert(RatingRow).values(account_id=c.account_id, game=game,
                                                      games=1, wins=won, losses=lost,
                                                      **values))
            elif conn.execute(update(RatingRow).where(
                    RatingRow.account_id == c.account_id, RatingRow.game == game,
                    RatingRow.games == old.games).values(
                        games=old.games + 1, wins=old.wins + won, losses=old.losses + lost,
                        **values)).rowcount != 1:
                raise _Moved()
            conn.execute(update(SeatRow).where(SeatRow.table_id == table_id,
                                               SeatRow.seat == c.seat)
                         .values(won=bool(won)))
        return changes

    def rated(self, table_id: str) -> bool:
        """Whether the game of ``table_id`` was rated (its changes are stored)."""
        with self.engine.connect() as conn:
            return conn.execute(select(RatingChangeRow.seat)
                                .where(RatingChangeRow.table_id == table_id)
                                .limit(1)).first() is not None

    def pending(self, limit: int, skip: list[str] | None = None) -> list[dict[str, Any]]:
        """At most ``limit`` finished rated games not rated yet whose seats all still have
        an account (the oldest first; none of ``skip``), each as ``accounts.table_record``
        reads it: their results are worked out from their records and rated (``apply``)."""
        with self.engine.connect() as conn:
            unlinked = select(SeatRow.id).where(SeatRow.table_id == GameTable.id,
                                                SeatRow.account_id.is_(None)).exists()
            done = select(RatingChangeRow.seat).where(
                RatingChangeRow.table_id == GameTable.id).exists()
            query = select(GameTable.id).where(GameTable.rated, GameTable.status == FINISHED,
                                               ~done, ~unlinked)
            if skip:
                query = query.where(GameTable.id.not_in(skip))
            ids = [r[0] for r in conn.execute(
                query.order_by(GameTable.updated_at, GameTable.id).limit(limit))]
            return [table_record(conn, table_id) for table_id in ids]

    # -- reading ---------------------------------------------------------------------

    def leaderboard(self, game: str, limit: int, offset: int = 0
                    ) -> tuple[list[RatingData], int]:
        """The accounts rated in ``game``, the highest shown rating first (then the higher
        ``mu``, then the name): at most ``limit`` from ``offset``, and how many there are
        in all."""
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(RatingRow)
                                 .where(RatingRow.game == game)).scalar_one()
            rows = conn.execute(
                select(*RatingRow.__table__.c, AccountRow.name)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.game == game)
                .order_by(RatingRow.rating.desc(), RatingRow.mu.desc(), AccountRow.folded)
                .limit(limit).offset(offset)).all()
        return [_rating(r) for r in rows], int(total)

    def rating_of(self, account_id: int, game: str) -> tuple[RatingData, int] | None:
        """The account's rating in ``game`` and its rank on the leaderboard (1: the top;
        ``leaderboard``'s order), or ``None`` when it played no rated game of it."""
        with self.engine.connect() as conn:
            r = conn.execute(select(*RatingRow.__table__.c, AccountRow.name)
                               .join(AccountRow, AccountRow.id == RatingRow.account_id)
                               .where(RatingRow.account_id == account_id,
                                      RatingRow.game == game)).first()
            if r is None:
                return None
            above = conn.execute(
                select(func.count()).select_from(RatingRow)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.game == game,
                       (RatingRow.rating > r.rating)
                       | and_(RatingRow.rating == r.rating, RatingRow.mu > r.mu)
                       | and_(RatingRow.rating == r.rating, RatingRow.mu == r.mu,
                              AccountRow.folded < select(AccountRow.folded).where(
                                  AccountRow.id == account_id).scalar_subquery()))
            ).scalar_one()
        return _rating(r), int(above) + 1

    def games_of(self, account_id: int, game: str, limit: int) -> list[RatedGame]:
        """The account's latest rated games of ``game`` (at most ``limit``), the latest
        first."""
        with self.engine.connect() as conn:
            other = SeatRow.__table__.alias("other")
            rows = conn.execute(
                select(RatingChangeRow.table_id, RatingChangeRow.seat, RatingChangeRow.score,
                       RatingChangeRow.rating_before, RatingChangeRow.rating_after,
                       RatingChangeRow.created_at, other.c.name)
                .join(other, and_(other.c.table_id == RatingChangeRow.table_id,
                                  other.c.seat != RatingChangeRow.seat))
                .where(RatingChangeRow.account_id == account_id, RatingChangeRow.game == game)
                .order_by(RatingChangeRow.created_at.desc(), RatingChangeRow.table_id)
                .limit(limit)).all()
        return [RatedGame(r.table_id, r.seat, float(r.score), r.name, int(r.rating_before),
                          int(r.rating_after), utc(r.created_at)) for r in rows]


def _rating(r: Any) -> RatingData:
    """A row of ``ratings`` with its account's ``name``."""
    return RatingData(r.account_id, r.name, r.game, float(r.mu), float(r.sigma), int(r.rating),
                      int(r.games), int(r.wins), int(r.losses), utc(r.updated_at))


def _retryable(e: OperationalError) -> bool:
    """Whether ``e`` is a lock refused or a transaction the database rolled back to save
    another (SQLite busy or locked; PostgreSQL's deadlock, serialization failure or lock
    timeout): worth a second attempt."""
    if busy(e):
        return True
    state = getattr(getattr(e, "orig", None), "sqlstate", None) or ""
    return state in ("40001", "40P01", "55P03")
