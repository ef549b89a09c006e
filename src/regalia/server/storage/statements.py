"""The statements of the store's hot paths (a move, a new table, a seat, a table's load),
built once with bound parameters: SQLAlchemy then reuses their cache keys and compiled
forms, where a statement built at each call is coerced, keyed and looked up again (about
half of a move's database CPU). Parameters are named ``p_*``, as a column's own name is
reserved in a SET."""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import bindparam, select, update

from regalia.server.storage.models import FINISHED, GameTable, MessageRow, MoveRow, SeatRow

TABLE_ID = bindparam("p_table_id")
TOUCH_TABLE = {  # the table's row at a move: (finished, with clock_state) -> UPDATE
    (finished, clocked): update(GameTable).where(GameTable.id == TABLE_ID).values(
        updated_at=bindparam("p_t"),
        **({"status": FINISHED} if finished else {}),
        **({"clock_state": bindparam("p_clock_state"),
            "turn_deadline": bindparam("p_deadline")} if clocked else {}))
    for finished in (False, True) for clocked in (False, True)}
SEAT_HANDED_OVER = select(SeatRow.bot_replaces).where(
    SeatRow.table_id == TABLE_ID, SeatRow.seat == bindparam("p_seat"))
INSERT_MOVES = MoveRow.__table__.insert()
INSERT_TABLE = GameTable.__table__.insert()
INSERT_SEATS = SeatRow.__table__.insert()
INSERT_MESSAGE = MessageRow.__table__.insert()
TABLE_EXISTS = select(GameTable.id).where(GameTable.id == TABLE_ID)
LOAD_TABLE = select(GameTable).where(GameTable.id == TABLE_ID)
LOAD_SEATS = select(SeatRow).where(SeatRow.table_id == TABLE_ID).order_by(SeatRow.seat)
LOAD_MOVES = (select(MoveRow.ply, MoveRow.seat, MoveRow.action, MoveRow.by_bot)
               .where(MoveRow.table_id == TABLE_ID).order_by(MoveRow.ply))
LOAD_MESSAGES = (select(MessageRow.body).where(MessageRow.table_id == TABLE_ID)
                  .order_by(MessageRow.id.desc()).limit(bindparam("p_limit")))


@lru_cache(maxsize=64)
def seat_update(columns: tuple[str, ...], expect: tuple[tuple[str, bool], ...]):
    """The UPDATE of a seat's ``columns`` (parameters ``p_<column>``) where the stored seat
    has the expected values (``(column, is None)``; parameters ``p_expect_<column>``)."""
    where = [SeatRow.table_id == TABLE_ID, SeatRow.seat == bindparam("p_seat")]
    where += [getattr(SeatRow, k).is_(None) if none
              else getattr(SeatRow, k) == bindparam(f"p_expect_{k}") for k, none in expect]
    return update(SeatRow).where(*where).values({k: bindparam(f"p_{k}") for k in columns})
