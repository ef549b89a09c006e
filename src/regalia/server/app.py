"""The ASGI application, wired: the store and the table registry started and stopped with
the app, the routers (``web.pages``: HTML pages and health; ``web.api``: the JSON API;
``web.accounts``: the optional accounts and the players' profiles; ``web.passkeys``: signing
up and in with a passkey, an account's passkeys; ``web.ratings``: the
leaderboard; ``web.daily``: the daily deal, ``tables.daily``; ``web.friends``: friends,
their presence and invitations to a table; ``web.turns``: the lobby's "Your turn" list;
``web.push``: Web Push notifications and their service worker; ``web.socket``: the
table websocket, whose protocol is ``web.protocol``), the static
files, the HTTP guard (``web.guard``) and the API's one error form (``web.errors``).

Limits (``settings.Settings``, README "Limits and security") answer HTTP 429 / 413 / 415
with a JSON ``{"error", "code"}`` body, or a websocket ``error`` message; a database that
refuses a write answers 503 / ``error`` ``storage`` with nothing applied.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Callable

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from regalia.server.refusal import Refusal
from regalia.server.settings import SeedSource, Settings, secure_seed, site_hosts
from regalia.server.storage.models import now
from regalia.server.storage.store import DEFAULT_DATABASE_URL, Store
from regalia.server.tables.daily import Daily
from regalia.server.web import (accounts, api, daily, errors, friends, pages, passkeys,
                                push, ratings, socket, turns)
from regalia.server.web.deps import Registry
from regalia.server.web.guard import Guard
from regalia.server.web.passwords import Passwords
from regalia.server.web.replays import Replays


class Site(FastAPI):
    """The app: FastAPI's, but for its websockets, which go through ``sockets`` (the host
    check and the ``Guard``, then ``web.socket.socket_endpoint``) instead of the whole
    middleware stack, as long as that stack is the one ``create_app`` built
    (``short_way``). At a player's pace a table's sockets are most of the server's
    connections and messages."""

    sockets: Any = None
    own_middleware: list[Any] | None = None  # the user middleware create_app added

    def short_way(self) -> bool:
        """The sockets may skip the stack: nothing was added to it since ``create_app``
        (an operator's middleware) and FastAPI's own telemetry is off (when it is on, it
        traces a websocket as a request, from ``FastAPI.__call__``)."""
        telemetry = getattr(self, "_native_telemetry", None)  # FastAPI's, where it has it
        return (self.sockets is not None and self.user_middleware == self.own_middleware
                and not (telemetry is not None and telemetry.enabled()))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and self.short_way():
            scope["app"] = self
            await self.sockets(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(database_url: str = DEFAULT_DATABASE_URL, settings: Settings | None = None, *,
               store: Store | None = None, seeds: SeedSource = secure_seed,
               redis_url: str | None = None, replica: str | None = None,
               passwords: Passwords | None = None, notifier: friends.Notifier | None = None,
               push_sender: push.PushSender | None = None,
               utc_now: Callable[[], datetime] = now, **overrides: Any) -> FastAPI:
    """The Regalia server as an ASGI app. ``settings`` (or keyword ``overrides`` of its
    fields, e.g. ``bot_delay=0``; fields given neither way come from ``REGALIA_*``
    environment variables, then the defaults) sets the bots and every limit; ``seeds``
    draws each new table's seed (tests may fix it here: no request can reach it). When the
    app starts the database is migrated and checked writable (``StoreUnavailable``
    otherwise), abandoned tables are expired and the unfinished ones with bots rebuilt
    from their move log. ``redis_url``: this server is one replica of a site whose
    replicas share the database and this Redis (``cluster``), named ``replica`` (default:
    host name and process id); the app fails to start (``ConnectionError``) when Redis
    does not answer. ``passwords``: the accounts' password hashing (default: Argon2id
    with argon2-cffi's parameters). ``notifier``: told of friend requests and invitations
    (``friends.Notifier``; default: ``push.PushNotifier``, Web Push to the account's
    browsers that allowed it). ``push_sender``: sends the Web Push messages
    (``push.PushSender``; default: ``push.WebPushSender``, to the push services; tests give
    one that records them). ``utc_now``: the
    time the daily deal's day is read from (tests may fix it; no request can). Raises
    ``pydantic.ValidationError`` (a ``ValueError``) for a bad setting."""
    settings = settings.but(**overrides) if settings else Settings(**overrides)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        st = store or await asyncio.to_thread(Store, database_url, wait=settings.write_timeout * 0.8,
                                              sync=settings.sqlite_sync)
        try:
            await asyncio.to_thread(st.check_writable)
            app.state.manager = Registry(st, settings, seeds, redis_url, replica)
            app.state.accounts = accounts.Accounts(app.state.manager, settings, passwords)
            app.state.daily = Daily(app.state.manager, settings, utc_now)
            app.state.push = push.Push(app.state.manager, app.state.accounts, settings,
                                       push_sender)
            app.state.friends = friends.Friends(app.state.manager, app.state.accounts,
                                                settings,
                                                notifier or push.PushNotifier(app.state.push))
            await app.state.manager.start()
            await app.state.friends.start()
            try:
                await app.state.push.start()
                await app.state.daily.start()
                yield
            finally:
                await app.state.daily.stop()
                await app.state.push.stop()
                await app.state.friends.stop()
                await app.state.manager.stop()
                app.state.accounts.close()
        finally:
            if store is None:
                st.close()

    app = Site(title="Regalia", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.settings = settings
    app.state.replays = Replays()
    guard = {"max_body": settings.max_body, "allowed_origins": settings.allowed_origins}
    hosts = {"allowed_hosts": site_hosts(settings), "www_redirect": False}
    app.add_middleware(Guard, **guard)
    # outermost: a request to a name the site does not have is answered 400 before anything
    app.add_middleware(TrustedHostMiddleware, **hosts)
    app.sockets = TrustedHostMiddleware(Guard(socket.socket_endpoint, **guard), **hosts)
    app.own_middleware = list(app.user_middleware)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    app.add_exception_handler(Refusal, errors.refusal)
    app.add_exception_handler(RequestValidationError, errors.bad_request)
    app.add_exception_handler(StarletteHTTPException, errors.http_error)
    # the routes a game's moves and openings take are matched first (a route is found by
    # trying them in order: the table socket, when it takes the whole stack (Site), and the
    # table API are most of the requests)
    app.router.routes.append(socket.route)
    for router in (api.router, pages.router, accounts.router, passkeys.router,
                   ratings.router, daily.router, friends.router, turns.router, push.router):
        app.include_router(router)
    return app
