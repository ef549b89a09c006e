"""The core state of a table (``TableCore``), which the table and its parts share: its
match (config + seed + move log, so it is rebuilt identically from the database), its seats,
its status, its ending (the players ended the game: ``end``), its lock and the event that
wakes its bots. Only the table changes the match (``try_move`` then ``apply``) and only its
``endings`` part ends it; the parts read it and change their own state."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from regalia.core.errors import RegaliaError
from regalia.core.game import Event, events_since
from regalia.core.records import Ending, Match
from regalia.games import get_game
from regalia.server.refusal import Refusal
from regalia.server.storage.models import BOT, HUMAN
from regalia.server.storage.values import TableData


@dataclass
class Seat:
    index: int
    kind: str
    bot_name: str | None
    token_hash: str | None
    bot_replaces: bool = False
    name: str | None = None
    claimed: bool = False
    account_id: int | None = None  # the account linked to the seat (a rated seat's player)

    @property
    def by_bot(self) -> bool:
        """The seat is played by a bot now (a bot seat, or a human seat handed to a bot)."""
        return self.kind == BOT or self.bot_replaces


@dataclass
class Move:
    """A validated move not yet applied to the table (``TableCore.try_move``)."""

    seat: int
    text: str
    side: bool
    state: Any
    rng: Any  # the match's random generator after the move
    events: list[Any]
    clock: Any = None  # the clocks after the move (a ``clocks.Clock``; ``None``: unchanged)
    by_bot: bool = False  # a bot played it for a human seat (handed over, timed out, left)


class TableCore:
    """What a table is, read by all its parts: its match and game log, seats, status,
    ending and open/closing/broken state, its lock (every stored change is written and
    applied under it) and ``wake`` (set when its bots may have something to do)."""

    def __init__(self, data: TableData) -> None:
        self.id = data.id
        self.game = get_game(data.game)
        self.config = dict(data.config)
        self.seed = data.seed
        self.status = data.status
        self.watch_token = data.watch_token
        self.created_at = data.created_at
        self.seats = [Seat(s.seat, s.kind, s.bot, s.token_hash, s.bot_replaces, s.name, s.claimed,
                           s.account_id) for s in data.seats]
        self.rated = data.rated  # a rated game: each seat played by its account
        self.is_open = data.is_open
        self.hints = data.hints
        self.next_table = data.next_table
        self.match = Match(self.game, self.config, self.seed)
        # the game log, kept as the moves come (a view is built without it): all events, and
        # the state's persistent log they were read up to
        self.events: list[Event] = events_since(self.match.state.log, None)
        self._events_read = self.match.state.log
        self.move_seats: list[int | None] = []
        self.side_move: list[bool] = []
        self.wished: set[tuple[int, int]] = set()  # (window ply, seat) asked for a wish
        # the moves a bot played for a human seat (their plies), and the events of the log
        # that such a move's seat did (their indexes in ``events``): "Bot for NAME"
        self.bot_plies: set[int] = set()
        self.bot_events: set[int] = set()
        bot_moves = set(data.bot_moves)
        for ply, seat, action in data.moves:
            if ply != len(self.match.actions):
                raise RegaliaError(f"table {self.id}: the move log has a gap at ply {ply}")
            move = self.try_move(seat, action)
            move.by_bot = ply in bot_moves
            self.apply(move)
        self.ending: Ending | None = None
        if data.ending is not None:
            self.end(data.ending)
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.wake.set()
        self.closing = False
        self.broken: str | None = None
        self.last_active = time.monotonic()

    @property
    def ply(self) -> int:
        return len(self.match.actions)

    @property
    def state(self) -> Any:
        return self.match.state

    @property
    def finished(self) -> bool:
        """The game is over: its rules ended it, or its players did (``ending``)."""
        return self.ending is not None or self.game.is_terminal(self.match.state)

    def current_seat(self) -> int | None:
        """The seat to act (``Game.current_seat``); ``None`` once the game is over."""
        return None if self.ending is not None else self.game.current_seat(self.match.state)

    def end(self, ending: Ending) -> None:
        """The players ended the game (stored already: its ending row): it accepts no more
        moves, and its log ends with an event of kind ``ending.how`` (``"conceded"``,
        ``"stopped"``) by ``ending.seat``, the table's and no rule's."""
        self.ending = ending
        self.events.append(Event(ending.how, ending.seat, {}))

    @property
    def expired(self) -> bool:
        return self.status == "abandoned"

    @property
    def bot_played(self) -> bool:
        """A bot played some move of a human seat (a seat handed to a bot, a time-out, a
        player who left): like a game played with hints, it earns no medal."""
        return bool(self.bot_plies)

    @property
    def no_medal(self) -> bool:
        """The game earns no medal: played with hints, or a bot played for a person."""
        return self.hints or self.bot_played

    def log_entry(self, index: int, seat: int | None) -> dict[str, Any]:
        """The log's event ``index`` as ``seat`` sees it, with ``"bot": True`` where a bot
        did it for a human seat."""
        out = self.events[index].seen_by(seat)
        return {**out, "bot": True} if index in self.bot_events else out

    @property
    def waiting(self) -> bool:
        """Nobody may act yet: a human seat was never opened (a free seat of an open table;
        at a private table, an invitation not used yet) and no bot plays it. Solo and
        bots-only tables start when their one person opens the table, or at once."""
        return any(s.kind == HUMAN and not s.claimed and not s.bot_replaces
                   for s in self.seats)

    @property
    def open(self) -> bool:
        """Moves are accepted: not finished, not expired, not broken."""
        return not self.finished and not self.expired and self.broken is None

    @property
    def options(self) -> dict[str, Any]:
        """The table's rule options as it was created with them: its config without
        ``players``."""
        return {k: v for k, v in self.config.items() if k != "players"}

    def check_open(self) -> None:
        """Raises ``Refusal`` (``finished``, ``expired``, ``table_broken``) unless moves are
        accepted."""
        if self.finished:
            raise Refusal("finished", "the game is over: no action is allowed")
        if self.expired:
            raise Refusal("expired", "this table was abandoned (no move for a long time) and "
                                     "is closed; start a new table")
        if self.broken:
            raise Refusal("table_broken", f"this table cannot go on: {self.broken}")

    def window(self) -> int:
        """The ply that opened the current side-action window (the last non-side move)."""
        for i in range(self.ply - 1, -1, -1):
            if not self.side_move[i]:
                return i
        return -1

    def only_others_side_moves_since(self, ply: int, seat: int) -> bool:
        """Every move after ``ply`` is another seat's side action (a wish): the submitter's
        picture of the game is still right, so its action is not stale."""
        return all(self.side_move[i] and self.move_seats[i] != seat
                   for i in range(ply, self.ply))

    def try_move(self, seat: int | None, action: int | str, text: str | None = None) -> Move:
        """Validate ``action`` (a code or text; ``text``: a code's text, when known) and
        compute the position after it, leaving the table as it is. Raises ``RegaliaError``
        (an illegal action)."""
        m = self.match
        before, rng_before = m.state, m.rng  # Match.play replaces the generator it draws from
        mover = self.game.current_seat(before)
        try:
            events = m.play(action, text)
            return Move(seat, m.actions.pop(), seat is not None and seat != mover,
                        m.state, m.rng, events)
        finally:
            m.state, m.rng = before, rng_before

    def apply(self, move: Move) -> None:
        """Apply a validated (and stored) move to the match and its log, all at once (the
        table sets the clocks it carries)."""
        m = self.match
        m.state = move.state
        m.rng = move.rng
        m.actions.append(move.text)
        new = events_since(move.state.log, self._events_read)
        if move.by_bot:
            self.bot_plies.add(len(m.actions) - 1)
            self.bot_events.update(len(self.events) + i for i, e in enumerate(new)
                                   if e.seat == move.seat)
        self.events += new
        self._events_read = move.state.log
        self.move_seats.append(move.seat)
        self.side_move.append(move.side)
        if not move.side:
            self.wished.clear()
