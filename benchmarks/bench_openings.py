"""Server CPU per game opening: what a new 2-seat table costs before its first move.

Starts ``regalia serve`` (``bench_server.py``'s ``start_server``: a fresh SQLite file, its
per-address limits raised) and opens ``--games`` 2-seat Regicide tables, ``--at-once`` at a
time, each as a game starts: the table created over HTTP, both seats connect to the
websocket from their own loopback address, say hello with their token and a name, read
their first state, and close. Prints the games, the wall time and the server's CPU
milliseconds per game (its process, all threads), after ``--warm`` games left uncounted.

A random 2-seat Regicide game lasts about 8 moves, so at a player's pace
(``bench_server.py --think 1``) a game's opening is a large share of each move's CPU; this
measures it alone. Usage::

    python benchmarks/bench_openings.py --games 1500 --at-once 20
    python benchmarks/bench_openings.py --games 200 --at-once 10 --instructions

To compare with an older tree, run its ``src`` (``PYTHONPATH=OLD/src``) with ``--limits``
naming only the options that tree's ``regalia serve`` has.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_server as bench  # noqa: E402


async def open_seat(port: int, table: dict, seat: int, address: str) -> None:
    """One seat's opening: connect, hello, the first state, close."""
    async with connect(f"ws://127.0.0.1:{port}/ws/{table['id']}",
                       local_addr=(address, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": table["seats"][seat]["token"],
                                  "name": f"P{seat}"}))
        while json.loads(await ws.recv())["type"] not in ("state", "update"):
            pass


async def open_game(port: int, slot: int) -> None:
    addresses = [bench.client_address(slot, seat) for seat in range(2)]
    table = await asyncio.to_thread(bench.create_table, port, 2, None, "regicide",
                                    addresses[0])
    await asyncio.gather(*(open_seat(port, table, seat, addresses[seat])
                           for seat in range(2)))


async def open_games(port: int, games: int, at_once: int) -> None:
    slots = asyncio.Queue()
    for slot in range(at_once):
        slots.put_nowait(slot)

    async def one() -> None:
        slot = await slots.get()
        try:
            await open_game(port, slot)
        finally:
            slots.put_nowait(slot)
    await asyncio.gather(*(one() for _ in range(games)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500, help="games opened and counted")
    parser.add_argument("--at-once", type=int, default=20, help="games opening at a time")
    parser.add_argument("--warm", type=int, default=40, help="games opened first, uncounted")
    parser.add_argument("--limits", default=bench.UNLIMITED,
                        help="regalia serve's options that raise its per-address limits")
    parser.add_argument("--instructions", action="store_true",
                        help="run the server under valgrind's callgrind and print its "
                             "instructions per game (bench_server.py's --instructions; slow: "
                             "use a few hundred games)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="regalia-openings-"))
    port = bench.free_port()
    counter = bench.Instructions(tmp) if args.instructions else None
    server = bench.start_server(port, tmp / "bench.sqlite3", tmp / "server.log",
                                args.limits.split(), counter.prefix if counter else ())
    try:
        asyncio.run(open_games(port, args.warm, args.at_once))
        if counter:
            counter.zero(server.pid)
        t0, cpu0 = time.perf_counter(), bench.cpu_seconds(server.pid)
        asyncio.run(open_games(port, args.games, args.at_once))
        wall, cpu = time.perf_counter() - t0, bench.cpu_seconds(server.pid) - cpu0
        instructions = counter.count(server.pid) if counter else 0
    finally:
        bench.stop_servers([server])
    print(f"{args.games} game openings in {wall:.1f} s ({args.at_once} at a time): server CPU "
          f"{cpu:.2f} s = {cpu / args.games * 1000:.2f} ms per game")
    if counter:
        print(f"server instructions (callgrind): {instructions / args.games / 1e6:.3f} million "
              "per game")


if __name__ == "__main__":
    main()
