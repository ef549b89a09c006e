"""``regalia serve``: check the database, then run the server with uvicorn."""

from __future__ import annotations

import logging

from regalia.server.settings import Settings
from regalia.server.store import DEFAULT_DATABASE_URL, StoreUnavailable

# A websocket frame larger than this closes the connection at the protocol level; smaller
# messages over ``Settings.ws_message_max`` get an error message and the connection stays open.
WS_MAX_SIZE = 1 << 20


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
    from regalia.server.store import Store

    settings = settings or Settings()
    url = database_url or DEFAULT_DATABASE_URL
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO),
                        format="%(levelname)s:     %(name)s: %(message)s")
    if log_level.lower() != "debug":  # the migrations' plugin setup is noise at start
        logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        store = Store(url, wait=settings.write_timeout * 0.8)
        store.check_writable()
    except StoreUnavailable as e:
        raise SystemExit(f"regalia serve: the database {_safe_url(url)} cannot be written: {e}")
    except Exception as e:  # noqa: BLE001 - cannot open or migrate it
        raise SystemExit(f"regalia serve: the database {_safe_url(url)} cannot be opened: "
                         f"{' '.join(str(e).split())[:200]}")
    if redis_url:
        _check_redis(redis_url)
    logging.getLogger("regalia.server").info("database %s; lobby at http://%s:%s/",
                                             _safe_url(url), host, port)
    app = create_app(url, settings, store=store, redis_url=redis_url, replica=replica)
    try:
        uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=WS_MAX_SIZE,
                    ws_ping_interval=20, ws_ping_timeout=20, timeout_graceful_shutdown=3,
                    ws_per_message_deflate=settings.ws_compression,
                    proxy_headers=bool(forwarded_allow_ips),
                    forwarded_allow_ips=forwarded_allow_ips or None)
    finally:
        store.close()


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
