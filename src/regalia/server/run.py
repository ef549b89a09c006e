"""``regalia serve``: check the database, then run the server with uvicorn."""

from __future__ import annotations

import gc
import logging
import signal

from regalia.server.settings import Settings, site_hosts
from regalia.server.storage.store import DEFAULT_DATABASE_URL, StoreUnavailable

# A websocket frame larger than this closes the connection at the protocol level; smaller
# messages over ``Settings.ws_message_max`` get an error message and the connection stays open.
WS_MAX_SIZE = 1 << 20
# Middle garbage collections between two full ones (the collector's third threshold:
# ``quiet_collector``)
FULL_AFTER = 5000


def serve(host: str = "127.0.0.1", port: int = 8000, database_url: str | None = None,
          settings: Settings | None = None, log_level: str = "info",
          redis_url: str | None = None, replica: str | None = None,
          forwarded_allow_ips: str | None = None) -> None:
    """Serve the lobby and the tables until interrupted: alone, or as one replica of a site
    (``redis_url``, ``replica``: ``cluster``). ``forwarded_allow_ips``: the addresses of the
    proxies (load balancers) whose ``X-Forwarded-For`` names the client. Exits with a
    one-line reason when the database cannot be opened or written, or Redis does not
    answer."""
    import uvicorn

    from regalia.server.app import create_app
    from regalia.server.storage.store import Store
    from regalia.server.web import transport

    settings = settings or Settings()
    if host not in ("0.0.0.0", "::", ""):  # the address served is one of the site's names
        settings = settings.but(allowed_hosts=settings.allowed_hosts
                                + (f"[{host}]" if ":" in host else host,))
    url = database_url or DEFAULT_DATABASE_URL
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO),
                        format="%(levelname)s:     %(name)s: %(message)s")
    if log_level.lower() != "debug":  # the migrations' plugin setup is noise at start
        logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        store = Store(url, wait=settings.write_timeout * 0.8, sync=settings.sqlite_sync)
        store.check_writable()
    except StoreUnavailable as e:
        raise SystemExit(f"regalia serve: the database {_safe_url(url)} cannot be written: {e}")
    except Exception as e:  # noqa: BLE001 - cannot open or migrate it
        raise SystemExit(f"regalia serve: the database {_safe_url(url)} cannot be opened: "
                         f"{' '.join(str(e).split())[:200]}")
    if redis_url:
        _check_redis(redis_url)
    log = logging.getLogger("regalia.server")
    log.info("database %s; lobby at http://%s:%s/", _safe_url(url), host, port)
    if "*" not in settings.allowed_hosts:
        log.info("answering to the names %s (--allowed-host adds one)",
                 ", ".join(site_hosts(settings)))
    app = create_app(url, settings, store=store, redis_url=redis_url, replica=replica)
    http = transport.protocol(settings.request_timeout, settings.http_connections_per_address,
                              transport.raise_descriptor_limit() - transport.FD_RESERVE,
                              trusted=(forwarded_allow_ips or "").replace(" ", "").split(","))
    quiet_collector()
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again: with the
    # default handler the process would die there, before the database is closed (SQLite's
    # write-ahead log left beside it). This handler ends it as Ctrl+C does, exit status 0.
    signal.signal(signal.SIGTERM, _stopped)
    try:
        uvicorn.run(app, host=host, port=port, log_level=log_level, http=http,
                    ws_max_size=WS_MAX_SIZE,
                    ws_ping_interval=20, ws_ping_timeout=20, timeout_graceful_shutdown=3,
                    ws_per_message_deflate=settings.ws_compression,
                    proxy_headers=bool(forwarded_allow_ips),
                    forwarded_allow_ips=forwarded_allow_ips or None)
    finally:
        store.close()


def _stopped(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


def quiet_collector() -> None:
    """Shorten and space out the cyclic garbage collector's pauses of the event loop (at
    200 busy tables they were the slowest 1% of the moves: full collections of 150-200 ms
    every ~8 s, middle ones of 15-35 ms every ~0.7 s; benchmarks/results/server_move_path.txt).

    What exists at start (the modules, the app: a third of a busy server's objects) lives
    as long as the process, so it is frozen out of every collection. Middle collections
    come after every 2 young ones instead of 10 (shorter pauses, the same work). A full one
    comes at most after ``FULL_AFTER`` middle ones, instead of every 10: the objects that
    outlive a few middle collections are mostly tables and connections, and their
    reference counts free them, not the collector. A full collection's pause grows with the
    objects the process holds: about 0.75 s at 1,000 busy tables (some 690,000 objects). At
    that load a full collection comes about every 6 minutes, and at 200 tables about once
    an hour. Over 150 s at 1,000 tables the server's memory grew alike with 500 and with
    5,000 (finished tables stay loaded for ``idle_unload`` seconds). The slowest move took
    2.6 s with 500 and 0.31 s with 5,000."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(gc.get_threshold()[0], 2, FULL_AFTER)


def _check_redis(url: str) -> None:
    """Exit with a one-line reason unless Redis answers at ``url``."""
    try:
        import redis
    except ImportError:
        raise SystemExit("regalia serve: --redis-url needs the redis package: "
                         "pip install -e '.[cluster]'") from None
    try:
        redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5).ping()
    except Exception as e:  # noqa: BLE001
        raise SystemExit(f"regalia serve: Redis at {url.split('@')[-1]} does not answer: "
                         f"{' '.join(str(e).split())[:200]}") from None


def _safe_url(url: str) -> str:
    """The URL without its password, for the log."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # pragma: no cover
        return "(database)"
