"""Helpers of the multi-replica tests: a fresh PostgreSQL database, a Redis server, ``regalia
serve --redis-url`` replicas in subprocesses, websocket clients that record every message
with its arrival time, and the checks against the database's move log (replayed with the
engine)."""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from regalia.server.tables.audience import StateReader
from serve_process import ServeProcess, free_port

PG_URL = os.environ.get("REGALIA_TEST_POSTGRES_URL")
REDIS_URL = os.environ.get("REGALIA_TEST_REDIS_URL")
CI = bool(os.environ.get("CI"))


def need(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false, except in CI (``CI`` set), where it fails."""
    if not condition:
        if CI:
            pytest.fail(f"{reason} (CI must provide it: .ci/run)")
        pytest.skip(reason)


# ---------------------------------------------------------------- PostgreSQL and Redis

class PostgresDatabase:
    """A fresh database ``regalia_replicas_<hex>`` on the server of ``REGALIA_TEST_POSTGRES_URL``
    (created through its ``postgres`` database, dropped at the end), so no table left by
    another test is picked up by the replicas' scans."""

    def __init__(self, url: str) -> None:
        from sqlalchemy.engine import make_url

        base = make_url(url)
        self.name = "regalia_replicas_" + secrets.token_hex(5)
        self.admin = base.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
        self.url = base.set(database=self.name).render_as_string(hide_password=False)
        self.dsn = base.set(drivername="postgresql", database=self.name).render_as_string(hide_password=False)

    def create(self) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True, connect_timeout=10) as c:
            c.execute(f'CREATE DATABASE "{self.name}"')

    def drop(self) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True, connect_timeout=10) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def query(self, sql: str, *args: Any) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=10) as c:
            return list(c.execute(sql, args or None).fetchall())

    def moves(self) -> dict[str, list[tuple[int, int | None, str]]]:
        """Every table's stored moves ``(ply, seat, action)`` in ply order."""
        out: dict[str, list[tuple[int, int | None, str]]] = {}
        for tid, ply, seat, action in self.query(
                "SELECT table_id, ply, seat, action FROM moves ORDER BY table_id, ply, id"):
            out.setdefault(tid, []).append((ply, seat, action))
        return out

    def counts(self, ids: list[str]) -> dict[str, int]:
        rows = self.query("SELECT table_id, count(*) FROM moves WHERE table_id = ANY(%s) "
                          "GROUP BY table_id", list(ids))
        got = {tid: n for tid, n in rows}
        return {tid: got.get(tid, 0) for tid in ids}

    def tables(self) -> dict[str, dict[str, Any]]:
        rows = self.query("SELECT id, game, config, seed, status FROM game_tables")
        return {r[0]: {"game": r[1], "config": r[2], "seed": r[3], "status": r[4]} for r in rows}


class RedisServer:
    """``REGALIA_TEST_REDIS_URL`` as it is, or a private ``redis-server`` on a free port
    (no persistence), stopped at the end."""

    def __init__(self, tmp: Path) -> None:
        self.proc: subprocess.Popen | None = None
        self.url = REDIS_URL
        self.tmp = tmp

    def start(self) -> None:
        if self.url:
            return
        exe = shutil.which("redis-server")
        need(exe is not None, "no redis-server binary and REGALIA_TEST_REDIS_URL is not set "
                              "(apt-get install redis-server)")
        port = free_port()
        self.log = self.tmp / "redis.log"
        self._out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.tmp)],
            stdout=self._out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited: {self.log.read_text()[-1000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        self.url = f"redis://127.0.0.1:{port}/0"
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer PING")

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
            self._out.close()


# ---------------------------------------------------------------- replicas

class Replica(ServeProcess):
    """``regalia serve --redis-url URL --replica NAME`` in a subprocess, its log in ``log``
    (limits raised for the test clients, which share one address)."""

    def __init__(self, name: str, database_url: str, redis_url: str, tmp: Path,
                 bot_delay: float, extra: tuple[str, ...] = ()) -> None:
        super().__init__(free_port(), database_url, tmp / f"replica-{name}.log", (
            "--redis-url", redis_url, "--replica", name, "--bot-delay", str(bot_delay),
            "--wish-wait", "0",
            "--bot-budget", "0.02", "--bot-threads", "--message-rate", "1000/second",
            "--table-rate", "1000/second", "--join-rate", "1000/second",
            "--connections-per-address", "1000", "--http-connections-per-address", "1000",
            *extra))
        self.name = name
        self.label = f"replica {name}"
        self.redis_url = redis_url

    def stop(self) -> None:
        """A replica is stopped with SIGKILL (what is tested is that nothing depends on a
        clean stop)."""
        if self.alive:
            self.kill9()
        super().stop()


def spectator_token(created: dict[str, Any]) -> str:
    return created["spectate"].split("#s=", 1)[1]


# ---------------------------------------------------------------- websocket clients

class Closed(Exception):
    pass


class Client:
    """One websocket connection of a seat (or a spectator, ``seat`` None) to one replica; a
    thread records every message with its arrival time (``time.monotonic()``)."""

    def __init__(self, replica: Replica, table_id: str, token: str, seat: int | None,
                 label: str = "") -> None:
        from websockets.sync.client import connect

        self.replica = replica
        self.table_id = table_id
        self.token = token
        self.seat = seat
        self.label = label or f"{table_id[:6]}/{'spec' if seat is None else seat}@{replica.name}"
        self.messages: list[tuple[float, dict[str, Any]]] = []
        self.cond = threading.Condition()
        self.closed_at: float | None = None
        self.log: list[Any] = []  # the log as this connection put it together (log_start)
        self.reader = StateReader()
        self._cm = connect(f"{replica.ws_url}/ws/{table_id}", open_timeout=15, close_timeout=2,
                           max_size=None)
        self.ws = self._cm.__enter__()
        # a seat names itself (a Regicide seat with others must, before it sees its hand)
        self.ws.send(json.dumps({"type": "hello", "token": token,
                                 "name": None if seat is None else f"P{seat}"}))
        self.thread = threading.Thread(target=self._read, daemon=True, name=self.label)
        self.thread.start()
        self.wait_for(lambda m: m["type"] == "state", timeout=20)

    def _read(self) -> None:
        try:
            for raw in self.ws:
                t = time.monotonic()
                msg = json.loads(raw)
                with self.cond:
                    msg = self.reader.read(msg)  # as the page reads it
                    if msg.get("type") == "state":
                        self.log = self.log[:msg["log_start"]] + list(msg["log"])
                    self.messages.append((t, msg))
                    self.cond.notify_all()
        except Exception:  # the connection closed (the replica died) or broke
            pass
        finally:
            with self.cond:
                self.closed_at = time.monotonic()
                self.cond.notify_all()

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    @property
    def state(self) -> dict[str, Any]:
        with self.cond:
            for _, m in reversed(self.messages):
                if m["type"] == "state":
                    return m
        raise AssertionError(f"{self.label}: no state yet")

    @property
    def ply(self) -> int:
        return self.state["ply"]

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 15.0,
                 since: int = 0) -> tuple[float, dict[str, Any]]:
        """The first message from index ``since`` on that ``pred`` accepts, with its arrival
        time. Raises ``Closed`` when the connection closes first, ``TimeoutError``."""
        deadline = time.monotonic() + timeout
        i = since
        with self.cond:
            while True:
                while i < len(self.messages):
                    t, m = self.messages[i]
                    i += 1
                    if pred(m):
                        return t, m
                if self.closed_at is not None:
                    raise Closed(f"{self.label}: the connection closed")
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.messages[-1][1] if self.messages else None
                    raise TimeoutError(f"{self.label}: nothing matching in {timeout}s "
                                       f"(last message: {str(last)[:300]})")
                self.cond.wait(left)

    def wait_ply(self, ply: int, timeout: float = 15.0) -> tuple[float, dict[str, Any]]:
        return self.wait_for(lambda m: m["type"] == "state" and m["ply"] >= ply, timeout)

    def mark(self) -> int:
        with self.cond:
            return len(self.messages)

    def send(self, obj: dict[str, Any]) -> None:
        self.ws.send(json.dumps(obj))

    def close(self) -> None:
        try:
            self._cm.__exit__(None, None, None)
        except Exception:
            pass
        self.thread.join(5)

    def states(self) -> list[tuple[float, dict[str, Any]]]:
        with self.cond:
            return [(t, m) for t, m in self.messages if m["type"] == "state"]


# ---------------------------------------------------------------- choosing moves

def choose(game: str, state: dict[str, Any], rng: random.Random) -> str:
    """A sensible legal action from what a client sees: the heuristic bot's choice in
    Regicide (games last longer than random play), a random legal action in Ribauds."""
    legal = state["legal"]
    if game == "regicide":
        try:
            from regalia.bots import make_bot
            from regalia.bots.regicide.heuristic import hand_mask
            from regalia.games.regicide import actions as A

            mask = hand_mask(state["view"])
            codes = {A.from_text(t, lambda _s: mask): t for t in legal}
            return codes[make_bot("regicide", "heuristic").act(state["view"], list(codes), rng)]
        except Exception:  # pragma: no cover - fall back on any legal action
            pass
    return rng.choice(legal)


# ---------------------------------------------------------------- checks against the log

def normal(obj: Any) -> Any:
    """``obj`` as the server's JSON makes it (tuples as lists, keys as strings)."""
    import orjson

    return json.loads(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS))


class Replayed:
    """A table's stored moves replayed with the engine: the state after each ply."""

    def __init__(self, game: str, config: dict[str, Any], seed: int, actions: list[str]) -> None:
        from regalia.core.records import Match
        from regalia.games import get_game

        self.game = get_game(game)
        m = Match(self.game, config, seed)
        self.states = [m.state]
        for text in actions:
            m.play(text)  # IllegalAction: a stored move the engine refuses
            self.states.append(m.state)
        self._views: dict[tuple[int, int | None], tuple[dict[str, Any], list[Any]]] = {}

    @property
    def n(self) -> int:
        return len(self.states) - 1

    def view(self, ply: int, seat: int | None) -> tuple[dict[str, Any], list[Any]]:
        """The view a connection of ``seat`` gets at ``ply`` (without its log) and the log."""
        key = (ply, seat)
        if key not in self._views:
            v = normal(self.game.view(self.states[ply], seat))
            log = v.pop("log", []) or []
            self._views[key] = (v, log)
        return self._views[key]

    def current(self, ply: int) -> int | None:
        return self.game.current_seat(self.states[ply])

    def finished(self, ply: int) -> bool:
        return bool(self.game.is_terminal(self.states[ply]))


def summary(xs: list[float]) -> str:
    if not xs:
        return "none"
    s = sorted(xs)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]  # noqa: E731
    return (f"n={len(s)} median={pick(0.5) * 1000:.0f}ms p90={pick(0.9) * 1000:.0f}ms "
            f"max={s[-1] * 1000:.0f}ms")
