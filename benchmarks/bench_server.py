"""Load benchmark of the online tables: N tables driven by websocket clients on loopback.

Starts ``regalia serve`` in a subprocess (a fresh SQLite file, bot delay 0), opens N
Regicide tables (solo by default, or 2-player with one client per seat), and drives every
seat with a websocket client that plays a random legal action as soon as it is to act; a
finished game is replaced by a new table. Each move's latency is the time from sending the
action to receiving the state that contains it (so it includes validation, the durable
write of the move and the broadcast, and the load client's own delays). Prints moves/s and
latency percentiles, and the server's own (``/healthz`` ``move_ms``: from a move's
submission to its broadcast, the web server and the load client left out). Usage:

    python benchmarks/bench_server.py --tables 50 --seconds 20
    python benchmarks/bench_server.py --tables 200 --players 2 --seconds 20
    python benchmarks/bench_server.py --tables 200 --players 2 --think 1 --seconds 30
    python benchmarks/bench_server.py --tables 200 --players 2 --game ribauds --seconds 20
    python benchmarks/bench_server.py --tables 1000 --players 2 --think 1 --seconds 30 --settle 10

``--settle S`` counts the moves, the latencies and the server's CPU from S seconds after the
start only: opening a thousand tables and their connections at once is not a player's pace.

Random Regicide games are short (about 10 moves at 2 players: random play loses soon), so
the creation of tables and the connections weigh on every move; random Ribauds games last
about 60 moves (median 44), nearer a game people play.

Without ``--think`` every seat acts the moment it may: the server is saturated and a move's
latency is mostly its wait in line (Little's law: tables / moves per second). ``--think T``
gives the seats a player's pace (T seconds on average before each move), which measures a
move's latency at that load.

With ``--bot-tables N`` the server also plays N all-bot tables (``--bot``, default the
``ismcts`` search bot, ``--bot-players`` seats each; a finished one is replaced) while the
human tables are driven, e.g. a human's move latency beside 20 search tables:

    python benchmarks/bench_server.py --tables 1 --bot-tables 20 --seconds 30

``--server-args "..."`` passes more options to ``regalia serve``. Each client connects from a
loopback address of its own (127.S.T.U: one per seat of each table slot), as people do from
their machines; ``--one-address`` sends all from 127.0.0.1, as the figures before ec3f7c7.
The load creates tables and sends messages far faster than people, so the per-address limits
are raised unless ``--default-limits`` is given (give it when running this script against a
server from before the limits existed); at a player's pace the server's own limits hold,
e.g. ``--think 1 --default-limits``.

With ``--replicas N --redis-url URL --database-url URL`` it starts N replicas instead
(``regalia serve --redis-url URL --replica rI --port BASE+I``, all on that database and
Redis; the first one alone, so that it migrates the database, then the others) and spreads
the client's connections round-robin over them: each new websocket goes to the next replica
(so the seats of one table sit on different replicas), and so does each new table (a turn of
its own). Besides moves/s and
latency it prints, per stored move, the replicas' CPU milliseconds (each replica and its
child processes, e.g. bot workers) and the PostgreSQL and Redis round trips (differences of
the ``/healthz`` counters ``db_round_trips`` and ``redis_round_trips``, summed over the
replicas; the two ``/healthz`` calls per replica are included), e.g. on a fresh database
and a private Redis:

    python benchmarks/bench_server.py --replicas 3 --players 2 --tables 10 --seconds 20 \
        --redis-url redis://127.0.0.1:6390/0 \
        --database-url postgresql+psycopg://postgres:regalia@127.0.0.1:5432/bench

``--nginx`` (with ``--replicas``) puts nginx in front of them, with ``examples/nginx``'s
configuration for those replicas' ports (a table's creation to the least-connected one, its
websockets hashed by table), and sends every client through it.

``--instructions`` runs the one server under valgrind's callgrind (Debian's ``valgrind``)
and prints the instructions it ran per move over the counted window. On a shared machine
CPU seconds move by 10-30% from run to run; an instruction count of the same load moves
little, so it can tell a change of a few percent. The server is then about 40 times slower
(it starts in 2-3 minutes): use few tables, e.g.

    python benchmarks/bench_server.py --tables 10 --players 2 --think 1 --seconds 60 \
        --settle 20 --instructions

The client runs on the same machine as the server: on a small machine both share the CPUs.
Its event loop is uvloop's (the server's, through uvicorn) unless ``--loop asyncio`` is given:
the client's own delays count in every latency it measures, and uvloop's are smaller. For the
same reason its cyclic garbage collector is off while it drives the tables (its full and
middle collections paused it for 15-100 ms; ``--client-gc`` keeps it on), and ``--clients K``
shares the tables out between K client processes. It prints its own CPU time per move too.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import itertools
import json
import multiprocessing
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http import client
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


class _FullStates:
    """How a client read a server from before the compact forms (every legal action in
    "legal", a full "state" every time)."""

    def read(self, msg: dict) -> dict:
        return msg


# A client's reading of the state messages (updates merged, legal actions written out).
try:
    from regalia.server.tables.audience import StateReader
except ImportError:  # a server from before the module (PYTHONPATH=its src)
    StateReader = _FullStates


# The load's clients create tables and send messages far faster than people: per-address
# limits would measure the limits.
UNLIMITED = ("--table-rate 1000000/minute --message-rate 1000000/second "
             "--connections-per-address 1000000 --http-connections-per-address 1000000")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> int:
    """A base port such that base .. base+n-1 are all free on 127.0.0.1 (at the time)."""
    import socket

    for _ in range(100):
        base = free_port()
        if base + n > 65535:
            continue
        try:
            for i in range(n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", base + i))
        except OSError:
            continue
        return base
    raise SystemExit(f"no {n} consecutive free ports found")


def launch_server(port: int, database_url: str, log: Path, extra: list[str],
                  prefix: list[str] = ()) -> subprocess.Popen:
    cmd = [*prefix, sys.executable, "-m", "regalia.cli.app", "serve", "--port", str(port),
           "--database-url", database_url, "--bot-delay", "0", "--log-level", "warning",
           *extra]
    return subprocess.Popen(cmd, stdout=open(log, "wb"), stderr=subprocess.STDOUT)


class Instructions:
    """The server's instructions counted by valgrind's callgrind (``--instructions``): the
    same work counts about the same whatever else the machine does, where CPU seconds on a
    shared machine move by 10-30% from run to run. ``prefix`` runs the server under it;
    ``zero(pid)`` starts the count, ``count(pid)`` returns the instructions since."""

    def __init__(self, tmp: Path) -> None:
        self.out = tmp / "callgrind"
        self.prefix = ["valgrind", "--tool=callgrind", "--dump-instr=no",
                       f"--callgrind-out-file={self.out}.%p"]

    def zero(self, pid: int) -> None:
        subprocess.run(["callgrind_control", "--zero", str(pid)], check=True,
                       capture_output=True)

    def count(self, pid: int) -> int:
        before = set(self.out.parent.glob(f"{self.out.name}.{pid}*"))
        subprocess.run(["callgrind_control", "--dump", str(pid)], check=True,
                       capture_output=True)
        new = set(self.out.parent.glob(f"{self.out.name}.{pid}*")) - before
        for line in max(new, key=lambda f: f.stat().st_mtime).read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
        raise SystemExit("callgrind's dump has no summary line")


def wait_ready(proc: subprocess.Popen, port: int, log: Path, wait: float = 30) -> None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"the server on port {port} exited:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server on port {port} did not start:\n{log.read_text()[-2000:]}")


def start_server(port: int, db: Path, log: Path, extra: list[str],
                 prefix: list[str] = ()) -> subprocess.Popen:
    proc = launch_server(port, f"sqlite:///{db}", log, extra, prefix)
    wait_ready(proc, port, log, 300 if prefix else 30)
    return proc


def start_replicas(n: int, base: int, database_url: str, redis_url: str, tmp: Path,
                   extra: list[str]) -> list[subprocess.Popen]:
    """N replicas on ports base .. base+n-1: the first alone (it migrates the database), then
    the others together."""
    procs: list[subprocess.Popen] = []

    def launch(i: int) -> subprocess.Popen:
        proc = launch_server(base + i, database_url, tmp / f"replica{i + 1}.log",
                             ["--redis-url", redis_url, "--replica", f"r{i + 1}", *extra])
        procs.append(proc)
        return proc

    try:
        wait_ready(launch(0), base, tmp / "replica1.log")
        for i, proc in [(i, launch(i)) for i in range(1, n)]:
            wait_ready(proc, base + i, tmp / f"replica{i + 1}.log")
    except BaseException:
        stop_servers(procs)
        raise
    return procs


def stop_servers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)



NGINX_EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "nginx"


def start_nginx(ports: list[int], tmp: Path) -> tuple[int, Path]:
    """nginx in front of the replicas on ``ports``: ``examples/nginx``'s configuration with
    its upstream servers replaced by those ports and its ``listen`` by a free port, its pid,
    logs and temporary files under ``tmp``. Returns ``(port, configuration file)``."""
    port = free_port()
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in ports)
    site = re.sub(r"(    server 127\.0\.0\.1:800\d [^\n]*\n)+", lambda _: servers,
                  (NGINX_EXAMPLE / "regalia.conf").read_text())
    site = site.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    (tmp / "regalia.conf").write_text(site)
    main_conf = (NGINX_EXAMPLE / "nginx.conf").read_text().replace("/tmp/regalia-nginx", str(tmp / "nginx"))
    conf = tmp / "nginx.conf"
    conf.write_text(main_conf)
    subprocess.run(["nginx", "-c", str(conf)], check=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return port, conf
        except OSError:
            time.sleep(0.1)
    stop_nginx(conf)
    raise SystemExit(f"nginx did not answer on port {port}: {tmp / 'nginx-error.log'}")


def stop_nginx(conf: Path) -> None:
    subprocess.run(["nginx", "-c", str(conf), "-s", "quit"], check=False)


def healthz(port: int) -> dict:
    """The replica's /healthz body (also when it answers 503)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)


def create_table(port: int, players: int, bot: str | None = None,
                 game: str = "regicide", address: str | None = None) -> dict:
    """POST /api/tables from ``address`` (a loopback address; None: the system's choice)."""
    seat = {"kind": "bot", "bot": bot} if bot else {"kind": "human"}
    body = {"game": game, "players": players, "options": {}, "seats": [seat] * players}
    http = client.HTTPConnection("127.0.0.1", port, timeout=30,
                                 source_address=(address, 0) if address else None)
    try:
        http.request("POST", "/api/tables", json.dumps(body),
                     {"Content-Type": "application/json"})
        r = http.getresponse()
        if r.status >= 300:
            raise RuntimeError(f"table creation refused ({r.status}): {r.read()[:300]!r}")
        return json.load(r)
    finally:
        http.close()


def client_address(slot: int, seat: int) -> str:
    """The loopback address of a table slot's seat (Linux routes all of 127.0.0.0/8 to the
    loopback interface): one address per client, as people at their own machines, so the
    server's per-address bookkeeping (its limits) holds a few entries per address, not all
    of the load's."""
    return f"127.{seat + 1}.{slot // 250}.{slot % 250 + 1}"


class Ports:
    """The servers' ports, taken in turn (one server: always the same): ``next()`` for the
    websockets, ``next_table()`` (a turn of its own) for creating tables."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self._turn = itertools.cycle(ports)
        self._table_turn = itertools.cycle(ports)

    def next(self) -> int:
        return next(self._turn)

    def next_table(self) -> int:
        return next(self._table_turn)


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.received: list[float] = []  # when each latency's state came (time.perf_counter)
        self.errors = 0
        self.closed = 0  # connections the server closed while the client was sending
        self.games = 0
        self.bot_games = 0
        self.state_messages = 0
        self.state_bytes = 0  # the state messages' JSON text, in characters


async def drive_seat(port: int, table: dict, seat: int, stats: Stats, rng: random.Random,
                     stop_at: float, done: asyncio.Event, think: float = 0.0,
                     address: str | None = None) -> None:
    """One seat's client: act whenever it is to act (after ``think`` seconds on average),
    until the game ends or time is up."""
    try:
        await play_seat(port, table, seat, stats, rng, stop_at, done, think, address)
    except ConnectionClosed:
        stats.closed += 1


async def play_seat(port: int, table: dict, seat: int, stats: Stats, rng: random.Random,
                    stop_at: float, done: asyncio.Event, think: float = 0.0,
                    address: str | None = None) -> None:
    token = table["seats"][seat]["token"]
    async with connect(f"ws://127.0.0.1:{port}/ws/{table['id']}", max_size=2 ** 22,
                       local_addr=(address, 0) if address else None) as ws:
        # named (a Regicide seat with other players is named before it sees its hand)
        await ws.send(json.dumps({"type": "hello", "token": token, "name": f"P{seat}"}))
        sent_at: float | None = None
        sent_ply = -1
        last: dict | None = None  # the last state received, legal actions written out
        reader = StateReader()
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
            if m["type"] not in ("state", "update"):
                continue
            stats.state_messages += 1
            stats.state_bytes += len(raw)
            m = reader.read(m)
            last = m
            if sent_at is not None and m["ply"] > sent_ply:
                stats.latencies.append(now - sent_at)
                stats.received.append(now)
                sent_at = None
            if m["finished"]:
                done.set()
                return
            if done.is_set() or time.monotonic() > stop_at:
                return
            if m["legal"] and sent_at is None:
                if think:  # a player's pace: the latency counts from the send
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                sent_ply = m["ply"]
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "ply": m["ply"], "action": rng.choice(m["legal"])}))


async def run_table_slot(ports: Ports, players: int, stats: Stats, rng: random.Random,
                         stop_at: float, think: float = 0.0, game: str = "regicide",
                         slot: int | None = None) -> None:
    """Play games back to back on new tables until time is up (with several servers, the
    table is created on the next one and each seat connects to the next one). ``slot``: the
    slot's number, for its clients' addresses (``client_address``; None: all from the
    system's choice, 127.0.0.1)."""
    addresses = [None if slot is None else client_address(slot, k) for k in range(players)]
    while time.monotonic() < stop_at:
        table = await asyncio.to_thread(create_table, ports.next_table(), players, None, game,
                                        addresses[0])
        done = asyncio.Event()
        await asyncio.gather(*(drive_seat(ports.next(), table, k, stats, rng, stop_at, done,
                                          think, addresses[k]) for k in range(players)))
        if done.is_set():
            stats.games += 1


def table_status(port: int, table_id: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/{table_id}", timeout=30) as r:
        return json.load(r)["status"]


async def run_bot_slot(ports: Ports, players: int, bot: str, stop_at: float, games: list) -> None:
    """Keep one all-bot table playing until time is up (a finished one is replaced)."""
    while time.monotonic() < stop_at:
        port = ports.next_table()
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


def process_tree_cpu(root: int) -> tuple[float, dict[int, float]]:
    """CPU seconds of a process's reaped children (``cutime + cstime``) and of each live
    process in its tree, the root included (Linux ``/proc``)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    tick = os.sysconf("SC_CLK_TCK")
    reaped = 0.0
    try:
        fields = Path(f"/proc/{root}/stat").read_text().rsplit(")", 1)[1].split()
        reaped = (int(fields[13]) + int(fields[14])) / tick
    except OSError:
        pass
    live: dict[int, float] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        live[pid] = cpu_seconds(pid)
        todo.extend(children.get(pid, []))
    return reaped, live


def tree_cpu_since(root: int, before: tuple[float, dict[int, float]]) -> float:
    """CPU seconds the process and its descendants used since ``before`` (a
    ``process_tree_cpu`` snapshot); those reaped meanwhile count through ``cutime``."""
    reaped0, live0 = before
    reaped1, live1 = process_tree_cpu(root)
    return (reaped1 - reaped0) + sum(max(0.0, cpu - live0.get(pid, 0.0))
                                     for pid, cpu in live1.items())


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


async def bench(ports: list[int], tables: int, players: int, seconds: float, seed: int,
                bot_tables: int = 0, bot: str = "ismcts", bot_players: int = 2,
                warmup: float = 0.0, think: float = 0.0, game: str = "regicide",
                first_slot: int | None = 0) -> Stats:
    """Drive ``tables`` table slots (numbered from ``first_slot`` for their clients'
    addresses; None: every client from 127.0.0.1)."""
    stats = Stats()
    rng = random.Random(seed)
    stop_at = time.monotonic() + warmup + seconds
    bot_games: list = []
    turn = Ports(ports)
    bots = [asyncio.ensure_future(run_bot_slot(turn, bot_players, bot, stop_at, bot_games))
            for _ in range(bot_tables)]
    await asyncio.sleep(warmup)  # the bot tables are created and thinking
    await asyncio.gather(*(run_table_slot(turn, players, stats, random.Random(rng.random()),
                                          stop_at, think, game,
                                          None if first_slot is None else first_slot + i)
                           for i in range(tables)))
    await asyncio.gather(*bots)
    stats.bot_games = len(bot_games)
    return stats


def _client_process(kwargs: dict, collector: bool = False) -> tuple[Stats, float]:
    """One load-client process (``--clients``): its stats and its CPU seconds. Unless
    ``collector``, the cyclic garbage collector is off while it drives the tables (with it,
    the client's own pauses of up to 50-100 ms counted in the latencies it measured)."""
    cpu0 = time.process_time()
    if not collector:
        gc.collect()
        gc.freeze()
        gc.disable()
    try:
        stats = asyncio.run(bench(**kwargs))
    finally:
        gc.enable()
    return stats, time.process_time() - cpu0


def run_clients(ports: list[int], args: argparse.Namespace) -> tuple[Stats, float]:
    """Drive the tables from ``args.clients`` processes (this one alone when 1), the tables
    and the all-bot tables shared out between them: the merged stats and the clients' CPU
    seconds in all."""
    k = args.clients
    shares = [args.tables // k + (i < args.tables % k) for i in range(k)]
    jobs = [dict(ports=ports, tables=shares[i],
                 first_slot=None if args.one_address else sum(shares[:i]),
                 players=args.players, seconds=args.seconds, seed=args.seed + i,
                 bot_tables=args.bot_tables // k + (i < args.bot_tables % k), bot=args.bot,
                 bot_players=args.bot_players,
                 warmup=args.warmup if args.bot_tables else 0.0, think=args.think,
                 game=args.game)
            for i in range(k)]
    collector = [args.client_gc] * k
    if k == 1:
        return _client_process(jobs[0], args.client_gc)
    ctx = multiprocessing.get_context("fork")  # the event loop policy comes along
    with concurrent.futures.ProcessPoolExecutor(k, mp_context=ctx) as pool:
        results = list(pool.map(_client_process, jobs, collector))
    stats = Stats()
    for part, _ in results:
        stats.latencies += part.latencies
        stats.received += part.received
        for name in ("errors", "closed", "games", "bot_games", "state_messages", "state_bytes"):
            setattr(stats, name, getattr(stats, name) + getattr(part, name))
    return stats, sum(cpu for _, cpu in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="tables played at once (N)")
    parser.add_argument("--players", type=int, default=1, choices=[1, 2, 3, 4],
                        help="seats per table, each driven by its own websocket client")
    parser.add_argument("--game", choices=["regicide", "ribauds"], default="regicide",
                        help="the game of the driven tables (ribauds: 2 players; the "
                             "--bot-tables stay Regicide)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to drive the tables")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a seat waits, on average (0.5x to 1.5x), before it acts: "
                             "a players' pace (default 0: at once, the server's saturation)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-tables", type=int, default=0, help="all-bot tables played meanwhile")
    parser.add_argument("--bot", default="ismcts", help="the bot of the all-bot tables")
    parser.add_argument("--bot-players", type=int, default=2, choices=[1, 2, 3, 4])
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="seconds the bot tables play before the human tables start")
    parser.add_argument("--server-args", default="", help="more options for regalia serve")
    parser.add_argument("--default-limits", action="store_true",
                        help="keep the server's per-address limits (a closed loop creates tables "
                             "and sends messages far faster than a person, so by default they "
                             "are raised out of the way)")
    parser.add_argument("--one-address", action="store_true",
                        help="every client from 127.0.0.1 (as the figures before ec3f7c7), not "
                             "each from an address of its own in 127.0.0.0/8 (Linux routes it "
                             "all to the loopback; elsewhere, e.g. macOS, give this)")
    parser.add_argument("--replicas", type=int, default=0,
                        help="start this many replicas (needs --redis-url and --database-url) and "
                             "spread the connections round-robin over them")
    parser.add_argument("--redis-url", help="the replicas' Redis (with --replicas)")
    parser.add_argument("--database-url",
                        help="the replicas' database, e.g. a fresh PostgreSQL database "
                             "(with --replicas)")
    parser.add_argument("--loop", choices=["uvloop", "asyncio"], default="uvloop",
                        help="the load client's event loop (default uvloop)")
    parser.add_argument("--clients", type=int, default=1,
                        help="load-client processes sharing the tables out (default 1): on a "
                             "small machine one client's own delays show in the latencies")
    parser.add_argument("--client-gc", action="store_true",
                        help="keep the load client's garbage collector on (by default it is "
                             "off while the client drives the tables: its pauses are not the "
                             "server's)")
    parser.add_argument("--instructions", action="store_true",
                        help="run the server under valgrind's callgrind and print its "
                             "instructions per move (one process on SQLite; slow: use few "
                             "tables)")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="count the moves, the latencies and the server's CPU only from "
                             "this many seconds after the start (the opening of every table and "
                             "connection at once left out: the busy steady state)")
    parser.add_argument("--nginx", action="store_true",
                        help="with --replicas: the clients go through nginx, run with "
                             "examples/nginx's configuration for those replicas (needs nginx)")
    parser.add_argument("--base-port", type=int, default=0,
                        help="the replicas listen on BASE, BASE+1, ... (default: free ports)")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop  # installed with uvicorn[standard]

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    if not args.default_limits:
        args.server_args = f"{UNLIMITED} {args.server_args}"
    if args.game == "ribauds" and args.players != 2:
        parser.error("--game ribauds is played by 2 players: give --players 2")
    if args.replicas:
        if not (args.redis_url and args.database_url):
            parser.error("--replicas needs --redis-url and --database-url")
        bench_replicas(args)
        return
    if args.redis_url or args.database_url or args.nginx:
        parser.error("--redis-url, --database-url and --nginx go with --replicas")
    tmp = Path(tempfile.mkdtemp(prefix="regalia-bench-"))
    port = free_port()
    counter = Instructions(tmp) if args.instructions else None
    server = start_server(port, tmp / "bench.sqlite3", tmp / "server.log", args.server_args.split(),
                          counter.prefix if counter else ())
    try:
        if counter:
            counter.zero(server.pid)
        t0, cpu0 = time.perf_counter(), cpu_seconds(server.pid)

        def settle() -> None:
            if counter:
                counter.zero(server.pid)
            settled.append((time.perf_counter(), cpu_seconds(server.pid)))
        settled: list[tuple[float, float]] = []  # (time, server CPU) at --settle seconds
        timer = threading.Timer(args.settle, settle)
        if args.settle:
            timer.start()
        stats, client_cpu = run_clients([port], args)
        timer.cancel()
        instructions = counter.count(server.pid) if counter else 0
        end = time.perf_counter()
        if settled:  # the window: from --settle to the clients' deadline
            end = min(end, t0 + args.seconds)
            t0, cpu0 = settled[0]
            stats.latencies = [lat for lat, at in zip(stats.latencies, stats.received)
                               if t0 <= at <= end]
        elapsed = end - t0 - (args.warmup if args.bot_tables and not settled else 0.0)
        server_cpu = cpu_seconds(server.pid) - cpu0
        health = healthz(port)
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait(15)
    lat = stats.latencies
    moves = len(lat)
    print(f"tables at once: {args.tables} of {args.game} ({args.players} seat(s) each, one "
          f"websocket client per seat)")
    if args.bot_tables:
        print(f"all-bot tables meanwhile: {args.bot_tables} ({args.bot_players} x {args.bot}); "
              f"bot games finished: {stats.bot_games}")
    if args.settle:
        print(f"counted from {args.settle:g} s after the start (the load client's CPU: all of it)")
    print(f"elapsed: {elapsed:.1f} s; moves: {moves}; games finished: {stats.games}; "
          f"errors: {stats.errors}" + closed_note(stats))
    print(f"throughput: {moves / elapsed:.0f} moves/s; server CPU {server_cpu:.1f} s"
          + (f" = {server_cpu / moves * 1000:.2f} ms per move (all of its work: moves, "
             f"connections, table creation)" if moves else ""))
    print(f"load client CPU {client_cpu:.1f} s" + (f" = {client_cpu / moves * 1000:.2f} ms per move"
                                                   if moves else ""))
    if instructions and moves:
        print(f"server instructions (callgrind): {instructions / 1e9:.3f} billion = "
              f"{instructions / moves / 1e6:.3f} million per move")
    print_latency(lat)
    print_server_latency(health)
    if stats.state_messages:
        print(f"state messages: {stats.state_messages}, mean {stats.state_bytes / stats.state_messages:.0f} "
              "characters of JSON")


def closed_note(stats: Stats) -> str:
    return f"; connections closed by the server: {stats.closed}" if stats.closed else ""


def print_latency(lat: list[float]) -> None:
    if lat:
        print(f"move latency: p50 {pct(lat, 50) * 1000:.1f} ms, p90 {pct(lat, 90) * 1000:.1f} ms, "
              f"p99 {pct(lat, 99) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms, "
              f"mean {statistics.fmean(lat) * 1000:.1f} ms")


def print_server_latency(health: dict) -> None:
    """The server's own times of its latest moves (/healthz ``move_ms``: from a move's
    submission to its broadcast, without the websockets and the load client)."""
    t = health.get("move_ms")
    if t and t["count"]:
        print(f"  at the server (submission to broadcast, its last {t['count']} moves): "
              f"p50 {t['p50']} ms, p90 {t['p90']} ms, p99 {t['p99']} ms, max {t['max']} ms")


COUNTERS = ("moves", "db_round_trips", "redis_round_trips")
SERVICES = ("postgres", "redis-server")  # the shared parts, by process name


def services_cpu(names: tuple[str, ...] = SERVICES) -> dict[str, float]:
    """CPU seconds so far of every process of each shared service on this machine
    (``/proc/PID/comm``; on a machine running other databases these count too)."""
    out = dict.fromkeys(names, 0.0)
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                name = Path(f"/proc/{d}/comm").read_text().strip()
            except OSError:
                continue
            if name in out:
                out[name] += cpu_seconds(int(d))
    return out


def bench_replicas(args: argparse.Namespace) -> None:
    """The --replicas mode (see the module docstring)."""
    tmp = Path(tempfile.mkdtemp(prefix="regalia-bench-"))
    base = args.base_port or free_ports(args.replicas)
    ports = [base + i for i in range(args.replicas)]
    extra = args.server_args.split()
    if args.nginx:  # the client's address comes from nginx's X-Forwarded-For
        extra += ["--forwarded-allow-ips", "127.0.0.1"]
    names = SERVICES + (("nginx",) if args.nginx else ())
    procs = start_replicas(args.replicas, base, args.database_url, args.redis_url, tmp, extra)
    conf = None
    try:
        first = [healthz(p) for p in ports]
        for port, h in zip(ports, first):
            missing = [k for k in (*COUNTERS, "replica", "redis") if k not in h]
            if missing:
                raise SystemExit(f"the replica on port {port} has no {', '.join(missing)} in "
                                 f"/healthz (a server without multi-replica support?): {h}")
            if h["redis"] != "ok":
                raise SystemExit(f"the replica on port {port}: redis {h['redis']}")
        client_ports = ports
        if args.nginx:
            proxy, conf = start_nginx(ports, tmp)
            client_ports = [proxy]

        def mark() -> tuple[float, list, dict[str, float], list[dict]]:
            return (time.perf_counter(), [process_tree_cpu(p.pid) for p in procs],
                    services_cpu(names), [healthz(p) for p in ports])
        t0, cpu0, services0, _ = mark()
        settled: list[tuple[float, list, dict[str, float], list[dict]]] = []
        timer = threading.Timer(args.settle, lambda: settled.append(mark()))
        if args.settle:
            timer.start()
        stats, _ = run_clients(client_ports, args)
        timer.cancel()
        end = time.perf_counter()
        if settled:  # the window: from --settle to the clients' deadline
            end = min(end, t0 + args.seconds)
            t0, cpu0, services0, first = settled[0]
            stats.latencies = [lat for lat, at in zip(stats.latencies, stats.received)
                               if t0 <= at <= end]
        elapsed = end - t0 - (args.warmup if args.bot_tables and not settled else 0.0)
        cpu = [tree_cpu_since(p.pid, c) for p, c in zip(procs, cpu0)]
        services = {k: v - services0[k] for k, v in services_cpu(names).items()}
        last = [healthz(p) for p in ports]
    finally:
        if conf is not None:
            stop_nginx(conf)
        stop_servers(procs)
    diff = [{k: b[k] - a[k] for k in COUNTERS} for a, b in zip(first, last)]
    total = {k: sum(d[k] for d in diff) for k in COUNTERS}
    lat = stats.latencies
    moves = len(lat)
    stored = total["moves"]
    where = f"ports {ports[0]}-{ports[-1]}" if len(ports) > 1 else f"port {ports[0]}"
    print(f"replicas: {args.replicas} ({where}; " + (
        "behind nginx: examples/nginx's configuration)" if args.nginx else
        "connections and new tables round-robin over them)"))
    print(f"tables at once: {args.tables} of {args.game} ({args.players} seat(s) each, one "
          f"websocket client per seat)")
    if args.bot_tables:
        print(f"all-bot tables meanwhile: {args.bot_tables} ({args.bot_players} x {args.bot}); "
              f"bot games finished: {stats.bot_games}")
    if args.settle:
        print(f"counted from {args.settle:g} s after the start (the load client's CPU: all of it)")
    print(f"elapsed: {elapsed:.1f} s; moves: {moves} (seen by the clients), {stored} stored "
          f"(/healthz); games finished: {stats.games}; errors: {stats.errors}"
          + closed_note(stats))
    print(f"throughput: {moves / elapsed:.0f} moves/s; replicas' CPU {sum(cpu):.1f} s "
          f"({', '.join(f'{c:.1f}' for c in cpu)})")
    for i, (h, d, c) in enumerate(zip(last, diff, cpu)):
        print(f"  replica {h['replica']} (port {ports[i]}): {d['moves']} moves stored, "
              f"CPU {c:.1f} s, {d['db_round_trips']} database and {d['redis_round_trips']} "
              f"Redis round trips, leases {len(h.get('leases') or [])}, redis {h['redis']}")
    if stored:
        print(f"per stored move: CPU {sum(cpu) / stored * 1000:.2f} ms in the replicas, "
              f"{total['db_round_trips'] / stored:.2f} PostgreSQL round trips, "
              f"{total['redis_round_trips'] / stored:.2f} Redis round trips (all of their work: "
              f"moves, connections, table creation)")
        print("per stored move in the shared services: " + ", ".join(
            f"{name} CPU {services[name] / stored * 1000:.2f} ms" for name in names)
            + " (every process of that name on this machine)")
    print_latency(lat)
    for h in last:
        print_server_latency(h)


if __name__ == "__main__":
    main()
