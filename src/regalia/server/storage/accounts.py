"""The accounts' database calls (``AccountStore``, over a store's engine): accounts, their
browser sessions, the seats an account proved it holds, and what a profile shows.

Accounts are optional: nothing here is read when a table is created, joined or played.
A seat is linked to an account only by ``adopt``, with the seat's own secret token; a
rematch keeps each seat's link (``Store.new_table``), and a seat given a new token loses it
(``Store.update_seat``). Session tokens and seat tokens are kept as their SHA-256 only
(``models.token_hash``). An account created with a passkey is stored with it in one
transaction (``create``); the passkeys' other calls are ``passkeys.PasskeyStore``'s. Every
call is blocking: the server makes them on its database thread (``writer.Writer``), as the
tables' calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from regalia.server.storage.database import Database
from regalia.server.storage.models import (FINISHED, HUMAN, AccountRow, BlockRow, ChallengeRow,
                                           DailyPlayRow, FriendshipRow, GameTable, InvitationRow,
                                           MessageRow, MoveRow, PasskeyRow, PushSeatRow,
                                           PushSubscriptionRow, RatingChangeRow, RatingRow,
                                           SeatRow, SessionRow, now, read_ending, utc)
from regalia.server.storage.values import Conflict, NewPasskey, PasskeyTaken

__all__ = ["AccountData", "AccountStore", "NameTaken", "SeatLink", "table_record"]


class NameTaken(Conflict):
    """An account's name, once folded, is another account's already."""


@dataclass(frozen=True)
class AccountData:
    """An account as stored: ``password_hash`` is ``None`` for an account without one."""

    id: int
    name: str
    created_at: datetime
    password_hash: str | None = None


@dataclass(frozen=True)
class SeatLink:
    """One seat linked to an account, with its table's facts (``AccountStore.seats_of``):
    ``won`` is ``None`` until the finished game's result was worked out; ``medal`` the solo
    Regicide medal it won (``None``: none); ``rated``: a rated game; ``daily``: the day
    (``YYYY-MM-DD``) whose daily deal the table was dealt, or ``None``."""

    table_id: str
    game: str
    players: int
    seat: int
    status: str
    won: bool | None
    created_at: datetime
    updated_at: datetime | None
    medal: str | None = None
    rated: bool = False
    daily: str | None = None


ACCOUNT = (AccountRow.id, AccountRow.name, AccountRow.created_at, AccountRow.password_hash)


def _account(row: Any) -> AccountData:
    return AccountData(row.id, row.name, utc(row.created_at), row.password_hash)


def table_record(conn: Connection, table_id: str) -> dict[str, Any]:
    """A stored table's record, to work out its result: ``{"id", "game", "config", "seed",
    "players", "moves": [action, ...], "ending", "hints", "bot_played"}`` (the move log in
    ply order; ``ending``: the players' ``Ending`` read from the ending row, or ``None``;
    ``bot_played``: a bot played a move for a person). Raises ``sqlalchemy.exc.NoResultFound``
    for an unknown table."""
    t = conn.execute(select(GameTable.game, GameTable.config, GameTable.seed, GameTable.hints)
                     .where(GameTable.id == table_id)).one()
    players = conn.execute(select(func.count()).select_from(SeatRow)
                           .where(SeatRow.table_id == table_id)).scalar_one()
    moves, ending, bot_played = [], None, False
    for r in conn.execute(select(MoveRow.seat, MoveRow.action, MoveRow.by_bot)
                          .where(MoveRow.table_id == table_id).order_by(MoveRow.ply)):
        ending = read_ending(r.seat, r.action)  # an ending row is the last
        if ending is None:
            moves.append(r.action)
            bot_played = bot_played or bool(r.by_bot)
    return {"id": table_id, "game": t.game, "config": dict(t.config), "seed": int(t.seed),
            "players": int(players), "moves": moves, "ending": ending,
            "hints": bool(t.hints), "bot_played": bot_played}


class AccountStore:
    """The blocking account calls on ``db``'s engine (one per database, beside its
    ``store.Store``)."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine

    # -- accounts --------------------------------------------------------------------

    def create(self, name: str, folded: str, password_hash: str | None,
               passkey: NewPasskey | None = None) -> AccountData:
        """Store a new account, and with it its first passkey when ``passkey`` is given (an
        account with a passkey and no password); raises ``NameTaken`` when ``folded`` is
        another account's, ``PasskeyTaken`` when the passkey is stored already (nothing
        stored either way)."""
        t = now()
        try:
            with self.engine.begin() as conn:
                taken = conn.execute(select(AccountRow.id).where(AccountRow.folded == folded)
                                     ).first()
                if taken is not None:
                    raise NameTaken(f"the name {name!r} is taken")
                if passkey is not None and conn.execute(select(PasskeyRow.id).where(
                        PasskeyRow.credential_id == passkey.credential_id)).first():
                    raise PasskeyTaken("this passkey is stored already")
                new_id = conn.execute(AccountRow.__table__.insert().values(
                    name=name, folded=folded, password_hash=password_hash, created_at=t)
                ).inserted_primary_key[0]
                if passkey is not None:
                    conn.execute(PasskeyRow.__table__.insert().values(
                        account_id=new_id, created_at=t, **passkey.values()))
        except IntegrityError as e:  # the same name or passkey stored meanwhile elsewhere
            if passkey is not None and self.find(folded) is None:
                raise PasskeyTaken("this passkey is stored already") from e
            raise NameTaken(f"the name {name!r} is taken") from e
        return AccountData(int(new_id), name, t, password_hash)

    def find(self, folded: str) -> AccountData | None:
        """The account whose folded name is ``folded``, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*ACCOUNT).where(AccountRow.folded == folded)).first()
        return _account(row) if row else None

    def get(self, account_id: int) -> AccountData | None:
        """The account ``account_id``, or ``None`` (deleted)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*ACCOUNT).where(AccountRow.id == account_id)).first()
        return _account(row) if row else None

    def set_password_hash(self, account_id: int, password_hash: str) -> None:
        """Replace an account's password hash (a rehash with new parameters)."""
        with self.engine.begin() as conn:
            conn.execute(update(AccountRow).where(AccountRow.id == account_id)
                         .values(password_hash=password_hash))

    def delete(self, account_id: int, label: str) -> list[str]:
        """Delete an account, its sessions, its passkeys and its ceremonies begun, its ratings (with what each rated game did to
        them; its opponents keep theirs), its friendships and requests, the blocks it set
        or met, and the invitations it sent or received; its seats keep their games but not
        the account: their names become ``label``, their free chat lines (words of their
        own, unlike the rules' fixed sayings, which stay with the game) are deleted, and
        their link is cut; its daily-deal plays become unranked ones; its browsers' push
        subscriptions are deleted. Returns the ids of
        the tables whose seats were renamed (in one transaction)."""
        with self.engine.begin() as conn:
            seats = conn.execute(select(SeatRow.table_id, SeatRow.seat)
                                 .where(SeatRow.account_id == account_id)).all()
            tables = sorted({r.table_id for r in seats})
            for r in seats:
                conn.execute(delete(MessageRow).where(MessageRow.table_id == r.table_id,
                                                      MessageRow.seat == r.seat,
                                                      MessageRow.kind == "chat"))
            conn.execute(update(SeatRow).where(SeatRow.account_id == account_id)
                         .values(name=label, account_id=None))
            conn.execute(update(DailyPlayRow).where(DailyPlayRow.account_id == account_id)
                         .values(account_id=None))
            conn.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
            conn.execute(delete(PasskeyRow).where(PasskeyRow.account_id == account_id))
            conn.execute(delete(ChallengeRow).where(ChallengeRow.account_id == account_id))
            conn.execute(delete(RatingChangeRow).where(RatingChangeRow.account_id == account_id))
            conn.execute(delete(RatingRow).where(RatingRow.account_id == account_id))
            conn.execute(delete(FriendshipRow).where(or_(FriendshipRow.low_id == account_id,
                                                         FriendshipRow.high_id == account_id)))
            conn.execute(delete(BlockRow).where(or_(BlockRow.blocker_id == account_id,
                                                    BlockRow.blocked_id == account_id)))
            conn.execute(delete(InvitationRow).where(or_(InvitationRow.from_id == account_id,
                                                         InvitationRow.to_id == account_id)))
            pushed = select(PushSubscriptionRow.id).where(
                PushSubscriptionRow.account_id == account_id)
            conn.execute(delete(PushSeatRow).where(PushSeatRow.subscription_id.in_(pushed)))
            conn.execute(delete(PushSubscriptionRow)
                         .where(PushSubscriptionRow.account_id == account_id))
            conn.execute(delete(AccountRow).where(AccountRow.id == account_id))
        return tables

    # -- sessions --------------------------------------------------------------------

    def open_session(self, account_id: int, token_hash: str, expires_at: datetime,
                     replaces: str | None = None) -> None:
        """Store a new session of ``account_id`` (its token's hash), valid until
        ``expires_at``. ``replaces``: the hash of the browser's previous session token,
        deleted with it (whosever it was: a sign-in always starts a new session); sessions
        already expired go too."""
        t = now()
        with self.engine.begin() as conn:
            if replaces is not None:
                conn.execute(delete(SessionRow).where(SessionRow.token_hash == replaces))
            conn.execute(delete(SessionRow).where(SessionRow.expires_at < t))
            conn.execute(SessionRow.__table__.insert().values(
                token_hash=token_hash, account_id=account_id, created_at=t,
                expires_at=expires_at, last_seen=t))

    def session_account(self, token_hash: str, touch_after: timedelta) -> AccountData | None:
        """The account of the session whose token hashes to ``token_hash``, or ``None``
        (unknown or expired). Its ``last_seen`` is written when older than
        ``touch_after`` (not at every request; skipped while the database is busy)."""
        t = now()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(*ACCOUNT, SessionRow.expires_at, SessionRow.last_seen)
                .join(SessionRow, SessionRow.account_id == AccountRow.id)
                .where(SessionRow.token_hash == token_hash)).first()
            if row is None or utc(row.expires_at) <= t:
                return None
            if utc(row.last_seen) < t - touch_after:
                try:
                    conn.execute(update(SessionRow).where(SessionRow.token_hash == token_hash)
                                 .values(last_seen=t))
                    conn.commit()
                except OperationalError:  # a busy database: the next request writes it
                    conn.rollback()
        return _account(row)

    def close_session(self, token_hash: str) -> None:
        """Delete the session whose token hashes to ``token_hash`` (none: nothing)."""
        with self.engine.begin() as conn:
            conn.execute(delete(SessionRow).where(SessionRow.token_hash == token_hash))

    # -- seats -----------------------------------------------------------------------

    def adopt(self, account_id: int, seats: list[tuple[str, str]]) -> list[tuple[str, int]]:
        """Link to ``account_id`` each seat whose token's hash is given: ``(table_id,
        token_hash)`` pairs. Only a human seat that was claimed (its link was used) and is
        linked to no other account is taken. Returns the ``(table_id, seat)`` linked now
        or already, in the order asked."""
        out: list[tuple[str, int]] = []
        with self.engine.begin() as conn:
            for table_id, token_hash in seats:
                row = conn.execute(select(SeatRow.id, SeatRow.seat, SeatRow.account_id).where(
                    SeatRow.table_id == table_id, SeatRow.token_hash == token_hash,
                    SeatRow.kind == HUMAN, SeatRow.claimed)).first()
                if row is None or row.account_id not in (None, account_id):
                    continue
                if row.account_id is None:
                    conn.execute(update(SeatRow).where(SeatRow.id == row.id,
                                                       SeatRow.account_id.is_(None))
                                 .values(account_id=account_id))
                out.append((table_id, row.seat))
        return out

    def seats_of(self, account_id: int, limit: int = 10_000) -> list[SeatLink]:
        """The seats linked to ``account_id``, the latest table first (at most
        ``limit``)."""
        with self.engine.connect() as conn:
            count = (select(SeatRow.table_id, func.count().label("players"))
                     .group_by(SeatRow.table_id).subquery())
            rows = conn.execute(
                select(SeatRow.table_id, SeatRow.seat, SeatRow.won, SeatRow.medal,
                       GameTable.game, GameTable.status, GameTable.created_at,
                       GameTable.updated_at, GameTable.rated, count.c.players,
                       DailyPlayRow.day)
                .join(GameTable, GameTable.id == SeatRow.table_id)
                .join(count, count.c.table_id == SeatRow.table_id)
                .outerjoin(DailyPlayRow, DailyPlayRow.table_id == SeatRow.table_id)
                .where(SeatRow.account_id == account_id)
                .order_by(func.coalesce(GameTable.updated_at, GameTable.created_at).desc(),
                          SeatRow.table_id, SeatRow.seat)
                .limit(limit)).all()
        return [SeatLink(r.table_id, r.game, int(r.players), r.seat, r.status,
                         None if r.won is None else bool(r.won), utc(r.created_at),
                         utc(r.updated_at) if r.updated_at else None, r.medal,
                         bool(r.rated), r.day) for r in rows]

    def unscored(self, account_id: int, limit: int) -> list[dict[str, Any]]:
        """At most ``limit`` finished tables where a seat of ``account_id`` has no result
        yet, each as ``table_record`` reads it, to work out who won (``set_results``)."""
        with self.engine.connect() as conn:
            ids = [r[0] for r in conn.execute(
                select(SeatRow.table_id).join(GameTable, GameTable.id == SeatRow.table_id)
                .where(SeatRow.account_id == account_id, SeatRow.won.is_(None),
                       GameTable.status == FINISHED)
                .distinct().order_by(SeatRow.table_id).limit(limit))]
            return [table_record(conn, table_id) for table_id in ids]

    def set_results(self, results: dict[str, list[bool]],
                    medals: dict[str, str | None] | None = None) -> None:
        """Store who won each finished table: ``{table_id: [won by seat 0, ...]}``, and
        the solo medal of those in ``medals`` (``{table_id: "gold" | "silver" | "bronze" |
        None}``, seat 0's)."""
        medals = medals or {}
        with self.engine.begin() as conn:
            for table_id, won in results.items():
                for seat, w in enumerate(won):
                    values: dict[str, Any] = {"won": bool(w)}
                    if seat == 0 and table_id in medals:
                        values["medal"] = medals[table_id]
                    conn.execute(update(SeatRow).where(SeatRow.table_id == table_id,
                                                       SeatRow.seat == seat).values(**values))
