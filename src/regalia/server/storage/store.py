"""The tables' database: a small synchronous ``Store`` over the models of ``models``.

A table is its game, config and seed, its seats, and its append-only move log (design.md,
"records"): everything else is rebuilt from them. ``UNIQUE(table_id, ply)`` makes it
impossible to store two moves at one ply, so a stale or duplicate submission can never be
applied twice, even by two server processes.

The schema is created and upgraded by the Alembic migrations shipped in
``regalia/server/migrations`` (``migrate``), never by ``create_all``, so a newer version
opens an older database. SQLite (the default) runs in WAL mode with ``synchronous=FULL``:
a move that was acknowledged survives a ``kill -9`` and a power cut (``sync="normal"``:
it survives a ``kill -9``; a power cut may lose the last moves, never the database).

The ``Store`` methods are blocking; the server calls them from a worker thread, except
its writes to an SQLite file, which it first tries on its event loop without waiting for
any lock (``Store.at_once``). With full syncs those commit without the disk sync, and the
caller syncs the write-ahead log (``Store.sync_log``, off the event loop, one sync for all
the commits before it) before it tells anyone of the write: the durability of
``synchronous=FULL``, without stopping the event loop for the disk.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import time
from contextvars import ContextVar
from datetime import datetime
from functools import lru_cache, partial
from typing import Any, Callable

from sqlalchemy import bindparam, event, func, select, text, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from regalia.server.settings import SQLITE_SYNC
from regalia.server.storage.engine import in_memory, make_engine, migrate
from regalia.server.storage.models import (ABANDONED, BOT, FINISHED, HUMAN, PLAYING, Conflict,
                                           GameTable, MessageRow, MoveRow, NewSeat, SeatData,
                                           SeatHandedOver, SeatRow, TableData, now, token_hash,
                                           utc)

DEFAULT_DATABASE_URL = "sqlite:///regalia.sqlite3"


# The statements of the hot paths (a move, a new table, a seat, a table's load), built once
# with bound parameters: SQLAlchemy then reuses their cache keys and compiled forms, where a
# statement built at each call is coerced, keyed and looked up again (about half of a move's
# database CPU). Parameters are named ``p_*``, as a column's own name is reserved in a SET.
_TABLE_ID = bindparam("p_table_id")
_TOUCH_TABLE = {  # the table's row at a move: (finished, with clock_state) -> UPDATE
    (finished, clocked): update(GameTable).where(GameTable.id == _TABLE_ID).values(
        updated_at=bindparam("p_t"),
        **({"status": FINISHED} if finished else {}),
        **({"clock_state": bindparam("p_clock_state")} if clocked else {}))
    for finished in (False, True) for clocked in (False, True)}
_SEAT_HANDED_OVER = select(SeatRow.bot_replaces).where(
    SeatRow.table_id == _TABLE_ID, SeatRow.seat == bindparam("p_seat"))
_INSERT_MOVES = MoveRow.__table__.insert()
_INSERT_TABLE = GameTable.__table__.insert()
_INSERT_SEATS = SeatRow.__table__.insert()
_INSERT_MESSAGE = MessageRow.__table__.insert()
_TABLE_EXISTS = select(GameTable.id).where(GameTable.id == _TABLE_ID)
_LOAD_TABLE = select(GameTable).where(GameTable.id == _TABLE_ID)
_LOAD_SEATS = select(SeatRow).where(SeatRow.table_id == _TABLE_ID).order_by(SeatRow.seat)
_LOAD_MOVES = (select(MoveRow.ply, MoveRow.seat, MoveRow.action)
               .where(MoveRow.table_id == _TABLE_ID).order_by(MoveRow.ply))
_LOAD_MESSAGES = (select(MessageRow.body).where(MessageRow.table_id == _TABLE_ID)
                  .order_by(MessageRow.id.desc()).limit(bindparam("p_limit")))


@lru_cache(maxsize=64)
def _seat_update(columns: tuple[str, ...], expect: tuple[tuple[str, bool], ...]):
    """The UPDATE of a seat's ``columns`` (parameters ``p_<column>``) where the stored seat
    has the expected values (``(column, is None)``; parameters ``p_expect_<column>``)."""
    where = [SeatRow.table_id == _TABLE_ID, SeatRow.seat == bindparam("p_seat")]
    where += [getattr(SeatRow, k).is_(None) if none
              else getattr(SeatRow, k) == bindparam(f"p_expect_{k}") for k, none in expect]
    return update(SeatRow).where(*where).values({k: bindparam(f"p_{k}") for k in columns})


# Inside ``Store.at_once``: the calls use the engine that does not wait for locks.
_AT_ONCE: ContextVar[bool] = ContextVar("regalia_store_at_once", default=False)


def _busy(e: OperationalError) -> bool:
    """Whether SQLite refused ``e``'s statement because another writer holds the lock
    (SQLITE_BUSY or SQLITE_LOCKED, extended codes included)."""
    code = getattr(getattr(e, "orig", None), "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class NotAtOnce(Exception):
    """``Store.at_once``: the call cannot be done without waiting; nothing was stored."""


# Inside ``Store.before``: the time.monotonic() after which SQLite waits for no lock.
_DEADLINE: ContextVar[float | None] = ContextVar("regalia_store_deadline", default=None)


class TooLate(Exception):
    """``Store.before``: the deadline passed before the call could start; nothing was done."""


class NotSynced(Exception):
    """A write was committed but its disk sync (``Store.sync_log``) failed: it may be lost
    at a power cut, or be there."""


class StoreUnavailable(Exception):
    """The database cannot be written (read-only, locked, gone); the message says why."""


class Store:
    """The blocking database API of the server (one instance per database). ``wait``:
    seconds a write waits for another writer's lock; ``sync``: SQLite's disk syncs (one of
    ``SQLITE_SYNC``; other databases keep their own settings)."""

    def __init__(self, url: str = DEFAULT_DATABASE_URL, *, upgrade: bool = True,
                 wait: float = 5.0, sync: str = "full") -> None:
        self.url = url
        self.engine = make_engine(url, wait, sync=sync)
        # SQLite in a file: a second engine on it whose writes never wait for a lock and
        # never copy the write-ahead log back (``checkpoint`` does), for ``at_once`` (an
        # in-memory database is one per connection: none). With ``sync="full"`` its commits
        # leave the disk sync to ``sync_log`` (``log_path``: the write-ahead log's file),
        # unless that file cannot be found (then they sync themselves).
        file = self.engine.dialect.name == "sqlite" and not in_memory(url)
        if upgrade:
            migrate(self.engine)
        self.log_path = self._find_log() if file and sync == "full" else None
        self._log_fd: int | None = None
        self._log_inode = 0
        self.nowait_engine = (make_engine(url, 0.0, checkpoints=False,
                                          sync="normal" if self.log_path else sync)
                              if file else None)
        if self.nowait_engine is not None:  # SQLite: Store.before's deadline bounds the wait
            event.listen(self.engine, "checkout", self._wait_until_deadline)
            event.listen(self.engine, "checkin", self._wait_as_usual)
            self._usual_wait_ms = max(1, int(wait * 1000))
        self._trips = [0, 0]  # per engine: each is used by one thread at a time
        for k, engine in enumerate((self.engine, self.nowait_engine)):
            for name in ("before_cursor_execute", "commit", "rollback") if engine else ():
                event.listen(engine, name, partial(self._count, k))

    def _find_log(self) -> str | None:
        """SQLite's write-ahead log file of this database, as SQLite names it (beside the
        file a symbolic link leads to), or ``None`` when it is not there."""
        with self.engine.connect() as conn:  # the log is there while a connection reads
            conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()
            path = conn.exec_driver_sql("PRAGMA database_list").fetchall()[0][2]
            return path + "-wal" if path and os.path.exists(path + "-wal") else None

    def _count(self, k: int, *_: Any) -> None:
        self._trips[k] += 1

    @property
    def round_trips(self) -> int:
        """The statements, commits and rollbacks sent to the database so far."""
        return sum(self._trips)

    def before(self, deadline: float, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, a call of this store, started only before ``deadline`` (a
        ``time.monotonic()`` value) and, on SQLite, waiting for another writer's lock no
        longer than until then. Raises ``TooLate``, nothing done, when it is already past;
        a lock still held at the deadline makes ``fn`` fail as it does after its usual wait.
        So a caller that gives up at the deadline can wait for this call's answer, which
        comes at most one statement and one commit later."""
        if time.monotonic() >= deadline:
            raise TooLate("the deadline passed before the write could start")
        token = _DEADLINE.set(deadline)
        try:
            return fn(*args)
        finally:
            _DEADLINE.reset(token)

    def _wait_until_deadline(self, dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        deadline = _DEADLINE.get()
        if deadline is not None:
            ms = max(1, int((deadline - time.monotonic()) * 1000))
            dbapi_conn.execute(f"PRAGMA busy_timeout={ms}")
            record.info["regalia_wait"] = True

    def _wait_as_usual(self, dbapi_conn: Any, record: Any) -> None:
        if record.info.pop("regalia_wait", False) and dbapi_conn is not None:
            dbapi_conn.execute(f"PRAGMA busy_timeout={self._usual_wait_ms}")

    def checkpoint(self) -> None:
        """SQLite: copy the write-ahead log back into the database where no reader needs it
        (a passive checkpoint: it waits for no one); nothing on other databases. The writes
        of ``at_once`` leave this to the caller, off the event loop."""
        if self.engine.dialect.name == "sqlite":
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def _engine(self) -> Engine:
        """The engine of this call: the one that does not wait for locks inside ``at_once``."""
        at_once = _AT_ONCE.get() and self.nowait_engine is not None
        return self.nowait_engine if at_once else self.engine

    @property
    def can_write_at_once(self) -> bool:
        """Whether ``at_once`` can do anything (an SQLite file)."""
        return self.nowait_engine is not None

    def at_once(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, a call of this store, done without waiting for a lock held by
        someone else (at most ~1 ms; SQLite files only) and without copying the write-ahead
        log back (``checkpoint``). Raises ``NotAtOnce``, with nothing stored, when it cannot
        be done at once (another writer holds the database's lock; see ``append_moves``
        for moves); ``fn`` must therefore write in one transaction, whose commit is not
        synced to the disk when ``log_path`` is set: call ``sync_log`` before telling anyone
        of it. Its time is then the statements' and the commit's: the server's event loop
        calls it itself, sparing the trip to the database thread, whose hand-overs of the
        interpreter lock with a busy event loop made most of a move's latency tail."""
        token = _AT_ONCE.set(True)
        try:
            return fn(*args)
        except OperationalError as e:
            if _busy(e):
                raise NotAtOnce(reason(e)) from e
            raise
        finally:
            _AT_ONCE.reset(token)

    def sync_log(self) -> None:
        """Sync SQLite's write-ahead log to the disk (``os.fsync``; blocking, seconds on a
        stalled disk): every commit of ``at_once`` made before the call is then as durable
        as a commit with ``synchronous=FULL`` (in WAL mode, FULL is NORMAL plus this sync at
        each commit; NORMAL already syncs at checkpoints and when the log is reused). Only
        with ``log_path`` (an SQLite file, ``sync="full"``). One descriptor stays open on
        the log (a write-back error is reported to the descriptors open when it happened),
        opened again when the file was made anew. Raises ``OSError``."""
        try:
            fd = os.open(self.log_path, os.O_RDWR)
        except FileNotFoundError:  # the last connection's close checkpointed and synced it
            return
        inode = os.fstat(fd).st_ino
        if self._log_fd is not None and inode == self._log_inode:
            os.close(fd)
        else:
            if self._log_fd is not None:
                os.close(self._log_fd)
            self._log_fd, self._log_inode = fd, inode
        os.fsync(self._log_fd)

    def close(self) -> None:
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None
        self.engine.dispose()
        if self.nowait_engine is not None:
            self.nowait_engine.dispose()

    def check_writable(self) -> None:
        """Write to the database and roll back; raises ``StoreUnavailable`` with a one-line
        reason when it cannot be written."""
        try:
            with self._engine().connect() as conn:
                with conn.begin() as tx:
                    conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
                    tx.rollback()
        except Exception as e:  # noqa: BLE001 - any database error means: not writable
            raise StoreUnavailable(reason(e)) from e

    def check_readable(self) -> None:
        """Raises ``StoreUnavailable`` when the database cannot be read."""
        try:
            with self._engine().connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as e:  # noqa: BLE001
            raise StoreUnavailable(reason(e)) from e

    # -- tables ----------------------------------------------------------------------

    def create_table(self, *args: Any, **kwargs: Any) -> tuple[str, list[str | None], str]:
        """Store a new table (the arguments of ``new_table``); returns ``(table_id, tokens,
        watch_token)``."""
        data, tokens = self.new_table(*args, **kwargs)
        return data.id, tokens, data.watch_token

    def new_table(self, game: str, config: dict[str, Any], seed: int,
                  seats: list[tuple[str, str | None] | NewSeat], *, is_open: bool = False,
                  clock: dict[str, Any] | None = None,
                  clock_state: dict[str, Any] | None = None,
                  after: str | None = None,
                  hints: bool = False) -> tuple[TableData, list[str | None]]:
        """Store a new table; returns it as ``load_table`` would read it (without reading it
        back) and one fresh secret token per human seat (``None`` for bot seats and for
        seats that reuse a token's hash). Only the seat tokens' hashes are stored (the
        spectators' token, which shows only the public view, is kept to hand it to the
        seats). ``after``: the finished table this one is the rematch of (its
        ``next_table`` is set in the same transaction; ``Conflict`` when it already has
        one, nothing stored); ``hints``: a solo table with the Hint button."""
        seats = [s if isinstance(s, NewSeat) else NewSeat(*s) for s in seats]
        tokens: list[str | None] = [secrets.token_urlsafe(18)
                                    if s.kind == HUMAN and s.token_hash is None else None
                                    for s in seats]
        watch = secrets.token_urlsafe(18)
        with self._engine().begin() as conn:
            for _ in range(8):
                table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
                if conn.execute(_TABLE_EXISTS, {"p_table_id": table_id}).first() is None:
                    break
            t = now()
            conn.execute(_INSERT_TABLE, {
                "id": table_id, "game": game, "config": config, "seed": seed, "status": PLAYING,
                "created_at": t, "updated_at": t, "watch_token": watch, "is_open": is_open,
                "clock": clock, "clock_state": clock_state, "hints": hints, "next_table": None})
            stored = [SeatData(i, s.kind, s.bot, token_hash(tok) if tok else s.token_hash,
                               False, s.name, s.claimed)
                      for i, (s, tok) in enumerate(zip(seats, tokens))]
            conn.execute(_INSERT_SEATS, [
                {"table_id": table_id, "seat": d.seat, "kind": d.kind, "bot": d.bot,
                 "token_hash": d.token_hash, "bot_replaces": False, "name": d.name,
                 "claimed": d.claimed} for d in stored])
            if after is not None and conn.execute(
                    update(GameTable).where(GameTable.id == after, GameTable.next_table.is_(None))
                    .values(next_table=table_id)).rowcount != 1:
                raise Conflict(f"table {after} already has its rematch")  # rolled back
        return TableData(table_id, game, dict(config), seed, PLAYING, t, stored, watch,
                         is_open=bool(is_open), clock=clock, clock_state=clock_state,
                         hints=bool(hints)), tokens

    def load_table(self, table_id: str, messages: int = 50) -> TableData | None:
        """The stored table with its seats, moves (in ply order) and latest messages."""
        with self._engine().connect() as conn:
            key = {"p_table_id": table_id}
            row = conn.execute(_LOAD_TABLE, key).mappings().first()
            if row is None:
                return None
            seats = [SeatData(r.seat, r.kind, r.bot, r.token_hash, bool(r.bot_replaces),
                              r.name, bool(r.claimed))
                     for r in conn.execute(_LOAD_SEATS, key)]
            moves = [(r.ply, r.seat, r.action) for r in conn.execute(_LOAD_MOVES, key)]
            msgs = [dict(r.body) for r in conn.execute(
                _LOAD_MESSAGES, {"p_table_id": table_id, "p_limit": messages})]
        msgs.reverse()
        return TableData(row["id"], row["game"], dict(row["config"]), int(row["seed"]),
                         row["status"], utc(row["created_at"]), seats, row["watch_token"],
                         moves, msgs, bool(row["is_open"]), row["clock"], row["clock_state"],
                         row["next_table"], bool(row["hints"]))

    def active_table_ids(self) -> list[str]:
        """Ids of the tables still being played that have a bot seat or a seat handed to a
        bot (the ones whose bots may have to carry on) or a clock (whose time may run out),
        oldest first."""
        with self._engine().connect() as conn:
            bots = select(SeatRow.table_id).where((SeatRow.kind == BOT) | SeatRow.bot_replaces)
            return [r[0] for r in conn.execute(select(GameTable.id)
                                               .where(GameTable.status == PLAYING,
                                                      GameTable.id.in_(bots)
                                                      | GameTable.clock.is_not(None))
                                               .order_by(GameTable.created_at))]

    def open_tables(self, limit: int) -> list[dict[str, Any]]:
        """The open tables still being played that have a free (unclaimed) human seat, newest
        first, at most ``limit``: ``{"id", "game", "config", "clock", "created_at", "seats":
        [{"seat", "kind", "bot", "name", "claimed"}]}``."""
        with self._engine().connect() as conn:
            free = select(SeatRow.table_id).where(SeatRow.kind == HUMAN, ~SeatRow.claimed)
            rows = conn.execute(select(GameTable.id, GameTable.game, GameTable.config,
                                       GameTable.clock, GameTable.created_at)
                                .where(GameTable.is_open, GameTable.status == PLAYING,
                                       GameTable.id.in_(free))
                                .order_by(GameTable.created_at.desc()).limit(limit)).all()
            ids = [r.id for r in rows]
            seats: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
            if ids:
                for r in conn.execute(select(SeatRow).where(SeatRow.table_id.in_(ids))
                                      .order_by(SeatRow.seat)):
                    seats[r.table_id].append({"seat": r.seat, "kind": r.kind, "bot": r.bot,
                                              "name": r.name, "claimed": bool(r.claimed)})
        return [{"id": r.id, "game": r.game, "config": dict(r.config), "clock": r.clock,
                 "created_at": utc(r.created_at), "seats": seats[r.id]} for r in rows]

    def expire_tables(self, before: datetime) -> list[str]:
        """Mark abandoned every table still being played whose last move or message (or its
        creation) is older than ``before``; returns their ids."""
        with self._engine().begin() as conn:
            ids = [r[0] for r in conn.execute(select(GameTable.id).where(
                GameTable.status == PLAYING, GameTable.updated_at < before))]
            if ids:
                conn.execute(update(GameTable).where(GameTable.id.in_(ids))
                             .values(status=ABANDONED))
        return ids

    def count_tables(self) -> int:
        with self._engine().connect() as conn:
            return conn.execute(select(func.count()).select_from(GameTable)).scalar_one()

    # -- moves -----------------------------------------------------------------------

    def append_move(self, table_id: str, ply: int, seat: int | None, action: str,
                    finished: bool = False, clock_state: dict[str, Any] | None = None,
                    human: bool = False) -> None:
        """Store the move at ``ply`` in one transaction (and mark the table finished when the
        move ends the game; ``clock_state``: the table's clocks after the move). Raises
        ``Conflict`` when that ply is already stored, and ``SeatHandedOver`` when ``human``
        (a human's own move on a table with clocks) and the seat is stored as played by a bot.

        The table's row is written first: it is the lock that orders a move and a time-out
        (``set_bot_replaces`` with ``expect_ply``) of replicas racing on one table."""
        try:
            with self._engine().begin() as conn:
                self._write_moves(conn, [(table_id, ply, seat, action, finished, clock_state,
                                          human)], now())
        except IntegrityError as e:
            raise Conflict(f"table {table_id}: ply {ply} is already stored") from e

    @staticmethod
    def _write_moves(conn: Connection, moves: list[tuple], t: datetime) -> None:
        """The statements of ``append_moves`` in ``conn``'s transaction: each table's row
        first, in one order (two replicas' batches cannot deadlock; a run of rows with the
        same change is one ``executemany``), the human seats' check after its table's row,
        then the moves."""
        rows = []
        touch: Any = None  # the statement of the run of rows not yet written, and theirs
        touches: list[dict[str, Any]] = []

        def write_touches() -> None:
            if touches:
                conn.execute(touch, touches)
                touches.clear()

        for table_id, ply, seat, action, finished, *rest in sorted(moves, key=lambda m: m[:2]):
            clock_state = rest[0] if rest else None
            statement = _TOUCH_TABLE[bool(finished), clock_state is not None]
            if statement is not touch:
                write_touches()
                touch = statement
            touches.append({"p_table_id": table_id, "p_t": t, "p_clock_state": clock_state})
            if len(rest) > 1 and rest[1]:
                write_touches()
                if conn.execute(_SEAT_HANDED_OVER, {"p_table_id": table_id,
                                                    "p_seat": seat}).scalar():
                    raise SeatHandedOver(f"table {table_id}: seat {seat}'s time ran out first")
            rows.append({"table_id": table_id, "ply": ply, "seat": seat, "action": action,
                         "created_at": t})
        write_touches()
        conn.execute(_INSERT_MOVES, rows)

    def append_moves(self, moves: list[tuple]) -> list[Exception | None]:
        """Store several moves (of different tables) in one transaction: one durable write
        for all (group commit). Returns, per move, ``None`` (stored) or the exception that
        refused it; if the batch is refused as a whole (a ply taken, a seat handed over),
        each move is retried on its own (inside ``at_once``: ``NotAtOnce`` instead, nothing
        stored). A move is ``(table_id, ply, seat, action, finished[, clock_state[,
        human]])`` (as ``append_move``'s arguments)."""
        if len(moves) > 1:
            try:
                with self._engine().begin() as conn:
                    self._write_moves(conn, moves, now())
                return [None] * len(moves)
            except (IntegrityError, Conflict):
                if _AT_ONCE.get():
                    raise NotAtOnce("a move of the batch is refused") from None
        out: list[Exception | None] = []
        for m in moves:
            try:
                self.append_move(*m)
                out.append(None)
            except OperationalError as e:
                if _AT_ONCE.get() and _busy(e):
                    raise  # at_once says NotAtOnce: one move, so nothing stored
                out.append(e)
            except Exception as e:  # noqa: BLE001 - handed back to the submitter
                out.append(e)
        return out

    def set_bot_replaces(self, table_id: str, seat: int, on: bool,
                         clock_state: dict[str, Any] | None = None,
                         expect_ply: int | None = None) -> None:
        """Hand ``seat`` to a bot (``on``) or back, with the table's clocks after it.
        ``expect_ply``: the number of moves the change was decided at (a time-out); raises
        ``Conflict`` and changes nothing when a move at that ply was stored first (by
        another replica). The table's row is written first (see ``append_move``)."""
        with self._engine().begin() as conn:
            values: dict[str, Any] = {"updated_at": now()}
            if clock_state is not None:
                values["clock_state"] = clock_state
            conn.execute(update(GameTable).where(GameTable.id == table_id).values(**values))
            if expect_ply is not None and conn.execute(select(MoveRow.id).where(
                    MoveRow.table_id == table_id, MoveRow.ply >= expect_ply).limit(1)).first():
                raise Conflict(f"table {table_id}: a move at ply {expect_ply} came first")
            conn.execute(update(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                         .values(bot_replaces=on))

    def update_seat(self, table_id: str, seat: int, clock_state: dict[str, Any] | None = None,
                    expect: dict[str, Any] | None = None, **values: Any) -> None:
        """Change a seat's ``name``, ``claimed`` or ``token_hash`` (with the table's clocks
        when they start). ``expect``: the seat's stored values the change needs (e.g.
        ``{"claimed": False}``); raises ``Conflict`` and changes nothing when they differ."""
        expect = expect or {}
        statement = _seat_update(tuple(values), tuple((k, v is None) for k, v in expect.items()))
        params = {"p_table_id": table_id, "p_seat": seat, "p_t": now(),
                  "p_clock_state": clock_state}
        params.update({f"p_{k}": v for k, v in values.items()})
        params.update({f"p_expect_{k}": v for k, v in expect.items() if v is not None})
        with self._engine().begin() as conn:
            if conn.execute(statement, params).rowcount != 1:
                raise Conflict(f"table {table_id}: seat {seat} is no longer {expect}")
            conn.execute(_TOUCH_TABLE[False, clock_state is not None], params)

    def add_message(self, table_id: str, seat: int | None, kind: str, body: dict[str, Any]) -> None:
        t = now()
        with self._engine().begin() as conn:
            conn.execute(_INSERT_MESSAGE, {"table_id": table_id, "seat": seat, "kind": kind,
                                           "body": body, "created_at": t})
            conn.execute(_TOUCH_TABLE[False, False], {"p_table_id": table_id, "p_t": t})


def reason(e: BaseException) -> str:
    """A database error in one line (the driver's message, without SQL or parameters)."""
    orig = getattr(e, "orig", None) or e
    text_ = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    return text_[:200]
