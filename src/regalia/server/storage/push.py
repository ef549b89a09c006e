"""Web Push's database calls (``PushStore``, blocking: the server runs them on its database
thread): the site's VAPID key pair (one row, made once whoever asks first, the same on
every replica), the browsers' push subscriptions (one row per endpoint: for an account, or
for seats whose token proved them) and who is notified of what (``for_seat``,
``for_account``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from regalia.server.storage.database import Database
from regalia.server.storage.models import (HUMAN, PLAYING, GameTable, PushKeyRow, PushSeatRow,
                                           PushSubscriptionRow, SeatRow, now)

SEATS_PER_SUBSCRIPTION = 100  # seats one subscription notifies for at most (the latest)


@dataclass(frozen=True)
class PushTarget:
    """A subscription to send to: its row's ``id``, the push service's ``endpoint`` and the
    browser's keys (base64url)."""

    id: int
    endpoint: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        """The subscription as ``pywebpush`` takes it (``subscription_info``)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class PushStore:
    """The blocking database calls of Web Push, on the server's store's engine."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine

    def keys(self) -> tuple[str, str] | None:
        """The site's VAPID key pair ``(private PEM, public base64url)``; ``None`` before
        the first is kept."""
        with self.engine.connect() as conn:
            row = conn.execute(select(PushKeyRow.private_key, PushKeyRow.public_key)
                               .where(PushKeyRow.id == 1)).first()
        return (row.private_key, row.public_key) if row else None

    def keep_keys(self, private_pem: str, public_key: str) -> tuple[str, str]:
        """Keep this key pair unless one is kept already (another replica's, stored first);
        returns the pair kept, the same for every caller."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(PushKeyRow).values(id=1, private_key=private_pem,
                                                       public_key=public_key, created_at=now()))
        except IntegrityError:
            pass  # another replica made the site's pair first: that one is kept
        kept = self.keys()
        assert kept is not None
        return kept

    def subscribe(self, endpoint: str, p256dh: str, auth: str, account_id: int | None,
                  seats: list[tuple[str, str]]) -> list[tuple[str, int]]:
        """Store the subscription of ``endpoint`` (a new one, or the same browser's again:
        its keys and account replaced; ``account_id``: the account it notifies for, ``None``:
        only its seats), and add the seats whose ``(table_id, token_hash)`` proves a human
        seat of a table still being played (the latest ``SEATS_PER_SUBSCRIPTION`` are
        kept). Returns the seats proven, ``(table_id, seat)``, in the order asked."""
        t = now()
        with self.engine.begin() as conn:
            sub_id = conn.execute(select(PushSubscriptionRow.id)
                                  .where(PushSubscriptionRow.endpoint == endpoint)).scalar()
            if sub_id is None:
                sub_id = conn.execute(insert(PushSubscriptionRow).values(
                    endpoint=endpoint, p256dh=p256dh, auth=auth, account_id=account_id,
                    created_at=t)).inserted_primary_key[0]
            else:
                conn.execute(update(PushSubscriptionRow).where(PushSubscriptionRow.id == sub_id)
                             .values(p256dh=p256dh, auth=auth, account_id=account_id))
            proven = self._proven(conn, seats)
            had = {(r.table_id, r.token_hash) for r in conn.execute(
                select(PushSeatRow.table_id, PushSeatRow.token_hash)
                .where(PushSeatRow.subscription_id == sub_id))}
            new = [{"subscription_id": sub_id, "table_id": table, "token_hash": h,
                    "created_at": t} for table, h, _ in proven if (table, h) not in had]
            if new:
                conn.execute(insert(PushSeatRow), new)
            kept = conn.execute(select(PushSeatRow.table_id, PushSeatRow.token_hash)
                                .where(PushSeatRow.subscription_id == sub_id)
                                .order_by(PushSeatRow.created_at.desc(), PushSeatRow.table_id)
                                .offset(SEATS_PER_SUBSCRIPTION)).all()
            for r in kept:  # the oldest beyond the cap
                conn.execute(delete(PushSeatRow).where(
                    PushSeatRow.subscription_id == sub_id, PushSeatRow.table_id == r.table_id,
                    PushSeatRow.token_hash == r.token_hash))
        return [(table, seat) for table, _, seat in proven]

    @staticmethod
    def _proven(conn, seats: list[tuple[str, str]]) -> list[tuple[str, str, int]]:
        """Of the ``(table_id, token_hash)`` pairs, those of a human seat of a table still
        being played: ``(table_id, token_hash, seat)``, in the order asked, once each."""
        if not seats:
            return []
        rows = conn.execute(
            select(SeatRow.table_id, SeatRow.seat, SeatRow.token_hash)
            .join(GameTable, GameTable.id == SeatRow.table_id)
            .where(SeatRow.table_id.in_({t for t, _ in seats}),
                   SeatRow.token_hash.in_({h for _, h in seats}),
                   SeatRow.kind == HUMAN, GameTable.status == PLAYING)).all()
        found = {(r.table_id, r.token_hash): r.seat for r in rows}
        return [(t, h, found[t, h]) for t, h in dict.fromkeys(seats) if (t, h) in found]

    def unsubscribe(self, endpoint: str) -> bool:
        """Delete the subscription of ``endpoint`` and its seats; whether there was one."""
        with self.engine.begin() as conn:
            sub_id = conn.execute(select(PushSubscriptionRow.id)
                                  .where(PushSubscriptionRow.endpoint == endpoint)).scalar()
            if sub_id is None:
                return False
            self._drop(conn, [sub_id])
        return True

    def drop(self, ids: list[int]) -> None:
        """Delete the subscriptions ``ids`` (their push service said they are gone)."""
        if ids:
            with self.engine.begin() as conn:
                self._drop(conn, ids)

    @staticmethod
    def _drop(conn, ids: list[int]) -> None:
        conn.execute(delete(PushSeatRow).where(PushSeatRow.subscription_id.in_(ids)))
        conn.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.id.in_(ids)))

    def for_seat(self, table_id: str, seat: int) -> list[PushTarget]:
        """The subscriptions told of a seat's turn: those for the seat (its table and the
        hash of its token now: a seat given another token is another player's) and those of
        the account linked to it now."""
        with self.engine.connect() as conn:
            row = conn.execute(select(SeatRow.token_hash, SeatRow.account_id).where(
                SeatRow.table_id == table_id, SeatRow.seat == seat)).first()
            if row is None:
                return []
            found: dict[int, PushTarget] = {}
            if row.token_hash is not None:
                seat_subs = select(PushSeatRow.subscription_id).where(
                    PushSeatRow.table_id == table_id, PushSeatRow.token_hash == row.token_hash)
                for r in conn.execute(select(PushSubscriptionRow)
                                      .where(PushSubscriptionRow.id.in_(seat_subs))):
                    found[r.id] = PushTarget(r.id, r.endpoint, r.p256dh, r.auth)
            if row.account_id is not None:
                found.update({t.id: t for t in self._of_account(conn, row.account_id)})
        return sorted(found.values(), key=lambda t: t.id)

    def for_account(self, account_id: int) -> list[PushTarget]:
        """The subscriptions of the account ``account_id``."""
        with self.engine.connect() as conn:
            return self._of_account(conn, account_id)

    @staticmethod
    def _of_account(conn, account_id: int) -> list[PushTarget]:
        return [PushTarget(r.id, r.endpoint, r.p256dh, r.auth) for r in conn.execute(
            select(PushSubscriptionRow).where(PushSubscriptionRow.account_id == account_id)
            .order_by(PushSubscriptionRow.id))]

    def count(self) -> int:
        """How many subscriptions are kept."""
        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(PushSubscriptionRow)).scalar_one()
