"""How the players end a game before its rules do (``Endings``, a part of the table): a
seat concedes, or everyone agrees to stop. Neither is an action of the rules (the engines
know nothing of them): the game's state stays as its last move left it, and the table stores
an ending row after its moves (``storage.models``; ``core.records.Ending``), so that a
restart, another replica and the replay find the game over, with its result.

* ``Game.early_end == "concede"`` (Le Roy des Ribauds): a seated player may concede at any
  time while the game is on (``concede``); the opponent wins.
* ``"agree"`` (Regicide, cooperative): a seated player proposes to stop (``stop`` with
  ``agree`` true); every other human seat must accept (a seat a bot plays counts as
  agreeing); a decline, or any move stored (the proposal is for the ply it was made at),
  cancels it. When all agree the game ends as a loss, stopped by agreement. A player alone
  with bots stops at once. A proposal says something to the others, so it is counted in
  the proposer's ``talk_rate`` (rules 1.15).

A proposal is not stored: a restart forgets it, as a move would cancel it. Between replicas
each proposal's answers are told (``tell_others("stop", ...)``) and merged (the seats that
agreed, joined), so that two seats answering at once on two replicas both count; whichever
replica sees every seat agreed stores the ending (the ending row's ply lets one only).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from regalia.core.records import CONCEDED, STOPPED, Ending
from regalia.server.refusal import Refusal
from regalia.server.storage.models import HUMAN
from regalia.server.storage.store import NotSynced
from regalia.server.storage.values import Conflict
from regalia.server.storage.writer import Rereadable, Writer
from regalia.server.tables.clocks import TableClock
from regalia.server.tables.core import TableCore
from regalia.server.tables.limits import RateLimits

log = logging.getLogger("regalia.server")

CLOSED_KEPT = 32  # ids of the latest proposals declined or ended, kept to ignore late answers


@dataclass
class Proposal:
    """A proposal to stop: its ``id``, the seat that made it (``by``), the ply it is for
    (a move made since cancels it) and the seats that agreed."""

    id: str
    by: int
    ply: int
    agreed: set[int] = field(default_factory=set)


class Endings:
    """The ways the players end a game before its rules do, a part of the table (module
    docstring): ``concede``, ``stop`` and the proposal to stop under way (``info``).

    Handed to it: the table's ``core``, its ``clock`` (stopped by the ending), the
    ``writer`` (an ending is stored before it is applied), the ``limits`` (``talk_rate``),
    ``reread`` (read the table again after a conflict) and callbacks: ``broadcast(msg)``,
    ``broadcast_state()``, ``tell_others(kind, **fields)`` and ``game_over()`` (the ending
    was stored and applied here)."""

    def __init__(self, core: TableCore, clock: TableClock, writer: Writer, limits: RateLimits,
                 reread: Rereadable, *, broadcast: Callable[[dict[str, Any]], None],
                 broadcast_state: Callable[[], None],
                 tell_others: Callable[..., None],
                 game_over: Callable[[], None] = lambda: None) -> None:
        self.core = core
        self.clock = clock
        self.writer = writer
        self.limits = limits
        self.reread = reread
        self.broadcast = broadcast
        self.broadcast_state = broadcast_state
        self.tell_others = tell_others
        self.game_over = game_over
        self.proposal: Proposal | None = None
        self._closed: list[str] = []  # proposals declined or ended (the latest)
        self._completing = False

    # -- what it shows -----------------------------------------------------------------

    def current(self) -> Proposal | None:
        """The proposal to stop under way: made at the current ply of a game still on."""
        p = self.proposal
        if p is None or p.ply != self.core.ply or not self.core.open:
            return None
        return p

    def needed(self) -> list[int]:
        """The seats whose agreement a stop needs: the human seats no bot plays."""
        return [s.index for s in self.core.seats if s.kind == HUMAN and not s.bot_replaces]

    def info(self) -> dict[str, Any] | None:
        """The ``stop`` field of a ``state`` message: ``None``, or the proposal under way
        ``{"by": seat, "agreed": [seats], "waiting": [seats]}`` (``waiting``: the human
        seats yet to answer)."""
        p = self.current()
        if p is None:
            return None
        return {"by": p.by, "agreed": sorted(p.agreed),
                "waiting": [k for k in self.needed() if k not in p.agreed]}

    # -- the players' messages ---------------------------------------------------------

    async def concede(self, seat: int | None) -> None:
        """A ``concede`` message: ``seat`` resigns, its opponent wins and the game ends
        (``Game.early_end == "concede"``: Le Roy des Ribauds). Raises ``Refusal``
        (``spectator``, ``no_concede``, ``finished``, ``expired``, ``table_broken``,
        ``waiting``, ``bot_seat``, ``stale``, ``storage``) and changes nothing."""
        core = self.core
        if seat is None:
            raise Refusal("spectator", "spectators cannot concede")
        if core.game.early_end != "concede":
            raise Refusal("no_concede", "nobody concedes in this cooperative game: the players "
                                        'stop together (send {"type": "stop", "agree": true} '
                                        "to propose it)")
        async with core.lock:
            self._check_may_end(seat)
            await self._end(Ending(CONCEDED, seat))

    async def stop(self, seat: int | None, agree: Any) -> None:
        """A ``stop`` message (``Game.early_end == "agree"``: Regicide): with ``agree``
        true, propose to stop (none under way) or accept the proposal; with false, decline
        it (the proposer: withdraw it). When every human seat no bot plays agreed, the game
        ends, a loss (``STOPPED``, by the proposer); a player alone with bots stops at
        once. A proposal is counted in ``talk_rate``. Raises ``Refusal`` (``spectator``,
        ``no_stop``, ``bad_message``, ``finished``, ``expired``, ``table_broken``,
        ``waiting``, ``bot_seat``, ``no_proposal``, ``already_agreed``, ``too_fast``,
        ``stale``, ``storage``) and changes nothing."""
        core = self.core
        if seat is None:
            raise Refusal("spectator", "spectators cannot propose or answer a stop")
        if core.game.early_end != "agree":
            raise Refusal("no_stop", "in this game a player concedes instead: send "
                                     '{"type": "concede"}')
        if type(agree) is not bool:
            raise Refusal("bad_message", "agree: true (propose to stop, or accept the "
                                         "proposal) or false (decline it)")
        async with core.lock:
            self._check_may_end(seat)
            p = self.current()
            if p is None:
                if not agree:
                    raise Refusal("no_proposal", "nobody proposed to stop: send agree true "
                                                 "to propose it")
                # a proposal says something to the others (rules 1.15): counted as talk
                await self.limits.hit("talk_rate", core.id, str(seat))
                p, agreed = Proposal(secrets.token_hex(4), seat, core.ply), {seat}
            elif not agree:
                agreed = p.agreed
            elif seat in p.agreed:
                raise Refusal("already_agreed", "you already agreed to stop; waiting for "
                              + (", ".join(f"seat {k}" for k in self.needed()
                                           if k not in p.agreed) or "nobody"))
            else:
                agreed = p.agreed | {seat}
            answer = {"type": "stop", "seat": seat, "agree": agree, "ply": core.ply}
            if agree and all(k in agreed for k in self.needed()):
                await self._end(Ending(STOPPED, p.by), answer)  # refused: nothing changed
                return
            if agree:
                p.agreed = agreed
                self.proposal = p
            else:
                self._close(p)
            core.last_active = time.monotonic()
            self.broadcast(answer)
            self.broadcast_state()
            self.tell_others("stop", id=p.id, by=p.by, ply=p.ply, agreed=sorted(p.agreed),
                             seat=seat, agree=agree)

    def _check_may_end(self, seat: int) -> None:
        """Raises ``Refusal`` unless ``seat`` may end the game now: the game is on, it has
        started, and the seat's own player plays it."""
        core = self.core
        core.check_open()
        if core.waiting:
            raise Refusal("waiting", "the game has not started: a seat of this table was not "
                                     "taken yet; leave the table instead")
        if core.seats[seat].by_bot:
            raise Refusal("bot_seat", "a bot is playing this seat: take the seat back first")

    def _complete(self, p: Proposal) -> bool:
        return all(k in p.agreed for k in self.needed())

    def _close(self, p: Proposal) -> None:
        """``p`` was declined or ended: answers to it that come later are ignored."""
        self._closed = [*self._closed[-CLOSED_KEPT + 1:], p.id]
        if self.proposal is p:
            self.proposal = None

    # -- the ending --------------------------------------------------------------------

    async def _end(self, ending: Ending, answer: dict[str, Any] | None = None) -> None:
        """Store ``ending`` (its ending row at the current ply), then apply it: the game is
        over, the clocks stop, everyone is told (``answer`` first: the last ``stop``
        answer), then the other replicas. Under the table's lock. Raises ``Refusal``
        (``stale``: another replica stored a move first; ``storage``) and changes
        nothing."""
        core = self.core
        clock = self.clock.after(ending.seat, True)  # the running seat is charged
        try:
            await self.writer.append_ending(core.id, core.ply, ending,
                                            clock.to_json() if clock else None)
        except asyncio.CancelledError:  # at shutdown: the database says whether it was stored
            core.closing = True
            raise
        except Conflict:  # another replica stored a move (or an ending) at this ply first
            self.reread.request_sync()
            raise Refusal("stale", "a move was stored meanwhile (the game went on): nothing "
                                   "was applied; look at the game and try again") from None
        except NotSynced:
            self.reread.request_sync()
            raise Refusal("storage", "the server's disk failed; the game's end may not have "
                                     "been saved: reload to see") from None
        except Exception as e:
            log.error("table %s: storing its ending failed: %s", core.id, e)
            raise Refusal("storage", "the game's end could not be saved (the server's "
                                     "database refused it); nothing was applied: try "
                                     "again") from None
        core.end(ending)
        if clock is not None:
            self.clock.set(clock)
        if self.proposal is not None:
            self._close(self.proposal)
        core.last_active = time.monotonic()
        if answer is not None:
            self.broadcast(answer)
        self.broadcast_state()
        self.tell_others("sync")
        self.clock.arm()  # (no clock runs any more)
        core.wake.set()
        self.game_over()

    def recheck(self) -> None:
        """The seats changed (a seat handed to a bot, or another replica's change): when
        every seat the proposal under way still needs has agreed, the game stops."""
        p = self.current()
        if p is not None and self._complete(p):
            self._finish_soon(p)

    def _finish_soon(self, p: Proposal) -> None:
        """End the game as ``p`` agreed, in a task of its own (under the table's lock)."""
        if self._completing or self.core.closing:
            return
        self._completing = True
        asyncio.get_running_loop().create_task(self._finish(p))

    async def _finish(self, p: Proposal) -> None:
        try:
            async with self.core.lock:
                if self.current() is p and self._complete(p):
                    await self._end(Ending(STOPPED, p.by))
        except Refusal as e:  # a move came first, or the database refused: told by a sync
            log.warning("table %s: stopping as agreed failed: %s", self.core.id, e.message)
        finally:
            self._completing = False

    # -- the other replicas ------------------------------------------------------------

    def heard(self, event: dict[str, Any]) -> None:
        """Another replica's ``stop`` event (``{"id", "by", "ply", "agreed", "seat",
        "agree"}``, ``"echo": true`` when it only tells back what that replica knew): its
        proposal's answers are joined with this copy's (two proposals made at once at one
        ply are one, the smaller id's), or its decline cancels it; the connections here are
        told; when every seat agreed, the game stops (stored from here: the first ending
        stored is the one)."""
        pid, ply = event["id"], event["ply"]
        if pid in self._closed or self.core.finished or ply < self.core.ply:
            return  # (a move made since cancelled it)
        p = self.proposal
        if not event["agree"]:
            if p is not None and p.ply == ply:
                self._close(p)
            self._closed = [*self._closed[-CLOSED_KEPT + 1:], pid]
        elif p is None or p.ply != ply:
            p = self.proposal = Proposal(pid, event["by"], ply, set(event["agreed"]))
        else:
            if pid < p.id:  # two proposals made at once: both copies keep the same one
                p.id, p.by = pid, event["by"]
            p.agreed |= set(event["agreed"])
            if p.agreed != set(event["agreed"]):  # this copy knew of more: told back
                self.tell_others("stop", id=p.id, by=p.by, ply=p.ply, agreed=sorted(p.agreed),
                                 seat=event["seat"], agree=True, echo=True)
        if not event.get("echo"):  # (an echo tells no new answer)
            self.broadcast({"type": "stop", "seat": event["seat"], "agree": event["agree"],
                            "ply": ply})
        self.broadcast_state()
        self.recheck()
