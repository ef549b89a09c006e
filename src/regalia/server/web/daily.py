"""The daily deal's JSON API (``tables.daily``; README "The daily deal"):

* ``GET /api/daily?date=YYYY-MM-DD&table=ID``: ``DailyReport``: the day's deal (default:
  today, UTC), the asker's status (the signed-in account's play, else the table ``ID`` when
  it was dealt that day's deal: a player without an account names their own), the
  leaderboard and the solver's verdict, hidden until the asker's game of that day is over.
  400 for a malformed day or one still to come, 404 for a past day nobody played.
* ``POST /api/daily/play`` (``DailyPlay``): a table of today's deal, 201 ``DailyStarted``
  (its seat's link and secret token); ranked for a signed-in account, which plays each
  day's deal once (409 ``daily_played`` for a second start); unranked without an account.
  429 over ``table_rate``; 403 ``cross_origin`` from another site (the request may carry
  the account's cookie).
* ``GET /api/daily/line?date=YYYY-MM-DD&table=ID``: the solver's winning line of that day's
  deal as a replay (the form of ``GET /api/tables/{id}/replay``, plus ``"daily"``: the
  day, and ``"solver"``: the verdict), once the asker's game of that day is over (409
  ``not_finished`` before; 404 without a winning line); 429 over ``replay_rate`` for one
  not built yet.
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional

import orjson
from fastapi import APIRouter, Query, Request, Response

from regalia.server.tables import gamekit
from regalia.server.tables.daily import SOLVER_SEAT, Daily, line_core
from regalia.server.web.accounts import SAME_SITE, Service
from regalia.server.web.api import PROBLEMS, replay_from
from regalia.server.web.deps import Address, Daily as DailyDep, Replays, Tables
from regalia.server.web.schemas.daily import DailyPlay, DailyReport, DailyStarted

router = APIRouter(prefix="/api", responses=PROBLEMS)

DAY = Query(None, max_length=10, description="a day as YYYY-MM-DD (UTC); default: today")
TABLE = Query(None, max_length=32, description=(
    "your table of that day's deal, when you play it without an account"))


@router.get("/daily", response_model=DailyReport, response_model_exclude_unset=True)
async def daily_report(request: Request, d: DailyDep, a: Service,
                       date: Optional[str] = DAY, table: Optional[str] = TABLE) -> Any:
    account, _ = await a.current(request)
    return await d.report(date, account, table)


@router.post("/daily/play", status_code=201, response_model=DailyStarted,
             dependencies=SAME_SITE)
async def daily_play(body: DailyPlay, request: Request, d: DailyDep, a: Service, m: Tables,
                     address: Address) -> Any:
    account, _ = await a.current(request)
    table, token, watch, day = await d.start_play(
        account, body.name, count=lambda: m.limits.hit("table_rate", address))
    return {"id": table.id, "date": day, "seat": 0, "token": token,
            "link": f"/t/{table.id}#s={token}", "spectate": f"/t/{table.id}#s={watch}",
            "replay": f"/replay/{table.id}", "ranked": account is not None}


@router.get("/daily/line")
async def daily_line(request: Request, d: DailyDep, a: Service, replays: Replays,
                     m: Tables, address: Address, date: Optional[str] = DAY,
                     table: Optional[str] = TABLE) -> Response:
    account, _ = await a.current(request)
    deal = await d.line(date, account, table)
    key = f"daily-{deal.day}"  # no table's id has a dash
    body = replays.cached(key)
    if body is None:
        if not replays.building(key):
            await m.limits.hit("replay_rate", address)
        body = await replays.body(key, lambda: asyncio.to_thread(line_replay, deal))
    return Response(body, media_type="application/json")


def line_replay(deal: Any) -> bytes:
    """The replay of ``deal``'s solver's line (``Daily.line``), as JSON bytes."""
    core = line_core(deal, deal.verdict["line"])
    outcome = gamekit.outcome(core.game, core.state, None, 1)
    out = replay_from(core, [dict(SOLVER_SEAT)], outcome)
    out.update(daily=deal.day, solver=Daily.verdict_info(deal, None))
    return orjson.dumps(out, option=orjson.OPT_NON_STR_KEYS)
