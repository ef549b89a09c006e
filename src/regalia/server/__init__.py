"""The online tables: an ASGI server (FastAPI + websockets) with an SQL store.

``create_app(database_url)`` builds the app; ``regalia serve`` runs it with uvicorn
(``run.serve``). ``app`` wires it; ``settings`` is the one ``Settings`` (``REGALIA_*``
environment variables; ``options`` makes ``regalia serve``'s options from it). ``web/``:
``pages``, ``api`` and ``socket`` (the routers; a move arrives at ``socket.handle``),
``schemas/`` (request and answer models), ``protocol`` (the websocket's messages and close
codes), ``deps`` (how a router reaches the table registry), ``errors``, ``guard``.
``tables/``: the tables (``registry``) and each table, composed of its parts;
``storage/``: models, migrations, the store and the write path; ``replicas/``: many
processes on Redis; ``static/``: the browser side (plain HTML, CSS and ES modules).
Every import points down: ``run``, ``options`` > ``app`` > ``web`` > ``tables`` >
``replicas`` > ``storage`` > ``settings``, ``refusal`` (``pyproject.toml``'s import-linter
contracts).

Where a move goes: the websocket (``web/socket.py``, ``handle``) -> ``Table.submit``
(``tables/table.py``: checked under the table's lock, validated by the engine on a copy)
-> the writer (``storage/writer.py``: stored, one group commit and disk sync for the moves
of all tables) -> applied to the table at once, then broadcast to its connections
(``tables/audience.py``, each its own seat's view) and published to the other replicas
(``tables/peers.py``, ``replicas/cluster.py``) -> the bot loop is woken
(``tables/botrunner.py``), which submits its bots' moves the same way.
"""

from __future__ import annotations


def create_app(*args, **kwargs):
    """See ``regalia.server.app.create_app``."""
    from regalia.server.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
