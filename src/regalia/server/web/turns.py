"""The lobby's "Your turn" list: which of a browser's seats, or of a signed-in account's,
are to act now (any table: turn-based, with a live clock or none).

* ``POST /api/turns`` (``SeatProofs``: ``{"tables": [{"id", "token"}]}``, at most 100, the
  seats this browser keeps): 200 ``Turns``, those of the seats given whose player is to act
  now (the table open, every seat taken, the seat not played by a bot). A token that proves
  no seat, or a seat of a table that is over, is left out: the answer never names a seat
  whose token was not given, and says nothing of the others. Only tables with a seat
  proven by its token are read (a made-up token costs one database query). Counted in
  ``message_rate``.
* ``GET /api/turns``: the same for the seats linked to the signed-in account (``seats.
  account_id``: adopted, rated or taken by an invitation), its 100 latest tables still
  being played; 401 ``signed_out``.

* ``GET /api/account/tables``: ``AccountTables``, the seats linked to the signed-in account
  at its 100 latest tables still being played (the lobby's "My tables" in any browser
  signed in to it), each with whether its player is to act now (``to_act``); their pages
  ``/t/ID`` open them by the account's session (``web.socket.account_seat``). A table
  that cannot be found is left out. 401 ``signed_out``; counted in ``message_rate``.

Each turn: the table, its game and player count, the seat, whether the table is
turn-based (``per_move``) and when the seat's time runs out (``deadline``, seconds since
the epoch; ``null`` without a clock). The ``POST`` changes nothing: it is a ``POST`` so that
the tokens stay out of URLs and logs.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from regalia.server.storage.models import token_hash
from regalia.server.tables.seats import valid_token
from regalia.server.web.accounts import PROBLEMS, Service
from regalia.server.web.deps import Address, Registry, Tables
from regalia.server.web.schemas.turns import AccountTables, SeatProofs, Turns

router = APIRouter(prefix="/api", responses=PROBLEMS)

ACCOUNT_TABLES = 100  # tables of an account's that GET /api/turns reads at most


def acting(t: Any, seat: int) -> bool:
    """Whether ``seat``'s player of the loaded table ``t`` is to act now (the table open,
    every seat taken, the seat not played by a bot)."""
    core = t.core
    return not (not core.open or core.waiting or core.current_seat() != seat
                or core.seats[seat].by_bot)


async def to_act(m: Registry, seats: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """Of ``seats`` (``(table_id, seat)``, proven already), the ``Turn`` of each whose
    player is to act now, the earliest deadline first. Raises ``Refusal("storage")`` when
    a table cannot be read."""
    out = []
    for table_id, seat in dict.fromkeys(seats):
        t = await m.get(table_id)
        if t is None:
            continue
        core = t.core
        if not acting(t, seat):
            continue
        clock = t.clock.info()
        out.append({"id": t.id, "game": t.game.name, "players": len(core.seats), "seat": seat,
                    "per_move": bool(clock and clock["per_move"]),
                    "deadline": clock["deadline"] if clock else None})
    out.sort(key=lambda x: (x["deadline"] is None, x["deadline"] or 0, x["id"]))
    return out


@router.post("/turns", response_model=Turns)
async def my_turns(body: SeatProofs, m: Tables, address: Address) -> Any:
    await m.limits.hit("message_rate", address)
    proofs = [(s.id, token_hash(s.token)) for s in body.tables if valid_token(s.token)]
    seats = await m.db(m.store.seats_with_tokens, proofs) if proofs else []
    return {"turns": await to_act(m, seats)}


@router.get("/turns", response_model=Turns)
async def account_turns(request: Request, a: Service) -> Any:
    account = await a.signed_in(request)
    seats = await a.m.db(a.m.store.playing_seats_of, account.id, ACCOUNT_TABLES)
    return {"turns": await to_act(a.m, seats)}


@router.get("/account/tables", response_model=AccountTables)
async def account_tables(request: Request, a: Service, address: Address) -> Any:
    account = await a.signed_in(request)
    await a.m.limits.hit("message_rate", address)
    out = []
    for table_id, seat in await a.m.db(a.m.store.playing_seats_of, account.id, ACCOUNT_TABLES):
        t = await a.m.get(table_id)
        if t is None or not t.core.open:
            continue
        out.append({"id": t.id, "game": t.game.name, "players": len(t.core.seats),
                    "seat": seat, "rated": bool(t.core.rated), "to_act": acting(t, seat)})
    return {"tables": out}
