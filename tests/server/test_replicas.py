"""Three replicas (``regalia serve --redis-url ... --replica NAME``) on one PostgreSQL and one
Redis serve the same tables: 4-seat Regicide tables (humans and bots) and Le Roy des Ribauds
tables whose seats and spectators are spread over the replicas.

* Players on different replicas see each other's moves and talk (measured; asserted within a
  generous bound), and a move sent on a stale ply is refused with ``stale`` (also when two
  connections of one seat on two replicas race for the same ply: one move is stored).
* One replica (the one running the most tables' bots) is killed with SIGKILL mid-game: the
  bots of its tables resume on another replica within 5 s, no stored move is lost or played
  twice, and every client, reconnected to a live replica, converges on the stored game.
* At the end the database's move log of every table is 0..n-1 without gap or duplicate and
  replays with the engine, and every ``state`` message any client ever received is exactly
  the replayed position at its ply (as that seat sees it).

Needs ``REGALIA_TEST_POSTGRES_URL`` (a fresh database is created on that server and dropped
afterwards) and Redis: ``REGALIA_TEST_REDIS_URL``, or a private ``redis-server`` started on a
free port. Without them the tests are skipped, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import importlib.util
import random
import threading
import time
from typing import Any

import pytest

from replica_helpers import (PG_URL, Client, PostgresDatabase, RedisServer, Replayed,
                             Replica, choose, need, spectator_token, summary)

pytestmark = pytest.mark.slow

BOT_DELAY = 0.15     # seconds a bot waits before it acts (an all-bot table lasts several seconds)
RESUME_TARGET = 5.0  # seconds from the SIGKILL to the first move of a table it ran the bots of
SEEN_WITHIN = 2.0    # seconds a move or a talk message may take to reach the other replicas


# ---------------------------------------------------------------- fixtures

@pytest.fixture
def postgres():
    need(bool(PG_URL), "REGALIA_TEST_POSTGRES_URL is not set (CI sets it)")
    need(importlib.util.find_spec("psycopg") is not None, "no PostgreSQL driver: pip install -e '.[postgres]'")
    db = PostgresDatabase(PG_URL)
    db.create()
    yield db
    db.drop()


@pytest.fixture
def redis_server(tmp_path):
    r = RedisServer(tmp_path)
    r.start()
    yield r
    r.stop()


class Cluster:
    """The replicas and every websocket client opened on them."""

    def __init__(self, db: PostgresDatabase, redis_url: str, tmp) -> None:
        self.db = db
        self.replicas = [Replica(f"r{i}", db.url, redis_url, tmp, BOT_DELAY) for i in range(3)]
        self.clients: list[Client] = []

    def start(self, together: bool) -> list[Replica]:
        """Start the three replicas: all at once, or the first one (which creates the
        schema) before the two others."""
        if together:
            for r in self.replicas:
                r.launch()
        else:
            self.replicas[0].launch()
            self.replicas[0].wait_ready()
            for r in self.replicas[1:]:
                r.launch()
        for r in self.replicas:
            r.wait_ready()
        return self.replicas

    def live(self) -> list[Replica]:
        return [r for r in self.replicas if r.alive]

    def connect(self, replica: Replica, table_id: str, token: str, seat: int | None) -> Client:
        c = Client(replica, table_id, token, seat)
        self.clients.append(c)
        return c

    def teardown(self) -> None:
        for c in self.clients:
            c.close()
        for r in self.replicas:
            r.stop()
        # shown by pytest only when the test failed
        for r in self.replicas:
            print(f"\n===== log of replica {r.name} (port {r.port}"
                  f"{', killed' if r.killed_at else ''}) =====\n{r.tail()}")


@pytest.fixture
def cluster(postgres, redis_server, tmp_path):
    c = Cluster(postgres, redis_server.url, tmp_path)
    try:
        yield c
    finally:
        c.teardown()


# ---------------------------------------------------------------- a table and its clients

class Delays:
    """Seconds from a client's message to its arrival at each other client."""

    def __init__(self) -> None:
        self.same: list[float] = []   # clients on the sender's replica
        self.cross: list[float] = []  # clients on another replica
        self.worst: list[tuple[float, str]] = []

    def add(self, delay: float, cross: bool, what: str) -> None:
        (self.cross if cross else self.same).append(delay)
        self.worst.append((delay, what))

    def report(self, name: str) -> str:
        return f"{name}: same replica {summary(self.same)}; other replicas {summary(self.cross)}"


class TableRun:
    """A table of the test: its seats' kinds and tokens, and its clients (the live ones and
    those of the killed replica)."""

    def __init__(self, cluster: Cluster, created: dict[str, Any], kinds: list[str]) -> None:
        self.cluster = cluster
        self.id = created["id"]
        self.game = created["game"]
        self.kinds = kinds
        self.tokens: dict[int | None, str] = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
        self.tokens[None] = spectator_token(created)
        self.clients: list[Client] = []     # the current connections
        self.all_clients: list[Client] = []  # every connection ever opened

    def __repr__(self) -> str:
        return f"{self.game} {self.id} {self.kinds}"

    @property
    def has_bots(self) -> bool:
        return any(k != "human" for k in self.kinds)

    def join(self, replica: Replica, seat: int | None) -> Client:
        c = self.cluster.connect(replica, self.id, self.tokens[seat], seat)
        self.clients.append(c)
        self.all_clients.append(c)
        return c

    def live(self) -> list[Client]:
        return [c for c in self.clients if not c.closed and c.replica.alive]

    def latest(self) -> dict[str, Any]:
        return max((c.state for c in self.live()), key=lambda m: m["ply"])

    def finished(self) -> bool:
        return self.latest()["finished"]


def wait_all(clients: list[Client], pred, marks: dict[int, int], timeout: float) -> dict[int, float]:
    """Arrival time at each client (by ``id``) of its first message from its mark on that
    ``pred`` accepts."""
    return {id(c): c.wait_for(pred, timeout, since=marks[id(c)])[0] for c in clients}


def human_moves(t: TableRun, n: int, rng: random.Random, delays: Delays) -> int:
    """Up to ``n`` moves of the table's human seats (each by one of its connections, chosen at
    random), waiting for the bots in between; each move's arrival at every client of the
    table is measured. Returns the number of moves made."""
    made = 0
    for _ in range(8 * n + 8):
        if made >= n:
            break
        st = t.latest()
        if st["finished"]:
            break
        p, cur = st["ply"], st["current"]
        if t.kinds[cur] != "human":  # a bot's turn: its move comes by itself
            t.live()[0].wait_ply(p + 1, timeout=20)
            continue
        mover = rng.choice([c for c in t.live() if c.seat == cur])
        _, mine = mover.wait_ply(p, timeout=15)
        if mine["ply"] != p or not mine["legal"]:
            continue
        action = choose(t.game, mine, rng)
        clients = t.live()
        marks = {id(c): c.mark() for c in clients}
        t0 = time.monotonic()
        mover.send({"type": "act", "ply": p, "action": action})
        _, answer = mover.wait_for(lambda m: (m["type"] == "state" and m["ply"] > p) or m["type"] == "error",
                                   timeout=15, since=marks[id(mover)])
        if answer["type"] == "error":
            # e.g. a bot's side move came first; look again
            assert answer["code"] in ("stale", "not_your_turn"), answer
            continue
        arrived = wait_all(clients, lambda m: m["type"] == "state" and m["ply"] > p, marks, 15)
        for c in clients:
            delays.add(arrived[id(c)] - t0, c.replica is not mover.replica,
                       f"{t.id} ply {p} {mover.replica.name}->{c.label}")
        made += 1
    return made


def talk(t: TableRun, sender: Client, delays: Delays, message: dict[str, Any]) -> None:
    """``sender`` says something; every other client of the table receives it (timed)."""
    clients = [c for c in t.live() if c is not sender]
    marks = {id(c): c.mark() for c in clients}
    t0 = time.monotonic()
    sender.send(message)
    if message["type"] == "say":
        match = lambda m: (m["type"] == "talk" and m.get("seat") == sender.seat  # noqa: E731
                           and m.get("message_id") == message["message_id"])
    else:
        match = lambda m: (m["type"] == "talk" and m.get("seat") == sender.seat  # noqa: E731
                           and m.get("text") == message["text"])
    arrived = wait_all(clients, match, marks, 15)
    for c in clients:
        delays.add(arrived[id(c)] - t0, c.replica is not sender.replica,
                   f"talk {t.id} {sender.replica.name}->{c.label}")


def leases(replicas: list[Replica]) -> dict[str, list[str]]:
    out = {}
    for r in replicas:
        h = r.health()
        assert h.get("redis") == "ok", (r.name, h)
        out[r.name] = list(h["leases"])
    return out


def wait_leases(replicas: list[Replica], must: set[str], timeout: float = 15.0) -> dict[str, list[str]]:
    """The replicas' leases once every table of ``must`` is held by exactly one of them and
    no table by two."""
    deadline = time.monotonic() + timeout
    while True:
        held = leases(replicas)
        owners: dict[str, list[str]] = {}
        for name, ids in held.items():
            for i in ids:
                owners.setdefault(i, []).append(name)
        twice = {i: o for i, o in owners.items() if len(o) > 1}
        missing = must - set(owners)
        if not twice and not missing:
            return held
        if time.monotonic() > deadline:
            raise AssertionError(f"leases held twice: {twice}; held by nobody: {missing}; "
                                 f"leases: {held}")
        time.sleep(0.2)


# ---------------------------------------------------------------- the tests

def test_three_replicas_start_together_on_a_fresh_database(cluster):
    """Three replicas started at the same moment on an empty database (each migrates it at
    start) all come up; ``/healthz`` names each and says Redis answers."""
    cluster.start(together=True)
    for r in cluster.replicas:
        h = r.health()
        assert h["replica"] == r.name and h["redis"] == "ok" and h["ok"], h
        assert h["leases"] == [] and isinstance(h["db_round_trips"], int), h
        assert isinstance(h["redis_round_trips"], int), h


def test_replicas_share_tables_and_survive_a_kill_9(cluster):
    """The module docstring's scenario (the delays measured are printed: ``pytest -s``)."""
    db = cluster.db
    rng = random.Random(11)
    r0, r1, r2 = cluster.start(together=False)
    for r in (r0, r1, r2):
        h = r.health()
        assert h["replica"] == r.name and h["redis"] == "ok", h
        for key in ("leases", "db_round_trips", "redis_round_trips"):
            assert key in h, (key, h)

    moves, talks = Delays(), Delays()
    tables: list[TableRun] = []

    def table(on: Replica, game: str, kinds: list[str], seats: dict[int | None, list[Replica]]) -> TableRun:
        t = TableRun(cluster, on.create(game, kinds), kinds)
        for seat, where in seats.items():
            for rep in where:
                t.join(rep, seat)
        tables.append(t)
        return t

    # Regicide, 4 seats, humans and bots; seat 0 of ``a`` has a connection on two replicas
    a = table(r0, "regicide", ["human", "human", "heuristic", "heuristic"],
              {0: [r0, r1], 1: [r1], None: [r2]})
    b = table(r1, "regicide", ["human", "heuristic", "human", "human"],
              {0: [r1], 2: [r2], 3: [r0], None: [r0]})
    c = table(r2, "ribauds", ["human", "human"], {0: [r2], 1: [r0], None: [r1]})
    d = table(r0, "ribauds", ["human", "tactical"], {0: [r1], None: [r2]})
    mixed = [a, b, c, d]

    # talk crosses the replicas
    talk(a, a.clients[0], talks, {"type": "say", "message_id": "hello"})
    talk(b, b.clients[2], talks, {"type": "say", "message_id": "thinking"})
    talk(c, c.clients[1], talks, {"type": "chat", "text": "bonjour from r0"})

    # Two connections of one seat, on two replicas, send a move for the same ply: one is stored.
    race = race_for_a_ply(a, rng, db, moves)

    # A move sent on a stale ply is refused, whichever replica stored the move after it.
    stale_checked = False
    for _ in range(6):
        st = c.latest()
        if st["finished"]:
            break
        p, cur = st["ply"], st["current"]
        mover = next(x for x in c.live() if x.seat == cur)
        _, mine = mover.wait_ply(p)
        if p >= 1 and mine["legal"]:
            mark = mover.mark()
            mover.send({"type": "act", "ply": p - 1, "action": mine["legal"][0]})
            _, err = mover.wait_for(lambda m: m["type"] == "error", since=mark)
            assert err["code"] == "stale", err
            time.sleep(0.2)
            assert db.counts([c.id])[c.id] == p, "a move sent on a stale ply was stored"
            assert mover.ply == p
            stale_checked = True
            break
        human_moves(c, 1, rng, moves)
    for t, n in ((a, 2), (b, 3), (c, 1), (d, 2)):
        human_moves(t, n, rng, moves)

    # Tables run by bots alone (a spectator of each on another replica), made now so that
    # they are mid-game at the kill.
    live = cluster.live()
    bots_only = []
    for i in range(6):
        on, watch = live[i % 3], live[(i + 1) % 3]
        bots_only.append(table(on, "regicide", ["heuristic"] * 4, {None: [watch]}))
    time.sleep(0.5)
    must = {t.id for t in bots_only if not t.finished()}
    held = wait_leases(cluster.live(), must)
    victim = max(cluster.live(), key=lambda r: len(held[r.name]))
    victim_leases = set(held[victim.name])
    print(f"\nleases before the kill: {held}; killing {victim.name}")

    # A move in flight to the victim as it dies (stored or not: the clients must agree).
    in_flight = None
    for t in mixed:
        st = t.latest()
        if st["finished"] or t.kinds[st["current"]] != "human":
            continue
        mover = next((x for x in t.live() if x.seat == st["current"] and x.replica is victim), None)
        if mover is not None and mover.state["ply"] == st["ply"] and mover.state["legal"]:
            mover.send({"type": "act", "ply": st["ply"], "action": choose(t.game, mover.state, rng)})
            in_flight = (t.id, st["ply"])
            break

    seen_before = {id(x): x.ply for t in tables for x in t.live()}
    victim.kill9()
    t_kill = victim.killed_at
    assert t_kill is not None

    # The bots of the victim's tables resume on another replica: the first move stored after
    # the kill (the database is read after the kill, so that move is another replica's).
    stored = db.moves()
    meta = db.tables()
    resumable: dict[str, int] = {}
    for tid in victim_leases:
        if tid not in meta:
            continue
        acts = [m[2] for m in stored.get(tid, [])]
        rp = Replayed(meta[tid]["game"], meta[tid]["config"], meta[tid]["seed"], acts)
        kinds = next(t.kinds for t in tables if t.id == tid)
        if not rp.finished(rp.n) and kinds[rp.current(rp.n)] != "human":
            resumable[tid] = rp.n
    assert resumable, (f"{victim.name} ran no table whose bot was to move at the kill "
                       f"(its leases: {victim_leases})")
    resumed: dict[str, float] = {}

    def watch_resume() -> None:
        deadline = t_kill + 20
        while len(resumed) < len(resumable) and time.monotonic() < deadline:
            counts = db.counts(list(resumable))
            now = time.monotonic()
            for tid, n in counts.items():
                if tid not in resumed and n > resumable[tid]:
                    resumed[tid] = now - t_kill
            time.sleep(0.05)

    watcher = threading.Thread(target=watch_resume, daemon=True)
    watcher.start()

    # Every client of the victim sees its connection close, reconnects to a live replica,
    # and gets at least the position it had seen (no acknowledged move is lost).
    live = cluster.live()
    k = 0
    for t in tables:
        for old in [x for x in t.clients if x.replica is victim]:
            deadline = time.monotonic() + 15
            while not old.closed and time.monotonic() < deadline:
                time.sleep(0.05)
            assert old.closed, f"{old.label}: still open after its replica was killed"
            t.clients.remove(old)
            new = t.join(live[k % len(live)], old.seat)
            k += 1
            new.wait_ply(seen_before.get(id(old), 0), timeout=15)
    for t in tables:
        for x in t.live():
            if id(x) in seen_before:
                assert x.ply >= seen_before[id(x)]

    watcher.join(25)
    print(f"bots resumed after the kill (seconds, per table): "
          f"{ {tid[:8]: round(s, 2) for tid, s in resumed.items()} }")
    late = {tid: resumed.get(tid) for tid in resumable if resumed.get(tid, 99) > RESUME_TARGET}
    assert not late, f"bots not resumed within {RESUME_TARGET}s after the kill: {late}"

    # the victim's tables are now run by the live replicas, each by one
    by_id = {t.id: t for t in tables}
    wait_leases(cluster.live(), {tid for tid in resumable if not by_id[tid].finished()})

    # talk and moves still cross the (live) replicas
    for t in (a, b):
        senders = [x for x in t.live() if x.seat is not None]
        if senders:
            talk(t, senders[-1], talks, {"type": "say", "message_id": "well_played"})
    for t, n in ((a, 6), (b, 6), (c, 3), (d, 3)):
        human_moves(t, n, rng, moves)

    # Let the tables come to rest: bots-only tables finished, the others at a human's turn
    # (or finished), every client at the stored ply.
    settle(tables, db, timeout=60)

    # ---- the checks against the database
    stored = db.moves()
    meta = db.tables()
    for t in tables:
        rows = stored.get(t.id, [])
        plies = [r[0] for r in rows]
        assert plies == list(range(len(rows))), f"{t}: plies {plies}"
        rp = Replayed(meta[t.id]["game"], meta[t.id]["config"], meta[t.id]["seed"],
                      [r[2] for r in rows])
        for x in t.all_clients:
            check_client(t, x, rp)
        finals = [x.state for x in t.live()]
        for f in finals:
            assert f["ply"] == rp.n, (t, f["ply"], rp.n)
        assert len({(f["ply"], f["current"], f["finished"], str(f["outcome"])) for f in finals}) == 1, t
        public = [x for x in t.live() if x.seat is None]
        assert public, f"{t}: no spectator left"
    if in_flight is not None:
        tid, p = in_flight
        print(f"move in flight at the kill: table {tid[:8]} ply {p}: "
              f"{'stored' if len(stored.get(tid, [])) > p else 'not stored'}")

    healths = {r.name: r.health() for r in cluster.live()}
    for name, h in healths.items():
        assert h["redis"] == "ok" and h["ok"], h
    print(moves.report("moves"))
    print(talks.report("talk"))
    print("slowest arrivals: " + "; ".join(f"{w[1]} {w[0] * 1000:.0f}ms"
                                          for w in sorted(moves.worst + talks.worst, reverse=True)[:5]))
    print(f"moves of tables with bots across replicas (spread of arrivals per ply): "
          f"{summary(bot_spread(tables, t_kill))}")
    print(f"stale check: {'done' if stale_checked else 'skipped (table over)'}; race: {race}")
    print("round trips: " + "; ".join(f"{n}: db {h['db_round_trips']} redis {h['redis_round_trips']} "
                                      f"moves {h.get('moves')}" for n, h in healths.items()))
    # the live replicas logged no failure (a lease lost or a warning is only shown)
    for r in cluster.live():
        text = r.log.read_text(errors="replace")
        bad = [ln for ln in text.splitlines()
               if ln.startswith(("ERROR", "CRITICAL", "Traceback")) or "never awaited" in ln]
        warned = [ln for ln in text.splitlines() if ln.startswith("WARNING")]
        if warned:
            print(f"{r.name} warned {len(warned)} time(s), e.g. {warned[0]}")
        assert not bad, f"replica {r.name} logged failures: {bad[:5]}"
    slow = [w for w in moves.worst + talks.worst if w[0] > SEEN_WITHIN]
    assert not slow, f"messages slower than {SEEN_WITHIN}s across replicas: {sorted(slow, reverse=True)[:10]}"


# ---------------------------------------------------------------- pieces of the test

def race_for_a_ply(t: TableRun, rng: random.Random, db: PostgresDatabase, delays: Delays) -> str:
    """Seat 0 of ``t`` has connections on two replicas; at its turn both send a move for the
    same ply at once: exactly one is stored, the other connection gets an ``error``."""
    for _ in range(40):
        st = t.latest()
        if st["finished"]:
            return "skipped (table over)"
        p, cur = st["ply"], st["current"]
        conns = [x for x in t.live() if x.seat == 0]
        if cur == 0 and len(conns) == 2:
            states = [x.wait_ply(p)[1] for x in conns]
            if all(s["ply"] == p and s["legal"] for s in states):
                legal = states[0]["legal"]
                acts = [legal[0], legal[-1]]
                marks = {id(x): x.mark() for x in t.live()}
                for x, act in zip(conns, acts):
                    x.send({"type": "act", "ply": p, "action": act})
                wait_all(t.live(), lambda m: m["type"] == "state" and m["ply"] > p, marks, 15)
                deadline = time.monotonic() + 10
                errors: list[dict[str, Any]] = []
                while time.monotonic() < deadline:
                    errors = [m for x in conns for _, m in x.messages[marks[id(x)]:] if m["type"] == "error"]
                    if errors:
                        break
                    time.sleep(0.05)
                time.sleep(0.5)
                errors = [(x, m) for x in conns for _, m in x.messages[marks[id(x)]:] if m["type"] == "error"]
                stored = db.moves()[t.id]
                # seat 0's turn actions stored since ply p (a bot's Jester-window wish, a side
                # action, may have been stored at p first: seat 0's move then comes after it)
                ours = [r for r in stored if r[0] >= p and r[1] == 0 and r[2] in acts]
                assert len(ours) == 1, (ours, acts)
                assert len(errors) == 1 or (acts[0] == acts[1] and len(errors) <= 1), errors
                if acts[0] != acts[1]:
                    loser = errors[0][0]
                    assert ours[0][2] == acts[1 - conns.index(loser)], (ours, acts)
                code = errors[0][1]["code"] if errors else "none"
                assert code in ("stale", "not_your_turn"), errors
                return f"ply {p}: one move stored, the other refused ({code})"
        human_moves(t, 1, rng, delays)
    return "skipped (seat 0 never to move)"


def settle(tables: list[TableRun], db: PostgresDatabase, timeout: float) -> None:
    """Wait until no table moves by itself any more and every client holds the stored ply."""
    deadline = time.monotonic() + timeout
    while True:
        counts = db.counts([t.id for t in tables])
        waiting = []
        for t in tables:
            n = counts[t.id]
            live = t.live()
            states = [x.state for x in live]
            at_rest = all(s["finished"] or t.kinds[s["current"]] == "human" for s in states)
            if not (at_rest and all(s["ply"] == n for s in states)):
                waiting.append((t.id[:8], n, sorted({s["ply"] for s in states})))
        if not waiting:
            time.sleep(0.5)  # still at rest a moment later?
            if db.counts([t.id for t in tables]) == counts:
                return
            continue
        if time.monotonic() > deadline:
            raise AssertionError(f"tables not at rest after {timeout}s (table, stored plies, "
                                 f"plies of its clients): {waiting}")
        time.sleep(0.2)


def check_client(t: TableRun, x: Client, rp: Replayed) -> None:
    """Every ``state`` message ``x`` received is the stored game at its ply, as its seat sees
    it; its log, put together from the tails, is the whole log."""
    last = None
    for _, m in x.states():
        p = m["ply"]
        assert p <= rp.n, f"{x.label}: saw ply {p}, but only {rp.n} moves are stored"
        view, _ = rp.view(p, x.seat)
        assert m["view"] == view, f"{x.label}: the view at ply {p} is not the stored game's"
        assert m["current"] == rp.current(p) and m["finished"] == rp.finished(p), (x.label, p)
        if last is not None:
            assert p >= last, f"{x.label}: went back from ply {last} to {p}"
        last = p
    if last is not None:
        _, log = rp.view(last, x.seat)
        assert x.log == log, f"{x.label}: its log at ply {last} is not the stored game's"


def bot_spread(tables: list[TableRun], t_kill: float) -> list[float]:
    """For each ply of the tables with bots seen by clients on two or more replicas before
    the kill: the spread of its arrival times (last minus first)."""
    out = []
    for t in tables:
        if t.has_bots:
            first: dict[int, dict[str, float]] = {}
            for x in t.all_clients:
                states = x.states()
                if not states:
                    continue
                start = states[0][1]["ply"]
                for tm, m in states[1:]:
                    if tm >= t_kill - 1:
                        break
                    for p in range(start + 1, m["ply"] + 1):
                        first.setdefault(p, {}).setdefault(x.replica.name, tm)
                    start = max(start, m["ply"])
            for p, by in first.items():
                if len(by) >= 2:
                    out.append(max(by.values()) - min(by.values()))
    return out
