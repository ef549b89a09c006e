"""How the server reaches its database (``Database``, the base of ``store.Store``): the
engines, SQLite's two ways of writing (waiting for another writer's lock until a deadline,
``before``; or not at all, on the event loop, ``at_once``, whose commits ``sync_log``
makes durable), the write-ahead log's checkpoints and syncs, the round trips counted, and
the checks that the database can be read and written."""

from __future__ import annotations

import os
import sqlite3
import time
from contextvars import ContextVar
from functools import partial
from typing import Any, Callable

from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from regalia.server.storage.engine import in_memory, make_engine, migrate

DEFAULT_DATABASE_URL = "sqlite:///regalia.sqlite3"


# Inside ``Store.at_once``: the calls use the engine that does not wait for locks.
AT_ONCE: ContextVar[bool] = ContextVar("regalia_store_at_once", default=False)


def busy(e: OperationalError) -> bool:
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


class Database:
    """The blocking access to one database (``store.Store`` adds the tables' calls).
    ``wait``: seconds a write waits for another writer's lock; ``sync``: SQLite's disk
    syncs (one of ``SQLITE_SYNC``; other databases keep their own settings)."""
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
        at_once = AT_ONCE.get() and self.nowait_engine is not None
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
        token = AT_ONCE.set(True)
        try:
            return fn(*args)
        except OperationalError as e:
            if busy(e):
                raise NotAtOnce(reason(e)) from e
            raise
        finally:
            AT_ONCE.reset(token)

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


def reason(e: BaseException) -> str:
    """A database error in one line (the driver's message, without SQL or parameters)."""
    orig = getattr(e, "orig", None) or e
    text_ = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    return text_[:200]
