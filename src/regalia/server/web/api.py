"""The JSON API, ``/api/...``. Every refusal answers ``{"error", "code"}`` (``errors``);
the request and answer models are in ``schemas.tables`` (and ``/openapi.json``).

* ``GET /api/games``: the games, their player counts, rule options and bots.
* ``GET /api/clocks``: the time controls: the live clocks (``Settings.clock_presets``),
  then the turn-based ones (``Settings.turn_presets``, ``per_move``: seconds per move).
* ``POST /api/tables`` (``CreateTable``): a new table, 201 ``TableCreated``: one invitation
  link per human seat (each with its secret token) and the spectator link (with the
  spectators' secret token). The server draws the seed and the first player from a secret
  source; a ``seed`` or ``options.first_player`` is refused (400). 429 over ``table_rate``.
  ``rated``: a Le Roy des Ribauds table of two people that changes their ratings
  (``web.ratings``), asked by a signed-in browser (401 ``rated_signed_out`` otherwise),
  whose seat 0 is its account's; each other seat is taken by another signed-in account.
* ``GET /api/tables/{id}``: public facts (status, ply, whose turn, seats, names, clocks,
  the ``outcome`` and, when the players ended the game, its ``ending``).
* ``GET /api/tables/{id}/replay``: a finished or abandoned game, every position in full
  (409 before); built once and kept (``web.replays``), 429 over ``replay_rate`` for a
  replay not built yet.
* ``GET /api/tables/{id}/analysis?seat=K``: a finished game's analysis for seat K.
* ``GET /api/open``: the open tables with a free seat, each creator's newest first.
* ``POST /api/tables/{id}/join`` (``JoinTable``): take a free seat of an open table (409
  when full or not open; 429 over ``join_rate``). A rated table's seat is taken by the
  browser's account, named by it: 401 ``rated_signed_out`` for a browser signed in to no
  account, 409 ``rated_same_account`` for the account that holds the other seat.
* ``POST /api/tables/{id}/rematch`` (``Rematch``): a seated player of a finished table asks
  for a rematch (same seats, options, bots and clock, a new deal); every seat keeps its
  token, and every page of the old table gets a ``rematch`` message.
* ``POST /api/tutorials/{game}`` (``TutorialMoves``): the tutorial's game after the
  learner's moves so far (``tutorials.play``; nothing stored); counted in
  ``message_rate``.

A database that refuses a write answers 503 with nothing applied.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from fastapi import APIRouter, Request, Response

from regalia.core.records import Match, without_medal
from regalia.server import tutorials
from regalia.server.tables import gamekit
from regalia.server.tables.core import TableCore
from regalia.server.refusal import Refusal
from regalia.server.web.accounts import Service as AccountService
from regalia.server.web.deps import Address, Replays, Tables
from regalia.server.web.schemas.common import Problem
from regalia.server.web.schemas.tables import (Clock, CreateTable, JoinTable, Rematch, RematchMade,
                                               SeatTaken, TableCreated, TutorialMoves)

PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 403, 404, 409, 413, 415, 429, 503)}

router = APIRouter(prefix="/api", responses=PROBLEMS)


@router.get("/games")
async def games() -> list[dict[str, Any]]:
    return gamekit.games_info()


@router.get("/clocks", response_model=list[Clock])
async def clocks(m: Tables) -> list[dict[str, Any]]:
    """The time controls a table may be created with: each live clock (``bank`` seconds
    per player, ``increment`` seconds added per move), then each turn-based one
    (``per_move``: ``bank`` seconds for each move)."""
    return ([{"name": k, "bank": b, "increment": i, "per_move": False}
             for k, (b, i) in m.clock_presets.items()]
            + [{"name": k, "bank": b, "increment": 0.0, "per_move": True}
               for k, b in m.turn_presets.items()])


@router.get("/open")
async def open_tables(m: Tables) -> Any:
    return await m.lobby.open_tables()


@router.post("/tables", status_code=201, response_model=TableCreated,
             response_model_exclude_unset=True)
async def create_table(body: CreateTable, request: Request, m: Tables, address: Address,
                       a: AccountService) -> Any:
    asked = body.model_dump(exclude_unset=True)
    account = (await a.current(request))[0] if body.rated else None
    table, tokens, watch = await m.create(
        asked, count=lambda: m.limits.hit("table_rate", address), address=address,
        account=account)
    seats = []
    for s, tok in zip(table.seats, tokens):
        entry: dict[str, Any] = {"seat": s.index, "kind": s.kind, "bot": s.bot_name}
        if tok:
            entry["token"] = tok
            entry["link"] = f"/t/{table.id}#s={tok}"
        seats.append(entry)
    humans = [s["seat"] for s in seats if s["kind"] == "human"]
    return {"id": table.id, "game": table.game.name, "players": len(seats),
            "options": asked.get("options") or {}, "seats": seats,
            "open": table.is_open, "clock": table.clock.info(), "rated": table.core.rated,
            "you": humans[0] if humans else None,
            "spectate": f"/t/{table.id}#s={watch}", "replay": f"/replay/{table.id}"}


async def find(m: Tables, table_id: str) -> Any:
    """The table; raises ``Refusal`` (``not_found``: 404, ``storage``: 503)."""
    t = await m.get(table_id)
    if t is None:
        raise Refusal("not_found", "no such table")
    return t


@router.post("/tables/{table_id}/join", response_model=SeatTaken)
async def join_table(table_id: str, body: JoinTable, request: Request, m: Tables,
                     address: Address, a: AccountService) -> Any:
    t = await find(m, table_id)
    account = (await a.current(request))[0] if t.core.rated else None
    seat, token = await t.seating.take_free_seat(
        body.name, count=lambda: m.limits.hit("join_rate", address), account=account)
    return {"id": t.id, "game": t.game.name, "players": len(t.seats), "seat": seat,
            "token": token, "link": f"/t/{t.id}#s={token}"}


@router.post("/tables/{table_id}/rematch", response_model=RematchMade)
async def rematch(table_id: str, body: Rematch, m: Tables, address: Address) -> Any:
    t = await find(m, table_id)
    new = await m.rematch(t, body.token, count=lambda: m.limits.hit("table_rate", address))
    return {"id": new.id, "game": new.game.name, "players": len(new.seats),
            "seat": t.seating.seat_of_token(body.token), "link": f"/t/{new.id}#s={body.token}"}


@router.post("/tutorials/{game}")
async def tutorial(game: str, body: TutorialMoves, m: Tables, address: Address) -> Any:
    """The tutorial of ``game`` after the learner's ``moves`` (``tutorials.play``):
    ``{"game", "welcome", "script", "done", "states"}``. 404 for a game without a
    tutorial, 400 ``off_script`` for a move its step does not ask for."""
    await m.limits.hit("message_rate", address)
    return tutorials.play(game, body.moves)


@router.get("/tables/{table_id}")
async def table_summary(table_id: str, m: Tables) -> Any:
    return (await find(m, table_id)).summary()


@router.get("/tables/{table_id}/replay")
async def table_replay(table_id: str, m: Tables, replays: Replays, address: Address) -> Any:
    body = replays.cached(table_id)
    if body is None:
        t = await find(m, table_id)
        if not (t.finished or t.expired):
            raise Refusal("not_finished", "the replay opens when the game is over (or abandoned)")
        if not replays.building(t.id):  # only work to do counts against the rate
            await m.limits.hit("replay_rate", address)
        body = await replays.body(t.id, lambda: asyncio.to_thread(encoded_replay, t))
    return Response(body, media_type="application/json")


def encoded_replay(table) -> bytes:
    """``replay_of(table)`` as JSON bytes."""
    return orjson.dumps(replay_of(table), option=orjson.OPT_NON_STR_KEYS)


@router.get("/tables/{table_id}/analysis")
async def table_analysis(table_id: str, m: Tables, address: Address, seat: int = 0) -> Any:
    """A finished game's analysis for ``seat`` (0-based, as in the formats), for the games
    that have one: ``{"seat", "decisions": [{"index" (of the move in the record,
    0-based), "phase", "played", "played_win", "best", "best_win", "cost", "worlds",
    "marked"}]}``, win chances in 0..1 estimated from that player's view only. 409 before
    the end, 400 for a game without analysis or a seat out of range, 429 over
    ``analysis_rate``."""
    t = await find(m, table_id)
    m.check_analysis(t, seat)
    if (t.id, seat) not in m.analyses:  # only work to do counts against the rate
        await m.limits.hit("analysis_rate", address)
    decisions = await m.analysis(t, seat)
    return {"seat": seat, "decisions": decisions}


def replay_of(table) -> dict[str, Any]:
    """An ended game in full (a replay may reveal everything): the record, and for each
    ply the position, the public view, every seat's hand and the move's events (``bot``: a
    bot played the move for a person; its own events say so too). A game played with hints,
    or one a bot played any part of for a person, shows no medal. A game its players ended
    (a concession, a stop agreed by all) says so in its record and in ``ending`` (``{"how",
    "seat"}``), and its last step's events end with the ending's (kind ``conceded`` or
    ``stopped``), as the table's log does."""
    return replay_from(table.core, table.seats_info(), table.outcome())


def replay_from(core: TableCore, seats: list[dict[str, Any]],
                outcome: dict[str, Any] | None) -> dict[str, Any]:
    """``replay_of`` a table's ``core`` (its match and log), with the ``seats`` and the
    ``outcome`` shown (``Table.seats_info``, ``Table.outcome``): also the replay of a
    line no table played (the daily deal's solver's, ``tables.daily.line_core``)."""
    g = core.game
    plain = without_medal if core.no_medal else (lambda obj: obj)
    record = core.match.record()
    record.hints = core.hints
    record.bot_moves = sorted(core.bot_plies)
    record.ending = core.ending
    steps = []
    players = range(len(core.seats))
    for i, (text, st, events) in enumerate(Match.replay(g, record)):
        public = g.view(st, None, log=i == 0)  # the log once, for the start's events
        dealt = public.pop("log", None) or []
        steps.append({
            "ply": i, "action": text, "seat": core.move_seats[i - 1] if i else None,
            "bot": i - 1 in core.bot_plies,
            "position": g.to_json(st), "view": plain(public),
            "hands": [g.view(st, k).get("hand") for k in players],
            # the start: the deal's events (the hands are in "hands")
            "events": [plain({**e, "private": {}}) for e in dealt] if i == 0 else
                      [plain({**e.seen_by(None),
                              **({"bot": True} if i - 1 in core.bot_plies
                                 and e.seat == core.move_seats[i - 1] else {}),
                              "private": {str(k): v for k, v in (e.private or {}).items()}})
                       for e in events],
        })
    if core.ending is not None:
        steps[-1]["events"].append({**core.events[-1].seen_by(None), "private": {}})
    return {"id": core.id, "game": g.name, "players": len(core.seats),
            "record": record.to_json(), "outcome": outcome,
            "ending": core.ending.to_json() if core.ending else None,
            "seats": seats, "steps": steps, "hints": core.hints,
            "bot_played": core.bot_played}
