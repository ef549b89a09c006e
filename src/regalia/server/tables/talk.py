"""What a table says besides moves (``Talk``, a part of it): table talk (Regicide's fixed public messages, Ribauds'
free chat, at most ``talk_rate`` per seat), the rematch's address, and hints at tables
created with hints."""

from __future__ import annotations

import logging
import random
import secrets
import time
from typing import Any, Callable

from regalia.server.refusal import Refusal
from regalia.server.settings import Settings
from regalia.server.storage.writer import Rereadable, Writer
from regalia.server.tables import gamekit
from regalia.server.tables.audience import Conn
from regalia.server.tables.botpool import BotPool
from regalia.server.tables.botwork import hint_of
from regalia.server.tables.core import TableCore
from regalia.server.tables.limits import RateLimits

log = logging.getLogger("regalia.server")


class Talk:
    """What a table says besides moves, a part of it: its talk (``messages``: the latest,
    kept), the rematch's address and hints.

    Handed to it: the table's ``core``, the ``writer`` (talk is stored before it is
    shown), the ``limits`` (``talk_rate``, ``hint_rate``), the ``bot_pool`` where hints are
    worked out with the ``settings``' ``bot_budget`` and random seeds from ``bot_rng`` (the
    table's bots' own secret source), ``reread`` (read the table again after a failed
    write) and callbacks: ``broadcast(msg)`` and ``tell_others(kind, **fields)``."""

    def __init__(self, core: TableCore, writer: Writer, limits: RateLimits, bot_pool: BotPool,
                 settings: Settings, bot_rng: random.Random, reread: Rereadable,
                 messages: list[dict[str, Any]], *,
                 broadcast: Callable[[dict[str, Any]], None],
                 tell_others: Callable[..., None]) -> None:
        self.core = core
        self.writer = writer
        self.limits = limits
        self.bot_pool = bot_pool
        self.settings = settings
        self.bot_rng = bot_rng
        self.reread = reread
        self.messages = messages
        self.broadcast = broadcast
        self.tell_others = tell_others
        self._hinting = False  # a hint is being searched for

    async def say(self, conn: Conn, kind: str, payload: Any) -> None:
        """A ``say`` (Regicide's fixed public messages) or ``chat`` (Ribauds) message; at most
        ``talk_rate`` per seat, whatever its number of connections; none at an abandoned
        table (``expired``)."""
        core = self.core
        if conn.seat is None:
            raise Refusal("spectator", "spectators cannot send messages")
        if core.expired:  # kept to be read, as its record is: nothing is added to it
            raise Refusal("expired", "this table was abandoned (no move for a long time) and "
                                     "is closed: its talk too; start a new table")
        if kind == "say":
            said = (gamekit.say(core.game, core.state, conn.seat, payload)
                    if isinstance(payload, str) else None)
            if said is None:
                if core.game.talk == "say":
                    raise Refusal("bad_message", "message_id: choose one of "
                                  + ", ".join(gamekit.SAYINGS))
                raise Refusal("bad_message", "this game has free chat: send type chat")
            body = {"kind": "say", "seat": conn.seat, "ply": core.ply, **said}
        else:
            if not gamekit.chat_allowed(core.game.name):
                raise Refusal("no_chat", "Regicide allows no free chat (rules 1.15): choose "
                                         "one of the allowed messages")
            text = gamekit.clean_chat(payload)
            if text is None:
                raise Refusal("bad_message", f"text: 1 to {gamekit.CHAT_MAX} characters")
            body = {"kind": "chat", "seat": conn.seat, "ply": core.ply, "text": text}
        body["id"] = secrets.token_hex(6)  # tells a repeated line from a catch-up's copy
        await self.limits.hit("talk_rate", core.id, str(conn.seat))
        await self.writer.write(self.writer.store.add_message, core.id, conn.seat, body["kind"],
                                body, table=self.reread)
        core.last_active = time.monotonic()
        if body not in self.messages:  # a catch-up during the write may have shown it
            self.messages.append(body)
            del self.messages[:-100]
            self.broadcast({"type": "talk", **body})
        self.tell_others("talk", body=body)

    def heard(self, body: dict[str, Any]) -> None:
        """Talk said through another replica: kept and shown."""
        self.messages.append(body)
        del self.messages[:-100]
        self.broadcast({"type": "talk", **body})

    def missed(self, bodies: list[dict[str, Any]]) -> None:
        """The latest talk as stored: the lines this copy missed (e.g. while loading) are
        kept and shown."""
        for body in bodies:
            if body not in self.messages:
                self.messages.append(body)
                self.broadcast({"type": "talk", **body})
        del self.messages[:-100]

    def announce_rematch(self, table_id: str) -> None:
        """Tell every page of this finished table where the rematch is (each page moves to
        it with its own seat token, which the rematch keeps)."""
        self.core.next_table = table_id
        self.broadcast({"type": "rematch", "table": table_id})

    async def hint(self, seat: int | None, address: str) -> dict[str, Any]:
        """A suggested move for ``seat`` at a table created with hints: the table's default
        search bot decides from that seat's view only (in the bot pool, after the bot
        moves people wait for: ``BotPool.hint``), with the reason for it and its win chance
        against the next best move's, from the same view (``botwork.hint_of``; the next
        best is suggested instead when measured better beyond the sampling noise). One hint
        at a time per table and per ``address`` (the asking client's), counted against
        ``hint_rate`` (a hint worked out; not a refused one). Returns the ``hint`` message
        ``{"type": "hint", "ply", "action", "why", "win", "next", "next_win", "worlds",
        "lead_range"}`` (actions in notation, legal at that ply; the fields as
        ``web.protocol`` tells them). Raises ``Refusal`` (``no_hints``, ``spectator``,
        ``not_your_turn``, ``busy``, ``too_fast``, ``hint_failed``, ``finished``,
        ``expired``, ``table_broken``)."""
        if not self.core.hints:
            raise Refusal("no_hints", "this table was created without hints")
        if seat is None:
            raise Refusal("spectator", "spectators cannot ask for a hint")
        self.core.check_open()
        g, st, ply = self.core.game, self.core.state, self.core.ply
        if g.current_seat(st) != seat or self.core.seats[seat].by_bot:
            raise Refusal("not_your_turn", "a hint is given only when it is your turn")
        if self._hinting:
            raise Refusal("busy", "a hint is already being worked out; wait a moment")
        self.bot_pool.check_hint(address)  # refused before it is counted
        self._hinting = True
        try:
            await self.limits.hit("hint_rate", address)
            legal = list(g.legal_actions(st))
            found = await self.bot_pool.hint(
                address, hint_of, g.name, gamekit.default_bot(g.name), g.view(st, seat), legal,
                self.bot_rng.getrandbits(64), self.settings.bot_budget)
        except Refusal:  # over the hint rate
            raise
        except Exception as e:  # the pool closed at shutdown, or its worker died twice
            log.error("table %s: a hint failed: %r", self.core.id, e)
            raise Refusal("hint_failed", "no hint could be worked out now; try again") from None
        finally:
            self._hinting = False
        nxt = found["next"]
        return {"type": "hint", "ply": ply, "action": g.action_to_text(st, found["action"]),
                "why": found["why"], "win": _share(found["win"]),
                "next": None if nxt is None else g.action_to_text(st, nxt),
                "next_win": _share(found["next_win"]), "worlds": found["worlds"],
                "lead_range": (None if found["lead_range"] is None
                               else [_share(x) for x in found["lead_range"]])}


def _share(x: float | None) -> float | None:
    """A chance or a difference of chances, rounded for a message (4 decimals)."""
    return None if x is None else round(float(x), 4)
