"""The tables' database schema: SQLAlchemy 2 models, the table statuses and seat kinds,
and the ending rows' mark (the values a ``Store`` answers with and takes, and the conflicts
a write may meet: ``values``).

A table is its game, config and seed, its seats, and its append-only move log (design.md,
"records"): everything else is rebuilt from them. ``UNIQUE(table_id, ply)`` makes it
impossible to store two moves at one ply, so a stale or duplicate submission can never be
applied twice, even by two server processes. The schema is created and upgraded by the
Alembic migrations (``engine.migrate``), never by ``create_all``.

Accounts are optional (migration 0009): an ``AccountRow`` (a unique name after case and
width folding, a password hash or none, so that a later table of passkeys may sign in an
account without a password), its browser sessions (``SessionRow``: only a hash of each
session token), and a seat linked to the account that proved the seat's token
(``SeatRow.account_id``). Playing needs none of them. Friends (migration 0012): a
friendship or a request per pair of accounts (``FriendshipRow``), the blocks
(``BlockRow``) and the invitations of a friend to a table (``InvitationRow``). Passkeys
(migration 0013): an account's WebAuthn credentials (``PasskeyRow``), with which an account
may sign in without a password, and the challenges of the WebAuthn ceremonies begun and not
answered yet (``ChallengeRow``: single use, short-lived, readable by every replica).

Ratings (migration 0010): a table may be created *rated* (``GameTable.rated``: Le Roy des
Ribauds between two accounts, each seat linked to its account when it is claimed). Each
account's rating per game is a ``RatingRow`` (OpenSkill's ``mu`` and ``sigma``, the number
shown, its rated record); a finished rated game's ``RatingChangeRow`` per seat (the rating
before and after) is stored in the same transaction as the ratings it changed, keyed by the
table and the seat, so that a game is rated once whoever processes its end, however often
(``ratings.RatingStore``). A seat's ``medal`` is worked out with its ``won``.
The daily deal (migration 0011): ``ServerSecretRow`` keeps a server's secrets (the key the
daily deals' seeds are drawn with, ``tables.daily``), ``DailyDealRow`` one day's deal (its
seed, stored at its first use that day, so that every replica deals the same; the solver's
verdict once worked out) and ``DailyPlayRow`` each table dealt it (the account that plays it
ranked, at most one per day, and its result once worked out).
Turn-based tables and Web Push (migration 0014): ``GameTable.turn_deadline`` (when the player
to act at a turn-based table runs out of time), ``PushKeyRow`` (the site's VAPID key pair),
``PushSubscriptionRow`` (a browser's push subscription, for an account or for seats) and
``PushSeatRow`` (a seat an anonymous subscription notifies for).

A game the players end before its rules do (a concession, a stop agreed by all:
``core.records.Ending``) ends its move log with one *ending row*: at the ply after the last
move, ``seat`` the conceding (or proposing) seat, ``action`` ``ENDING_MARK`` and the
ending's ``how`` (``"@conceded"``, ``"@stopped"``; no action of any game begins with
``@``). It takes a ply as a move does, so a move and an ending that race (on two replicas)
cannot both be stored: the first one stored is the truth. The store reads it apart from the
moves (``TableData.ending``).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from sqlalchemy import (JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Integer,
                        LargeBinary, String, Text, UniqueConstraint)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from regalia.core.records import ENDINGS, Ending

PLAYING = "playing"
FINISHED = "finished"
ABANDONED = "abandoned"
HUMAN = "human"
BOT = "bot"
ENDING_MARK = "@"  # the action of an ending row begins with it (module docstring)


def ending_action(ending: Ending) -> str:
    """The action text of ``ending``'s row in the move log (``"@conceded"``)."""
    return ENDING_MARK + ending.how


def read_ending(seat: int | None, action: str) -> Ending | None:
    """The ending a move row stores (``None``: a move of the game); raises ``ValueError``
    for a row marked as an ending that is none."""
    if not action.startswith(ENDING_MARK):
        return None
    how = action[len(ENDING_MARK):]
    if how not in ENDINGS or seat is None:
        raise ValueError(f"an ending row that is no ending: {action!r} of seat {seat}")
    return Ending(how, seat)


def now() -> datetime:
    return datetime.now(timezone.utc)


def utc(t: datetime) -> datetime:
    """``t`` in UTC: SQLite keeps no time zone (a naive time was stored in UTC), and a
    PostgreSQL session answers in its own."""
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)


def token_hash(token: str) -> str:
    """What the database keeps of a seat token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


class Base(DeclarativeBase):
    pass


class GameTable(Base):
    """A table: one game being played (or finished) with its config and seed."""

    __tablename__ = "game_tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    config: Mapped[dict] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default=PLAYING, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True,
                                                        index=True)
    watch_token: Mapped[str | None] = mapped_column(String(64), nullable=True)  # migration 0003
    # migration 0004: listed in the lobby; time control and clock state; the rematch's id
    is_open: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    # no clock is SQL NULL, not the JSON text null (see migration 0006)
    clock: Mapped[dict | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    clock_state: Mapped[dict | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    next_table: Mapped[str | None] = mapped_column(String(32), nullable=True)
    hints: Mapped[bool] = mapped_column(Boolean, default=False)  # migration 0005
    # migration 0007: an open table's creator (a hash of the address: creation.creator_key)
    creator: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    # migration 0010: a rated game (two accounts; ``ratings.RatingStore``)
    rated: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    # migration 0014: when the player to act at a turn-based table runs out of time (the
    # ``deadline`` of its clock_state; NULL: no turn-based clock runs)
    turn_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                           nullable=True, index=True)


class SeatRow(Base):
    """A seat: a human (reached by a secret token) or a bot; a human seat may be handed to
    a bot (``bot_replaces``) and taken back."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "seat", name="uq_seats_table_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bot_replaces: Mapped[bool] = mapped_column(Boolean, default=False)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)  # migration 0004
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)  # someone holds the seat
    # migration 0009: the account that proved the seat's token (``Accounts.adopt``), and
    # whether the seat won, once a finished game's result was worked out (``Accounts.results``)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id", name="fk_seats_account_id"), nullable=True, index=True)
    won: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # migration 0010: the solo Regicide medal the seat won ("gold", "silver", "bronze"; none:
    # no medal, or not worked out yet while ``won`` is null)
    medal: Mapped[str | None] = mapped_column(String(8), nullable=True)


class MoveRow(Base):
    """One accepted action of a table's move log; ``ply`` counts from 0."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("table_id", "ply", name="uq_moves_table_ply"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    action: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # migration 0007: a bot played this move for a human seat (handed over, timed out, left)
    by_bot: Mapped[bool] = mapped_column(Boolean, default=False)


class MessageRow(Base):
    """A table message allowed by the game's communication rules (migration 0002)."""

    __tablename__ = "messages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    kind: Mapped[str] = mapped_column(String(16))
    body: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class AccountRow(Base):
    """An account (migration 0009): ``name`` as its owner chose it, ``folded`` its unique
    key (``accounts.fold``: NFKC, then case folding); ``password_hash`` an Argon2 hash, or
    none for an account that signs in another way."""

    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    folded: Mapped[str] = mapped_column(String(128), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class SessionRow(Base):
    """A signed-in browser (migration 0009): the SHA-256 of its cookie's token, never the
    token; valid until ``expires_at``."""

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class RatingRow(Base):
    """An account's rating in one game (migration 0010): OpenSkill's ``mu`` and ``sigma``,
    the number shown (``lab.ratings.shown``, kept for the leaderboard's order) and its rated
    record. An account has one only once it played a rated game of that game."""

    __tablename__ = "ratings"
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer, default=0)  # also the row's version
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class RatingChangeRow(Base):
    """What one finished rated game did to one seat's rating (migration 0010): stored with
    the new ratings, once per table and seat (its key)."""

    __tablename__ = "rating_changes"
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"),
                                          primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), index=True)
    game: Mapped[str] = mapped_column(String(32))
    score: Mapped[float] = mapped_column(Float)  # the game's return: 1 won, 0 lost
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    rating_before: Mapped[int] = mapped_column(Integer)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ServerSecretRow(Base):
    """A secret of the server (migration 0011), by name: ``"daily"``, the key of the daily
    deals' seeds (hex), generated at the first start unless a setting gives one."""

    __tablename__ = "server_secrets"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class DailyDealRow(Base):
    """One UTC day's daily deal (migration 0011): ``day`` as ``YYYY-MM-DD``, the ``seed``
    and ``config`` its tables are dealt with (stored at the day's first use: the first one
    stored is every replica's), and the solver's ``verdict`` (``lab.solve.Solution`` as
    JSON) once worked out; ``solver`` and ``solving_since``: the replica working it out."""

    __tablename__ = "daily_deals"
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    config: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    verdict: Mapped[dict | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    solved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    solver: Mapped[str | None] = mapped_column(String(64), nullable=True)
    solving_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                           nullable=True)


class DailyPlayRow(Base):
    """A table dealt a day's daily deal (migration 0011). ``account_id``: the account that
    plays it ranked (at most one per day: ``UNIQUE(day, account_id)``; ``None``: played
    without an account, unranked). Once its game ended and its result was worked out
    (``scored``): ``won``, ``medal`` and ``medal_rank`` (3 gold, 2 silver, 1 bronze, 0
    none), ``enemies`` defeated, ``moves`` played, ``finished_at`` (its last row's time)
    and ``assisted`` (a bot played some of its moves: not ranked)."""

    __tablename__ = "daily_plays"
    __table_args__ = (UniqueConstraint("day", "account_id", name="uq_daily_plays_day_account"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    day: Mapped[str] = mapped_column(String(10), ForeignKey("daily_deals.day"), index=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"), unique=True)
    account_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id"),
                                                   nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    scored: Mapped[bool] = mapped_column(Boolean, default=False)
    won: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    medal: Mapped[str | None] = mapped_column(String(8), nullable=True)
    medal_rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    enemies: Mapped[int | None] = mapped_column(Integer, nullable=True)
    moves: Mapped[int | None] = mapped_column(Integer, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    assisted: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
class FriendshipRow(Base):
    """Two accounts' friendship, or one's request to the other (migration 0012): one row
    per pair, ``low_id`` the smaller account id (so a pair has one row whoever asked),
    ``requester_id`` the one who asked, ``accepted_at`` ``None`` while it is a request."""

    __tablename__ = "friendships"
    low_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), primary_key=True)
    high_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), primary_key=True,
                                         index=True)
    requester_id: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class BlockRow(Base):
    """An account that blocks another (migration 0012): no friend request or invitation of
    the blocked one reaches the blocker."""

    __tablename__ = "blocks"
    blocker_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), primary_key=True,
                                            index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class InvitationRow(Base):
    """An account's invitation of a friend to a free seat of a table it sits at (migration
    0012): at most one per table and invitee; it lasts while the table waits for a player."""

    __tablename__ = "table_invitations"
    __table_args__ = (UniqueConstraint("table_id", "to_id", name="uq_table_invitations_to"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"))
    from_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), index=True)
    to_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class PasskeyRow(Base):
    """An account's passkey (migration 0013): a WebAuthn credential, its id as base64url
    text (unique), its COSE public key, the authenticator's signature counter
    (``sign_count``, 0 for authenticators that keep none), the transports the browser named
    (a JSON list), the WebAuthn user handle (base64url; the same for all of an account's
    passkeys), a label its owner reads, and when it was added and last signed in with."""

    __tablename__ = "passkeys"
    __table_args__ = (UniqueConstraint("credential_id", name="uq_passkeys_credential_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", name="fk_passkeys_account_id", ondelete="CASCADE"),
        index=True)
    credential_id: Mapped[str] = mapped_column(String(1400))
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    sign_count: Mapped[int] = mapped_column(BigInteger, default=0)
    transports: Mapped[list] = mapped_column(JSON)
    user_handle: Mapped[str] = mapped_column(String(128))
    label: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                          nullable=True)


class ChallengeRow(Base):
    """A WebAuthn ceremony begun and not answered yet (migration 0013): ``key`` the SHA-256
    of the ceremony's token (the page holds the token), ``purpose`` what it was begun for
    (``storage.passkeys.PURPOSES``), the ``challenge`` (base64url) the answer must sign, the
    account it was begun by (adding a passkey, confirming a deletion), or the ``name`` and
    ``user_handle`` of the account a passkey sign-up would create; valid until
    ``expires_at``, and taken (deleted) by its first answer."""

    __tablename__ = "passkey_challenges"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))
    challenge: Mapped[str] = mapped_column(String(128))
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id", name="fk_passkey_challenges_account_id",
                            ondelete="CASCADE"), nullable=True, index=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    user_handle: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class PushKeyRow(Base):
    """The site's VAPID key pair (migration 0014): one row (``id`` 1), made at the first
    start by whichever replica stores it first. ``private_key``: PEM (PKCS#8, P-256);
    ``public_key``: the uncompressed point, base64url without padding (a page's
    ``applicationServerKey``)."""

    __tablename__ = "push_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    private_key: Mapped[str] = mapped_column(Text)
    public_key: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class PushSubscriptionRow(Base):
    """A browser's Web Push subscription (migration 0014): its push service ``endpoint``
    (unique: one row per browser), its keys (``p256dh``, ``auth``: base64url) and the account
    it notifies for (``None``: only the seats of its ``PushSeatRow`` rows)."""

    __tablename__ = "push_subscriptions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    endpoint: Mapped[str] = mapped_column(String(1024), unique=True)
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    account_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id"),
                                                   nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class PushSeatRow(Base):
    """A seat a subscription notifies for (migration 0014): a table and the SHA-256 of the
    seat's token (a seat given another token, e.g. by an invitation, is no longer it)."""

    __tablename__ = "push_seats"
    subscription_id: Mapped[int] = mapped_column(Integer, ForeignKey("push_subscriptions.id"),
                                                 primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("game_tables.id"),
                                          primary_key=True, index=True)
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


metadata = Base.metadata
