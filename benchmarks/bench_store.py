"""CPU cost of the server's database calls (``regalia.server.storage.store.Store``), per call.

Times, with ``time.process_time`` (the CPU of this process: SQLAlchemy, the driver, SQLite
itself; not the wait for the disk), the calls a live table makes: ``create_table`` (a
2-seat table), ``load_table``, ``update_seat``, ``append_moves`` with one move and with
batches of three moves of different tables (group commit). Prints milliseconds per call
(per move for the batches), one line per round. Usage:

    python benchmarks/bench_store.py [--tables 300] [--rounds 3] [--database-url URL]

Without ``--database-url`` it uses a fresh SQLite file (WAL, synchronous=FULL, as
``regalia serve``). Compare two versions with PYTHONPATH, alternating runs.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from regalia.server.storage.store import Store


def round_costs(store: Store, tables: int, first_ply: int) -> dict[str, float]:
    """Milliseconds of CPU per call of each kind over ``tables`` new tables."""
    out: dict[str, float] = {}

    def timed(name: str, calls: int, fn) -> None:
        start = time.process_time()
        fn()
        out[name] = (time.process_time() - start) / calls * 1e3

    ids: list[str] = []
    timed("create", tables, lambda: ids.extend(
        store.create_table("regicide", {"players": 2}, 7, [("human", None), ("human", None)])[0]
        for _ in range(tables)))
    timed("load", tables, lambda: [store.load_table(t) for t in ids])
    timed("seat", tables, lambda: [store.update_seat(t, 0, name="Ana") for t in ids])
    timed("move", tables * 5, lambda: [store.append_moves([(t, ply, 0, "yield", False)])
                                       for ply in range(first_ply, first_ply + 5) for t in ids])
    timed("move in batch of 3", tables * 5, lambda: [
        store.append_moves([(t, ply, 0, "yield", False) for t in ids[k:k + 3]])
        for ply in range(first_ply + 5, first_ply + 10) for k in range(0, tables, 3)])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    args = parser.parse_args()
    url = args.database_url or f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    store = Store(url)
    round_costs(store, 50, 0)  # warm-up: caches, compiled statements
    for r in range(args.rounds):
        costs = round_costs(store, args.tables, 0)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in costs.items())
              + " ms CPU per call")
    store.close()


if __name__ == "__main__":
    main()
