"""What the routers get from the app, as FastAPI dependencies: the table registry, the
settings, the kept replays, the daily deal and the client's address. The registry's class
is named here only: a rename or a new registry is a change of this file.

Each is an ``async def`` although it awaits nothing: FastAPI calls a plain ``def``
dependency on a worker thread (a thread hop and its wake-ups at every request and every
websocket's opening, for an attribute read)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from regalia.server.settings import Settings
from regalia.server.tables.daily import Daily as DailyDeal
from regalia.server.tables.registry import TableRegistry as Registry
from regalia.server.web.replays import Replays as ReplayCache


async def registry(conn: HTTPConnection) -> Registry:
    """The running app's table registry (``app.state.manager``, set by the lifespan)."""
    return conn.app.state.manager


async def settings(conn: HTTPConnection) -> Settings:
    """The running app's settings (``app.state.settings``)."""
    return conn.app.state.settings


async def replays(conn: HTTPConnection) -> ReplayCache:
    """The running app's kept replays (``app.state.replays``)."""
    return conn.app.state.replays


async def daily(conn: HTTPConnection) -> DailyDeal:
    """The running app's daily deal (``app.state.daily``, set by the lifespan)."""
    return conn.app.state.daily


def address_of(conn: HTTPConnection) -> str:
    """The client's address (the proxy's ``X-Forwarded-For`` when uvicorn trusts it), or
    ``"unknown"``."""
    return conn.client.host if conn.client else "unknown"


async def client_address(conn: HTTPConnection) -> str:
    """``address_of`` the request's client, as a dependency."""
    return address_of(conn)


Tables = Annotated[Registry, Depends(registry)]
Config = Annotated[Settings, Depends(settings)]
Address = Annotated[str, Depends(client_address)]
Replays = Annotated[ReplayCache, Depends(replays)]
Daily = Annotated[DailyDeal, Depends(daily)]
