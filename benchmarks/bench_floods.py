"""An honest player's experience while the server is flooded, side by side with no flood,
in one run: one ``regalia serve`` (a fresh SQLite file, bots at once) and, from their own
loopback addresses, honest players at a person's pace (``--think`` seconds between moves)
at 2-player Regicide tables, some against the default bot; then, one after the other for
``--seconds`` each, the floods an audit sent (each within the server's default limits):

* ``none``: nothing else (the baseline);
* ``hints``: 12 addresses at solo tables with hints, each asking a hint as often as its
  limit allows (``--hint-rate``, 20/minute), every hint a bot's search in the shared pool;
* ``slowloris``: 1,100 connections from 250 addresses sending a request's headers a byte at
  a time and never finishing (each one cut is opened again);
* ``open``: 3 addresses creating open tables as fast as their limits allow (the honest
  player's open table must stay in the lobby's list);
* ``replays``: 5 addresses asking the replays of finished games, 80 a second in all.

For each phase it prints the honest moves' latency (sending a move to receiving the state
that holds it) and the bot replies' time (the honest move's state to the bot's move's), with
counts, and what the flood got (answered, refused, cut). The floods run in processes of their
own; the honest clients in this one. Usage::

    python benchmarks/bench_floods.py [--seconds 20] [--tables 20] [--bot-tables 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import socket
import statistics
import sys
import tempfile
import time
import urllib.request
from http import client
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import StateReader, free_port, start_server, stop_servers  # noqa: E402

PHASES = ("none", "hints", "slowloris", "open", "replays")


def post(port: int, body: dict, address: str) -> tuple[int, dict]:
    http = client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    try:
        http.request("POST", "/api/tables", json.dumps(body), {"Content-Type": "application/json"})
        r = http.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        http.close()


def get(port: int, path: str, address: str) -> int:
    http = client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    try:
        http.request("GET", path)
        r = http.getresponse()
        r.read()
        return r.status
    finally:
        http.close()


def pct(xs: list[float], p: float) -> str:
    if not xs:
        return "-"
    xs = sorted(xs)
    return f"{xs[min(len(xs) - 1, int(p * len(xs)))] * 1000:.1f}"


# ---------------------------------------------------------------- the honest players

class Honest:
    """The honest players' measures, each stamped with the phase it fell in."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.moves: dict[str, list[float]] = {p: [] for p in PHASES}
        self.replies: dict[str, list[float]] = {p: [] for p in PHASES}

    def note(self, kind: dict[str, list[float]], seconds: float) -> None:
        if self.phase in kind:
            kind[self.phase].append(seconds)


async def honest_seat(port: int, table: dict, seat: int, address: str, h: Honest,
                      stop_at: float, think: float, rng: random.Random) -> None:
    """One seat: acts at a person's pace; times its moves, and the bot's replies to them."""
    async with connect(f"ws://127.0.0.1:{port}/ws/{table['id']}", local_addr=(address, 0),
                       max_size=2 ** 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": table["seats"][seat]["token"],
                                  "name": f"Honest {seat + 1}"}))
        reader = StateReader()
        sent: tuple[int, float] | None = None  # (ply, when)
        mine_at: tuple[int, float] | None = None  # my move's state: (ply, when)
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.1, stop_at - time.monotonic()))
            except (asyncio.TimeoutError, ConnectionClosed):
                return
            m = json.loads(raw)
            now = time.perf_counter()
            if m["type"] == "error":
                sent = None
                continue
            if m["type"] not in ("state", "update"):
                continue
            st = reader.read(m)
            if st.get("finished"):
                return
            if sent is not None and st["ply"] > sent[0]:
                h.note(h.moves, now - sent[1])
                mine_at, sent = (st["ply"], now), None
            if mine_at is not None and st["ply"] > mine_at[0] and st["legal"]:
                h.note(h.replies, now - mine_at[1])  # the bot moved: my turn again
                mine_at = None
            if st["legal"] and sent is None:
                await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
                sent = (st["ply"], time.perf_counter())
                await ws.send(json.dumps({"type": "act", "ply": st["ply"],
                                          "action": rng.choice(st["legal"])}))


async def honest_load(port: int, tables: int, bot_tables: int, h: Honest, stop_at: float,
                      think: float) -> None:
    """Keeps ``tables`` human tables and ``bot_tables`` human-against-bot tables going
    (a finished one is replaced) until ``stop_at`` or until cancelled."""
    rng = random.Random(7)

    async def slot(k: int, with_bot: bool) -> None:
        address = f"127.9.{k // 200}.{k % 200 + 1}"
        while time.monotonic() < stop_at:
            seats = [{"kind": "human"}, {"kind": "bot"} if with_bot else {"kind": "human"}]
            status, t = await asyncio.to_thread(
                post, port, {"game": "regicide", "players": 2, "seats": seats}, address)
            if status != 201:
                await asyncio.sleep(1)
                continue
            players = [honest_seat(port, t, 0, address, h, stop_at, think, rng)]
            if not with_bot:
                other = f"127.10.{k // 200}.{k % 200 + 1}"
                players.append(honest_seat(port, t, 1, other, h, stop_at, think, rng))
            await asyncio.gather(*players, return_exceptions=True)

    await asyncio.gather(*(slot(k, k >= tables) for k in range(tables + bot_tables)))


# ---------------------------------------------------------------- the floods

async def flood_hints(port: int, stop_at: float, out: dict) -> None:
    async def one(k: int) -> None:
        address = f"127.20.0.{k + 1}"
        status, t = await asyncio.to_thread(post, port, {"game": "regicide", "players": 1,
                                                         "hints": True}, address)
        if status != 201:
            out["refused"] = out.get("refused", 0) + 1
            return
        async with connect(f"ws://127.0.0.1:{port}/ws/{t['id']}", local_addr=(address, 0),
                           max_size=2 ** 22) as ws:
            await ws.send(json.dumps({"type": "hello", "token": t["seats"][0]["token"],
                                      "name": f"Hinter {k}"}))
            while time.monotonic() < stop_at:
                await ws.send(json.dumps({"type": "hint"}))
                deadline = time.monotonic() + 3.1  # 20 a minute: the limit's pace
                while time.monotonic() < deadline:
                    try:
                        m = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
                    except asyncio.TimeoutError:
                        break
                    if m["type"] in ("hint", "error"):
                        key = "answered" if m["type"] == "hint" else "refused"
                        out[key] = out.get(key, 0) + 1

    await asyncio.gather(*(one(k) for k in range(12)), return_exceptions=True)


async def flood_slowloris(port: int, stop_at: float, out: dict) -> None:
    loop = asyncio.get_running_loop()

    async def one(k: int) -> None:
        address = f"127.21.0.{k % 250 + 1}"  # 1,100 connections from 250 addresses
        while time.monotonic() < stop_at:
            s = socket.socket()
            s.setblocking(False)
            try:
                s.bind((address, 0))
                await loop.sock_connect(s, ("127.0.0.1", port))
                await loop.sock_sendall(s, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                out["opened"] = out.get("opened", 0) + 1
                while time.monotonic() < stop_at:  # a byte of a header now and then
                    await asyncio.sleep(2)
                    await loop.sock_sendall(s, b"X")
            except OSError:
                out["cut"] = out.get("cut", 0) + 1
                await asyncio.sleep(0.5)
            finally:
                s.close()

    await asyncio.gather(*(one(k) for k in range(1100)), return_exceptions=True)


async def flood_open(port: int, stop_at: float, out: dict) -> None:
    async def one(k: int) -> None:
        address = f"127.22.0.{k + 1}"
        while time.monotonic() < stop_at:
            status, _ = await asyncio.to_thread(post, port, {"game": "ribauds", "open": True},
                                                address)
            key = "created" if status == 201 else "refused"
            out[key] = out.get(key, 0) + 1
            await asyncio.sleep(0.2)

    await asyncio.gather(*(one(k) for k in range(3)))


async def flood_replays(port: int, stop_at: float, out: dict, finished: list[str]) -> None:
    async def one(k: int) -> None:
        address = f"127.23.0.{k + 1}"
        i = k
        while time.monotonic() < stop_at:
            status = await asyncio.to_thread(get, port, f"/api/tables/{finished[i % len(finished)]}/replay",
                                             address)
            key = "answered" if status == 200 else f"status {status}"
            out[key] = out.get(key, 0) + 1
            i += 5
            await asyncio.sleep(5 / 80)  # 80 a second from the 5 addresses

    await asyncio.gather(*(one(k) for k in range(5)))


def run_flood(name: str, port: int, seconds: float, finished: list[str], result) -> None:
    """A flood in a process of its own; ``result`` gets its counts (JSON)."""
    out: dict = {}
    stop_at = time.monotonic() + seconds
    flood = {"hints": lambda: flood_hints(port, stop_at, out),
             "slowloris": lambda: flood_slowloris(port, stop_at, out),
             "open": lambda: flood_open(port, stop_at, out),
             "replays": lambda: flood_replays(port, stop_at, out, finished)}[name]
    asyncio.run(flood())
    result.put(json.dumps(out))


# ---------------------------------------------------------------- the run

def finished_tables(port: int, n: int) -> list[str]:
    ids = []
    for k in range(n):
        _, t = post(port, {"game": "regicide", "players": 1,
                           "seats": [{"kind": "bot", "bot": "heuristic"}]}, f"127.24.0.{k + 1}")
        ids.append(t["id"])
    deadline = time.monotonic() + 60
    for tid in ids:
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/{tid}") as r:
                if json.load(r)["status"] == "finished":
                    break
            time.sleep(0.2)
    return ids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    ap.add_argument("--tables", type=int, default=20, help="honest human tables (2 seats)")
    ap.add_argument("--bot-tables", type=int, default=4, help="honest tables against a bot")
    ap.add_argument("--think", type=float, default=1.0, help="honest seconds between moves")
    ap.add_argument("--phases", default=",".join(PHASES), help="which phases, in order")
    args = ap.parse_args()
    phases = args.phases.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="regalia-floods-"))
    port = free_port()
    proc = start_server(port, tmp / "floods.sqlite3", tmp / "server.log", [])
    try:
        finished = finished_tables(port, 20)
        _, honest_open = post(port, {"game": "ribauds", "open": True}, "127.25.0.1")
        h = Honest()
        ctx = multiprocessing.get_context("spawn")
        async def drive() -> None:
            # the honest players play on until every phase is over (then cancelled)
            load = asyncio.create_task(honest_load(port, args.tables, args.bot_tables, h,
                                                   time.monotonic() + 3600, args.think))
            await asyncio.sleep(5)  # the tables start
            for name in phases:
                h.phase = name
                result = ctx.Queue()
                flood = None
                if name != "none":
                    flood = ctx.Process(target=run_flood, args=(name, port, args.seconds,
                                                                finished, result))
                    flood.start()
                await asyncio.sleep(args.seconds)
                got = ""
                if flood is not None:
                    got = await asyncio.to_thread(result.get, True, 60)
                    await asyncio.to_thread(flood.join, 30)
                listed = ""
                if name == "open":
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/open") as r:
                        ids = [t["id"] for t in json.load(r)]
                    listed = f"; the honest open table listed: {honest_open['id'] in ids}"
                mv, rp = h.moves[name], h.replies[name]
                print(f"== {name}: honest moves n={len(mv)} p50 {pct(mv, .5)} ms, p90 "
                      f"{pct(mv, .9)} ms, p99 {pct(mv, .99)} ms; bot replies n={len(rp)} p50 "
                      f"{pct(rp, .5)} ms, p90 {pct(rp, .9)} ms; flood {got or '-'}{listed}",
                      flush=True)
            h.phase = "done"
            load.cancel()
            await asyncio.gather(load, return_exceptions=True)

        asyncio.run(drive())
        medians = {p: statistics.median(h.moves[p]) * 1000 for p in phases if h.moves[p]}
        print("honest move medians (ms):", {p: round(v, 1) for p, v in medians.items()})
    finally:
        stop_servers([proc])


if __name__ == "__main__":
    main()
