"""The friends' database calls (``FriendStore``, over a store's engine): friend requests and
friendships between accounts, blocks, and invitations of a friend to a table.

A pair of accounts has at most one ``FriendshipRow`` (the smaller id first, whoever asked):
a request until it is accepted. A request to an account that asked first makes them
friends. A block (``BlockRow``) ends the pair's friendship or requests and the
invitations between them; a later request of the blocked account is stored but never shown
to the blocker (its sender sees it waiting, as any other: a block is not told), and
unblocking deletes it. Invitations (``InvitationRow``) are read with their table's facts:
one is *live* while its table is being played and waits for a player (a human seat
nobody holds and no bot plays) and the two accounts are friends; otherwise it is expired.

Every call is blocking: the server makes them on its database thread (``writer.Writer``),
as the tables' calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from regalia.server.storage.database import Database
from regalia.server.storage.models import (HUMAN, PLAYING, AccountRow, BlockRow, FriendshipRow,
                                           GameTable, InvitationRow, SeatRow, now, utc)
from regalia.server.storage.values import Conflict

__all__ = ["Circle", "FriendStore", "Invitation", "Person", "YouBlock"]

FRIENDS = "friends"
REQUESTED = "requested"


class YouBlock(Conflict):
    """The asking account blocks the other one: unblock it first (a refusal the writer
    passes on, as ``Conflict``s)."""


@dataclass(frozen=True)
class Person:
    """Another account as a list of friends shows it: ``since``, when the friendship was
    accepted, the request made or the block set (UTC)."""

    id: int
    name: str
    since: datetime


@dataclass(frozen=True)
class Circle:
    """An account's friends (by name, in any case), the requests it received and sent (the
    newest first) and the accounts it blocks (the newest first)."""

    friends: list[Person]
    incoming: list[Person]
    outgoing: list[Person]
    blocked: list[Person]


@dataclass(frozen=True)
class Invitation:
    """An invitation with its table's facts: ``free``, the table's human seats that nobody
    holds and no bot plays; ``friends``, whether the two accounts are friends now."""

    id: int
    table_id: str
    from_id: int
    from_name: str
    to_id: int
    game: str
    players: int
    free: int
    status: str
    created_at: datetime
    friends: bool

    @property
    def live(self) -> bool:
        """The invitation can still be accepted: the table is being played, waits for a
        player, and the two are friends."""
        return self.status == PLAYING and self.free > 0 and self.friends


def pair(a: int, b: int) -> tuple[int, int]:
    """The pair's key: the smaller account id first."""
    return (a, b) if a < b else (b, a)


def _pair_is(a: int, b: int) -> Any:
    low, high = pair(a, b)
    return and_(FriendshipRow.low_id == low, FriendshipRow.high_id == high)


def _between(a: int, b: int) -> Any:
    """The invitations of either account to the other."""
    return or_(and_(InvitationRow.from_id == a, InvitationRow.to_id == b),
               and_(InvitationRow.from_id == b, InvitationRow.to_id == a))


class FriendStore:
    """The blocking friends' calls on ``db``'s engine (one per database, beside its
    ``store.Store``)."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine

    # -- accounts by name ------------------------------------------------------------

    def find(self, folded: str) -> tuple[int, str] | None:
        """The id and name of the account whose folded name is ``folded``, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(AccountRow.id, AccountRow.name)
                               .where(AccountRow.folded == folded)).first()
        return (int(row.id), row.name) if row else None

    # -- requests and friendships ----------------------------------------------------

    def request(self, me: int, other: int) -> str:
        """``me`` asks ``other`` to be friends. Returns ``"friends"`` (they are now: ``other``
        had asked ``me``, or they were already) or ``"requested"`` (the request waits, or
        waited already). Raises ``YouBlock`` (nothing stored) when ``me`` blocks
        ``other``."""
        low, high = pair(me, other)
        for attempt in range(2):
            try:
                with self.engine.begin() as conn:
                    if conn.execute(select(BlockRow.blocker_id).where(
                            BlockRow.blocker_id == me, BlockRow.blocked_id == other)).first():
                        raise YouBlock(f"account {me} blocks account {other}")
                    row = conn.execute(select(FriendshipRow.requester_id,
                                              FriendshipRow.accepted_at)
                                       .where(_pair_is(me, other))).first()
                    if row is None:
                        conn.execute(FriendshipRow.__table__.insert().values(
                            low_id=low, high_id=high, requester_id=me, created_at=now()))
                        return REQUESTED
                    if row.accepted_at is not None:
                        return FRIENDS
                    if row.requester_id == me:
                        return REQUESTED
                    conn.execute(update(FriendshipRow).where(_pair_is(me, other))
                                 .values(accepted_at=now()))
                    return FRIENDS
            except IntegrityError:  # the pair's row stored meanwhile (another replica)
                if attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def accept(self, me: int, other: int) -> bool:
        """``me`` accepts ``other``'s request (not one ``me`` cannot see: of an account it
        blocks). Returns whether there was one to accept."""
        with self.engine.begin() as conn:
            if conn.execute(select(BlockRow.blocker_id).where(
                    BlockRow.blocker_id == me, BlockRow.blocked_id == other)).first():
                return False
            return conn.execute(update(FriendshipRow).where(
                _pair_is(me, other), FriendshipRow.requester_id == other,
                FriendshipRow.accepted_at.is_(None)).values(accepted_at=now())).rowcount == 1

    def decline(self, me: int, other: int) -> bool:
        """``me`` declines ``other``'s request (deleted). Returns whether there was one."""
        with self.engine.begin() as conn:
            return conn.execute(delete(FriendshipRow).where(
                _pair_is(me, other), FriendshipRow.requester_id == other,
                FriendshipRow.accepted_at.is_(None))).rowcount == 1

    def remove(self, me: int, other: int) -> bool:
        """``me`` ends its friendship with ``other``, or withdraws its request to it; the
        invitations between them go too. Returns whether there was either."""
        with self.engine.begin() as conn:
            gone = conn.execute(delete(FriendshipRow).where(
                _pair_is(me, other), or_(FriendshipRow.accepted_at.is_not(None),
                                         FriendshipRow.requester_id == me))).rowcount
            if gone:
                conn.execute(delete(InvitationRow).where(_between(me, other)))
        return gone == 1

    def block(self, me: int, other: int) -> None:
        """``me`` blocks ``other``: their friendship or requests and the invitations between
        them are deleted (in one transaction); blocked already, nothing changes."""
        for attempt in range(2):
            try:
                with self.engine.begin() as conn:
                    conn.execute(delete(FriendshipRow).where(_pair_is(me, other)))
                    conn.execute(delete(InvitationRow).where(_between(me, other)))
                    if conn.execute(select(BlockRow.blocker_id).where(
                            BlockRow.blocker_id == me, BlockRow.blocked_id == other)).first():
                        return
                    conn.execute(BlockRow.__table__.insert().values(
                        blocker_id=me, blocked_id=other, created_at=now()))
                    return
            except IntegrityError:  # blocked meanwhile from another window
                if attempt:
                    raise

    def unblock(self, me: int, other: int) -> bool:
        """``me`` stops blocking ``other``; a request ``other`` sent meanwhile (never shown)
        is deleted. Returns whether ``me`` blocked ``other``."""
        with self.engine.begin() as conn:
            gone = conn.execute(delete(BlockRow).where(
                BlockRow.blocker_id == me, BlockRow.blocked_id == other)).rowcount
            if gone:
                conn.execute(delete(FriendshipRow).where(
                    _pair_is(me, other), FriendshipRow.requester_id == other,
                    FriendshipRow.accepted_at.is_(None)))
        return gone == 1

    def circle(self, me: int) -> Circle:
        """``me``'s friends, requests received (not those of accounts it blocks) and sent,
        and the accounts it blocks."""
        other = case((FriendshipRow.low_id == me, FriendshipRow.high_id),
                     else_=FriendshipRow.low_id)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(AccountRow.id, AccountRow.name, FriendshipRow.requester_id,
                       FriendshipRow.created_at, FriendshipRow.accepted_at)
                .join(AccountRow, AccountRow.id == other)
                .where(or_(FriendshipRow.low_id == me, FriendshipRow.high_id == me))).all()
            blocks = conn.execute(
                select(AccountRow.id, AccountRow.name, BlockRow.created_at)
                .join(AccountRow, AccountRow.id == BlockRow.blocked_id)
                .where(BlockRow.blocker_id == me)
                .order_by(BlockRow.created_at.desc())).all()
        blocked = [Person(int(r.id), r.name, utc(r.created_at)) for r in blocks]
        hidden = {p.id for p in blocked}
        friends, incoming, outgoing = [], [], []
        for r in rows:
            if r.accepted_at is not None:
                friends.append(Person(int(r.id), r.name, utc(r.accepted_at)))
            elif r.requester_id == me:
                outgoing.append(Person(int(r.id), r.name, utc(r.created_at)))
            elif r.id not in hidden:
                incoming.append(Person(int(r.id), r.name, utc(r.created_at)))
        friends.sort(key=lambda p: (p.name.casefold(), p.id))
        incoming.sort(key=lambda p: p.since, reverse=True)
        outgoing.sort(key=lambda p: p.since, reverse=True)
        return Circle(friends, incoming, outgoing, blocked)

    def blocks(self, a: int, b: int) -> bool:
        """Whether ``a`` blocks ``b``."""
        with self.engine.connect() as conn:
            return conn.execute(select(BlockRow.blocker_id).where(
                BlockRow.blocker_id == a, BlockRow.blocked_id == b)).first() is not None

    def are_friends(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` are friends (a request is not)."""
        with self.engine.connect() as conn:
            return conn.execute(select(FriendshipRow.low_id).where(
                _pair_is(a, b), FriendshipRow.accepted_at.is_not(None))).first() is not None

    # -- invitations -----------------------------------------------------------------

    def seated(self, table_id: str, account_id: int) -> bool:
        """Whether a seat of the table is linked to ``account_id``."""
        with self.engine.connect() as conn:
            return conn.execute(select(SeatRow.id).where(
                SeatRow.table_id == table_id, SeatRow.account_id == account_id)
            ).first() is not None

    def invite(self, table_id: str, me: int, other: int) -> int:
        """Store ``me``'s invitation of ``other`` to the table (one that ``other`` had to it
        already, from anyone, is replaced). Returns its id."""
        for attempt in range(2):
            try:
                with self.engine.begin() as conn:
                    conn.execute(delete(InvitationRow).where(InvitationRow.table_id == table_id,
                                                             InvitationRow.to_id == other))
                    return int(conn.execute(InvitationRow.__table__.insert().values(
                        table_id=table_id, from_id=me, to_id=other, created_at=now())
                    ).inserted_primary_key[0])
            except IntegrityError:  # invited meanwhile from another replica: replaced
                if attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def invitations_to(self, me: int, limit: int = 100) -> list[Invitation]:
        """The invitations ``me`` received (live or not: ``Invitation.live``), the newest
        first (at most ``limit``)."""
        return self._invitations(InvitationRow.to_id == me, limit)

    def invitation(self, invitation_id: int) -> Invitation | None:
        """One invitation, or ``None``."""
        found = self._invitations(InvitationRow.id == invitation_id, 1)
        return found[0] if found else None

    def _invitations(self, where: Any, limit: int) -> list[Invitation]:
        seats = (select(SeatRow.table_id, func.count().label("players"),
                        func.sum(case((and_(SeatRow.kind == HUMAN, ~SeatRow.claimed,
                                            ~SeatRow.bot_replaces), 1), else_=0))
                        .label("free"))
                 .group_by(SeatRow.table_id).subquery())
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(InvitationRow.id, InvitationRow.table_id, InvitationRow.from_id,
                       InvitationRow.to_id, InvitationRow.created_at, AccountRow.name,
                       GameTable.game, GameTable.status, seats.c.players, seats.c.free)
                .join(AccountRow, AccountRow.id == InvitationRow.from_id)
                .join(GameTable, GameTable.id == InvitationRow.table_id)
                .join(seats, seats.c.table_id == InvitationRow.table_id)
                .where(where).order_by(InvitationRow.created_at.desc(), InvitationRow.id.desc())
                .limit(limit)).all()
            pairs = {pair(r.from_id, r.to_id) for r in rows}
            friends = set()
            if pairs:
                friends = {(r.low_id, r.high_id) for r in conn.execute(
                    select(FriendshipRow.low_id, FriendshipRow.high_id).where(
                        FriendshipRow.accepted_at.is_not(None),
                        or_(*(_pair_is(*p) for p in pairs))))}
        return [Invitation(int(r.id), r.table_id, int(r.from_id), r.name, int(r.to_id), r.game,
                           int(r.players), int(r.free or 0), r.status, utc(r.created_at),
                           pair(r.from_id, r.to_id) in friends) for r in rows]

    def drop_invitations(self, ids: list[int], to: int | None = None) -> int:
        """Delete the invitations ``ids`` (``to``: only those to this account). Returns how
        many were deleted."""
        if not ids:
            return 0
        where = [InvitationRow.id.in_(ids)]
        if to is not None:
            where.append(InvitationRow.to_id == to)
        with self.engine.begin() as conn:
            return conn.execute(delete(InvitationRow).where(*where)).rowcount

    def drop_table_invitation(self, table_id: str, to: int) -> None:
        """Delete ``to``'s invitation to the table (it took a seat there)."""
        with self.engine.begin() as conn:
            conn.execute(delete(InvitationRow).where(InvitationRow.table_id == table_id,
                                                     InvitationRow.to_id == to))
