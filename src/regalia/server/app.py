"""The ASGI application: lobby and table pages, a small JSON API and the table websocket.

Pages (plain HTML, CSS and ES modules from ``static/``, no build step):

* ``GET /``: the lobby; ``GET /t/{id}``: a table (``#s=TOKEN`` in the link names the seat,
  no token: a spectator); ``GET /replay/{id}``: a finished game's replay.

API:

* ``GET /api/games``: the games, their player counts, rule options and bots.
* ``POST /api/tables`` ``{"game", "players", "options", "seats": [{"kind": "human"} |
  {"kind": "bot", "bot": NAME}]}``: a new table; the answer holds one invitation link per
  human seat (each with its secret token) and the spectator link.
* ``GET /api/tables/{id}``: public facts (status, ply, whose turn, seats).
* ``GET /api/tables/{id}/replay``: a finished game, every position in full (403 before).

Websocket ``/ws/{id}``: the client first sends ``{"type": "hello", "token": TOKEN|null}``;
then ``act`` (``{"ply": N, "action": "play 5C"}``), ``wish`` (``{"value": "yes"|"no"}``,
Regicide's Jester window), ``say`` (``{"message_id": ID}``, Regicide's allowed messages),
``chat`` (``{"text": ...}``, Le Roy des Ribauds), ``bot`` (``{"seat": N, "on": bool}``)
and ``ping``. The server sends ``welcome``, ``state`` (the seat's view), ``seats``,
``talk``, ``talk_history``, ``error`` (``code`` and ``message``, for a refused move the
engine's ``reason``: ``{"code", "params"}``; nothing changed) and
``pong``. A message over ``MAX_MESSAGE`` bytes, malformed JSON or an unknown type gets an
``error`` and the connection stays open.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from regalia.core.records import Match
from regalia.server import gamekit
from regalia.server.store import DEFAULT_DATABASE_URL, Store
from regalia.server.tables import Conn, Refusal, TableManager

log = logging.getLogger("regalia.server")

STATIC = Path(__file__).resolve().parent / "static"
FAVICON = ('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#123d2c"/><rect x="14" y="8" width="36" height="48" rx="5" fill="#fffdf6" stroke="#d4a93c" stroke-width="3"/><path d="M20 38 24 24l8 7 8-7 4 14z" fill="#b3202a"/><rect x="20" y="40" width="24" height="4" fill="#b3202a"/></svg>''')
MAX_MESSAGE = 4096
HELLO_TIMEOUT = 30.0


def create_app(database_url: str = DEFAULT_DATABASE_URL, *, bot_delay: float = 0.6,
               bot_budget: float | None = 0.5, store: Store | None = None) -> FastAPI:
    """The Regalia server as an ASGI app. The database is migrated and every unfinished
    table rebuilt from its move log when the app starts."""

    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        st = store or await asyncio.to_thread(Store, database_url)
        manager = TableManager(st, bot_delay=bot_delay, bot_budget=bot_budget)
        state["manager"] = manager
        app.state.manager = manager
        await manager.start()
        try:
            yield
        finally:
            await manager.stop()
            if store is None:
                st.close()

    app = FastAPI(title="Regalia", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def manager() -> TableManager:
        return state["manager"]

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

    @app.get("/favicon.ico", include_in_schema=False)
    @app.get("/favicon.svg", include_in_schema=False)
    async def favicon() -> Response:
        return Response(FAVICON, media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, Any]:
        m = manager()
        return {"ok": True, "tables": len(m.tables), "moves": m.moves_applied}

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return gamekit.games_info()

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": "the body must be JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body must be a JSON object"}, status_code=400)
        try:
            table, tokens = await manager().create(body.get("game"), body.get("players"),
                                                   body.get("options"), body.get("seats"),
                                                   body.get("seed"))
        except Refusal as e:
            return JSONResponse({"error": e.message}, status_code=400)
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
                             "you": humans[0] if humans else None,
                             "spectate": f"/t/{table.id}", "replay": f"/replay/{table.id}"},
                            status_code=201)

    @app.get("/api/tables/{table_id}")
    async def table_summary(table_id: str) -> dict[str, Any]:
        t = await manager().get(table_id)
        if t is None:
            raise HTTPException(404, "no such table")
        return t.summary()

    @app.get("/api/tables/{table_id}/replay")
    async def table_replay(table_id: str) -> dict[str, Any]:
        t = await manager().get(table_id)
        if t is None:
            raise HTTPException(404, "no such table")
        if not t.finished:
            raise HTTPException(403, "the replay opens when the game is over")
        return await asyncio.to_thread(replay_of, t)

    @app.websocket("/ws/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        table = await manager().get(table_id)
        if table is None:
            await ws.send_text(json.dumps({"type": "error", "code": "not_found",
                                           "message": "no such table"}))
            await ws.close(code=4404)
            return
        conn = Conn(ws.send_text)
        pump = asyncio.create_task(conn.pump())

        def error(code: str, message: str) -> None:
            conn.put({"type": "error", "code": code, "message": message, "ply": table.ply})

        joined = False
        try:
            while True:
                if not joined:
                    try:
                        msg = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
                    except asyncio.TimeoutError:
                        break
                else:
                    receive = asyncio.ensure_future(ws.receive())
                    done, _ = await asyncio.wait({receive, pump}, return_when=asyncio.FIRST_COMPLETED)
                    if receive not in done:  # the sender stopped: a dropped slow client
                        receive.cancel()
                        break
                    msg = receive.result()
                if msg["type"] == "websocket.disconnect":
                    break
                raw = msg.get("text")
                if raw is None:
                    data = msg.get("bytes") or b""
                    raw = data.decode("utf-8", "replace")
                if len(raw) > MAX_MESSAGE:
                    error("too_large", f"message too large ({len(raw)} characters; at most "
                                         f"{MAX_MESSAGE}); nothing was changed")
                    continue
                try:
                    obj = json.loads(raw)
                except (json.JSONDecodeError, RecursionError):
                    error("bad_json", "not JSON; nothing was changed")
                    continue
                if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                    error("bad_message", "a message is a JSON object with a string 'type'")
                    continue
                kind = obj["type"]
                if not joined:
                    if kind != "hello":
                        error("hello_first", "send hello (with your seat token) first")
                        continue
                    token = obj.get("token")
                    seat = table.seat_of_token(token) if token else None
                    if token and seat is None:
                        error("bad_token", "this invitation is not valid for this table: "
                                             "you are watching as a spectator")
                    table.join(conn, seat)
                    joined = True
                    continue
                await handle(table, conn, kind, obj)
        except WebSocketDisconnect:
            pass
        except Exception:  # pragma: no cover - one connection must never take others down
            log.exception("table %s: websocket handler failed", table_id)
        finally:
            table.leave(conn)
            conn.close()
            try:
                await asyncio.wait_for(pump, 1.0)
            except (asyncio.TimeoutError, Exception):
                pump.cancel()

    return app


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
        elif kind == "ping":
            conn.put({"type": "pong"})
        elif kind == "hello":
            raise Refusal("bad_message", "already joined")
        else:
            raise Refusal("unknown_type", f"unknown message type {kind[:40]!r}; the types are "
                                          "act, wish, say, chat, bot, ping")
    except Refusal as e:
        conn.put({"type": "error", "code": e.code, "message": e.message,
                  "ply": table.ply, **({"reason": e.reason} if e.reason else {})})


def replay_of(table) -> dict[str, Any]:
    """A finished game in full (a replay may reveal everything): the record, and for each
    ply the position, the public view, every seat's hand and the move's events."""
    g = table.game
    record = table.match.record()
    steps = []
    seats = range(len(table.seats))
    for i, (text, st, events) in enumerate(Match.replay(record)):
        public = g.view(st, None)
        public.pop("log", None)
        steps.append({
            "ply": i, "action": text, "seat": table.move_seats[i - 1] if i else None,
            "position": g.to_json(st), "view": public,
            "hands": [g.view(st, k).get("hand") for k in seats],
            "events": [{**e.seen_by(None),
                        "private": {str(k): v for k, v in (e.private or {}).items()}}
                       for e in events],
        })
    return {"id": table.id, "game": g.name, "players": len(table.seats),
            "record": record.to_json(), "outcome": gamekit.outcome(g, table.state),
            "steps": steps}
