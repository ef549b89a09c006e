"""``regalia serve``: run the server with uvicorn."""

from __future__ import annotations

import logging

from regalia.server.store import DEFAULT_DATABASE_URL

# A websocket frame larger than this closes the connection at the protocol level; smaller
# messages over ``app.MAX_MESSAGE`` get an error message and the connection stays open.
WS_MAX_SIZE = 1 << 20


def serve(host: str = "127.0.0.1", port: int = 8000, database_url: str | None = None,
          bot_delay: float = 0.6, bot_budget: float | None = 0.5, log_level: str = "info") -> None:
    """Serve the lobby and the tables until interrupted."""
    import uvicorn

    from regalia.server.app import create_app

    url = database_url or DEFAULT_DATABASE_URL
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO),
                        format="%(levelname)s:     %(name)s: %(message)s")
    logging.getLogger("regalia.server").info("database %s; lobby at http://%s:%s/",
                                             _safe_url(url), host, port)
    app = create_app(url, bot_delay=bot_delay, bot_budget=bot_budget)
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=WS_MAX_SIZE,
                ws_ping_interval=20, ws_ping_timeout=20, timeout_graceful_shutdown=3)


def _safe_url(url: str) -> str:
    """The URL without its password, for the log."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # pragma: no cover
        return "(database)"
