"""How the server reaches its database (``Database``, the base of ``store.Store``): the
engine, the writes bounded by a deadline (``before``: waiting for another writer's lock
until then), the round trips counted, and the checks that the database can be read and
written (``check_readable``, ``check_writable``, ``probe_write``). Every call is blocking:
the server makes them on its database thread (``writer.Writer``), never on its event loop."""

from __future__ import annotations

import os
import sqlite3
import time
from contextvars import ContextVar
from typing import Any, Callable

from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from regalia.server.storage.engine import in_memory, make_engine, migrate

# the data and the size of a file, as SQLite syncs its own (os.fsync where it is missing)
sync = getattr(os, "fdatasync", os.fsync)

DEFAULT_DATABASE_URL = "sqlite:///regalia.sqlite3"


def busy(e: OperationalError) -> bool:
    """Whether SQLite refused ``e``'s statement because another writer holds the lock
    (SQLITE_BUSY or SQLITE_LOCKED, extended codes included)."""
    code = getattr(getattr(e, "orig", None), "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def io_error(e: BaseException) -> bool:
    """Whether SQLite failed ``e``'s statement with an I/O error (SQLITE_IOERR, extended
    codes included: a write or a disk sync failed): a commit that fails so may still be in
    the write-ahead log, and be there after a restart."""
    code = getattr(getattr(e, "orig", None) or e, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_IOERR


# Inside ``Store.before``: the time.monotonic() after which SQLite waits for no lock.
_DEADLINE: ContextVar[float | None] = ContextVar("regalia_store_deadline", default=None)


class TooLate(Exception):
    """``Store.before``: the deadline passed before the call could start; nothing was done."""


class NotSynced(Exception):
    """A write whose outcome is unknown: its commit failed on the disk, or it did not
    answer in time and may still land. It may be stored, or not: the database says which."""


class StoreUnavailable(Exception):
    """The database cannot be written (read-only, locked, gone); the message says why."""


class Database:
    """The blocking access to one database (``store.Store`` adds the tables' calls).
    ``wait``: seconds a write waits for another writer's lock; ``sync``: SQLite's disk
    syncs (one of ``SQLITE_SYNC``; other databases keep their own settings): with "full"
    each commit syncs the write-ahead log before it returns and before any reader can see
    it."""
    def __init__(self, url: str = DEFAULT_DATABASE_URL, *, upgrade: bool = True,
                 wait: float = 5.0, sync: str = "full") -> None:
        self.url = url
        self.engine = make_engine(url, wait, sync=sync)
        if upgrade:
            migrate(self.engine)
        if self.engine.dialect.name == "sqlite":  # Store.before's deadline bounds the wait
            event.listen(self.engine, "checkout", self._wait_until_deadline)
            event.listen(self.engine, "checkin", self._wait_as_usual)
            self._usual_wait_ms = max(1, int(wait * 1000))
        self._trips = 0
        for name in ("before_cursor_execute", "commit", "rollback"):
            event.listen(self.engine, name, self._count)
        self.sync = sync
        self.log_path: str | None = None  # the write-ahead log, while the syncs are grouped
        self.unsynced = False  # a commit since the last ``sync_log`` (syncs grouped only)

    def group_syncs(self) -> bool:
        """From now on, commits leave the disk sync to ``sync_log``, which the caller runs
        before telling anyone of them (``threads.DatabaseThreads``: one sync for the calls
        run meanwhile): with ``sync="full"`` on a SQLite file only (``True``: grouped). A
        commit is then as durable as with ``synchronous=FULL`` once ``sync_log`` returned:
        in WAL mode FULL is NORMAL plus a sync of the log at each commit."""
        if self.sync != "full" or self.engine.dialect.name != "sqlite" \
                or in_memory(self.url) or self.log_path is not None:
            return self.log_path is not None
        database = self.engine.url.database or ""
        self.log_path = os.path.abspath(database.removeprefix("file:").split("?")[0]) + "-wal"

        def normal(dbapi_conn: Any, _record: Any) -> None:  # after make_engine's pragmas
            dbapi_conn.execute("PRAGMA synchronous=NORMAL")
        event.listen(self.engine, "connect", normal)
        event.listen(self.engine, "commit", self._committed)
        self.engine.dispose()  # the connections opened before, with FULL, are closed
        return True

    def _committed(self, _conn: Any) -> None:
        self.unsynced = True

    def sync_log(self) -> None:
        """Sync the write-ahead log to the disk (``os.fdatasync`` as SQLite's own syncs, or
        ``os.fsync`` where it is missing: blocking, on the database
        thread) when a commit was made since the last sync; nothing otherwise. Raises
        ``NotSynced`` when the disk fails (what was committed since may be lost)."""
        if not self.unsynced or self.log_path is None:
            return
        self.unsynced = False
        try:
            fd = os.open(self.log_path, os.O_RDONLY)
        except FileNotFoundError:  # checkpointed and removed: the database file holds it
            return
        except OSError as e:
            self.unsynced = True
            raise NotSynced(f"the disk failed: {e}") from e
        try:
            sync(fd)
        except OSError as e:
            self.unsynced = True
            raise NotSynced(f"the disk failed: {e}") from e
        finally:
            os.close(fd)

    def _count(self, *_: Any) -> None:
        self._trips += 1

    @property
    def round_trips(self) -> int:
        """The statements, commits and rollbacks sent to the database so far."""
        return self._trips

    def before(self, deadline: float, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, a call of this store, started only before ``deadline`` (a
        ``time.monotonic()`` value) and, on SQLite, waiting for another writer's lock no
        longer than until then. Raises ``TooLate``, nothing done, when it is already past;
        a lock still held at the deadline makes ``fn`` fail as it does after its usual wait.
        So a caller that gives up at the deadline can wait for this call's answer, which
        comes at most one statement and one commit later (on a disk that answers)."""
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

    def close(self) -> None:
        self.engine.dispose()

    def check_writable(self) -> None:
        """Write to the database and roll back; raises ``StoreUnavailable`` with a one-line
        reason when it cannot be written."""
        try:
            with self.engine.connect() as conn:
                with conn.begin() as tx:
                    conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
                    tx.rollback()
        except Exception as e:  # noqa: BLE001 - any database error means: not writable
            raise StoreUnavailable(reason(e)) from e

    def probe_write(self) -> None:
        """Commit a write that changes nothing (the schema's revision set to itself: a
        commit, with its disk sync, as a move's): raises ``StoreUnavailable`` when it fails
        (a full disk, an I/O error, a read-only or locked database)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
        except Exception as e:  # noqa: BLE001 - any database error means: not writable
            raise StoreUnavailable(reason(e)) from e

    def check_readable(self) -> None:
        """Raises ``StoreUnavailable`` when the database cannot be read."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as e:  # noqa: BLE001
            raise StoreUnavailable(reason(e)) from e


def reason(e: BaseException) -> str:
    """A database error in one line (the driver's message, without SQL or parameters)."""
    orig = getattr(e, "orig", None) or e
    text_ = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    return text_[:200]
