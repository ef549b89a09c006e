"""Load benchmark of the online tables: N tables driven by websocket clients on loopback.

Starts ``regalia serve`` in a subprocess (a fresh SQLite file, bot delay 0), opens N
Regicide tables (solo by default, or 2-player with one client per seat), and drives every
seat with a websocket client that plays a random legal action as soon as it is to act; a
finished game is replaced by a new table. Each move's latency is the time from sending the
action to receiving the state that contains it (so it includes validation, the durable
write of the move and the broadcast). Prints moves/s and latency percentiles. Usage:

    python benchmarks/bench_server.py --tables 50 --seconds 20
    python benchmarks/bench_server.py --tables 200 --players 2 --seconds 20

With ``--bot-tables N`` the server also plays N all-bot tables (``--bot``, default the
``ismcts`` search bot, ``--bot-players`` seats each; a finished one is replaced) while the
human tables are driven, e.g. a human's move latency beside 20 search tables:

    python benchmarks/bench_server.py --tables 1 --bot-tables 20 --seconds 30

``--server-args "..."`` passes more options to ``regalia serve``. All clients share one
address, so the per-address limits are raised unless ``--default-limits`` is given (give it
when running this script against a server from before the limits existed).

The client runs on the same machine as the server: on a small machine both share the CPUs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


# All the load comes from one address: per-address limits would measure the limits.
UNLIMITED = ("--table-rate 1000000/minute --message-rate 1000000/second "
             "--connections-per-address 1000000")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, db: Path, log: Path, extra: list[str]) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "regalia.cli.app", "serve", "--port", str(port),
           "--database-url", f"sqlite:///{db}", "--bot-delay", "0", "--log-level", "warning",
           *extra]
    proc = subprocess.Popen(cmd, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"the server exited:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def create_table(port: int, players: int, bot: str | None = None) -> dict:
    seat = {"kind": "bot", "bot": bot} if bot else {"kind": "human"}
    body = {"game": "regicide", "players": players, "options": {}, "seats": [seat] * players}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.games = 0
        self.bot_games = 0


async def drive_seat(port: int, table: dict, seat: int, stats: Stats, rng: random.Random,
                     stop_at: float, done: asyncio.Event) -> None:
    """One seat's client: act whenever it is to act, until the game ends or time is up."""
    token = table["seats"][seat]["token"]
    async with connect(f"ws://127.0.0.1:{port}/ws/{table['id']}", max_size=2 ** 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        sent_ply = -1
        last: dict | None = None  # the last state received
        while True:
            # a seat whose partner stopped at the deadline hears nothing more: stop waiting
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.0, stop_at - time.monotonic()) + 1.0)
            except (asyncio.TimeoutError, ConnectionClosed):
                return
            m = json.loads(raw)
            now = time.perf_counter()
            if m["type"] == "error":
                # refused (a stale ply, or a limit): the state has not changed, act again
                stats.errors += 1
                sent_at = None
                if last is not None and last["legal"] and not done.is_set() and time.monotonic() < stop_at:
                    await asyncio.sleep(0.05)
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "act", "ply": last["ply"],
                                              "action": rng.choice(last["legal"])}))
                continue
            if m["type"] != "state":
                continue
            last = m
            if sent_at is not None and m["ply"] > sent_ply:
                stats.latencies.append(now - sent_at)
                sent_at = None
            if m["finished"]:
                done.set()
                return
            if done.is_set() or time.monotonic() > stop_at:
                return
            if m["legal"] and sent_at is None:
                sent_ply = m["ply"]
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "ply": m["ply"], "action": rng.choice(m["legal"])}))


async def run_table_slot(port: int, players: int, stats: Stats, rng: random.Random,
                         stop_at: float) -> None:
    """Play games back to back on new tables until time is up."""
    while time.monotonic() < stop_at:
        table = await asyncio.to_thread(create_table, port, players)
        done = asyncio.Event()
        await asyncio.gather(*(drive_seat(port, table, k, stats, rng, stop_at, done)
                               for k in range(players)))
        if done.is_set():
            stats.games += 1


def table_status(port: int, table_id: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/{table_id}", timeout=30) as r:
        return json.load(r)["status"]


async def run_bot_slot(port: int, players: int, bot: str, stop_at: float, games: list) -> None:
    """Keep one all-bot table playing until time is up (a finished one is replaced)."""
    while time.monotonic() < stop_at:
        table = await asyncio.to_thread(create_table, port, players, bot)
        while time.monotonic() < stop_at:
            await asyncio.sleep(1.0)
            if await asyncio.to_thread(table_status, port, table["id"]) != "playing":
                games.append(table["id"])
                break


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


async def bench(port: int, tables: int, players: int, seconds: float, seed: int,
                bot_tables: int = 0, bot: str = "ismcts", bot_players: int = 2,
                warmup: float = 0.0) -> Stats:
    stats = Stats()
    rng = random.Random(seed)
    stop_at = time.monotonic() + warmup + seconds
    bot_games: list = []
    bots = [asyncio.ensure_future(run_bot_slot(port, bot_players, bot, stop_at, bot_games))
            for _ in range(bot_tables)]
    await asyncio.sleep(warmup)  # the bot tables are created and thinking
    await asyncio.gather(*(run_table_slot(port, players, stats, random.Random(rng.random()), stop_at)
                           for _ in range(tables)))
    await asyncio.gather(*bots)
    stats.bot_games = len(bot_games)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="tables played at once (N)")
    parser.add_argument("--players", type=int, default=1, choices=[1, 2, 3, 4],
                        help="seats per table, each driven by its own websocket client")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to drive the tables")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-tables", type=int, default=0, help="all-bot tables played meanwhile")
    parser.add_argument("--bot", default="ismcts", help="the bot of the all-bot tables")
    parser.add_argument("--bot-players", type=int, default=2, choices=[1, 2, 3, 4])
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="seconds the bot tables play before the human tables start")
    parser.add_argument("--server-args", default="", help="more options for regalia serve")
    parser.add_argument("--default-limits", action="store_true",
                        help="keep the server's per-address limits (every client here shares one "
                             "address, so by default they are raised out of the way)")
    args = parser.parse_args()
    if not args.default_limits:
        args.server_args = f"{UNLIMITED} {args.server_args}"
    tmp = Path(tempfile.mkdtemp(prefix="regalia-bench-"))
    port = free_port()
    server = start_server(port, tmp / "bench.sqlite3", tmp / "server.log", args.server_args.split())
    try:
        t0, cpu0 = time.perf_counter(), cpu_seconds(server.pid)
        stats = asyncio.run(bench(port, args.tables, args.players, args.seconds, args.seed,
                                  args.bot_tables, args.bot, args.bot_players,
                                  args.warmup if args.bot_tables else 0.0))
        elapsed = time.perf_counter() - t0 - (args.warmup if args.bot_tables else 0.0)
        server_cpu = cpu_seconds(server.pid) - cpu0
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait(15)
    lat = stats.latencies
    moves = len(lat)
    print(f"tables at once: {args.tables} ({args.players} seat(s) each, one websocket client per seat)")
    if args.bot_tables:
        print(f"all-bot tables meanwhile: {args.bot_tables} ({args.bot_players} x {args.bot}); "
              f"bot games finished: {stats.bot_games}")
    print(f"elapsed: {elapsed:.1f} s; moves: {moves}; games finished: {stats.games}; "
          f"errors: {stats.errors}")
    print(f"throughput: {moves / elapsed:.0f} moves/s; server CPU {server_cpu:.1f} s"
          + (f" = {server_cpu / moves * 1000:.2f} ms per move (all of its work: moves, "
             f"connections, table creation)" if moves else ""))
    if lat:
        print(f"move latency: p50 {pct(lat, 50) * 1000:.1f} ms, p90 {pct(lat, 90) * 1000:.1f} ms, "
              f"p99 {pct(lat, 99) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms, "
              f"mean {statistics.fmean(lat) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
