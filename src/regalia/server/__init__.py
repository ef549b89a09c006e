"""The online tables: an ASGI server (FastAPI + websockets) with an SQL store.

``create_app(database_url)`` builds the app; ``regalia serve`` runs it with uvicorn
(``regalia.server.run.serve``). Modules: ``store`` (models, migrations, the move log),
``tables`` (one writer per table, bots), ``gamekit`` (lobby metadata and the communication
each game's rules allow), ``app`` (pages, API, websocket), ``static/`` (the browser side:
plain HTML, CSS and ES modules).
"""

from __future__ import annotations


def create_app(*args, **kwargs):
    """See ``regalia.server.app.create_app``."""
    from regalia.server.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
