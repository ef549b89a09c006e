"""The database engine of the store: SQLite's pragmas (WAL, disk syncs, lock waits) or
PostgreSQL's lock and statement timeouts, and the Alembic migrations that create and upgrade
the schema (``migrations/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine, make_url

from regalia.server.settings import SQLITE_SYNC

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def in_memory(url: str) -> bool:
    """Whether ``url`` is an in-memory SQLite database (one per connection)."""
    u = make_url(url)
    return (u.get_backend_name() == "sqlite"
            and (not u.database or ":memory:" in u.database or "mode=memory" in str(u)))


# SQLite's disk syncs (``synchronous``): "full", a sync at each commit (a stored move
# survives a power cut); "normal", none at commits in WAL mode (it survives the process's
# death, and the database stays whole, but a power cut may lose the last commits):
# ``SQLITE_SYNC``, kept with the setting that chooses one (server.settings)


def make_engine(url: str, wait: float = 5.0, sync: str = "full") -> Engine:
    """An engine for ``url``; SQLite gets WAL, ``synchronous=FULL`` (``sync``: one of
    ``SQLITE_SYNC``), foreign keys and a busy timeout on every connection. A write waits at
    most ``wait`` seconds for a lock held by someone else (SQLite's busy timeout,
    PostgreSQL's ``lock_timeout``) and then fails. Raises ``ValueError`` for another
    ``sync``."""
    if sync not in SQLITE_SYNC:
        raise ValueError(f"sync: one of {', '.join(SQLITE_SYNC)}, not {sync!r}")
    kwargs: dict[str, Any] = {}
    ms = max(1, int(wait * 1000))
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": wait}
    elif url.startswith("postgresql"):
        kwargs["connect_args"] = {"options": f"-c lock_timeout={ms} -c statement_timeout={2 * ms}"}
        kwargs["pool_timeout"] = wait
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        memory = in_memory(url)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # pragma: no cover - exercised through SQLite
            cur = dbapi_conn.cursor()
            if not memory:
                cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sync.upper()}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA busy_timeout={ms}")
            cur.close()
    return engine


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database to ``revision`` with the package's Alembic migrations. On
    PostgreSQL the upgrade holds an advisory lock for its transaction, so replicas started
    together migrate one after the other (the later ones find nothing to do)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(7265676131)"))  # "regalia"
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def head_revision() -> str:
    """The latest revision of the package's migrations (the one ``migrate`` upgrades to by
    default)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The Alembic revision the database is at (``None``: empty database)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
