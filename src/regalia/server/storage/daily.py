"""The daily deal's database calls (``DailyStore``, over a store's engine): the server's
secret, each day's deal and verdict, the tables dealt it and their results.

A day is its UTC date as ``YYYY-MM-DD``. Its deal is stored at its first use that day
(``deal``): the first row stored is every replica's, whatever each would have drawn. A table
dealt it is recorded in the table's own transaction (``recorder``, handed to
``Store.new_table``), with the account that plays it ranked: at most one per account and
day (``UNIQUE(day, account_id)``), so two starts racing on two replicas cannot both be
stored. Every call is blocking: the server makes them on its database thread
(``writer.Writer``), as the tables' calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from regalia.server.storage.database import Database
from regalia.server.storage.models import (FINISHED, AccountRow, DailyDealRow, DailyPlayRow,
                                           GameTable, MoveRow, SeatRow, ServerSecretRow, now,
                                           read_ending, utc)
from regalia.server.storage.values import Conflict

__all__ = ["AlreadyPlayed", "DailyStore", "DealData", "PlayData", "RankedPlay"]


class AlreadyPlayed(Conflict):
    """The account has a table of that day's deal already (nothing was stored)."""


@dataclass(frozen=True)
class DealData:
    """A day's deal as stored: ``verdict`` is ``None`` until the solver's is stored;
    ``solving_since``: when a replica (``solver``) began working it out, if one is."""

    day: str
    seed: int
    config: dict[str, Any]
    verdict: dict[str, Any] | None = None
    solver: str | None = None
    solving_since: datetime | None = None


@dataclass(frozen=True)
class PlayData:
    """A table dealt a day's deal, with its table's ``status`` (``playing``,
    ``finished``, ``abandoned``); the result fields are ``None`` until ``scored``."""

    id: int
    day: str
    table_id: str
    account_id: int | None
    status: str
    scored: bool = False
    won: bool | None = None
    medal: str | None = None
    medal_rank: int | None = None
    enemies: int | None = None
    moves: int | None = None
    finished_at: datetime | None = None
    assisted: bool | None = None


@dataclass(frozen=True)
class RankedPlay:
    """A row of a day's leaderboard (``DailyStore.ranked``), best first."""

    account_id: int
    name: str
    table_id: str
    won: bool
    medal: str | None
    enemies: int
    moves: int
    finished_at: datetime


PLAY = (DailyPlayRow.id, DailyPlayRow.day, DailyPlayRow.table_id, DailyPlayRow.account_id,
        GameTable.status, DailyPlayRow.scored, DailyPlayRow.won, DailyPlayRow.medal,
        DailyPlayRow.medal_rank, DailyPlayRow.enemies, DailyPlayRow.moves,
        DailyPlayRow.finished_at, DailyPlayRow.assisted)


def _play(r: Any) -> PlayData:
    return PlayData(r.id, r.day, r.table_id, r.account_id, r.status, bool(r.scored),
                    None if r.won is None else bool(r.won), r.medal, r.medal_rank, r.enemies,
                    r.moves, utc(r.finished_at) if r.finished_at else None,
                    None if r.assisted is None else bool(r.assisted))


def _deal(r: Any) -> DealData:
    return DealData(r.day, int(r.seed), dict(r.config), r.verdict, r.solver,
                    utc(r.solving_since) if r.solving_since else None)


class DailyStore:
    """The blocking daily-deal calls on ``db``'s engine (one per database, beside its
    ``store.Store``)."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine

    # -- the secret and the deals -------------------------------------------------------

    def secret(self, name: str, make: Callable[[], str]) -> str:
        """The server's secret ``name``; stored first as ``make()`` (at most 128
        characters) when there is none. Replicas starting together agree: the first one
        stored is every one's."""
        with self.engine.connect() as conn:
            row = conn.execute(select(ServerSecretRow.value)
                               .where(ServerSecretRow.name == name)).first()
        if row is not None:
            return row.value
        try:
            with self.engine.begin() as conn:
                conn.execute(ServerSecretRow.__table__.insert().values(
                    name=name, value=make(), created_at=now()))
        except IntegrityError:  # another replica stored one first: it is the one
            pass
        with self.engine.connect() as conn:
            return conn.execute(select(ServerSecretRow.value)
                                .where(ServerSecretRow.name == name)).scalar_one()

    def find_deal(self, day: str) -> DealData | None:
        """The deal stored for ``day`` (``YYYY-MM-DD``), or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(DailyDealRow.__table__)
                               .where(DailyDealRow.day == day)).first()
        return _deal(row) if row else None

    def deal(self, day: str, seed: int, config: dict[str, Any]) -> DealData:
        """``day``'s deal: the one stored, or ``seed`` and ``config`` stored now (a deal
        another replica stored meanwhile wins)."""
        found = self.find_deal(day)
        if found is not None:
            return found
        try:
            with self.engine.begin() as conn:
                conn.execute(DailyDealRow.__table__.insert().values(
                    day=day, seed=seed, config=config, created_at=now()))
        except IntegrityError:
            pass
        found = self.find_deal(day)
        assert found is not None
        return found

    def claim_solve(self, day: str, solver: str, stale_before: datetime) -> bool:
        """Mark ``day``'s verdict as being worked out by ``solver`` (a replica's name);
        ``False`` (nothing changed) when it has a verdict, or another began before
        ``stale_before`` and has not given up since."""
        with self.engine.begin() as conn:
            done = conn.execute(update(DailyDealRow).where(
                DailyDealRow.day == day, DailyDealRow.verdict.is_(None),
                DailyDealRow.solving_since.is_(None) | (DailyDealRow.solving_since < stale_before)
            ).values(solver=solver, solving_since=now()))
            return done.rowcount == 1

    def set_verdict(self, day: str, verdict: dict[str, Any]) -> None:
        """Store ``day``'s verdict (the solver's, as JSON); the claim ends."""
        with self.engine.begin() as conn:
            conn.execute(update(DailyDealRow).where(DailyDealRow.day == day).values(
                verdict=verdict, solved_at=now(), solver=None, solving_since=None))

    def release_solve(self, day: str, solver: str) -> None:
        """``solver`` gave up working out ``day``'s verdict: another may claim it."""
        with self.engine.begin() as conn:
            conn.execute(update(DailyDealRow).where(DailyDealRow.day == day,
                                                    DailyDealRow.solver == solver)
                         .values(solver=None, solving_since=None))

    # -- the plays ----------------------------------------------------------------------

    @staticmethod
    def recorder(day: str, account_id: int | None) -> Callable[[Connection, str], None]:
        """What records a new table as dealt ``day``'s deal, in the table's own
        transaction (``Store.new_table(also=...)``): its play, and with ``account_id`` its
        seat 0 linked to that account. Raises ``AlreadyPlayed`` (everything rolled back)
        when the account has a table of that day already."""

        def record(conn: Connection, table_id: str) -> None:
            if account_id is not None and conn.execute(select(DailyPlayRow.id).where(
                    DailyPlayRow.day == day, DailyPlayRow.account_id == account_id)).first():
                raise AlreadyPlayed(f"account {account_id} has played {day}'s deal")
            try:
                conn.execute(DailyPlayRow.__table__.insert().values(
                    day=day, table_id=table_id, account_id=account_id, created_at=now(),
                    scored=False))
            except IntegrityError as e:  # stored meanwhile by another replica
                raise AlreadyPlayed(f"account {account_id} has played {day}'s deal") from e
            if account_id is not None:
                conn.execute(update(SeatRow).where(SeatRow.table_id == table_id,
                                                   SeatRow.seat == 0)
                             .values(account_id=account_id))
        return record

    def play_of(self, day: str, account_id: int) -> PlayData | None:
        """The account's table of ``day``'s deal, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*PLAY).join(GameTable, GameTable.id == DailyPlayRow.table_id)
                               .where(DailyPlayRow.day == day,
                                      DailyPlayRow.account_id == account_id)).first()
        return _play(row) if row else None

    def play_of_table(self, table_id: str) -> PlayData | None:
        """The play of table ``table_id`` when it was dealt a daily deal, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*PLAY).join(GameTable, GameTable.id == DailyPlayRow.table_id)
                               .where(DailyPlayRow.table_id == table_id)).first()
        return _play(row) if row else None

    def count_plays(self, day: str) -> int:
        """How many tables were dealt ``day``'s deal (ranked or not)."""
        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(DailyPlayRow)
                                .where(DailyPlayRow.day == day)).scalar_one()

    def unscored(self, day: str, limit: int, play_id: int | None = None) -> list[dict[str, Any]]:
        """At most ``limit`` ranked plays of ``day`` (an account's; ``play_id``: that play
        only, ranked or not) whose game ended and whose result was not worked out yet,
        each ``{"id", "table_id", "config", "seed", "moves": [action, ...], "ending",
        "assisted", "finished_at"}``: the move log in ply order, the players' ``Ending``
        read from its ending row (or ``None``), whether a bot played some move, and the
        time of its last row."""
        with self.engine.connect() as conn:
            plays = conn.execute(
                select(DailyPlayRow.id, DailyPlayRow.table_id, GameTable.config, GameTable.seed)
                .join(GameTable, GameTable.id == DailyPlayRow.table_id)
                .where(DailyPlayRow.day == day, ~DailyPlayRow.scored,
                       GameTable.status == FINISHED,
                       DailyPlayRow.account_id.is_not(None) if play_id is None
                       else DailyPlayRow.id == play_id)
                .order_by(DailyPlayRow.id).limit(limit)).all()
            out = []
            for p in plays:
                moves, ending, assisted, last = [], None, False, None
                for r in conn.execute(select(MoveRow.seat, MoveRow.action, MoveRow.by_bot,
                                             MoveRow.created_at)
                                      .where(MoveRow.table_id == p.table_id)
                                      .order_by(MoveRow.ply)):
                    ending = read_ending(r.seat, r.action)  # an ending row is the last
                    if ending is None:
                        moves.append(r.action)
                        assisted = assisted or bool(r.by_bot)
                    last = utc(r.created_at)
                out.append({"id": p.id, "table_id": p.table_id, "config": dict(p.config),
                            "seed": int(p.seed), "moves": moves, "ending": ending,
                            "assisted": assisted, "finished_at": last or now()})
        return out

    def set_scores(self, results: dict[int, dict[str, Any]]) -> None:
        """Store the results of plays, by play id: ``{"won", "medal", "medal_rank",
        "enemies", "moves", "finished_at", "assisted"}``."""
        with self.engine.begin() as conn:
            for play_id, r in results.items():
                conn.execute(update(DailyPlayRow).where(DailyPlayRow.id == play_id)
                             .values(scored=True, **r))

    def ranked(self, day: str) -> list[RankedPlay]:
        """``day``'s leaderboard, best first: the scored plays of accounts in which no bot
        played, by medal (gold, silver, bronze, none), then enemies defeated (most first),
        then moves (fewest first), then the earlier finish (rules 1.14)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(DailyPlayRow.account_id, AccountRow.name, DailyPlayRow.table_id,
                       DailyPlayRow.won, DailyPlayRow.medal, DailyPlayRow.enemies,
                       DailyPlayRow.moves, DailyPlayRow.finished_at)
                .join(AccountRow, AccountRow.id == DailyPlayRow.account_id)
                .where(DailyPlayRow.day == day, DailyPlayRow.scored,
                       DailyPlayRow.assisted.is_not(True))
                .order_by(DailyPlayRow.medal_rank.desc(), DailyPlayRow.enemies.desc(),
                          DailyPlayRow.moves, DailyPlayRow.finished_at, DailyPlayRow.id)).all()
        return [RankedPlay(r.account_id, r.name, r.table_id, bool(r.won), r.medal,
                           int(r.enemies), int(r.moves), utc(r.finished_at)) for r in rows]
