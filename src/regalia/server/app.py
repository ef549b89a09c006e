"""The ASGI application: lobby and table pages, a small JSON API and the table websocket.

Pages (plain HTML, CSS and ES modules from ``static/``, no build step):

* ``GET /``: the lobby; ``GET /t/{id}``: a table (``#s=TOKEN`` in the link names the seat,
  no token: a spectator); ``GET /replay/{id}``: a finished game's replay.

API:

* ``GET /api/games``: the games, their player counts, rule options and bots.
* ``POST /api/tables`` ``{"game", "players", "options", "seats": [{"kind": "human"} |
  {"kind": "bot", "bot": NAME}]}``: a new table; the answer holds one invitation link per
  human seat (each with its secret token) and the spectator link (with the spectators'
  secret token). The server draws the deal's seed and the first player from a secret
  source; a ``seed`` or ``options.first_player`` is refused (400).
  Optional: ``"open": true`` (listed in the lobby; the table waits until its human seats
  are taken), ``"clock": PRESET`` (a time control of ``Settings.clock_presets``) and
  ``"name"`` (the creator's nickname; the creator takes the first seat, seat 0).
* ``GET /api/tables/{id}``: public facts (status, ply, whose turn, seats, names, clocks).
* ``GET /api/tables/{id}/replay``: a finished game, every position in full (409 before).
* ``GET /api/tables/{id}/analysis?seat=K``: a finished Regicide game's analysis for seat
  K (0-based, as in the formats): the win chance of each move played and of the best move,
  from that player's view only (409 before the end; ``analysis_rate``).
* ``GET /api/open``: the open tables with a free seat (game, players, free seats, options,
  names, clock, seconds waited), newest first.
* ``POST /api/tables/{id}/join`` ``{"name"}``: take a free seat of an open table; the answer
  holds the seat, its secret token and link (409 when full or not open; ``join_rate``).
* ``POST /api/tables/{id}/rematch`` ``{"token"}``: a seated player of a finished table asks
  for a rematch (same seats, options, bots and clock, a new deal); every seat keeps its
  token, and every page of the old table gets a ``rematch`` message.

Websocket ``/ws/{id}``: the client first sends ``{"type": "hello", "token": TOKEN, "name":
NICKNAME}`` with a seat token or the spectators' token (anything else: ``error``
``no_access``, close 4403);
then ``act`` (``{"ply": N, "action": "play 5C"}``), ``wish`` (``{"value": "yes"|"no"}``,
Regicide's Jester window), ``say`` (``{"message_id": ID}``, Regicide's allowed messages),
``chat`` (``{"text": ...}``, Le Roy des Ribauds), ``bot`` (``{"seat": N, "on": bool}``:
hand a seat to a bot, which is also how a player leaves, or take it back; another
player's seat only once nobody has been connected to it for 30 s, else ``error``
``seat_away``), ``name``
(``{"name": ...}``, counted with the talk, as is a new name in ``hello``; in Regicide with
other players a seat's name, once given, does not change until the end, and ``hello``
keeps it too: a name could tell what is in a hand; so a seat still without one is named by
its first ``hello``, before its hand is seen: without a valid name, ``error``
``name_needed``, close 4401), ``hint`` (a table created with hints: a suggested move, as
a ``hint`` message ``{"ply", "action"}``) and ``ping``. The server sends
``welcome``, ``state`` (the seat's view, with ``clock`` and ``waiting``), ``seats`` (the
seat list; a seat's own entry also tells its ``windows``, its connections),
``talk``, ``talk_history``, ``timeout`` (a seat's time ran out: a bot plays it),
``rematch`` (``{"table"}``), ``error`` (``code`` and ``message``, for a refused move the
engine's ``reason``: ``{"code", "params"}``; nothing changed) and ``pong``. A message over
``ws_message_max`` characters, malformed JSON, an unknown type or one over the message rate
gets an ``error`` and the connection stays open (over the rate before the ``hello`` was
taken, it is closed with 1013: the page comes back later). A client that
does not read its messages is closed with 1013 (try again later: the page reconnects).

Limits (``settings.Settings``, README "Limits and security") answer HTTP 429 / 413 / 415
with a JSON ``{"error": ...}`` body, or a websocket ``error`` message; a database that
refuses a write answers 503 / ``error`` ``storage`` with nothing applied.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from regalia.core.records import Match, without_medal
from regalia.server import gamekit
from regalia.server.broadcast import Conn
from regalia.server.manager import TableManager
from regalia.server.refusal import Refusal
from regalia.server.settings import SeedSource, Settings, secure_seed
from regalia.server.store import DEFAULT_DATABASE_URL, Store, StoreUnavailable
from regalia.server.tables import Table
from regalia.server.web import Guard

log = logging.getLogger("regalia.server")

STATIC = Path(__file__).resolve().parent / "static"
FAVICON = ('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#123d2c"/><rect x="14" y="8" width="36" height="48" rx="5" fill="#fffdf6" stroke="#d4a93c" stroke-width="3"/><path d="M20 38 24 24l8 7 8-7 4 14z" fill="#b3202a"/><rect x="20" y="40" width="24" height="4" fill="#b3202a"/></svg>''')
HELLO_TIMEOUT = 30.0
STATUS = {"bad_request": 400, "too_fast": 429, "storage": 503, "full": 409, "not_open": 409,
          "no_access": 403, "not_finished": 409, "analysis_failed": 503}
SLOW_READER = 1013  # close code: try again later (the page reconnects and resumes)
NO_ACCESS = 4403    # close code: not a link of this table (the page stops)
NAME_NEEDED = 4401  # close code: a Regicide seat is named before its hand is seen (the page
# asks the player's name, then comes back with it)

CREATE_SCHEMA = {
    "type": "object", "required": ["game"], "additionalProperties": False,
    "properties": {
        "game": {"type": "string", "enum": ["regicide", "ribauds"]},
        "players": {"type": "integer", "minimum": 1, "maximum": 4},
        "options": {"type": "object"},
        "seats": {"type": "array", "items": {
            "type": "object", "required": ["kind"], "additionalProperties": False,
            "properties": {"kind": {"type": "string", "enum": ["human", "bot"]},
                           "bot": {"type": "string"}}}},
        "open": {"type": "boolean"},
        "clock": {"type": ["string", "null"]},
        "name": {"type": "string", "minLength": 1, "maxLength": 24},
        "hints": {"type": "boolean"},
    },
}
JOIN_SCHEMA = {"type": "object", "required": ["name"], "additionalProperties": False,
               "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 24}}}
REMATCH_SCHEMA = {"type": "object", "required": ["token"], "additionalProperties": False,
                  "properties": {"token": {"type": "string"}}}


def create_app(database_url: str = DEFAULT_DATABASE_URL, settings: Settings | None = None, *,
               store: Store | None = None, seeds: SeedSource = secure_seed,
               redis_url: str | None = None, replica: str | None = None,
               **overrides: Any) -> FastAPI:
    """The Regalia server as an ASGI app. ``settings`` (or keyword ``overrides`` of its
    fields, e.g. ``bot_delay=0``) sets the bots and every limit; ``seeds`` draws each new
    table's seed (tests may fix it here: no request can reach it). When the app starts the
    database is migrated and checked writable (``StoreUnavailable`` otherwise), abandoned
    tables are expired and the unfinished ones with bots rebuilt from their move log.
    ``redis_url``: this server is one replica of a site whose replicas share the database and
    this Redis (``cluster``), named ``replica`` (default: host name and process id); the app
    fails to start (``ConnectionError``) when Redis does not answer."""
    settings = replace(settings or Settings(), **overrides)
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        st = store or await asyncio.to_thread(Store, database_url, wait=settings.write_timeout * 0.8,
                                              sync=settings.sqlite_sync)
        try:
            await asyncio.to_thread(st.check_writable)
            manager = TableManager(st, settings, seeds, redis_url, replica)
            state["manager"] = manager
            app.state.manager = manager
            await manager.start()
            try:
                yield
            finally:
                await manager.stop()
        finally:
            if store is None:
                st.close()

    app = FastAPI(title="Regalia", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.add_middleware(Guard, max_body=settings.max_body, allowed_origins=settings.allowed_origins)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def manager() -> TableManager:
        return state["manager"]

    def refused(e: Refusal) -> JSONResponse:
        return JSONResponse({"error": e.message, "code": e.code},
                            status_code=STATUS.get(e.code, 400))

    @app.exception_handler(RequestValidationError)
    async def bad_parameters(_request: Request, exc: RequestValidationError) -> JSONResponse:
        """A path or query parameter of the wrong type: 400 with the usual ``{"error",
        "code"}`` body naming it (not FastAPI's own 422 form)."""
        said = "; ".join(f"{e['loc'][-1]}: {e['msg']}" for e in exc.errors())
        return refused(Refusal("bad_request", said or "malformed request"))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> Response:
        """An unknown path (404), a method a path does not take (405) and the like: the
        usual ``{"error", "code"}`` body (not FastAPI's ``{"detail"}``)."""
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse({"error": str(exc.detail).lower(), "code": code},
                            status_code=exc.status_code, headers=exc.headers)

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html",
                            headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return page("index.html")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return page("table.html")

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> FileResponse:
        return page("replay.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> FileResponse:
        return page("rules.html")

    @app.get("/favicon.ico", include_in_schema=False)
    @app.get("/favicon.svg", include_in_schema=False)
    async def favicon() -> Response:
        return Response(FAVICON, media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> JSONResponse:
        """``ok`` only when the store answers, its last write succeeded and no table's
        bots are dead; 503 otherwise, saying which."""
        m = manager()
        try:
            await asyncio.wait_for(m.db(m.store.check_readable), settings.write_timeout)
            store_state = "ok" if m.store_error is None else f"failing: {m.store_error}"
        except (StoreUnavailable, asyncio.TimeoutError) as e:
            store_state = f"failing: {e or 'no answer'}"
        body = {**m.health(), "store": store_state}
        body["ok"] = store_state == "ok" and not body["broken_tables"]
        return JSONResponse(body, status_code=200 if body["ok"] else 503)

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return gamekit.games_info()

    @app.get("/api/clocks")
    async def clocks() -> list[dict[str, Any]]:
        """The time-control presets a table may be created with."""
        return [{"name": k, "bank": b, "increment": i}
                for k, (b, i) in manager().clock_presets.items()]

    @app.get("/api/open")
    async def open_tables() -> Any:
        try:
            return await manager().open_tables()
        except Refusal as e:
            return refused(e)

    async def json_body(request: Request, field: str) -> Any:
        """The request's JSON object, which holds only ``field``; its value."""
        try:
            body = json.loads(await request.body())
        except (ValueError, RecursionError):  # bad JSON, bad UTF-8, huge integers, too deep
            raise Refusal("bad_request", "the body must be JSON") from None
        if not isinstance(body, dict) or set(body) - {field}:
            raise Refusal("bad_request", f"the body must be a JSON object with only {field!r}")
        return body.get(field)

    @app.post("/api/tables/{table_id}/join", openapi_extra={"requestBody": {
        "required": True, "content": {"application/json": {"schema": JOIN_SCHEMA}}}})
    async def join_table(table_id: str, request: Request) -> Any:
        try:
            name = await json_body(request, "name")
            t = await find(table_id)
            if isinstance(t, JSONResponse):
                return t
            address = client_address(request)
            seat, token = await t.take_free_seat(
                name, count=lambda: manager().limits.hit("join_rate", address))
        except Refusal as e:
            return refused(e)
        return {"id": t.id, "game": t.game.name, "players": len(t.seats), "seat": seat,
                "token": token, "link": f"/t/{t.id}#s={token}"}

    @app.post("/api/tables/{table_id}/rematch", openapi_extra={"requestBody": {
        "required": True, "content": {"application/json": {"schema": REMATCH_SCHEMA}}}})
    async def rematch(table_id: str, request: Request) -> Any:
        try:
            token = await json_body(request, "token")
            t = await find(table_id)
            if isinstance(t, JSONResponse):
                return t
            address = client_address(request)
            new = await manager().rematch(
                t, token, count=lambda: manager().limits.hit("table_rate", address))
        except Refusal as e:
            return refused(e)
        return {"id": new.id, "game": new.game.name, "players": len(new.seats),
                "seat": t.seat_of_token(token), "link": f"/t/{new.id}#s={token}"}

    @app.post("/api/tables", status_code=201, openapi_extra={"requestBody": {
        "required": True, "content": {"application/json": {"schema": CREATE_SCHEMA}}}})
    async def create_table(request: Request) -> JSONResponse:
        try:
            body = json.loads(await request.body())
        except (ValueError, RecursionError):  # bad JSON, bad UTF-8, huge integers, too deep
            return JSONResponse({"error": "the body must be JSON", "code": "bad_request"},
                                status_code=400)
        try:
            address = client_address(request)
            table, tokens, watch = await manager().create(
                body, count=lambda: manager().limits.hit("table_rate", address))
        except Refusal as e:
            return refused(e)
        seats = []
        for s, tok in zip(table.seats, tokens):
            entry: dict[str, Any] = {"seat": s.index, "kind": s.kind, "bot": s.bot_name}
            if tok:
                entry["token"] = tok
                entry["link"] = f"/t/{table.id}#s={tok}"
            seats.append(entry)
        humans = [s["seat"] for s in seats if s["kind"] == "human"]
        return JSONResponse({"id": table.id, "game": table.game.name, "players": len(seats),
                             "options": body.get("options") or {}, "seats": seats,
                             "open": table.is_open, "clock": table.clock_info(),
                             "you": humans[0] if humans else None,
                             "spectate": f"/t/{table.id}#s={watch}",
                             "replay": f"/replay/{table.id}"},
                            status_code=201)

    async def find(table_id: str) -> Table | JSONResponse:
        try:
            t = await manager().get(table_id)
        except Refusal as e:
            return refused(e)
        if t is None:
            return JSONResponse({"error": "no such table", "code": "not_found"}, status_code=404)
        return t

    @app.get("/api/tables/{table_id}")
    async def table_summary(table_id: str) -> Any:
        t = await find(table_id)
        return t if isinstance(t, JSONResponse) else t.summary()

    @app.get("/api/tables/{table_id}/replay")
    async def table_replay(table_id: str) -> Any:
        t = await find(table_id)
        if isinstance(t, JSONResponse):
            return t
        if not t.finished:
            return JSONResponse({"error": "the replay opens when the game is over",
                                 "code": "not_finished"}, status_code=STATUS["not_finished"])
        return await asyncio.to_thread(replay_of, t)

    @app.get("/api/tables/{table_id}/analysis")
    async def table_analysis(table_id: str, request: Request, seat: int = 0) -> Any:
        """A finished Regicide game's analysis for ``seat`` (0-based, as in the formats):
        ``{"seat", "decisions": [{"index" (of the move in the record, 0-based), "phase",
        "played", "played_win", "best", "best_win", "cost", "worlds", "marked"}]}``, win
        chances in 0..1 estimated from that player's view only. 409 before the end, 400 for
        Le Roy des Ribauds or a seat out of range, 429 over ``analysis_rate``."""
        t = await find(table_id)
        if isinstance(t, JSONResponse):
            return t
        try:
            m = manager()
            m.check_analysis(t, seat)
            if (t.id, seat) not in m.analyses:  # only work to do counts against the rate
                await m.limits.hit("analysis_rate", client_address(request))
            decisions = await m.analysis(t, seat)
        except Refusal as e:
            return refused(e)
        return {"seat": seat, "decisions": decisions}

    @app.websocket("/ws/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str) -> None:
        m = manager()
        address = client_address(ws)
        await ws.accept()
        if not await m.connection_opened(address):
            await close_with(ws, "too_many_connections", "too many open connections from your "
                             f"address (at most {settings.connections_per_address})", SLOW_READER)
            return
        try:
            await serve_socket(ws, m, table_id, address)
        finally:
            await m.connection_closed(address)

    async def serve_socket(ws: WebSocket, m: TableManager, table_id: str, address: str) -> None:
        try:
            table = await m.get(table_id)
        except Refusal as e:
            await close_with(ws, e.code, e.message, SLOW_READER)
            return
        if table is None:
            await close_with(ws, "not_found", "no such table", 4404)
            return
        conn = Conn(ws.send_text, address, settings.send_queue)
        pump = conn.start()
        # the sender stopping (a dropped slow client) ends a wait for the next message
        # (a cancellation of this task, taken back below: no task per message)
        handler = asyncio.current_task()
        receiving = stopping = False

        def sender_stopped(_: asyncio.Task) -> None:
            nonlocal stopping
            if receiving:
                stopping = True
                handler.cancel()
        pump.add_done_callback(sender_stopped)

        def error(code: str, message: str) -> None:
            conn.put({"type": "error", "code": code, "message": message, "ply": table.ply})

        joined = False
        close: tuple[int, str] | None = None
        try:
            while True:
                if not joined:
                    try:
                        msg = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
                    except asyncio.TimeoutError:
                        break
                else:
                    if pump.done():
                        break
                    receiving = True
                    try:
                        msg = await ws.receive()
                    except asyncio.CancelledError:
                        if stopping and handler.uncancel() == 0:  # only ours
                            break
                        raise
                    finally:
                        receiving = False
                if msg["type"] == "websocket.disconnect":
                    break
                raw = msg.get("text")
                if raw is None:
                    raw = (msg.get("bytes") or b"").decode("utf-8", "replace")
                try:
                    await m.limits.hit("message_rate", address)
                except Refusal as e:
                    if not joined:  # its hello may be lost: closed, the page comes back later
                        error(e.code, e.message + "; the connection is closed: reconnect later")
                        close = (SLOW_READER, e.code)
                        break
                    error(e.code, e.message + "; this message was ignored")
                    continue
                if len(raw) > settings.ws_message_max:
                    error("too_large", f"message too large ({len(raw)} characters; at most "
                                       f"{settings.ws_message_max}); nothing was changed")
                    continue
                try:
                    obj = json.loads(raw)
                except (ValueError, RecursionError):
                    error("bad_json", "not JSON; nothing was changed")
                    continue
                if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                    error("bad_message", "a message is a JSON object with a string 'type'")
                    continue
                kind = obj["type"]
                if joined:
                    await handle(table, conn, kind, obj)
                    continue
                if kind != "hello":
                    error("hello_first", "send hello (with your seat token) first")
                    continue
                try:
                    refusal = await welcome(table, conn, obj.get("token"), obj.get("name"))
                except Refusal as e:
                    refusal = (e.code, e.message)
                if refusal is not None:
                    error(*refusal)
                    close = ({"no_access": NO_ACCESS, "name_needed": NAME_NEEDED}.get(
                        refusal[0], SLOW_READER), refusal[0])
                    break
                joined = True
        except WebSocketDisconnect:
            pass
        except Exception:  # pragma: no cover - one connection must never take others down
            log.exception("table %s: websocket handler failed", table_id)
            error("server_error", "the server failed on this message; please reload")
        finally:
            table.leave(conn)
            if conn.dropped:
                close = (SLOW_READER, "too slow: reconnect")
            conn.close()
            try:
                await asyncio.wait_for(pump, 1.0)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception):
                pump.cancel()
            if close is not None:
                try:
                    await ws.close(code=close[0], reason=close[1])
                except Exception:  # the client is already gone
                    pass

    async def welcome(table: Table, conn: Conn, token: Any, name: Any) -> tuple[str, str] | None:
        """Seat the connection (a seat token: the seat is claimed, with the nickname
        ``name``) or let it watch (the spectators' token); otherwise the refusal ``(code,
        message)`` (``no_access``, ``too_many_spectators``, ``name_needed``: a Regicide seat
        still without a name, given none). Raises ``Refusal("storage")``."""
        seat = table.seat_of_token(token)
        if seat is None and not table.is_watch_token(token):
            return ("no_access", "this link is not valid for this table: a table is watched "
                                 "only through its spectator link")
        if seat is None and table.spectators() >= settings.spectators_per_table:
            return ("too_many_spectators", "this table has as many spectators as it allows "
                                           f"({settings.spectators_per_table}); try later")
        if seat is not None and table.name_needed(seat, name):
            return ("name_needed", "give your name with hello (1 to "
                                   f"{gamekit.NAME_MAX} characters): at a Regicide table with "
                                   "other players a seat is named before its hand is seen, and "
                                   "the name does not change until the end (rules 1.15)")
        if seat is not None:
            await table.claim(seat, name)
        table.join(conn, seat)
        return None

    return app


async def close_with(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    """Send one ``error`` message and close the websocket."""
    try:
        await ws.send_text(json.dumps({"type": "error", "code": code, "message": message}))
        await ws.close(code=close_code)
    except Exception:  # the client is already gone
        pass


def client_address(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client else "unknown"


async def handle(table, conn: Conn, kind: str, obj: dict[str, Any]) -> None:
    """One client message after ``hello``; a refusal becomes an ``error`` message."""
    try:
        if kind == "act":
            await table.submit(conn.seat, obj.get("action"), obj.get("ply"))
        elif kind == "wish":
            if conn.seat is None:
                raise Refusal("spectator", "spectators cannot state a wish")
            text = gamekit.wish_text(table.game.name, conn.seat, obj.get("value"))
            if text is None:
                raise Refusal("bad_message", "value: yes or no (only in Regicide's Jester "
                                             "window)")
            await table.submit(conn.seat, text, None)
        elif kind == "say":
            await table.talk(conn, "say", obj.get("message_id"))
        elif kind == "chat":
            await table.talk(conn, "chat", obj.get("text"))
        elif kind == "bot":
            await table.set_bot(conn.seat, obj.get("seat"), obj.get("on"))
        elif kind == "name":
            await table.rename(conn.seat, obj.get("name"))
        elif kind == "hint":  # worked out aside: this connection's next messages go on
            background(hint_for(table, conn))
        elif kind == "ping":
            conn.put({"type": "pong"})
        elif kind == "hello":
            raise Refusal("bad_message", "already joined")
        else:
            raise Refusal("unknown_type", f"unknown message type {kind[:40]!r}; the types are "
                                          "act, wish, say, chat, bot, name, hint, ping")
    except Refusal as e:
        conn.put(refusal_message(table, e))


def refusal_message(table, e: Refusal) -> dict[str, Any]:
    return {"type": "error", "code": e.code, "message": e.message, "ply": table.ply,
            **({"reason": e.reason} if e.reason else {})}


async def hint_for(table, conn: Conn) -> None:
    """The ``hint`` message for the connection's seat, or the refusal."""
    try:
        conn.put(await table.hint(conn.seat, conn.address))
    except Refusal as e:
        conn.put(refusal_message(table, e))


_BACKGROUND: set[asyncio.Task] = set()


def background(coro) -> None:
    """Run ``coro`` as a task of its own, kept until it ends; its failure is logged."""
    task = asyncio.get_running_loop().create_task(coro)
    _BACKGROUND.add(task)
    task.add_done_callback(_ended)


def _ended(task: asyncio.Task) -> None:
    _BACKGROUND.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("a background task failed", exc_info=task.exception())


def replay_of(table) -> dict[str, Any]:
    """A finished game in full (a replay may reveal everything): the record, and for each
    ply the position, the public view, every seat's hand and the move's events. A game
    played with hints shows no medal."""
    g = table.game
    plain = without_medal if table.hints else (lambda obj: obj)
    record = table.match.record()
    record.hints = table.hints
    steps = []
    seats = range(len(table.seats))
    for i, (text, st, events) in enumerate(Match.replay(g, record)):
        public = g.view(st, None, log=i == 0)  # the log once, for the start's events
        dealt = public.pop("log", None) or []
        steps.append({
            "ply": i, "action": text, "seat": table.move_seats[i - 1] if i else None,
            "position": g.to_json(st), "view": plain(public),
            "hands": [g.view(st, k).get("hand") for k in seats],
            # the start: the deal's events (the hands are in "hands")
            "events": [plain({**e, "private": {}}) for e in dealt] if i == 0 else
                      [plain({**e.seen_by(None),
                              "private": {str(k): v for k, v in (e.private or {}).items()}})
                       for e in events],
        })
    return {"id": table.id, "game": g.name, "players": len(table.seats),
            "record": record.to_json(), "outcome": table.outcome(),
            "seats": table.seats_info(), "steps": steps, "hints": table.hints}
