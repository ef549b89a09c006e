"""The online tables: an ASGI server (FastAPI + websockets) with an SQL store.

``create_app(database_url)`` builds the app; ``regalia serve`` runs it with uvicorn
(``run.serve``). ``app`` wires it; ``settings`` is the one ``Settings`` (``REGALIA_*``
environment variables; ``options`` makes ``regalia serve``'s options from it). ``web/``:
``pages``, ``api`` and ``socket`` (the routers; a move arrives at ``socket.handle``),
``schemas`` (request and answer models), ``protocol`` (the websocket's messages and close
codes), ``deps`` (how a router reaches the table registry), ``errors``, ``guard``.
``tables/``: one writer per table, its seats, clocks, talk, audience and bots;
``storage/``: models, migrations, the move log; ``replicas/``: many processes on Redis;
``static/``: the browser side (plain HTML, CSS and ES modules).
"""

from __future__ import annotations


def create_app(*args, **kwargs):
    """See ``regalia.server.app.create_app``."""
    from regalia.server.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
