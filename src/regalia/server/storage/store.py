"""The tables' database: a small synchronous ``Store`` over the models of ``models``.

A table is its game, config and seed, its seats, and its append-only move log (design.md,
"records"): everything else is rebuilt from them. ``UNIQUE(table_id, ply)`` makes it
impossible to store two moves at one ply, so a stale or duplicate submission can never be
applied twice, even by two server processes.

The schema is created and upgraded by the Alembic migrations shipped in
``regalia/server/migrations`` (``migrate``), never by ``create_all``, so a newer version
opens an older database. SQLite (the default) runs in WAL mode with ``synchronous=FULL``:
a move that was acknowledged survives a ``kill -9`` and a power cut (``sync="normal"``:
it survives a ``kill -9``; a power cut may lose the last moves, never the database).

The ``Store`` methods are blocking (its engine and deadlines: ``database.Database``; its
hot statements: ``statements``); the server calls them on its database thread
(``writer.Writer``; one thread for SQLite, the single writer), never on its event loop, so
that a stalled disk stops no one but the writes.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from regalia.server.storage.database import (DEFAULT_DATABASE_URL, Database, NotSynced,
                                             StoreUnavailable, TooLate, io_error, reason)
from regalia.server.storage.models import (ABANDONED, BOT, HUMAN, PLAYING, GameTable, MoveRow,
                                           SeatRow, now, read_ending, token_hash, utc)
from regalia.server.storage.statements import (INSERT_MESSAGE, INSERT_MOVES, INSERT_SEATS,
                                               INSERT_TABLE, LOAD_MESSAGES, LOAD_MOVES,
                                               LOAD_SEATS, LOAD_TABLE, SEAT_HANDED_OVER,
                                               TABLE_EXISTS, TOUCH_TABLE, seat_update)
from regalia.server.storage.values import Conflict, SeatData, SeatHandedOver, TableData, NewSeat

__all__ = ["DEFAULT_DATABASE_URL", "NotSynced", "Store", "StoreUnavailable", "TooLate",
           "deadline_of", "io_error", "reason"]


def deadline_of(clock_state: dict[str, Any] | None) -> datetime | None:
    """The ``turn_deadline`` column of a table whose clocks are ``clock_state``
    (``Clock.to_json``): its ``deadline`` (wall seconds) as a UTC time; ``None`` for a live
    clock, a clock not started, or none."""
    at = (clock_state or {}).get("deadline")
    return datetime.fromtimestamp(float(at), timezone.utc) if at is not None else None


class Store(Database):
    """The blocking database API of the server (one instance per database; its engines,
    deadlines and syncs: ``database.Database``)."""

    # -- tables ----------------------------------------------------------------------

    def create_table(self, *args: Any, **kwargs: Any) -> tuple[str, list[str | None], str]:
        """Store a new table (the arguments of ``new_table``); returns ``(table_id, tokens,
        watch_token)``."""
        data, tokens = self.new_table(*args, **kwargs)
        return data.id, tokens, data.watch_token

    def new_table(self, game: str, config: dict[str, Any], seed: int,
                  seats: list[tuple[str, str | None] | NewSeat], *, is_open: bool = False,
                  clock: dict[str, Any] | None = None,
                  clock_state: dict[str, Any] | None = None,
                  after: str | None = None,
                  hints: bool = False,
                  creator: str | None = None,
                  rated: bool = False,
                  also: Callable[[Connection, str], None] | None = None
                  ) -> tuple[TableData, list[str | None]]:
        """Store a new table; returns it as ``load_table`` would read it (without reading it
        back) and one fresh secret token per human seat (``None`` for bot seats and for
        seats that reuse a token's hash). Only the seat tokens' hashes are stored (the
        spectators' token, which shows only the public view, is kept to hand it to the
        seats). ``after``: the finished table this one is the rematch of (its
        ``next_table`` is set in the same transaction; ``Conflict`` when it already has
        one, nothing stored; each seat that reuses a token of that table keeps the account
        linked to it there); ``hints``: a solo table with the Hint button; ``creator``: an
        open table's creator key (``open_tables_of``); ``rated``: a rated game (each seat's
        ``account_id``, when given, links it to that account at once); ``also(conn,
        table_id)``: more rows of the new table, written in its transaction once the table
        and its seats are (what it raises rolls everything back and is raised: e.g.
        ``daily.DailyStore.recorder``'s ``AlreadyPlayed``). The table's random id is
        written without a check first: when it is taken, the transaction is rolled back and
        written again with another."""
        seats = [s if isinstance(s, NewSeat) else NewSeat(*s) for s in seats]
        tokens: list[str | None] = [secrets.token_urlsafe(18)
                                    if s.kind == HUMAN and s.token_hash is None else None
                                    for s in seats]
        watch = secrets.token_urlsafe(18)
        for attempt in range(8):  # a new random id; taken (once in ~10^14), another
            table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
            try:
                with self.engine.begin() as conn:
                    t = now()
                    conn.execute(INSERT_TABLE, {
                        "id": table_id, "game": game, "config": config, "seed": seed,
                        "status": PLAYING, "created_at": t, "updated_at": t,
                        "watch_token": watch, "is_open": is_open, "clock": clock,
                        "clock_state": clock_state, "hints": hints, "next_table": None,
                        "creator": creator, "rated": bool(rated),
                        "turn_deadline": deadline_of(clock_state)})
                    stored = [SeatData(i, s.kind, s.bot,
                                       token_hash(tok) if tok else s.token_hash,
                                       False, s.name, s.claimed, s.account_id)
                              for i, (s, tok) in enumerate(zip(seats, tokens))]
                    conn.execute(INSERT_SEATS, [
                        {"table_id": table_id, "seat": d.seat, "kind": d.kind, "bot": d.bot,
                         "token_hash": d.token_hash, "bot_replaces": False, "name": d.name,
                         "claimed": d.claimed, "account_id": d.account_id} for d in stored])
                    if after is not None and conn.execute(
                            update(GameTable).where(GameTable.id == after,
                                                    GameTable.next_table.is_(None))
                            .values(next_table=table_id)).rowcount != 1:
                        raise Conflict(f"table {after} already has its rematch")  # rolled back
                    if after is not None:  # a seat with the same token keeps its account
                        old = SeatRow.__table__.alias("old")
                        conn.execute(update(SeatRow).where(SeatRow.table_id == table_id)
                                     .values(account_id=select(old.c.account_id).where(
                                         old.c.table_id == after,
                                         old.c.token_hash == SeatRow.token_hash,
                                         old.c.token_hash.is_not(None))
                                         .limit(1).scalar_subquery()))
                        linked = dict(conn.execute(select(SeatRow.seat, SeatRow.account_id)
                                                   .where(SeatRow.table_id == table_id)).all())
                        for d in stored:
                            d.account_id = linked.get(d.seat)
                    if also is not None:
                        also(conn, table_id)
            except IntegrityError:
                if attempt == 7 or not self.table_exists(table_id):
                    raise
                continue
            break
        return TableData(table_id, game, dict(config), seed, PLAYING, t, stored, watch,
                         is_open=bool(is_open), clock=clock, clock_state=clock_state,
                         hints=bool(hints), rated=bool(rated)), tokens

    def table_exists(self, table_id: str) -> bool:
        """Whether a table with this id is stored."""
        with self.engine.connect() as conn:
            return conn.execute(TABLE_EXISTS, {"p_table_id": table_id}).first() is not None

    def load_table(self, table_id: str, messages: int = 50) -> TableData | None:
        """The stored table with its seats, moves (in ply order), its ending when the
        players ended it (its ending row, read apart from the moves: ``models``) and latest
        messages."""
        with self.engine.connect() as conn:
            key = {"p_table_id": table_id}
            row = conn.execute(LOAD_TABLE, key).mappings().first()
            if row is None:
                return None
            seats = [SeatData(r.seat, r.kind, r.bot, r.token_hash, bool(r.bot_replaces),
                              r.name, bool(r.claimed), r.account_id)
                     for r in conn.execute(LOAD_SEATS, key)]
            rows = conn.execute(LOAD_MOVES, key).all()
            moves, ending = [], None
            for r in rows:  # an ending row is the last (models)
                ending = read_ending(r.seat, r.action)
                if ending is not None:
                    break
                moves.append((r.ply, r.seat, r.action))
            msgs = [dict(r.body) for r in conn.execute(
                LOAD_MESSAGES, {"p_table_id": table_id, "p_limit": messages})]
        msgs.reverse()
        return TableData(row["id"], row["game"], dict(row["config"]), int(row["seed"]),
                         row["status"], utc(row["created_at"]), seats, row["watch_token"],
                         moves, msgs, bool(row["is_open"]), row["clock"], row["clock_state"],
                         row["next_table"], bool(row["hints"]),
                         [r.ply for r in rows if r.by_bot], ending, bool(row["rated"]))

    def active_table_ids(self, due_within: float = 120.0) -> list[str]:
        """Ids of the tables still being played that have a bot seat or a seat handed to a
        bot (the ones whose bots may have to carry on), a live clock or a turn-based one not
        started yet (whose time may run out), or a turn-based clock whose deadline comes
        within ``due_within`` seconds (or passed), oldest first. A turn-based table whose
        player has longer is left out: it is loaded when its deadline nears
        (``due_turn_ids``) or when someone opens it."""
        due = now() + timedelta(seconds=due_within)
        with self.engine.connect() as conn:
            bots = select(SeatRow.table_id).where((SeatRow.kind == BOT) | SeatRow.bot_replaces)
            clocked = GameTable.clock.is_not(None) & GameTable.turn_deadline.is_(None)
            return [r[0] for r in conn.execute(select(GameTable.id)
                                               .where(GameTable.status == PLAYING,
                                                      GameTable.id.in_(bots) | clocked
                                                      | (GameTable.turn_deadline <= due))
                                               .order_by(GameTable.created_at))]

    def due_turn_ids(self, before: datetime, limit: int = 500) -> list[str]:
        """Ids of the turn-based tables still being played whose player to act runs out of
        time before ``before`` (their ``turn_deadline``), the earliest first, at most
        ``limit``."""
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(GameTable.id).where(GameTable.status == PLAYING,
                                           GameTable.turn_deadline <= before)
                .order_by(GameTable.turn_deadline).limit(limit))]

    def seats_with_tokens(self, seats: list[tuple[str, str]]) -> list[tuple[str, int]]:
        """Of the ``(table_id, token_hash)`` pairs given, the human seats they prove at
        tables still being played: ``(table_id, seat)``, in the order asked (a pair that
        proves no seat is left out)."""
        if not seats:
            return []
        asked = set(seats)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(SeatRow.table_id, SeatRow.seat, SeatRow.token_hash)
                .join(GameTable, GameTable.id == SeatRow.table_id)
                .where(SeatRow.table_id.in_({t for t, _ in asked}),
                       SeatRow.token_hash.in_({h for _, h in asked}),
                       SeatRow.kind == HUMAN, GameTable.status == PLAYING)).all()
        found = {(r.table_id, r.token_hash): r.seat for r in rows}
        return [(t, found[t, h]) for t, h in dict.fromkeys(seats) if (t, h) in found]

    def account_seats(self, table_id: str, account_id: int) -> list[int]:
        """The human seats of table ``table_id`` linked to ``account_id`` (an account opens
        them by its session, without their tokens), in seat order."""
        with self.engine.connect() as conn:
            return [r.seat for r in conn.execute(
                select(SeatRow.seat)
                .where(SeatRow.table_id == table_id, SeatRow.account_id == account_id,
                       SeatRow.kind == HUMAN)
                .order_by(SeatRow.seat))]

    def playing_seats_of(self, account_id: int, limit: int = 100) -> list[tuple[str, int]]:
        """The seats linked to ``account_id`` at tables still being played, ``(table_id,
        seat)``, the table played latest first, at most ``limit``."""
        with self.engine.connect() as conn:
            return [(r.table_id, r.seat) for r in conn.execute(
                select(SeatRow.table_id, SeatRow.seat)
                .join(GameTable, GameTable.id == SeatRow.table_id)
                .where(SeatRow.account_id == account_id, GameTable.status == PLAYING)
                .order_by(GameTable.updated_at.desc(), SeatRow.table_id).limit(limit))]

    def open_tables(self, limit: int, per_creator: int = 1) -> list[dict[str, Any]]:
        """The open tables still being played that have a free (unclaimed) human seat, at
        most ``limit``, in a fair mix: each creator's newest table first (newest first),
        then each one's second newest, and so on (a table stored without a creator counts
        as its own), so that one creator's many tables cannot push the others' out of the
        list (``rated``: a rated game). ``per_creator``: the most open tables a creator may have
        (``open_tables_of``): the newest ``limit * per_creator`` tables hold the newest of
        at least ``limit`` creators, so no older one is read. Each: ``{"id", "game",
        "config", "clock", "created_at", "seats": [{"seat", "kind", "bot", "name",
        "claimed"}], "rated"}``."""
        with self.engine.connect() as conn:
            free = select(SeatRow.table_id).where(SeatRow.kind == HUMAN, ~SeatRow.claimed)
            listed = (GameTable.is_open, GameTable.status == PLAYING, GameTable.id.in_(free))
            scan = conn.execute(select(GameTable.id, GameTable.creator)
                                .where(*listed)
                                .order_by(GameTable.created_at.desc(), GameTable.id)
                                .limit(limit * max(1, per_creator))).all()
            rank: dict[str, int] = {}
            order = []
            for age, r in enumerate(scan):
                key = r.creator or f"table:{r.id}"
                order.append((rank.get(key, 0), age, r.id))
                rank[key] = rank.get(key, 0) + 1
            ids = [i for *_, i in sorted(order)[:limit]]
            rows = {r.id: r for r in conn.execute(
                select(GameTable.id, GameTable.game, GameTable.config, GameTable.clock,
                       GameTable.created_at, GameTable.rated)
                .where(GameTable.id.in_(ids)))} if ids else {}
            seats: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
            if ids:
                for r in conn.execute(select(SeatRow).where(SeatRow.table_id.in_(ids))
                                      .order_by(SeatRow.seat)):
                    seats[r.table_id].append({"seat": r.seat, "kind": r.kind, "bot": r.bot,
                                              "name": r.name, "claimed": bool(r.claimed)})
        return [{"id": r.id, "game": r.game, "config": dict(r.config), "clock": r.clock,
                 "created_at": utc(r.created_at), "seats": seats[r.id], "rated": bool(r.rated)}
                for r in (rows[i] for i in ids if i in rows)]

    def open_tables_of(self, creator: str) -> int:
        """How many open tables ``creator`` (a creator key) has listed: still being played,
        with a free human seat."""
        with self.engine.connect() as conn:
            free = select(SeatRow.table_id).where(SeatRow.kind == HUMAN, ~SeatRow.claimed)
            return conn.execute(select(func.count()).select_from(GameTable).where(
                GameTable.creator == creator, GameTable.is_open,
                GameTable.status == PLAYING, GameTable.id.in_(free))).scalar_one()

    def expire_tables(self, before: datetime) -> list[str]:
        """Mark abandoned every table still being played whose last move or message (or its
        creation) is older than ``before``; returns their ids."""
        with self.engine.begin() as conn:
            ids = [r[0] for r in conn.execute(select(GameTable.id).where(
                GameTable.status == PLAYING, GameTable.updated_at < before))]
            if ids:
                conn.execute(update(GameTable).where(GameTable.id.in_(ids))
                             .values(status=ABANDONED))
        return ids

    def count_tables(self) -> int:
        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(GameTable)).scalar_one()

    # -- moves -----------------------------------------------------------------------

    def append_move(self, table_id: str, ply: int, seat: int | None, action: str,
                    finished: bool = False, clock_state: dict[str, Any] | None = None,
                    human: bool = False, by_bot: bool = False) -> None:
        """Store the move at ``ply`` in one transaction (and mark the table finished when the
        move ends the game; ``clock_state``: the table's clocks after the move; ``by_bot``: a
        bot played it for a human seat). An ending row (``models.ending_action``, with
        ``finished``) is stored the same way, at the ply after the last move. Raises
        ``Conflict`` when that ply is already stored, and ``SeatHandedOver`` when ``human``
        (a human's own move on a table with clocks) and the seat is stored as played by a bot.

        The table's row is written first: it is the lock that orders a move and a time-out
        (``set_bot_replaces`` with ``expect_ply``) of replicas racing on one table."""
        try:
            with self.engine.begin() as conn:
                self._write_moves(conn, [(table_id, ply, seat, action, finished, clock_state,
                                          human, by_bot)], now())
        except IntegrityError as e:
            raise Conflict(f"table {table_id}: ply {ply} is already stored") from e

    @staticmethod
    def _write_moves(conn: Connection, moves: list[tuple], t: datetime) -> None:
        """The statements of ``append_moves`` in ``conn``'s transaction: each table's row
        first, in one order (two replicas' batches cannot deadlock; a run of rows with the
        same change is one ``executemany``), the human seats' check after its table's row,
        then the moves."""
        rows = []
        touch: Any = None  # the statement of the run of rows not yet written, and theirs
        touches: list[dict[str, Any]] = []

        def write_touches() -> None:
            if touches:
                conn.execute(touch, touches)
                touches.clear()

        for table_id, ply, seat, action, finished, *rest in sorted(moves, key=lambda m: m[:2]):
            clock_state = rest[0] if rest else None
            statement = TOUCH_TABLE[bool(finished), clock_state is not None]
            if statement is not touch:
                write_touches()
                touch = statement
            touches.append({"p_table_id": table_id, "p_t": t, "p_clock_state": clock_state,
                            "p_deadline": deadline_of(clock_state)})
            if len(rest) > 1 and rest[1]:
                write_touches()
                if conn.execute(SEAT_HANDED_OVER, {"p_table_id": table_id,
                                                    "p_seat": seat}).scalar():
                    raise SeatHandedOver(f"table {table_id}: seat {seat}'s time ran out first")
            rows.append({"table_id": table_id, "ply": ply, "seat": seat, "action": action,
                         "created_at": t, "by_bot": len(rest) > 2 and bool(rest[2])})
        write_touches()
        conn.execute(INSERT_MOVES, rows)

    def append_moves(self, moves: list[tuple]) -> list[Exception | None]:
        """Store several moves (of different tables) in one transaction: one durable write
        for all (group commit). Returns, per move, ``None`` (stored) or the exception that
        refused it; if the batch is refused as a whole (a ply taken, a seat handed over),
        each move is retried on its own. A move is ``(table_id, ply, seat, action,
        finished[, clock_state[, human[, by_bot]]])`` (as ``append_move``'s arguments)."""
        if len(moves) > 1:
            try:
                with self.engine.begin() as conn:
                    self._write_moves(conn, moves, now())
                return [None] * len(moves)
            except (IntegrityError, Conflict):
                pass  # each on its own below
        out: list[Exception | None] = []
        for m in moves:
            try:
                self.append_move(*m)
                out.append(None)
            except Exception as e:  # noqa: BLE001 - handed back to the submitter
                out.append(e)
        return out

    def set_bot_replaces(self, table_id: str, seat: int, on: bool,
                         clock_state: dict[str, Any] | None = None,
                         expect_ply: int | None = None) -> None:
        """Hand ``seat`` to a bot (``on``) or back, with the table's clocks after it.
        ``expect_ply``: the number of moves the change was decided at (a time-out); raises
        ``Conflict`` and changes nothing when a move at that ply was stored first (by
        another replica). The table's row is written first (see ``append_move``)."""
        with self.engine.begin() as conn:
            values: dict[str, Any] = {"updated_at": now()}
            if clock_state is not None:
                values["clock_state"] = clock_state
                values["turn_deadline"] = deadline_of(clock_state)
            conn.execute(update(GameTable).where(GameTable.id == table_id).values(**values))
            if expect_ply is not None and conn.execute(select(MoveRow.id).where(
                    MoveRow.table_id == table_id, MoveRow.ply >= expect_ply).limit(1)).first():
                raise Conflict(f"table {table_id}: a move at ply {expect_ply} came first")
            conn.execute(update(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                         .values(bot_replaces=on))

    def set_clock(self, table_id: str, clock_state: dict[str, Any]) -> None:
        """Store the table's clocks alone (``clock_state``: ``Clock.to_json()``)."""
        with self.engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == table_id)
                         .values(clock_state=clock_state, turn_deadline=deadline_of(clock_state)))

    def update_seat(self, table_id: str, seat: int, clock_state: dict[str, Any] | None = None,
                    expect: dict[str, Any] | None = None, **values: Any) -> None:
        """Change a seat's ``name``, ``claimed``, ``token_hash`` or ``account_id`` (with the
        table's clocks when they start). ``expect``: the seat's stored values the change
        needs (e.g. ``{"claimed": False}``); raises ``Conflict`` and changes nothing when
        they differ. A new ``token_hash`` cuts the seat's link to an account (the account
        proved the old token, not the new one) unless ``account_id`` is given with it (a
        rated seat taken by a signed-in account, a seat taken by an account's
        invitation)."""
        expect = expect or {}
        if "token_hash" in values:
            values.setdefault("account_id", None)
        statement = seat_update(tuple(values), tuple((k, v is None) for k, v in expect.items()))
        params = {"p_table_id": table_id, "p_seat": seat, "p_t": now(),
                  "p_clock_state": clock_state, "p_deadline": deadline_of(clock_state)}
        params.update({f"p_{k}": v for k, v in values.items()})
        params.update({f"p_expect_{k}": v for k, v in expect.items() if v is not None})
        with self.engine.begin() as conn:
            if conn.execute(statement, params).rowcount != 1:
                raise Conflict(f"table {table_id}: seat {seat} is no longer {expect}")
            conn.execute(TOUCH_TABLE[False, clock_state is not None], params)

    def add_message(self, table_id: str, seat: int | None, kind: str, body: dict[str, Any]) -> None:
        t = now()
        with self.engine.begin() as conn:
            conn.execute(INSERT_MESSAGE, {"table_id": table_id, "seat": seat, "kind": kind,
                                           "body": body, "created_at": t})
            conn.execute(TOUCH_TABLE[False, False], {"p_table_id": table_id, "p_t": t})
