"""The seats of a table (``Seating``, a part of it; the ``Seat`` records): who holds each (a
secret token's hash, a bot, or a human seat handed to a bot), their names and the changes
players make to them (hand a seat to a bot and take it back, claim a link, rename, take a
free seat of an open table or, by a friend's invitation, of any table waiting for a
player). Every change is stored before it is applied, under the table's lock.

At a rated table (``TableCore.rated``) each seat is played by a signed-in account: the
creator's seat is linked to the creator's account when the table is created, the other
seat to the account that first claims it (its link opened, or taken from the lobby's list)
if that account does not hold the other seat; from then on only that account may claim
the seat (``check_rated``). A rated seat carries its account's name. No bot takes a rated
seat nobody took; a seat taken may be handed to a bot (a player who leaves, a time-out):
the game stays rated, the bot's moves count as its player's.

A seat is *claimed* once its link was used (or it was taken from the lobby's list of open
tables, or by a friend's invitation: ``Seating.take_free_seat``), and carries the player's
nickname. A table waits, with no move allowed and no bot acting, until every human seat is
claimed or handed to a bot (a free seat of an open table; an invitation not opened yet,
which its table's players may give to a bot at once). Solo tables start when their player
opens them; bots-only ones at once."""

from __future__ import annotations

import secrets
import time
from functools import partial
from typing import Any, Awaitable, Callable

from regalia.server.refusal import Refusal
from regalia.server.storage.accounts import AccountData
from regalia.server.storage.models import BOT, HUMAN, token_hash
from regalia.server.storage.values import Conflict
from regalia.server.storage.writer import Rereadable, Writer
from regalia.server.tables import gamekit
from regalia.server.tables.clocks import TableClock, wall
from regalia.server.tables.core import Seat, TableCore
from regalia.server.tables.limits import RateLimits

__all__ = ["HANDOVER_GRACE", "Seat", "Seating", "valid_token"]

HANDOVER_GRACE = 30.0  # seconds after a seat's player left before another may hand it over
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def valid_token(token: Any) -> bool:
    """A string that may be a token (``secrets.token_urlsafe``'s alphabet, at most 100)."""
    return isinstance(token, str) and 0 < len(token) <= 100 and TOKEN_CHARS.issuperset(token)


class Seating:
    """The seats of a table, a part of it: who holds each seat (its token's hash, a bot),
    their names, and the changes players make to them, each stored before it is applied,
    under the table's lock. The ``Seat`` records are the table's ``core.seats``.

    Handed to it: the table's ``core``, its ``clock`` (``clocks.TableClock``: the clocks
    start when the last human seat is claimed, and a seat taken back gets time back), the
    ``writer``, the ``limits`` (renames and hand-overs count as talk), ``reread`` (read the
    table again after a conflict) and callbacks: ``presence()`` (connections to every
    replica), ``seen_at(seat)`` (when the seat was last seen connected),
    ``broadcast_state()``, ``seats_changed()`` (send the seat list soon) and
    ``tell_others(kind, **fields)`` (publish a stored change to the other replicas)."""

    def __init__(self, core: TableCore, clock: TableClock, writer: Writer, limits: RateLimits,
                 reread: Rereadable, *, presence: Callable[[], tuple[list[int], int]],
                 seen_at: Callable[[int], float], broadcast_state: Callable[[], None],
                 seats_changed: Callable[[], None],
                 tell_others: Callable[..., None]) -> None:
        self.core = core
        self.clock = clock
        self.writer = writer
        self.limits = limits
        self.reread = reread
        self.presence = presence
        self.seen_at = seen_at
        self.broadcast_state = broadcast_state
        self.seats_changed = seats_changed
        self.tell_others = tell_others

    def seat_of_token(self, token: Any) -> int | None:
        if not valid_token(token):
            return None
        h = token_hash(token)
        for s in self.core.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                return s.index
        return None

    def is_watch_token(self, token: Any) -> bool:
        """``token`` is this table's spectator token (from its spectator link)."""
        return (valid_token(token) and self.core.watch_token is not None
                and secrets.compare_digest(self.core.watch_token, token))

    def bot_name(self, seat: int) -> str:
        s = self.core.seats[seat]
        return (s.bot_name if s.kind == BOT and s.bot_name
                else gamekit.default_bot(self.core.game.name))

    def seats_info(self, for_seat: int | None = None) -> list[dict[str, Any]]:
        """The seat list; ``for_seat``'s entry also tells its ``windows`` (its connections:
        a link opened twice says so to its player; shown to the others, a count of windows
        would be a channel beside the talk, rules 1.15)."""
        connected = self.presence()[0]  # connections to any replica
        timed_out = self.clock.data.timed_out if self.clock.data else set()
        core = self.core
        guarded = core.rated or self._names_guarded()  # _name_fixed, once for every seat
        replaced_by = None  # the bot a person's seat is handed to (the game's default)
        out = []
        for s in core.seats:
            human = s.kind == HUMAN
            if s.kind == BOT:
                bot = s.bot_name
            elif s.bot_replaces:
                bot = replaced_by = replaced_by or gamekit.default_bot(core.game.name)
            else:
                bot = None
            entry = {"seat": s.index, "kind": s.kind, "bot": bot,
                     "bot_replaces": s.bot_replaces, "connected": connected[s.index] > 0}
            if s.index == for_seat:
                entry["windows"] = connected[s.index]
            entry.update(name=s.name if human else None, claimed=s.claimed,
                         name_fixed=human and (core.rated or (s.name is not None and guarded)),
                         timed_out=s.index in timed_out)
            out.append(entry)
        return out

    async def set_bot(self, by_seat: int | None, seat: Any, on: Any) -> None:
        """Hand a human seat to a bot (``on``) or take it back. A seat may hand itself over or
        take itself back; any seated player may hand over a human seat nobody is connected
        to and nobody was for ``HANDOVER_GRACE`` seconds (as this replica heard, counted from
        the table's load at the latest: a reload, or a server's restart, is not a leave), and
        at once a seat whose invitation was never opened (the table starts with the bot).
        Every player sees a change, so it must not become a channel (rules 1.15): a take-back
        and a hand-over of another's seat are counted in the asking seat's ``talk_rate``
        (a seat handing itself over, e.g. to leave, is not: a toggle needs a take-back).
        Only a change made is counted. Raises ``Refusal`` (``spectator``, ``bad_message``,
        ``wrong_seat``, ``seat_away``, ``too_fast``, ``finished``, ``storage``)."""
        if by_seat is None:
            raise Refusal("spectator", "spectators cannot change seats")
        if type(seat) is not int or not 0 <= seat < len(self.core.seats) or type(on) is not bool:
            raise Refusal("bad_message", "bot: give seat (a seat number) and on (true/false)")
        s = self.core.seats[seat]
        if s.kind != HUMAN:
            raise Refusal("wrong_seat", f"seat {seat} is a bot seat")
        if on and self.core.is_open and not s.claimed:
            raise Refusal("wrong_seat", f"seat {seat} waits for a player from the lobby: a bot "
                                        "cannot take it")
        if on and self.core.rated and s.account_id is None:
            raise Refusal("wrong_seat", f"seat {seat} of this rated table waits for a "
                                        "signed-in player: a bot cannot take it")
        if not on and seat != by_seat:
            raise Refusal("wrong_seat", "only the seat's own player may take it back")
        async with self.core.lock:  # checked under it: the player may come back during a wait
            self.core.check_open()
            if s.bot_replaces == on:
                return
            if on and seat != by_seat:
                self._check_away(seat)
            if not on or seat != by_seat:
                await self.limits.hit("talk_rate", self.core.id, str(by_seat))
                if on:  # the player may have come back during the count
                    self._check_away(seat)
            clock = None
            if self.clock.data is not None:
                clock = self.clock.data.copy()
                clock.settle(self.clock.running_seat(), wall())
                if on and self.clock.to_start(also=seat):  # the last seat waited for
                    clock.start(wall())
                if not on and seat in clock.timed_out:
                    clock.give_back(seat)
            await self.writer.write(self.writer.store.set_bot_replaces, self.core.id, seat, on,
                                    clock.to_json() if clock else None, table=self.reread)
            s.bot_replaces = on
            if clock is not None:
                self.clock.set(clock)
            self.broadcast_state()
            self.tell_others("sync")
            self.clock.arm()
        self.core.wake.set()

    def _check_away(self, seat: int) -> None:
        """Refuses (``wrong_seat``, ``seat_away``) handing ``seat`` to a bot for another
        player while it is connected or left less than ``HANDOVER_GRACE`` seconds ago (a
        seat never opened has nobody to wait for)."""
        if self.presence()[0][seat]:
            raise Refusal("wrong_seat", f"seat {seat} is connected: only that player may "
                                        "hand it to a bot")
        if not self.core.seats[seat].claimed:
            return  # an invitation never opened: nobody may be coming back (start with bots)
        away = time.monotonic() - self.seen_at(seat)
        if away < HANDOVER_GRACE:
            raise Refusal("seat_away", f"seat {seat} left {away:.0f} s ago and may be "
                                        "coming back (a page reloading): it can be handed "
                                        f"to a bot {HANDOVER_GRACE:.0f} s after it left")

    def check_rated(self, seat: int, account: AccountData | None) -> None:
        """Raises ``Refusal`` unless ``account`` (the one the request is signed in to;
        ``None``: none) may hold ``seat``: at a rated table, a signed-in account
        (``rated_signed_out``) that is the seat's own (``rated_other_account``) or, for a
        seat no account holds yet, one that does not hold the other seat
        (``rated_same_account``). Any account may hold a seat of another table."""
        if not self.core.rated:
            return
        s = self.core.seats[seat]
        if account is None:
            raise Refusal("rated_signed_out", "this is a rated table: sign in to take your "
                                              "seat (each seat of a rated game is played by "
                                              "a signed-in account)")
        if s.account_id is not None and s.account_id != account.id:
            raise Refusal("rated_other_account", f"this seat of a rated table is "
                                                 f"{s.name or 'another account'}'s: sign in "
                                                 "as that account to play it")
        if s.account_id is None and any(o.account_id == account.id for o in self.core.seats):
            raise Refusal("rated_same_account", "your account holds the other seat of this "
                                                "rated table: a rated game is between two "
                                                "accounts; send the link to your opponent")

    async def claim(self, seat: int, name: Any, account: AccountData | None = None) -> None:
        """The seat's link was used: the seat is held (and named ``name`` when it is a valid
        nickname; an invalid one leaves the name as it was). When this was the last free
        human seat, the clocks start. At a rated table ``account`` (the connection's) must
        be the seat's (``check_rated``); a seat no account holds yet is linked to it, and a
        rated seat is named by its account. Raises ``Refusal`` (``storage``; ``stale`` when
        a Regicide seat's first name was given meanwhile through another replica;
        ``check_rated``'s)."""
        s = self.core.seats[seat]
        name = gamekit.clean_name(name) if name is not None else None
        link: dict[str, Any] = {}
        if self.core.rated:
            self.check_rated(seat, account)
            name = account.name
        async with self.core.lock:
            if self.core.rated:  # checked again: the other seat may have been taken meanwhile
                self.check_rated(seat, account)
                if s.account_id is None:
                    link = {"account_id": account.id}
            if s.claimed and self._name_fixed(seat):
                name = None  # a held seat keeps its name while a Regicide game is played
            if s.claimed and s.name is not None and name is not None and name != s.name:
                try:  # a rename: counted with the talk, or the name stays
                    await self.limits.hit("talk_rate", self.core.id, str(seat))
                except Refusal:
                    name = None
            if (s.claimed and (name is None or name == s.name) and not self.clock.to_start()
                    and not link):
                return
            expect: dict[str, Any] = {"token_hash": s.token_hash}
            if name is not None and s.name is None and self._names_guarded():
                expect["name"] = None  # not named meanwhile through another replica
            if link:
                expect["account_id"] = None  # not taken meanwhile through another replica
            try:
                await self._update_seat(seat, claimed=True, name=name or s.name, expect=expect,
                                        **link)
            except Refusal as e:
                if "name" in expect and e.code == "no_access":  # read again: reconnect
                    raise Refusal("stale", "this seat was named meanwhile from another "
                                           "window; reconnect") from None
                if link and e.code == "no_access":
                    raise Refusal("rated_other_account", "this seat of a rated table was "
                                                         "taken meanwhile by another "
                                                         "account") from None
                raise

    async def rename(self, seat: int | None, name: Any) -> None:
        """A ``name`` message: the seat's player changes their nickname (counted in
        ``talk_rate``; in Regicide with other players, once named, not until the end). Raises
        ``Refusal`` (``spectator``, ``bad_message``, ``too_fast``, ``name_fixed``,
        ``storage``)."""
        if seat is None:
            raise Refusal("spectator", "spectators have no name at the table")
        clean = gamekit.clean_name(name)
        if clean is None:
            raise Refusal("bad_message", gamekit.NAME_RULE)
        self._check_name_free(seat)
        await self.limits.hit("talk_rate", self.core.id, str(seat))  # renames are talk too
        async with self.core.lock:
            self._check_name_free(seat)
            await self._update_seat(seat, claimed=True, name=clean)

    def player_present(self) -> bool:
        """Whether a human player is connected (to any replica): someone waits for the
        table's bots."""
        connected = self.presence()[0]
        return any(connected[s.index] for s in self.core.seats if s.kind == HUMAN)

    def name_needed(self, seat: int, name: Any) -> bool:
        """Whether a ``hello`` for ``seat`` with ``name`` must be refused: the seat has no
        name yet where names are given once (``_names_guarded``: Regicide with other players,
        rules 1.15) and ``name`` is not a valid nickname. A name chosen after the hand was
        seen could spell it out."""
        return (self.core.seats[seat].name is None and self._names_guarded()
                and gamekit.clean_name(name) is None)

    def _check_name_free(self, seat: int) -> None:
        if self.core.rated:
            raise Refusal("name_fixed", "a seat of a rated table carries its account's name")
        if self._name_fixed(seat):
            raise Refusal("name_fixed", "names cannot change while a Regicide game is played: "
                                        "a name could tell what is in a hand (rules 1.15); "
                                        "change it after the game")

    def _name_fixed(self, seat: int) -> bool:
        """Whether ``seat``'s name cannot change now: at a rated table (its account's name),
        or once it has one in a game without free talk (Regicide, rules 1.15) with other
        players, until the end (the hands are dealt from the start: a seat is named by its
        first ``hello``, ``name_needed``)."""
        return self.core.rated or (self.core.seats[seat].name is not None
                                   and self._names_guarded())

    def _names_guarded(self) -> bool:
        """Names are given once, before the hands are seen (rules 1.15): a game without free
        talk (Regicide) with other players, not finished, or finished with a rematch (whose
        hands its players may have seen: a new name here would reach those still here)."""
        return (not gamekit.chat_allowed(self.core.game.name) and len(self.core.seats) > 1
                and (not self.core.finished or self.core.next_table is not None))

    def free_seats(self) -> list[int]:
        """The human seats a newcomer may take: nobody holds them (their link was never
        used), no bot plays them and nobody is connected to them."""
        connected = self.presence()[0]
        return [s.index for s in self.core.seats if s.kind == HUMAN and not s.claimed
                and not s.bot_replaces and not connected[s.index]]

    async def take_free_seat(self, name: Any, count: Callable[[], Awaitable[None]] | None = None,
                             account: AccountData | None = None, *,
                             invited: int | None = None) -> tuple[int, str]:
        """Seat a newcomer from the lobby at this open table, or (``invited``: the id of an
        invited account) at any table waiting for a player, the seat then linked to that
        account: the first free human seat (nobody holds it, no bot plays it) gets a new
        secret token (an invitation link made for it stops working) and the name.
        ``count``: awaited once the name is found valid (the newcomer's rate limit; it
        raises ``Refusal("too_fast")`` to refuse). At a rated table the seat is linked to
        ``account`` (the newcomer's; ``check_rated``) and named by it. Returns ``(seat,
        token)``. Raises ``Refusal`` (``not_open``, ``full``, ``bad_request``,
        ``too_fast``, ``storage``, ``check_rated``'s)."""
        clean = gamekit.clean_name(name)
        if clean is None:
            raise Refusal("bad_request", gamekit.NAME_RULE)
        link: dict[str, Any] = {}
        if self.core.rated:
            free = [s for s in self.core.seats if s.kind == HUMAN and not s.claimed]
            self.check_rated(free[0].index if free else 0, account)
            clean, link = account.name, {"account_id": account.id}
        if count is not None:
            await count()
        async with self.core.lock:
            if not self.core.open:
                raise Refusal("not_open", "this table's game is over: no seat can be taken")
            if invited is None and not self.core.is_open:
                raise Refusal("not_open", "this table is not open to join from the lobby")
            free = self.free_seats()
            if not free:
                raise Refusal("full", "this table has no free seat any more")
            seat = self.core.seats[free[0]]
            if link:
                self.check_rated(seat.index, account)
            token = secrets.token_urlsafe(18)
            await self._update_seat(seat.index, claimed=True, name=clean,
                                    token_hash=token_hash(token),
                                    expect={"claimed": False, "bot_replaces": False},
                                    stored=None if invited is None or link
                                    else {"account_id": invited}, **link)
        self.core.wake.set()
        return seat.index, token

    async def _update_seat(self, seat: int, expect: dict[str, Any] | None = None,
                           stored: dict[str, Any] | None = None, **values: Any) -> None:
        """Store and apply a seat change (under the lock); starts the clocks when the last
        human seat is claimed. ``expect``: the stored seat's values the change needs (another
        replica may have changed them): otherwise the table is read again and the change
        refused (``Refusal("full")`` for a free seat taken, ``"no_access"`` for a link that
        stopped working). ``stored``: more columns stored that the table does not keep
        (``account_id``)."""
        s = self.core.seats[seat]
        was_waiting = self.core.waiting
        clock = None
        if self.clock.to_start(also=seat):
            clock = self.clock.data.copy()
            clock.start(wall())
        try:
            await self.writer.write(partial(self.writer.store.update_seat, self.core.id, seat,
                                            clock.to_json() if clock else None,
                                            expect=expect, **values, **(stored or {})),
                                    table=self.reread)
        except Conflict:
            self.reread.request_sync()
            if expect and "claimed" in expect:
                raise Refusal("full", "this table has no free seat any more") from None
            raise Refusal("no_access", "this seat's link is no longer valid (the seat was "
                                       "given to another player)") from None
        for k, v in values.items():
            setattr(s, k, v)
        if clock is not None:
            self.clock.set(clock)
        self.core.last_active = time.monotonic()
        if clock is not None or "token_hash" in values or self.core.waiting != was_waiting:
            self.broadcast_state()  # (the last seat waited for: the game starts)
        else:
            self.seats_changed()
        self.tell_others("sync")
        self.clock.arm()
        if was_waiting and not self.core.waiting:
            self.core.wake.set()  # the bots may start
