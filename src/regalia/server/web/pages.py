"""The HTML pages (plain HTML, CSS and ES modules from ``static/``, no build step), the
icon and the health check.

* ``GET /``: the lobby; ``GET /t/{id}``: a table (``#s=TOKEN`` in the link names the seat,
  no token: a spectator); ``GET /replay/{id}``: a finished game's replay; ``GET /rules``;
  ``GET /players/{name}``: an account's profile (its data: ``/api/players/{name}``);
  ``GET /tutorial/{game}``: a game's tutorial (the table page with the coach; its game:
  ``POST /api/tutorials/{game}``).
  ``GET /leaderboard``: the rated players and the bots' reference ratings (its data:
  ``/api/leaderboard``).
  ``GET /daily``: the daily deal (``/api/daily``); ``GET /daily/{date}/line``: the replay
  page of its solver's winning line (``/api/daily/line``).
* ``GET /sw.js``: the service worker that shows Web Push notifications (``web.push``).
* ``GET /healthz``: 200 ``{"ok": true, "store": "ok", ...}`` when the store answers, its
  last write succeeded (or a probe of it since) and no table's bots are dead; 503
  otherwise, saying which (the last failure and its time); answered without waiting for a
  stalled database.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from regalia.server.storage.store import StoreUnavailable
from regalia.server.web.deps import Config, Tables

STATIC = Path(__file__).resolve().parent.parent / "static"
FAVICON = ('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#123d2c"/><rect x="14" y="8" width="36" height="48" rx="5" fill="#fffdf6" stroke="#d4a93c" stroke-width="3"/><path d="M20 38 24 24l8 7 8-7 4 14z" fill="#b3202a"/><rect x="20" y="40" width="24" height="4" fill="#b3202a"/></svg>''')

router = APIRouter(include_in_schema=False)
HEALTH_WAIT = 1.0  # seconds /healthz waits for its read of the database


def page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html",
                        headers={"Cache-Control": "no-cache"})


@router.get("/")
async def lobby_page() -> FileResponse:
    return page("index.html")


@router.get("/t/{table_id}")
async def table_page(table_id: str) -> FileResponse:
    return page("table.html")


@router.get("/tutorial/{game}")
async def tutorial_page(game: str) -> FileResponse:
    return page("table.html")


@router.get("/replay/{table_id}")
async def replay_page(table_id: str) -> FileResponse:
    return page("replay.html")


@router.get("/players/{name}")
async def player_page(name: str) -> FileResponse:
    return page("player.html")


@router.get("/leaderboard")
async def leaderboard_page() -> FileResponse:
    return page("leaderboard.html")
@router.get("/daily")
async def daily_page() -> FileResponse:
    return page("daily.html")


@router.get("/daily/{day}/line")
async def daily_line_page(day: str) -> FileResponse:
    return page("replay.html")


@router.get("/rules")
async def rules_page() -> FileResponse:
    return page("rules.html")


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The service worker of Web Push (``static/sw.js``), served from the root so that its
    scope is the whole site (a page registers it as ``/sw.js?lang=LANG``: the language its
    notifications are worded in)."""
    return FileResponse(STATIC / "sw.js", media_type="text/javascript",
                        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


@router.get("/favicon.ico")
@router.get("/favicon.svg")
async def favicon() -> Response:
    return Response(FAVICON, media_type="image/svg+xml",
                    headers={"Cache-Control": "max-age=86400"})


@router.get("/healthz")
async def healthz(m: Tables, settings: Config) -> JSONResponse:
    """``ok`` only when the store answers, its last write succeeded (or a probe since) and
    no table's bots are dead; 503 otherwise, saying which. Never waits long for the
    database: the writer's own record of failures and stalls first (``Writer.failing``),
    then a read, when the database thread is free, of at most ``HEALTH_WAIT`` seconds."""
    failing = m.writer.failing()
    if failing is None and m.writer.busy_for() == 0.0:
        try:
            await asyncio.wait_for(m.db(m.store.check_readable),
                                   min(HEALTH_WAIT, settings.write_timeout))
        except StoreUnavailable as e:
            m.writer.failed(str(e))
            failing = m.writer.failing()
        except asyncio.TimeoutError:
            failing = "no answer from the database"
    store_state = "ok" if failing is None else f"failing: {failing}"
    body = {**m.health(), "store": store_state}
    body["ok"] = store_state == "ok" and not body["broken_tables"]
    return JSONResponse(body, status_code=200 if body["ok"] else 503)
