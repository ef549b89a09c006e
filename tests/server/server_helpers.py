"""Helpers of the server tests: create tables, join them over websockets with a receive
timeout, and record every message each connection receives."""

from __future__ import annotations

import contextlib
from collections import deque
import json
import random
import warnings
import re
from typing import Any

import anyio

from regalia.core.records import Match
from regalia.games import get_game
from regalia.server.tables.audience import StateReader


def latest_revision() -> str:
    """The revision of the newest migration (the number its file's name starts with): what
    a database is at once upgraded."""
    from pathlib import Path

    import regalia.server.storage.engine as engine

    versions = Path(engine.MIGRATIONS) / "versions"
    return max(p.stem.split("_")[0] for p in versions.glob("0*.py"))


def old_database(db_url: str, revision: str) -> None:
    """A database at migration ``revision`` holding one Regicide table in play, id
    ``keep0001``, its one seat held by a player named ``Old``: what an upgrade must keep."""
    from datetime import datetime, timezone

    from sqlalchemy import text

    from regalia.server.storage.engine import make_engine, migrate

    engine = make_engine(db_url)
    migrate(engine, revision)
    with engine.begin() as c:
        c.execute(text("INSERT INTO game_tables (id, game, config, seed, status, created_at, "
                       "is_open, hints) VALUES ('keep0001', 'regicide', :cfg, 7, 'playing', :t, "
                       "0, 0)"), {"cfg": json.dumps({"players": 1}),
                                   "t": datetime.now(timezone.utc)})
        c.execute(text("INSERT INTO seats (table_id, seat, kind, token_hash, bot_replaces, "
                       "name, claimed) VALUES ('keep0001', 0, 'human', 'h', 0, 'Old', 1)"))
    engine.dispose()


class FixedSeeds:
    """Server-side test configuration (``create_app(seeds=...)``, which no request can
    reach): the seeds of the next tables created, in order; then secret ones."""

    def __init__(self) -> None:
        self.next: list[int] = []

    def __call__(self) -> int:
        from regalia.server.settings import secure_seed

        return self.next.pop(0) if self.next else secure_seed()


@contextlib.contextmanager
def running_app(db_url: str, **kwargs):
    """A started app and its test client (``client.seeds``: its ``FixedSeeds``); every
    websocket opened by ``join`` is closed before the app stops. Bots think in threads; the
    per-address rates are raised (all test clients share one address unless
    ``as_address`` says otherwise) unless given. ``prepare(app)``: called on the app
    before it starts (e.g. an operator's middleware added)."""
    from fastapi.testclient import TestClient

    from regalia.server.app import create_app

    kwargs.setdefault("bot_delay", 0.0)
    kwargs.setdefault("wish_wait", 0.0)  # test_websocket checks the wait itself
    kwargs.setdefault("bot_budget", 0.05)
    kwargs.setdefault("bot_processes", False)
    kwargs.setdefault("message_rate", "1000/second")  # every test client has one address
    kwargs.setdefault("table_rate", "1000/second")
    kwargs.setdefault("hint_rate", "1000/second")
    kwargs.setdefault("replay_rate", "1000/second")
    kwargs.setdefault("presence_every", 0.2)  # test_presence checks the hold itself
    kwargs.setdefault("allowed_hosts", ("testserver",))  # the test client's Host
    seeds = kwargs.pop("seeds", None) or FixedSeeds()
    prepare = kwargs.pop("prepare", None)
    app = create_app(db_url, seeds=seeds, **kwargs)
    if prepare is not None:
        prepare(app)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(app) as c:
            c.seeds = seeds
            c.peers = []
            try:
                yield c
            finally:
                for p in c.peers:
                    p.close()


def as_address(client, address: str) -> None:
    """The test client's next requests and websockets come from ``address``."""
    client._transport.client = (address, 50000)


def new_table(client, game: str = "regicide", seats: list[Any] | None = None,
              options: dict | None = None, seed: int | None = None, **fields: Any) -> dict[str, Any]:
    """POST /api/tables; ``seats`` entries are "human" or a bot name; ``seed`` is given to the
    server's test seed source, never in the request; ``fields``: more body fields (e.g.
    ``hints=True``)."""
    seats = seats or ["human"]
    body: dict[str, Any] = {"game": game, "players": len(seats), "options": options or {},
                            "seats": [{"kind": "human"} if s == "human" else {"kind": "bot", "bot": s}
                                      for s in seats], **fields}
    if seed is not None:
        client.seeds.next.append(seed)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()


class Timeout(Exception):
    pass


class Peer:
    """One websocket connection, recording everything it receives."""

    def __init__(self, client, table_id: str, token: str | None, name: str = "",
                 hello_name: str | None = None, account: bool | None = None) -> None:
        """``name``: this peer's label in failures; ``hello_name``: the nickname its
        ``hello`` gives (None: none); ``account``: its ``hello``'s ``account`` (None: left
        out)."""
        self.cm = client.websocket_connect(f"/ws/{table_id}")
        self.ws = self.cm.__enter__()
        self.name = name
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None  # the latest state, legal actions written out
        self.reader = StateReader()
        self.log: list[dict[str, Any]] = []
        self.pending: deque[dict[str, Any]] = deque()  # read ahead (``peek_until``)
        self.ws.send_json({"type": "hello", "token": token, "name": hello_name,
                           **({} if account is None else {"account": account})})
        if hasattr(client, "peers"):
            client.peers.append(self)

    def close(self) -> None:
        try:
            self.cm.__exit__(None, None, None)
        except Exception:
            pass

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        if self.pending:
            return self.pending.popleft()
        return self._receive(timeout)

    def peek_until(self, pred, timeout: float = 5.0) -> dict[str, Any]:
        """Read until ``pred`` (``state`` and ``log`` follow), leaving what was read to
        ``recv`` still."""
        held = []
        try:
            while True:
                m = self._receive(timeout)
                held.append(m)
                if pred(m):
                    return m
        finally:
            self.pending.extend(held)

    def _receive(self, timeout: float) -> dict[str, Any]:
        rx = getattr(self.ws, "_send_rx", None)
        if rx is None:  # pragma: no cover - another Starlette version: no timeout
            msg = self.ws.receive()
        else:
            async def _get():
                with anyio.fail_after(timeout):
                    return await rx.receive()
            try:
                msg = self.ws.portal.call(_get)
            except TimeoutError:
                raise Timeout(f"{self.name}: nothing received in {timeout}s") from None
        if msg.get("type") == "websocket.close":
            raise Timeout(f"{self.name}: closed ({msg.get('code')})")
        text = msg.get("text") or (msg.get("bytes") or b"").decode()
        self.raw.append(text)
        obj = json.loads(text)
        obj = self.reader.read(obj)  # as the page reads it (raw: the wire form)
        self.messages.append(obj)
        if obj["type"] == "state":
            self.log = self.log[:obj["log_start"]] + obj["log"]
            self.state = obj
        elif obj["type"] == "seats" and self.state is not None:
            self.state = {**self.state, "seats": obj["seats"]}
        return obj

    def recv_until(self, pred, timeout: float = 5.0) -> dict[str, Any]:
        while True:
            m = self.recv(timeout)
            if pred(m):
                return m

    def drain(self, timeout: float = 0.02) -> None:
        try:
            while True:
                self.recv(timeout)
        except Timeout:
            pass

    def state_at(self, ply: int, timeout: float = 5.0) -> dict[str, Any]:
        if self.state is not None and self.state["ply"] >= ply:
            return self.state
        return self.recv_until(lambda m: m["type"] == "state" and m["ply"] >= ply, timeout)

    def finished(self, timeout: float = 30.0) -> dict[str, Any]:
        """The game's final state (the one already received when the bots finished first)."""
        if self.state is not None and self.state["finished"]:
            return self.state
        return self.recv_until(lambda m: m["type"] == "state" and m["finished"], timeout)

    def send(self, obj: Any) -> None:
        if isinstance(obj, (bytes, str)):
            self.ws.send_text(obj if isinstance(obj, str) else obj.decode())
        else:
            self.ws.send_json(obj)

    def act(self, action: str, ply: int | None = None) -> None:
        self.send({"type": "act", "ply": self.state["ply"] if ply is None else ply, "action": action})

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "error"]


def spectator_token(created: dict[str, Any]) -> str:
    return created["spectate"].split("#s=")[1]


def join(client, created: dict[str, Any], seat: int | None, name: Any = "auto") -> Peer:
    """A connection of ``seat`` (``None``: a spectator, by the spectator link), its first
    state received. ``name``: the nickname its ``hello`` gives; by default ``P{seat}`` at a
    Regicide table with other players (where a seat is named before its hand is seen:
    ``name_needed``), else none. When this seat was the last one its table waited for (a
    table waits until each human seat was opened once), the table's earlier connections here
    read the state in which the game starts (``peek_until``: their ``state`` is current, and
    ``recv`` still gives what they read)."""
    token = created["seats"][seat]["token"] if seat is not None else spectator_token(created)
    if name == "auto":
        name = (f"P{seat}" if seat is not None and created["game"] == "regicide"
                and created["players"] > 1 else None)
    p = Peer(client, created["id"], token, name=f"seat {seat}", hello_name=name)
    p.recv_until(lambda m: m["type"] == "state")
    p.table_id = created["id"]
    if not p.state["waiting"]:  # the game starts: the seats that waited get their state
        for q in getattr(client, "peers", []):
            if q is not p and getattr(q, "table_id", None) == p.table_id \
                    and q.state is not None and q.state.get("waiting"):
                q.peek_until(lambda m: m["type"] == "state" and not m["waiting"])
    return p


def states_by_ply(game: str, config: dict, seed: int, actions: list[str]) -> list[Any]:
    """The engine state after each ply (index 0: the deal)."""
    m = Match(get_game(game), config, seed)
    out = [m.state]
    for a in actions:
        m.play(a)
        out.append(m.state)
    return out


CARD = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS])(?![A-Za-z0-9])")


def card_tokens(text: str) -> set[str]:
    """Regicide card texts appearing in a string (``5C``, ``TD``...)."""
    return set(CARD.findall(text))


def play_randomly(peers: dict[int, Peer], spectator: Peer, rng: random.Random,
                  max_moves: int = 3000, chatter: bool = True) -> None:
    """Drive the human seats ``peers`` with random legal actions until the game ends; bots
    play their own seats. With ``chatter``, other seats also send wishes, sayings and
    refused actions now and then (each must leak nothing)."""
    moves = 0
    while True:
        st = spectator.state
        if st["finished"]:
            for p in peers.values():
                p.state_at(st["ply"])
                p.drain(0.05)
            return
        actor = st["current"]
        p = peers.get(actor)
        if p is None:  # a bot's turn
            spectator.recv_until(lambda m: m["type"] == "state", timeout=10)
            continue
        p.state_at(st["ply"])
        if p.state["ply"] != st["ply"]:
            spectator.state_at(p.state["ply"])
            continue
        if chatter:
            for k, other in peers.items():
                if k == actor:
                    continue
                if other.state["side"] and rng.random() < 0.5:
                    other.send({"type": "wish", "value": rng.choice(["yes", "no"])})
                elif moves % 5 == 0:
                    other.act(rng.choice(["play 5C", "yield", "discard 2H", "reveal 1", "draw"]))
                elif moves % 7 == 1 and other.state["game"] == "regicide":
                    other.send({"type": "say", "message_id": rng.choice(["hand_size", "tavern_size", "hello"])})
        legal = p.state["legal"]
        assert legal, f"seat {actor} to act but no legal action sent"
        p.act(rng.choice(legal))
        p.recv_until(lambda m: (m["type"] == "state" and m["ply"] > st["ply"])
                     or m["type"] == "error", timeout=10)
        spectator.state_at(st["ply"] + 1, timeout=10)
        moves += 1
        assert moves < max_moves, "the game did not end"
