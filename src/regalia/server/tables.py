"""Tables: one game each, one writer each (design.md, "server").

A ``Table`` holds its ``Match`` (config + seed + move log, so it is rebuilt identically from
the database), its seats and its connections. Every submission goes through
``Table.submit`` under the table's lock:

1. the seat may act (the seat to act, or a side action of its own), and the client's ply is
   current (a stale or duplicate submission is refused: two tabs, a double click);
2. the engine validates and applies it (``Match.play``);
3. the move row (``ply = len(moves)``) is stored in a transaction; if that fails the
   in-memory game is put back and the move is refused;
4. only then is anyone told: each connection receives ``view(state, its seat)``.

Everything a connection receives is built from ``Game.view`` for its seat (spectators:
``None``); an engine refusal, which may list the acting seat's hand, is only ever sent to
that seat. Bots act in a worker thread, after a short delay so people can follow.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from regalia.bots import make_bot
from regalia.core.errors import IllegalAction, RegaliaError
from regalia.core.records import Match
from regalia.games import GAME_NAMES, get_game
from regalia.server import gamekit
from regalia.server.store import BOT, FINISHED, HUMAN, Conflict, SeatData, Store, TableData, token_hash

log = logging.getLogger("regalia.server")

MAX_ACTION = 200
QUEUE_LIMIT = 500


class Refusal(Exception):
    """A submission that changes nothing: ``code`` for the interface, ``message`` in words
    (safe to send to the submitting connection), and for an engine refusal the engine's
    ``reason`` (``{"code", "params"}``, which the page translates)."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


@dataclass
class Seat:
    index: int
    kind: str
    bot_name: str | None
    token_hash: str | None
    bot_replaces: bool = False
    bot: Any = None

    @property
    def by_bot(self) -> bool:
        """The seat is played by a bot now (a bot seat, or a human seat handed to a bot)."""
        return self.kind == BOT or self.bot_replaces


class Conn:
    """One websocket: its seat (``None``: spectator), its outgoing queue and how much of the
    game log it was sent."""

    def __init__(self, send: Callable[[str], Any]) -> None:
        self.id = secrets.token_hex(4)
        self.send = send
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.log_sent = 0
        self.closed = False
        self.talk_times: list[float] = []

    def put(self, obj: dict[str, Any]) -> None:
        if self.closed:
            return
        if self.queue.qsize() > QUEUE_LIMIT:  # a client that does not read: drop it
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(json.dumps(obj, separators=(",", ":")))

    async def pump(self) -> None:
        """Send the queued messages in order until ``close``."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            await self.send(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


class Table:
    """A game being played at one table (see the module docstring)."""

    def __init__(self, manager: "TableManager", data: TableData) -> None:
        self.manager = manager
        self.id = data.id
        self.game = get_game(data.game)
        self.config = dict(data.config)
        self.seed = data.seed
        self.created_at = data.created_at
        self.seats = [Seat(s.seat, s.kind, s.bot, s.token_hash, s.bot_replaces) for s in data.seats]
        self.match = Match(self.game, self.config, self.seed)
        self.move_seats: list[int | None] = []
        self.side_move: list[bool] = []
        for ply, seat, action in data.moves:
            if ply != len(self.match.actions):
                raise RegaliaError(f"table {self.id}: the move log has a gap at ply {ply}")
            self._replay(seat, action)
        self.messages: list[dict[str, Any]] = list(data.messages)
        self.conns: set[Conn] = set()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.wake.set()
        self.bot_task: asyncio.Task | None = None
        self.bot_rng = random.Random(secrets.randbits(64))
        self.wished: set[tuple[int, int]] = set()  # (window ply, seat) asked for a wish
        self.closing = False
        self._legal_cache: tuple[int, list[str]] = (-1, [])

    # -- state -----------------------------------------------------------------------

    @property
    def ply(self) -> int:
        return len(self.match.actions)

    @property
    def state(self) -> Any:
        return self.match.state

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.match.state)

    def _replay(self, seat: int | None, action: str) -> None:
        before = self.game.current_seat(self.match.state)
        self.match.play(action)
        self.move_seats.append(seat)
        self.side_move.append(seat is not None and seat != before)

    def seat_of_token(self, token: Any) -> int | None:
        if not isinstance(token, str) or not token or len(token) > 100:
            return None
        h = token_hash(token)
        for s in self.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                return s.index
        return None

    def seats_info(self) -> list[dict[str, Any]]:
        connected = [0] * len(self.seats)
        for c in self.conns:
            if c.seat is not None:
                connected[c.seat] += 1
        return [{"seat": s.index, "kind": s.kind, "bot": s.bot_name if s.kind == BOT
                 else (gamekit.default_bot(self.game.name) if s.bot_replaces else None),
                 "bot_replaces": s.bot_replaces, "connected": connected[s.index] > 0}
                for s in self.seats]

    def summary(self) -> dict[str, Any]:
        """Public facts about the table (lobby lists)."""
        return {"id": self.id, "game": self.game.name, "players": len(self.seats),
                "status": FINISHED if self.finished else "playing", "ply": self.ply,
                "current": self.game.current_seat(self.state), "seats": self.seats_info(),
                "options": {k: v for k, v in self.config.items() if k != "players"},
                "created_at": self.created_at.isoformat() if self.created_at else None,
                "outcome": gamekit.outcome(self.game, self.state)}

    def state_message(self, seat: int | None, view: dict[str, Any], log_from: int) -> dict[str, Any]:
        """The ``state`` message for a connection of ``seat``: its view (the log as a tail
        from ``log_from``), and its legal actions when it is to act."""
        g, st = self.game, self.state
        view = dict(view)
        log_all = view.pop("log", []) or []
        current = g.current_seat(st)
        legal: list[str] = []
        side: list[str] = []
        if seat is not None and not self.finished and not self.seats[seat].by_bot:
            if current == seat:
                if self._legal_cache[0] != self.ply:
                    self._legal_cache = (self.ply, [g.action_to_text(st, a)
                                                    for a in list(g.legal_actions(st))])
                legal = self._legal_cache[1]
            side = gamekit.side_texts(g, st, seat)
        return {"type": "state", "table": self.id, "game": g.name, "ply": self.ply,
                "seat": seat, "current": current, "finished": self.finished,
                "outcome": gamekit.outcome(g, st), "view": view, "legal": legal, "side": side,
                "log_start": log_from, "log": log_all[log_from:], "seats": self.seats_info()}

    # -- connections -----------------------------------------------------------------

    def join(self, conn: Conn, seat: int | None) -> None:
        conn.seat = seat
        conn.log_sent = 0
        self.conns.add(conn)
        conn.put({"type": "welcome", "table": self.id, "game": self.game.name, "seat": seat,
                  "players": len(self.seats), "options": self.config,
                  "talk": "say" if self.game.name == "regicide" else "chat",
                  "sayings": list(gamekit.SAYINGS) if self.game.name == "regicide" else []})
        self._send_state(conn, self.game.view(self.state, seat))
        if self.messages:
            conn.put({"type": "talk_history", "messages": self.messages[-50:]})
        self._broadcast_seats(exclude=conn)

    def leave(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self._broadcast_seats()

    def _send_state(self, conn: Conn, view: dict[str, Any]) -> None:
        msg = self.state_message(conn.seat, view, conn.log_sent)
        conn.log_sent = msg["log_start"] + len(msg["log"])
        conn.put(msg)

    def broadcast_state(self) -> None:
        views: dict[int | None, dict[str, Any]] = {}
        for conn in list(self.conns):
            if conn.seat not in views:
                views[conn.seat] = self.game.view(self.state, conn.seat)
            self._send_state(conn, views[conn.seat])

    def _broadcast_seats(self, exclude: Conn | None = None) -> None:
        msg = {"type": "seats", "seats": self.seats_info()}
        for conn in list(self.conns):
            if conn is not exclude:
                conn.put(msg)

    def broadcast(self, msg: dict[str, Any]) -> None:
        for conn in list(self.conns):
            conn.put(msg)

    # -- moves -----------------------------------------------------------------------

    async def submit(self, seat: int | None, action: Any, ply: Any = None, *,
                     by_bot: bool = False) -> list[Any]:
        """Validate, store, apply and announce ``action`` of ``seat``; returns the events.

        ``ply`` is the number of moves the submitter saw; a side action may leave it out.
        Raises ``Refusal`` (nothing changed).
        """
        if seat is None:
            raise Refusal("spectator", "spectators cannot act")
        if not isinstance(action, str) or not action.strip() or len(action) > MAX_ACTION:
            raise Refusal("bad_action", f"action: give the action as text, at most "
                                        f"{MAX_ACTION} characters, e.g. 'play 5C'")
        if ply is not None and (type(ply) is not int or ply < 0):
            raise Refusal("bad_message", "ply: must be the number of moves you saw (an integer)")
        async with self.lock:
            g, st = self.game, self.state
            if self.finished:
                raise Refusal("finished", "the game is over: no action is allowed")
            s = self.seats[seat]
            if s.by_bot and not by_bot:
                raise Refusal("bot_seat", "a bot is playing this seat: take the seat back first")
            current = g.current_seat(st)
            owner = gamekit.side_owner(action.strip())
            if owner is not None and owner != seat:
                raise Refusal("wrong_seat", f"seat {seat} may only state its own wish")
            side = owner is not None and current != seat
            if not side and current != seat:
                raise Refusal("not_your_turn",
                              f"it is not your turn: seat {current} is to act")
            if ply is None and owner is None:
                raise Refusal("bad_message", "ply: an action needs the ply you saw")
            if ply is not None and ply != self.ply:
                if ply > self.ply or not self._only_others_side_moves_since(ply, seat):
                    raise Refusal("stale", f"stale submission: you saw ply {ply} but the game "
                                           f"is at ply {self.ply}; nothing was applied")
            m = self.match
            saved = (m.state, m.rng.getstate())
            try:
                events = m.play(action.strip())
            except RegaliaError as e:
                # The engine's reason may list the acting seat's own hand: only that seat
                # is ever told (and a side action's reason names nobody's cards).
                reason = e.reason() if isinstance(e, IllegalAction) else None
                raise Refusal("illegal", str(e), reason) from None
            text = m.actions[-1]
            new_ply = len(m.actions) - 1
            try:
                await self.manager.append_move(self.id, new_ply, seat, text, g.is_terminal(m.state))
            except asyncio.CancelledError:
                # Only at shutdown: whether the move was stored is unknown here, and the
                # database is the truth the next start rebuilds from.
                self.closing = True
                raise
            except Exception as e:
                m.state = saved[0]
                m.rng.setstate(saved[1])
                m.actions.pop()
                if isinstance(e, Conflict):
                    raise Refusal("stale", "stale submission: another move was stored at "
                                           "this ply; nothing was applied") from None
                log.exception("table %s: storing ply %s failed", self.id, new_ply)
                raise Refusal("storage", "the move could not be saved; try again") from None
            self.move_seats.append(seat)
            self.side_move.append(side)
            self.broadcast_state()
        self.manager.moves_applied += 1
        self.wake.set()
        return events

    def _only_others_side_moves_since(self, ply: int, seat: int) -> bool:
        """Every move after ``ply`` is another seat's side action (a wish): the submitter's
        picture of the game is still right, so its action is not stale."""
        return all(self.side_move[i] and self.move_seats[i] != seat
                   for i in range(ply, self.ply))

    async def set_bot(self, by_seat: int | None, seat: Any, on: Any) -> None:
        """Hand a human seat to a bot (``on``) or take it back. A seat may hand itself over or
        take itself back; any seated player may hand over a human seat nobody is connected
        to."""
        if by_seat is None:
            raise Refusal("spectator", "spectators cannot change seats")
        if type(seat) is not int or not 0 <= seat < len(self.seats) or type(on) is not bool:
            raise Refusal("bad_message", "bot: give seat (a seat number) and on (true/false)")
        s = self.seats[seat]
        if s.kind != HUMAN:
            raise Refusal("wrong_seat", f"seat {seat} is a bot seat")
        if on and seat != by_seat and any(c.seat == seat for c in self.conns):
            raise Refusal("wrong_seat", f"seat {seat} is connected: only that player may "
                                        "hand it to a bot")
        if not on and seat != by_seat:
            raise Refusal("wrong_seat", "only the seat's own player may take it back")
        async with self.lock:
            if s.bot_replaces == on:
                return
            await self.manager.db(self.manager.store.set_bot_replaces, self.id, seat, on)
            s.bot_replaces = on
            self.broadcast_state()
        self.wake.set()

    async def talk(self, conn: Conn, kind: str, payload: Any) -> None:
        """A ``say`` (Regicide's fixed public messages) or ``chat`` (Ribauds) message."""
        if conn.seat is None:
            raise Refusal("spectator", "spectators cannot send messages")
        now = time.monotonic()
        conn.talk_times = [t for t in conn.talk_times if now - t < 10]
        if len(conn.talk_times) >= 8:
            raise Refusal("too_fast", "too many messages: wait a few seconds")
        if kind == "say":
            said = gamekit.say(self.game, self.state, conn.seat, payload) if isinstance(payload, str) else None
            if said is None:
                if self.game.name == "regicide":
                    raise Refusal("bad_message", "message_id: choose one of "
                                  + ", ".join(gamekit.SAYINGS))
                raise Refusal("bad_message", "this game has free chat: send type chat")
            body = {"kind": "say", "seat": conn.seat, "ply": self.ply, **said}
        else:
            if not gamekit.chat_allowed(self.game.name):
                raise Refusal("no_chat", "Regicide allows no free chat (rules 1.15): choose "
                                         "one of the allowed messages")
            text = gamekit.clean_chat(payload)
            if text is None:
                raise Refusal("bad_message", f"text: 1 to {gamekit.CHAT_MAX} characters")
            body = {"kind": "chat", "seat": conn.seat, "ply": self.ply, "text": text}
        conn.talk_times.append(now)
        await self.manager.db(self.manager.store.add_message, self.id, conn.seat, body["kind"], body)
        self.messages.append(body)
        del self.messages[:-100]
        self.broadcast({"type": "talk", **body})

    # -- bots ------------------------------------------------------------------------

    def start(self) -> None:
        if self.bot_task is None and not self.finished:
            self.bot_task = asyncio.get_running_loop().create_task(self._bot_loop())

    async def stop(self) -> None:
        self.closing = True
        if self.bot_task is not None:
            self.bot_task.cancel()
            try:
                await self.bot_task
            except (asyncio.CancelledError, Exception):
                pass
        for conn in list(self.conns):
            conn.close()

    def _bot_of(self, seat: int) -> Any:
        s = self.seats[seat]
        if s.bot is None or s.bot.name != (s.bot_name if s.kind == BOT else
                                           gamekit.default_bot(self.game.name)):
            name = s.bot_name if s.kind == BOT else gamekit.default_bot(self.game.name)
            try:
                s.bot = make_bot(self.game.name, name)
            except KeyError:
                s.bot = make_bot(self.game.name, "random")
        return s.bot

    def _window(self) -> int:
        """The ply that opened the current side-action window (the last non-side move)."""
        for i in range(self.ply - 1, -1, -1):
            if not self.side_move[i]:
                return i
        return -1

    def _bot_job(self) -> tuple[str, int] | None:
        """The next thing a bot has to do: ``("wish", seat)`` or ``("act", seat)``."""
        if self.finished or self.closing:
            return None
        g, st = self.game, self.state
        if hasattr(g, "side_actions"):
            window = self._window()
            for s in self.seats:
                if s.by_bot and (window, s.index) not in self.wished \
                        and gamekit.side_texts(g, st, s.index):
                    return ("wish", s.index)
        current = g.current_seat(st)
        if current is not None and self.seats[current].by_bot:
            return ("act", current)
        return None

    async def _bot_loop(self) -> None:
        while not self.closing:
            await self.wake.wait()
            self.wake.clear()
            while True:
                job = self._bot_job()
                if job is None:
                    break
                kind, seat = job
                ply = self.ply
                if kind == "wish":
                    self.wished.add((self._window(), seat))
                    text = await self._decide_wish(seat)
                    if text is None:
                        continue
                else:
                    if self.manager.bot_delay > 0:
                        await asyncio.sleep(self.manager.bot_delay)
                    if self.ply != ply or self._bot_job() != job:
                        continue
                    text = await self._decide(seat)
                try:
                    await self.submit(seat, text, ply, by_bot=True)
                except Refusal as e:
                    if e.code in ("illegal",):
                        log.warning("table %s: bot move %r refused: %s", self.id, text, e.message)
                        await self._random_move(seat)
                except Exception:  # pragma: no cover - never let one table's bot die
                    log.exception("table %s: bot move failed", self.id)
                    await asyncio.sleep(1)

    async def _decide(self, seat: int) -> str:
        g, st = self.game, self.state
        bot = self._bot_of(seat)
        view = g.view(st, seat)
        legal = list(g.legal_actions(st))
        rng = self.bot_rng
        budget = self.manager.bot_budget

        def think() -> str:
            try:
                a = bot.act(view, legal, rng, budget)
                return g.action_to_text(st, a)
            except Exception:
                log.exception("table %s: bot %s failed; playing at random", self.id, bot.name)
                return g.action_to_text(st, legal[rng.randrange(len(legal))])

        return await asyncio.to_thread(think)

    async def _decide_wish(self, seat: int) -> str | None:
        g, st = self.game, self.state
        bot = self._bot_of(seat)
        wish = getattr(bot, "wish", None)
        if wish is None:
            return None
        view = g.view(st, seat)
        try:
            value = await asyncio.to_thread(wish, view, self.bot_rng)
        except Exception:
            log.exception("table %s: bot wish failed", self.id)
            return None
        text = gamekit.wish_text(g.name, seat, value) if value else None
        return text if text in gamekit.side_texts(g, st, seat) else None

    async def _random_move(self, seat: int) -> None:
        g, st = self.game, self.state
        if g.current_seat(st) != seat:
            return
        legal = list(g.legal_actions(st))
        if legal:
            text = g.action_to_text(st, legal[self.bot_rng.randrange(len(legal))])
            try:
                await self.submit(seat, text, self.ply, by_bot=True)
            except Refusal:
                pass


class TableManager:
    """All tables of one server: created, loaded from the database on demand (and every
    unfinished one at start, so bots carry on), and stopped at shutdown."""

    def __init__(self, store: Store, *, bot_delay: float = 0.6, bot_budget: float | None = 0.5) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.bot_budget = bot_budget
        self.tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        # One writer thread for SQLite (a single-writer database); a few for a server.
        workers = 1 if store.engine.dialect.name == "sqlite" else 4
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="regalia-db")
        self.moves_applied = 0
        self._pending: list[tuple[tuple, asyncio.Future]] = []
        self._pending_event = asyncio.Event()
        self._writer: asyncio.Task | None = None

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def append_move(self, table_id: str, ply: int, seat: int | None, action: str,
                          finished: bool) -> None:
        """Store one move durably; moves submitted while a write is under way are stored
        together in the next transaction (group commit: one disk sync for many tables).
        Returns once the move's transaction has committed; raises ``Conflict``."""
        fut = asyncio.get_running_loop().create_future()
        self._pending.append(((table_id, ply, seat, action, finished), fut))
        self._pending_event.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        await asyncio.shield(fut)

    async def _write_loop(self) -> None:
        while True:
            await self._pending_event.wait()
            self._pending_event.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            try:
                results = await self.db(self.store.append_moves, [m for m, _ in batch])
            except Exception as e:  # pragma: no cover - the database went away
                results = [e] * len(batch)
            for (_, fut), res in zip(batch, results):
                if fut.done():
                    continue
                if res is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(res)

    async def start(self) -> None:
        """Rebuild every unfinished table from its move log and restart its bots."""
        for table_id in await self.db(self.store.active_table_ids):
            try:
                await self.get(table_id)
            except Exception:
                log.exception("table %s could not be rebuilt from its move log", table_id)

    async def stop(self) -> None:
        for t in list(self.tables.values()):
            await t.stop()
        if self._writer is not None:
            for _ in range(50):  # let the moves already submitted reach the disk
                if not self._pending:
                    break
                await asyncio.sleep(0.02)
            self._writer.cancel()
            try:
                await self._writer
            except (asyncio.CancelledError, Exception):
                pass
        self.executor.shutdown(wait=True)

    async def get(self, table_id: str) -> Table | None:
        if not isinstance(table_id, str) or not table_id.isascii() or len(table_id) > 32:
            return None
        t = self.tables.get(table_id)
        if t is not None:
            return t
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            t = self.tables.get(table_id)
            if t is None:
                data = await self.db(self.store.load_table, table_id)
                if data is None:
                    return None
                t = Table(self, data)
                self.tables[table_id] = t
                t.start()
        return t

    async def create(self, game: Any, players: Any, options: Any, seats: Any,
                     seed: Any = None) -> tuple[Table, list[str | None]]:
        """A new table; returns it and the seat tokens. Raises ``Refusal`` (bad request)."""
        if game not in GAME_NAMES:
            raise Refusal("bad_request", f"game: choose one of {', '.join(GAME_NAMES)}")
        g = get_game(game)
        if type(players) is not int or not g.min_players <= players <= g.max_players:
            raise Refusal("bad_request", f"players: {g.name} is for {g.min_players} to "
                                         f"{g.max_players} players")
        options = options or {}
        if not isinstance(options, dict) or "players" in options:
            raise Refusal("bad_request", "options: an object of rule options")
        if not isinstance(seats, list) or len(seats) != players:
            raise Refusal("bad_request", f"seats: give one entry per player ({players})")
        kinds: list[tuple[str, str | None]] = []
        for i, s in enumerate(seats):
            kind = s.get("kind") if isinstance(s, dict) else None
            if kind == HUMAN:
                kinds.append((HUMAN, None))
            elif kind == BOT:
                name = s.get("bot") or gamekit.default_bot(game)
                try:
                    make_bot(game, name)
                except KeyError as e:
                    raise Refusal("bad_request", f"seats[{i}].bot: {e.args[0]}") from None
                kinds.append((BOT, name))
            else:
                raise Refusal("bad_request", f"seats[{i}].kind: human or bot")
        if seed is None:
            seed = secrets.randbits(52)
        elif type(seed) is not int or not 0 <= seed < 2 ** 62:
            raise Refusal("bad_request", "seed: a non-negative integer")
        config = {"players": players, **options}
        try:
            Match(g, config, seed)
        except RegaliaError as e:
            raise Refusal("bad_request", f"options: {e}") from None
        table_id, tokens = await self.db(self.store.create_table, game, config, seed, kinds)
        table = await self.get(table_id)
        assert table is not None
        return table, tokens
