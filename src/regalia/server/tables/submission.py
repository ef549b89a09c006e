"""What ``Table.submit`` does before the table is touched (steps 1 to 3 of the ``table``
module's docstring): the submission's checks, the engine's, and the durable write.

* ``check_form``: a well-formed submission (a seat, an action as text, a ply if any);
* ``check_turn``: under the table's lock, the seat may act now (the seat to act, or a side
  action of its own; not a seat a bot plays; not a table waiting for players) and the ply
  it saw is current (a stale or duplicate submission is refused: two tabs, a double
  click);
* ``try_move``: the engine validates the move on a copy (the table is not touched);
* ``store_move``: the move row stored (``Writer.append_move``), each way it may fail told
  as a ``Refusal`` (nothing applied).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from regalia.core.errors import IllegalAction, RegaliaError
from regalia.server.refusal import Refusal
from regalia.server.storage.models import HUMAN
from regalia.server.storage.store import NotSynced
from regalia.server.storage.values import Conflict, SeatHandedOver
from regalia.server.storage.writer import Writer
from regalia.server.tables import gamekit
from regalia.server.tables.core import Move, TableCore

log = logging.getLogger("regalia.server")

MAX_ACTION = 200
MAX_PLY = 1_000_000  # a ply beyond any game: larger numbers are refused as malformed


def check_form(seat: int | None, action: Any, ply: Any) -> None:
    """Raises ``Refusal`` (``spectator``, ``bad_action``, ``bad_message``) unless a seat
    submits an action as text of at most ``MAX_ACTION`` characters, with the ply it saw
    (an integer from 0 to ``MAX_PLY``) or none."""
    if seat is None:
        raise Refusal("spectator", "spectators cannot act")
    if not isinstance(action, str) or not action.strip() or len(action) > MAX_ACTION:
        raise Refusal("bad_action", f"action: give the action as text, at most "
                                    f"{MAX_ACTION} characters, e.g. 'play 5C'")
    if ply is not None and (type(ply) is not int or not 0 <= ply <= MAX_PLY):
        raise Refusal("bad_message", "ply: must be the number of moves you saw (an integer "
                                     f"from 0 to {MAX_PLY})")


def check_turn(core: TableCore, seat: int, action: str, ply: int | None,
               by_bot: bool) -> tuple[int | str, str, int | None]:
    """Under the table's lock: ``seat`` may submit ``action`` now, having seen ``ply``.
    Returns the action as the engine reads it (its code, else the text as given: the
    engine refuses it next), its text, and the seat whose side action it is (``None``
    for a turn's action). Raises ``Refusal`` (``bot_seat``, ``waiting``, ``wrong_seat``,
    ``not_your_turn``, ``bad_message``, ``stale``)."""
    g, st = core.game, core.state
    if core.seats[seat].by_bot and not by_bot:
        raise Refusal("bot_seat", "a bot is playing this seat: take the seat back first")
    if core.waiting:
        free = sum(1 for s in core.seats
                   if s.kind == HUMAN and not s.claimed and not s.bot_replaces)
        raise Refusal("waiting", f"waiting for players: {free} seat(s) of this table "
                      "were not taken yet (an invitation not opened, a free seat)")
    current = g.current_seat(st)
    # whose action it is, from the engine's reading (it reads any case and spacing)
    try:
        code: int | str = g.action_from_text(st, action.strip())
        action = g.action_to_text(st, code)
    except RegaliaError:
        code = action = action.strip()  # refused below, with the engine's reason
    owner = gamekit.side_owner(action)
    if owner is not None and owner != seat:
        raise Refusal("wrong_seat", f"seat {seat} may only state its own wish")
    if owner is None and current != seat:
        raise Refusal("not_your_turn",
                      f"it is not your turn: seat {current} is to act")
    if ply is None and owner is None:
        raise Refusal("bad_message", "ply: an action needs the ply you saw")
    if ply is not None and ply != core.ply:
        if ply > core.ply:
            raise Refusal("stale", f"ply {ply} is ahead of the game, which is at ply "
                                   f"{core.ply}: send the ply of the last state you "
                                   "received; nothing was applied")
        if not core.only_others_side_moves_since(ply, seat):
            raise Refusal("stale", f"stale submission: you saw ply {ply} but the game "
                                   f"is at ply {core.ply}; nothing was applied")
    return code, action, owner


def try_move(core: TableCore, seat: int, code: int | str, action: str) -> Move:
    """The move of ``seat`` on a copy of the position (``TableCore.try_move``: the table
    is not touched). Raises ``Refusal("illegal")`` with the engine's words."""
    try:
        return core.try_move(seat, code, action)
    except RegaliaError as e:
        # The engine's reason may list the acting seat's own hand: only that seat
        # is ever told (and a side action's reason names nobody's cards).
        reason = e.reason() if isinstance(e, IllegalAction) else None
        raise Refusal("illegal", str(e), reason) from None


async def store_move(core: TableCore, writer: Writer, move: Move, seat: int, by_bot: bool,
                     request_sync: Callable[[], None]) -> None:
    """Store ``move`` of ``seat`` at the table's ply (``move.clock`` and ``move.by_bot``
    set). Raises ``Refusal`` (``bot_seat``, ``stale``, ``storage``) when it was not stored
    or may not have been, after ``request_sync`` (the table's ``Replica.request_sync``)
    where the database knows better than this copy."""
    try:
        await writer.append_move(core.id, core.ply, seat, move.text,
                                 core.game.is_terminal(move.state),
                                 move.clock.to_json() if move.clock else None,
                                 human=move.clock is not None and not by_bot,
                                 by_bot=move.by_bot)
    except asyncio.CancelledError:
        # Only at shutdown: whether the move was stored is unknown here, and the
        # database is the truth the next start rebuilds from.
        core.closing = True
        raise
    except SeatHandedOver:  # another replica's clock handed the seat to a bot first
        request_sync()
        raise Refusal("bot_seat", "your time ran out: a bot is playing this seat; "
                                  "take the seat back first") from None
    except Conflict:  # another replica stored this ply first: catch up
        request_sync()
        raise Refusal("stale", "stale submission: another move was stored at "
                               "this ply; nothing was applied") from None
    except NotSynced:  # stored, or not: the database says which
        request_sync()
        raise Refusal("storage", "the server's disk failed; the move may not have "
                                 "been saved: reload to see") from None
    except Exception as e:
        log.error("table %s: storing ply %s failed: %s", core.id, core.ply, e)
        raise Refusal("storage", "the move could not be saved (the server's database "
                                 "refused it); nothing was applied: try again") from None
