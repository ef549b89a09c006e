"""Many replicas, one site (``regalia.server.replicas.cluster``), in one process: two apps on one
database and one Redis (``conftest.redis_url``), each driven by its own test client.
The subprocess test with SIGKILL is ``test_replicas.py``."""

from __future__ import annotations

import threading
import time

import pytest

from regalia.server.replicas.cluster import table_channel
from server_helpers import Peer, Timeout, join, new_table, running_app


@pytest.fixture
def replicas(two_replicas):
    """Two started replicas (``a``, ``b``) on one SQLite file and one Redis."""
    with two_replicas() as both:
        yield both


def wait_for(pred, timeout: float = 5.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while not (value := pred()):
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.02)
    return value


def health(client) -> dict:
    return client.get("/healthz").json()


def test_a_move_stored_by_one_replica_reaches_the_players_of_the_other(replicas):
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    pa, pb = join(a, t, 0), join(b, t, 1)
    for p in (pa, pb):  # each page sees the other seat connected (to the other replica)
        wait_for(lambda: p.drain() or all(s["connected"] for s in p.state["seats"]),
                 what="both seats shown connected")
    played = 0
    while played < 6 and not pa.state["finished"]:  # a Ribauds game may end in 4 moves
        mover = wait_for(lambda: pa.drain() or pb.drain()
                         or next((p for p in (pa, pb) if p.state["legal"]), None),
                         what="a seat with legal actions")
        other = pb if mover is pa else pa
        ply = mover.state["ply"]
        mover.act(mover.state["legal"][0])
        mine, theirs = mover.state_at(ply + 1), other.state_at(ply + 1)
        assert mine["ply"] == theirs["ply"] == ply + 1
        def public(seats):  # (a seat's own entry also tells its windows)
            return [{k: v for k, v in s.items() if k != "windows"} for s in seats]
        assert mine["current"] == theirs["current"]
        assert public(mine["seats"]) == public(theirs["seats"])
        played += 1
    assert played >= 4 and health(a)["moves"] + health(b)["moves"] == played
    assert health(a)["redis"] == health(b)["redis"] == "ok"


def test_a_concession_on_one_replica_ends_the_game_on_the_other(replicas):
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    pa, pb = join(a, t, 0), join(b, t, 1)
    watcher = join(b, t, None)
    pa.send({"type": "concede"})
    for p in (pa, pb, watcher):
        st = p.finished(timeout=5)
        assert st["outcome"]["ending"] == {"how": "conceded", "seat": 0}
        assert st["outcome"]["winner"] == 1 and p.log[-1]["kind"] == "conceded"
    assert b.get(f"/api/tables/{t['id']}").json()["ending"] == {"how": "conceded", "seat": 0}
    pb.send({"type": "concede"})  # the other replica knows the game is over
    assert pb.recv_until(lambda m: m["type"] == "error")["code"] == "finished"


def test_a_proposal_to_stop_is_answered_through_the_other_replica(replicas):
    a, b = replicas
    t = new_table(a, "regicide", ["human", "human", "human"])
    pa, pb, pc = join(a, t, 0), join(b, t, 1), join(b, t, 2)
    pa.send({"type": "stop", "agree": True})
    st = pb.recv_until(lambda m: m["type"] == "state" and m["stop"])
    assert st["stop"] == {"by": 0, "agreed": [0], "waiting": [1, 2]}
    pb.send({"type": "stop", "agree": True})
    st = pa.recv_until(lambda m: m["type"] == "state" and m["stop"] and 1 in m["stop"]["agreed"])
    assert st["stop"]["waiting"] == [2] and not st["finished"]
    pc.send({"type": "stop", "agree": False})  # a decline on b cancels it on a
    assert pa.recv_until(lambda m: m["type"] == "stop" and not m["agree"])["seat"] == 2
    for p in (pa, pb, pc):
        p.recv_until(lambda m: m["type"] == "state" and m["stop"] is None)
    pa.send({"type": "stop", "agree": True})  # again: this time everyone agrees
    pb.recv_until(lambda m: m["type"] == "state" and m["stop"])
    pb.send({"type": "stop", "agree": True})
    pc.recv_until(lambda m: m["type"] == "state" and m["stop"] and 1 in m["stop"]["agreed"])
    pc.send({"type": "stop", "agree": True})
    for p in (pa, pb, pc):
        st = p.finished(timeout=5)
        assert st["outcome"]["ending"] == {"how": "stopped", "seat": 0}
        assert st["outcome"]["result"] == "lost"


def test_redis_carries_no_card_a_player_may_not_see(replicas, redis_url):
    """Everything published between the replicas is what every player of the table may see:
    a move's event says only that a move was stored at a ply (a Ribauds face-down card
    ``replace 1 Q down`` was on the channel in clear); the replicas read the rest from the
    database."""
    import json

    import redis

    a, b = replicas
    heard: list[bytes] = []
    sub = redis.Redis.from_url(redis_url).pubsub()
    sub.psubscribe("regalia:*")
    stop = threading.Event()

    def listen():
        while not stop.is_set():
            msg = sub.get_message(timeout=0.05)
            if msg and msg["type"] == "pmessage":
                heard.append(msg["data"])

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    try:
        t = new_table(a, "ribauds", ["human", "human"])
        pa, pb = join(a, t, 0), join(b, t, 1)
        actions = []
        while len(actions) < 8 and not pa.state["finished"]:
            mover = wait_for(lambda: pa.drain() or pb.drain()
                             or next((p for p in (pa, pb) if p.state["legal"]), None),
                             what="a seat with legal actions")
            ply = mover.state["ply"]
            # a face-down replacement when there is one (it names a card nobody else sees)
            act = next((x for x in mover.state["legal"] if x.endswith(" down")),
                       mover.state["legal"][0])
            mover.act(act)
            actions.append(act)
            assert pa.state_at(ply + 1)["ply"] == pb.state_at(ply + 1)["ply"] == ply + 1
        wait_for(lambda: any(json.loads(m).get("k") == "move" for m in heard),
                 what="a move's event on Redis")
    finally:
        stop.set()
        listener.join(2)
        sub.close()
    assert any(x.endswith(" down") for x in actions), actions
    for raw in heard:
        event = json.loads(raw)
        assert set(event) <= {"k", "ply", "t", "r", "seats", "spectators", "body", "table", "msg"}, event
        text = raw.decode()
        assert not any(x in text for x in actions), text


def test_talk_and_who_is_connected_are_seen_on_every_replica(replicas):
    a, b = replicas
    t = new_table(a, "regicide", ["human", "human"])
    pa, pb = join(a, t, 0), join(b, t, 1)
    pa.send({"type": "say", "message_id": "hello"})
    said = pb.recv_until(lambda m: m["type"] == "talk")
    assert said["seat"] == 0 and said["message_id"] == "hello"
    # seat 0 is connected to a only, seat 1 to b only: both pages see both connected
    for p in (pa, pb):
        wait_for(lambda: p.drain() or all(s["connected"] for s in p.state["seats"]),
                 what="both seats shown connected")
    pb.close()
    wait_for(lambda: pa.drain() or not pa.state["seats"][1]["connected"],
             what="seat 1 shown gone")


def test_talk_whose_event_was_missed_is_found_by_a_catch_up_and_said_once(replicas, redis_url):
    import orjson
    import redis

    a, b = replicas
    t = new_table(a, "regicide", ["human", "human"])
    pa, pb = join(a, t, 0), join(b, t, 1)
    for _ in range(2):  # the same line twice: two messages, each shown once everywhere
        pa.send({"type": "say", "message_id": "thanks"})
        pb.recv_until(lambda m: m["type"] == "talk")
    # a line another replica stored and whose event b missed (b was loading the table);
    # any later catch-up (here another replica's sync event) shows it on b, once
    body = {"kind": "say", "seat": 0, "ply": 0, "message_id": "hello", "params": {},
            "text": "Hello!", "id": "missed"}
    b.app.state.manager.store.add_message(t["id"], 0, "say", body)
    redis.Redis.from_url(redis_url).publish(table_channel(t["id"]), orjson.dumps(
        {"k": "sync", "t": t["id"], "r": "another"}))
    wait_for(lambda: pb.drain() or any(m.get("id") == "missed" for m in pb.messages), 5,
             "the missed line shown on b")
    pb.drain(0.3)
    talk = [m for m in pb.messages if m["type"] == "talk"]
    assert [m["message_id"] for m in talk] == ["thanks", "thanks", "hello"]
    assert len({m["id"] for m in talk}) == 3
    pa.drain(0.3)  # a's copy missed the line too: its catch-up shows it, once
    assert [m["message_id"] for m in pa.messages if m["type"] == "talk"] == ["thanks"] * 2 + ["hello"]


def test_a_move_another_replica_stored_first_is_refused_as_stale_and_the_copy_catches_up(replicas):
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    pbs = [join(b, t, 0), join(b, t, 1)]  # (the table waits until each seat was opened)
    seat = pbs[0].state["current"]
    pb = pbs[seat]
    action = pb.state["legal"][0]
    # as if a third replica stored this ply and its event never came: the database decides
    store = b.app.state.manager.store
    store.append_move(t["id"], 0, seat, action)
    pb.act(pb.state["legal"][-1], 0)
    err = pb.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "stale" and "nothing was applied" in err["message"]
    st = pb.state_at(1)  # read again from the database: the stored move is there
    assert st["ply"] == 1 and len(store.load_table(t["id"]).moves) == 1


def test_a_free_seat_is_taken_once_across_replicas(replicas):
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"], open=True, name="Ana")
    results = {}

    def take(client, name):
        results[name] = client.post(f"/api/tables/{t['id']}/join", json={"name": name})

    threads = [threading.Thread(target=take, args=(c, n)) for c, n in ((a, "Bo"), (b, "Cy"))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    codes = sorted(r.status_code for r in results.values())
    assert codes == [200, 409], {n: r.text for n, r in results.items()}
    winner = next(n for n, r in results.items() if r.status_code == 200)
    for c in (a, b):
        seats = wait_for(lambda: (s := c.get(f"/api/tables/{t['id']}").json()["seats"])[1]["name"]
                         == winner and s, what="the seat's name on every replica")
        assert seats[1]["claimed"]


def test_rate_limits_and_connection_caps_count_for_the_whole_site(db_url, redis_url):
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    kw = dict(redis_url=redis_url, table_rate="2/minute", connections_per_address=2)
    with running_app(db_url, replica="a", **kw) as a, running_app(db_url, replica="b", **kw) as b:
        t = new_table(a, "regicide", ["human"])
        new_table(b, "regicide", ["human"])
        r = a.post("/api/tables", json={"game": "regicide", "players": 1,
                                        "seats": [{"kind": "human"}]})
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
        join(a, t, 0), join(b, t, 0)  # two connections of one address, one per replica
        with a.websocket_connect(f"/ws/{t['id']}") as ws:
            m = ws.receive_json()
            assert m["code"] == "too_many_connections"
        assert health(a)["redis_round_trips"] > 0 and health(b)["db_round_trips"] > 0
        m = a.app.state.manager  # the limits use the cluster's connections, closed at its stop
        client = m.limits.shared.storage.bridge.storage
        assert client.connection_pool is m.cluster.redis.connection_pool


def test_the_bots_of_a_stopped_replica_go_on_on_another_within_5_s(db_url, redis_url):
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    kw = dict(redis_url=redis_url, bot_delay=0.3)
    with running_app(db_url, replica="b", **kw) as b:
        with running_app(db_url, replica="a", **kw) as a:
            t = new_table(a, "regicide", ["random", "random"])
            assert t["id"] in health(a)["leases"]
            wait_for(lambda: a.get(f"/api/tables/{t['id']}").json()["ply"] >= 2,
                     what="the bots playing on a")
        stopped = time.monotonic()
        ply = b.get(f"/api/tables/{t['id']}").json()["ply"]
        wait_for(lambda: t["id"] in health(b)["leases"], 5, "the lease taken over by b")
        wait_for(lambda: b.get(f"/api/tables/{t['id']}").json()["ply"] > ply
                 or b.get(f"/api/tables/{t['id']}").json()["status"] == "finished",
                 5, "a bot move on b")
        assert time.monotonic() - stopped < 5
        moves = b.app.state.manager.store.load_table(t["id"]).moves
        assert [m[0] for m in moves] == list(range(len(moves)))  # no gap, none twice


def test_after_a_stall_longer_than_a_lease_the_bots_wait_for_its_renewal(db_url, redis_url):
    """A replica whose process stalled (its last renewal older than the lease could live)
    does not trust its leases: its bots and clocks wait until the next renewal succeeds."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    with running_app(db_url, redis_url=redis_url, replica="a", bot_delay=0.2) as a:
        m = a.app.state.manager
        t = new_table(a, "regicide", ["random", "random"])
        table = m.tables[t["id"]]
        wait_for(lambda: table.runs_bots, what="the lease taken")

        def stall() -> bool:  # a renewal already in flight may land between set and check
            m.cluster.leasing.renewed -= 60
            return not table.runs_bots and not m.cluster.holds(t["id"])

        assert any(stall() for _ in range(3))
        assert t["id"] in m.cluster.leases  # still held in Redis: only not trusted
        ply = table.ply
        wait_for(lambda: table.runs_bots, 3, "the next renewal")
        wait_for(lambda: table.ply > ply or table.finished, 5, "the bots going on")


def test_a_clock_run_by_one_replica_times_out_for_the_players_of_both(db_url, redis_url):
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    kw = dict(redis_url=redis_url, clock_presets="tiny=1+0", bot_delay=5.0)
    with running_app(db_url, replica="a", **kw) as a, running_app(db_url, replica="b", **kw) as b:
        t = new_table(a, "regicide", ["human", "human"], clock="tiny")
        pa, pb = join(a, t, 0), join(b, t, 1)
        assert t["id"] in health(a)["leases"] and t["id"] not in health(b)["leases"]
        seat = pa.state["current"]
        for p in (pa, pb):  # the alarm rings on a; b's page hears of it too
            m = p.recv_until(lambda m: m["type"] == "timeout", timeout=5)
            assert m["seat"] == seat
            handed = lambda m: m["type"] == "state" and m["seats"][seat]["bot_replaces"]  # noqa: E731
            # (on b the state read again from the database may come before the alarm's word)
            st = next((m for m in p.messages if handed(m)), None) or p.recv_until(handed)
            assert st["clock"]["timed_out"] == [seat]


def _first_move(client, t):
    """A seat to act at ply 0 and a legal action of it (seen through ``client``; every
    human seat is opened: the table waits until then)."""
    peers = {k: join(client, t, k) for k, s in enumerate(t["seats"]) if s.get("token")}
    seat = peers[0].state["current"]
    p = peers[seat]
    return p, seat, p.state["legal"][0]


def test_a_database_catch_up_during_a_local_move_does_not_apply_it_twice(replicas):
    # a's copy reads the table again (say, a seat changed on b) while a's own move is stored
    # but not yet applied: the read sees that move; the copy must still hold it once
    import asyncio

    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    p, seat, action = _first_move(a, t)
    m = a.app.state.manager
    table = m.tables[t["id"]]
    store_move = m.writer.append_move

    async def slow_append(*args, **kw):
        await store_move(*args, **kw)
        table.request_sync()
        await asyncio.sleep(0.3)  # the catch-up's read comes back first

    m.writer.append_move = slow_append
    try:
        p.act(action)
        p.state_at(1)
        time.sleep(0.5)
    finally:
        del m.writer.append_move
    assert len(m.store.load_table(t["id"]).moves) == 1
    assert a.get(f"/api/tables/{t['id']}").json()["ply"] == 1
    pb = join(b, t, 1 - seat)
    assert pb.state["ply"] == 1


def test_an_event_arriving_while_the_table_loads_is_not_lost(replicas, redis_url):
    # b reads the table, another replica stores a move and announces it before b's copy
    # is in place: b's copy must still catch up (nothing else will tell it)
    import orjson
    import redis

    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    _, seat, action = _first_move(a, t)
    store = b.app.state.manager.store
    load = store.load_table
    r = redis.Redis.from_url(redis_url)

    def racing_load(table_id, *args, **kw):
        data = load(table_id, *args, **kw)
        if table_id == t["id"] and not data.moves:
            store.append_move(table_id, 0, seat, action)
            r.publish(table_channel(table_id), orjson.dumps(
                {"k": "move", "ply": 0, "seat": seat, "action": action, "clock": None,
                 "t": table_id, "r": "another"}))
            time.sleep(0.3)  # the event reaches b before the copy is in place
        return data

    store.load_table = racing_load
    try:
        assert b.get(f"/api/tables/{t['id']}").status_code == 200
    finally:
        del store.load_table
    wait_for(lambda: b.get(f"/api/tables/{t['id']}").json()["ply"] == 1, 3,
             "b's copy catching up")


def test_events_missed_while_the_subscription_reconnects_are_caught_up(replicas, redis_url):
    # Redis drops b's subscription (redis-py reconnects and subscribes again by itself);
    # a move announced meanwhile is lost to b: b must read its tables again
    import redis

    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    _, seat, action = _first_move(b, t)
    b.app.state.manager.store.append_move(t["id"], 0, seat, action)  # its event was lost
    r = redis.Redis.from_url(redis_url)
    assert r.client_kill_filter(_type="pubsub") >= 1
    wait_for(lambda: b.get(f"/api/tables/{t['id']}").json()["ply"] == 1, 3,
             "b's copy catching up")


def test_a_count_redis_missed_at_a_close_is_written_again_at_the_next_heartbeat(db_url, redis_url):
    # Redis fails while a websocket closes: the site's count for that address stays one
    # too high until this replica's next heartbeat writes its own count again
    import redis

    r = redis.Redis.from_url(redis_url)
    r.flushdb()
    with running_app(db_url, redis_url=redis_url, replica="a") as a:
        t = new_table(a, "regicide", ["human"])
        cluster = a.app.state.manager.cluster
        p, q = join(a, t, 0), join(a, t, 0)
        key = next(iter(r.scan_iter("regalia:conns:*")))
        assert r.hget(key, cluster.instance) == b"2"
        real = cluster.redis.hincrby

        async def fails(*args, **kw):
            raise ConnectionError("Redis is down")

        cluster.redis.hincrby = fails
        try:
            p.close()
            wait_for(lambda: a.app.state.manager.connections._recount, what="the failed count noticed")
        finally:
            cluster.redis.hincrby = real
        assert r.hget(key, cluster.instance) == b"2"  # too high for now
        wait_for(lambda: r.hget(key, cluster.instance) == b"1", 5, "the count written again")
        q.close()
        wait_for(lambda: r.hget(key, cluster.instance) in (b"0", None), what="the last close")


def test_a_connection_opened_while_its_count_is_written_again_is_not_lost(db_url, redis_url):
    # the heartbeat writes this replica's count of an address again (after a failed close)
    # while a new websocket of that address is being counted: the new one must not be lost
    # (the count written was read before it), or the site's count stays one too low
    import redis

    r = redis.Redis.from_url(redis_url)
    r.flushdb()
    with running_app(db_url, redis_url=redis_url, replica="a") as a:
        t = new_table(a, "regicide", ["human"])
        manager = a.app.state.manager
        cluster = manager.cluster
        join(a, t, 0)
        key = next(iter(r.scan_iter("regalia:conns:*")))
        address = key.decode().removeprefix("regalia:conns:")
        assert r.hget(key, cluster.instance) == b"1"
        real = cluster.redis.hset
        opened = []

        async def meanwhile(*args, **kw):  # a websocket opens during the round trip
            if not opened:
                opened.append(await manager.connection_opened(address))
            return await real(*args, **kw)

        cluster.redis.hset = meanwhile
        try:
            manager.connections._recount.add(address)
            wait_for(lambda: opened, what="the count written again")
        finally:
            cluster.redis.hset = real
        assert opened == [True] and manager.shared_connections(address) == 2
        wait_for(lambda: r.hget(key, cluster.instance) == b"2" and not manager.connections._recount, 5,
                 "the count that holds the new websocket")


def test_a_connection_not_counted_in_redis_is_not_uncounted_there(db_url, redis_url):
    # Redis fails while a websocket opens (counted on its replica only) and works again
    # when it closes: the site's count must not go below zero (or the cap grows by one)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    kw = dict(redis_url=redis_url, connections_per_address=2)
    with running_app(db_url, replica="a", **kw) as a, running_app(db_url, replica="b", **kw) as b:
        t = new_table(a, "regicide", ["human"])
        cluster = a.app.state.manager.cluster

        async def down(*args, **kw):
            raise ConnectionError("Redis is down")

        a.app.state.manager.connections.connect = down
        try:
            join(a, t, 0).close()
        finally:
            del a.app.state.manager.connections.connect
        wait_for(lambda: not a.app.state.manager.connections.counts, what="the connection closed")
        join(a, t, 0), join(b, t, 0)
        third = Peer(b, t["id"], t["seats"][0]["token"])
        assert third.recv(2).get("code") == "too_many_connections"


def test_events_that_could_not_be_published_are_sent_again(replicas):
    # one publish round trip fails (a dropped connection): the move it carried must still
    # reach the other replica, whose player is to act next and would wait for ever
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    pa, seat, action = _first_move(a, t)
    pb = join(b, t, 1 - seat)
    cluster = a.app.state.manager.cluster
    pipeline = cluster.redis.pipeline
    failed = []

    def flaky_pipeline(*args, **kw):
        p = pipeline(*args, **kw)
        execute = p.execute

        async def once(*a, **k):
            if not failed and any(c[0][0] == "PUBLISH" and b'"k":"move"' in c[0][2]
                                  for c in p.command_stack):
                failed.append(True)
                raise ConnectionError("connection dropped")
            return await execute(*a, **k)

        p.execute = once
        return p

    cluster.redis.pipeline = flaky_pipeline
    try:
        pa.act(action)
        pa.state_at(1)
        wait_for(lambda: pb.drain() or pb.state["ply"] == 1, 3, "the move seen on b")
    finally:
        del cluster.redis.pipeline
    assert failed


def test_a_table_that_cannot_be_rebuilt_does_not_stop_the_takeover_of_the_others(replicas):
    # the takeover scan meets an older table whose move log cannot be replayed: the newer
    # tables nobody runs must still be taken over
    from regalia.server.storage.values import NewSeat

    a, b = replicas
    store = a.app.state.manager.store
    bots = [NewSeat("bot", "random"), NewSeat("bot", "random")]
    bad, _, _ = store.create_table("regicide", {"players": 2}, 1, bots)
    store.append_move(bad, 0, 0, "no such move")
    time.sleep(0.01)
    good, _, _ = store.create_table("regicide", {"players": 2}, 2, bots)
    wait_for(lambda: store.load_table(good).moves, 4, "the newer table's bots playing")


def test_a_replica_stops_even_when_a_task_lets_its_cancellation_pass(redis_url):
    # redis-py now and then lets a task's cancellation go by (seen: the scan and the
    # publisher carried on, and the replica's shutdown waited for them for ever)
    import asyncio

    from regalia.server.replicas.cluster import Cluster

    async def main():
        cluster = Cluster(redis_url, name="x", tables=dict, load=None, active_ids=None,
                          on_event=None, read_again=None)
        swallow = [True]

        async def job():
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                if not swallow[0]:
                    raise  # as if the library lost it, once

        cluster._tasks.append(asyncio.get_running_loop().create_task(
            cluster._forever("job", job, 0.0)))
        await asyncio.sleep(0.01)
        stop = asyncio.get_running_loop().create_task(cluster.stop())
        done, _ = await asyncio.wait({stop}, timeout=3)
        swallow[0] = False
        if not done:
            cluster._tasks[0].cancel()
            await stop
        return bool(done)

    assert asyncio.run(main()), "the replica did not stop within 3 s"


def test_a_table_unloaded_while_idle_stays_unloaded_until_someone_opens_it(db_url, redis_url):
    import redis

    from regalia.server.replicas.leases import PARKED, SCAN_EVERY, lease_key

    r = redis.Redis.from_url(redis_url)
    r.flushdb()
    # idle for a second before unloading: time enough to count the listeners while the table
    # is loaded on a busy machine (0.2 s was sometimes not)
    kw = dict(redis_url=redis_url, idle_unload=1.0)
    with running_app(db_url, replica="a", **kw) as a, running_app(db_url, replica="b", **kw) as b:
        t = new_table(a, "ribauds", ["human", "tactical"])  # nobody opens seat 0's link
        wait_for(lambda: a.get(f"/api/tables/{t['id']}").json()["current"] == 0,
                 what="the human's turn")

        def listeners() -> int:  # the replicas subscribed to the table's events
            return dict(r.pubsub_numsub(table_channel(t["id"])))[table_channel(t["id"]).encode()]

        assert listeners() == 1  # a only: b has not loaded the table
        # the bot has nothing to do and nobody is connected: unloaded, its lease parked,
        # and no replica's scan loads it again
        wait_for(lambda: r.get(lease_key(t["id"])) == PARKED.encode(), 5, "the lease parked")
        time.sleep(3 * SCAN_EVERY)
        for c in (a, b):
            assert t["id"] not in c.app.state.manager.tables
        assert r.get(lease_key(t["id"])) == PARKED.encode()
        assert listeners() == 0  # unloaded: a left the table's channel
        # the player comes back through replica b: b takes the lease and its bot answers
        p = join(b, t, 0)
        assert listeners() == 1
        while p.state["current"] == 0:  # the player's turn, to its end
            ply = p.state["ply"]
            p.act(p.state["legal"][0])
            p.state_at(ply + 1)
        try:  # the bot's move, played on b
            p.state_at(p.state["ply"] + 1, timeout=30)
        except Timeout:  # say where the bot stood, to tell a slow machine from a lost wake
            m = b.app.state.manager
            table = m.tables.get(t["id"])
            raise AssertionError(
                f"no bot move on b: lease {r.get(lease_key(t['id']))!r}, b holds "
                f"{sorted(m.cluster.leasing.held)}, renewed "
                f"{time.monotonic() - m.cluster.leasing.renewed:.1f} s ago, loaded "
                f"{table is not None}, bot job {table and table.bot_job()}") from None
        assert t["id"] in health(b)["leases"]


class _Manager:
    """What a ``Cluster``'s subscriber needs of a manager: the tables it reads again and the
    events it hands over."""

    def __init__(self) -> None:
        self.tables: dict = {}
        self.read: list[str] = []
        self.events: list[dict] = []

    def read_again(self, table_id: str) -> None:
        self.read.append(table_id)

    def on_event(self, event: dict) -> None:
        self.events.append(event)


def _subscriptions(redis_url: str, test) -> None:
    """Run ``test(cluster, manager, redis, table_id)`` with the cluster's subscriber and
    publisher (which wakes the subscriber) started."""
    import asyncio
    import secrets

    import redis.asyncio as aioredis

    from regalia.server.replicas.cluster import Cluster

    async def main() -> None:
        m = _Manager()
        c = Cluster(redis_url, name="test", tables=lambda: m.tables, load=None,
                    active_ids=None, on_event=m.on_event, read_again=m.read_again)
        r = aioredis.Redis.from_url(redis_url)
        tasks = [asyncio.create_task(c._forever(name, job, 0.0)) for name, job in
                 (("subscriber", c._subscribe_loop), ("publisher", c._publish_loop))]
        try:
            await test(c, m, r, "t" + secrets.token_hex(5))
        finally:
            c._stopping = True
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await c.redis.aclose()
            await r.aclose()

    asyncio.run(main())


async def _listeners(r, table_id: str) -> int:
    return dict(await r.pubsub_numsub(table_channel(table_id)))[table_channel(table_id).encode()]


async def _until(pred, what: str, timeout: float = 3.0) -> None:
    import asyncio

    deadline = time.monotonic() + timeout
    while not await pred():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        await asyncio.sleep(0.02)


def test_a_table_followed_while_the_subscriber_starts_is_subscribed_and_read_again(redis_url):
    import orjson

    async def test(c, m, r, t):
        assert await c.follow(t) is False  # the subscriber's first round trip is under way
        await _until(lambda: _listeners(r, t), "the table's subscription")

        async def read():
            return t in m.read
        await _until(read, "the table read again once its subscription was confirmed")
        await r.publish(table_channel(t), orjson.dumps({"k": "sync", "t": t, "r": "other"}))

        async def heard():
            return [e["t"] for e in m.events] == [t]
        await _until(heard, "its event heard")

    _subscriptions(redis_url, test)


def test_a_follow_waits_for_redis_and_a_late_confirmation_reads_the_table_again(redis_url,
                                                                                monkeypatch):
    import asyncio

    import regalia.server.replicas.cluster as cluster

    async def test(c, m, r, t):
        await _until(lambda: asyncio.sleep(0, c.listening), "the subscriber listening")
        assert await c.follow(t) is False and await _listeners(r, t) == 1  # confirmed first
        assert m.read == []
        c.unfollow(t)
        await _until(lambda: _no_listener(r, t), "the unsubscription")
        monkeypatch.setattr(cluster, "FOLLOW_WAIT", 0.0)  # Redis too slow: follow gives up
        assert await c.follow(t) is True  # read the table again after its load

        async def read():
            return m.read == [t]
        await _until(read, "the late confirmation reading the table again")
        assert c._waiting.get(table_channel(t).encode()) in (None, [])

    async def _no_listener(r, t):
        return await _listeners(r, t) == 0

    _subscriptions(redis_url, test)


def test_a_table_loaded_again_keeps_its_subscription(replicas):
    a, b = replicas
    t = new_table(a, "regicide", ["human", "human"])
    m = b.app.state.manager
    assert b.get(f"/api/tables/{t['id']}").status_code == 200
    assert t["id"] in m.cluster.followed
    m._unfollow(t["id"])  # an unload finishing after a player's get() loaded it again
    assert t["id"] in m.cluster.followed


def test_a_seat_that_left_another_replica_just_now_is_not_handed_over(db_url, redis_url):
    """The hand-over grace (a reload is not a leave) holds when the seat's player was on
    another replica: its leave reaches this one through the presence messages."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    with running_app(db_url, replica="a", redis_url=redis_url) as a, \
            running_app(db_url, replica="b", redis_url=redis_url) as b:
        t = new_table(a, "ribauds", ["human", "human"])
        pa, pb = join(a, t, 0), join(b, t, 1)
        pa.recv_until(lambda m: m["type"] == "seats" and m["seats"][1]["connected"], timeout=5)
        pb.close()
        pa.recv_until(lambda m: m["type"] == "seats" and not m["seats"][1]["connected"], timeout=5)
        pa.send({"type": "bot", "seat": 1, "on": True})
        err = pa.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "seat_away" and "may be coming back" in err["message"], err


def test_a_turn_based_table_unloaded_far_from_its_deadline_is_taken_over_before_it(
        db_url, redis_url, monkeypatch):
    import redis

    from regalia.server.replicas.leases import PARKED, lease_key
    from regalia.server.tables import clocks, registry

    monkeypatch.setattr(clocks, "TURN_LOAD_AHEAD", 1.5)
    monkeypatch.setattr(registry, "TURN_LOAD_AHEAD", 1.5)
    r = redis.Redis.from_url(redis_url)
    r.flushdb()
    kw = dict(redis_url=redis_url, idle_unload=0.3, turn_presets="short=4")
    with running_app(db_url, replica="a", **kw) as a, running_app(db_url, replica="b", **kw) as b:
        t = new_table(a, "ribauds", ["human", "human"], clock="short")
        pa, pb = join(a, t, 0), join(a, t, 1)
        seat = pa.state["current"]
        pa.close()
        pb.close()
        # idle, its player with more than 1.5 s left: unloaded, its lease free (not parked)
        wait_for(lambda: all(t["id"] not in c.app.state.manager.tables for c in (a, b)), 3,
                 "the unload")
        assert r.get(lease_key(t["id"])) != PARKED.encode()
        store = a.app.state.manager.store
        assert not store.load_table(t["id"]).seats[seat].bot_replaces
        # 1.5 s before the deadline a replica's scan takes it over; its alarm rings
        wait_for(lambda: store.load_table(t["id"]).seats[seat].bot_replaces, 8, "the time-out")
        assert any(t["id"] in health(c)["leases"] for c in (a, b))


def _play_one(p: Peer) -> int:
    """Play the first legal action of the seat whose turn it is, as ``p`` sees it; returns
    the new ply once ``p`` saw it."""
    ply = p.state["ply"]
    p.act(p.state["legal"][0])
    return p.state_at(ply + 1)["ply"]


def _mover(*peers: Peer) -> Peer:
    return wait_for(lambda: [p.drain() for p in peers] and next(
        (p for p in peers if p.state["legal"]), None), what="a seat with legal actions")


def test_a_table_unwatched_here_is_unloaded_at_another_replicas_move_not_read_again(
        replicas, redis_url, monkeypatch):
    """The replica that made a table nobody plays there (no connection, no bot seat, no
    clock) unloads it at the first move another replica stores, instead of reading the
    whole table again at each move; asked for it later, it loads it fresh."""
    import redis

    a, b = replicas
    r = redis.Redis.from_url(redis_url)
    t = new_table(a, "ribauds", ["human", "human"])
    ma = a.app.state.manager
    assert t["id"] in ma.tables  # made on a, so loaded there
    reads: list[str] = []
    load = ma.store.load_table
    monkeypatch.setattr(ma.store, "load_table", lambda i, *x, **k: reads.append(i) or load(i, *x, **k))
    pa, pb = join(b, t, 0), join(b, t, 1)  # both players on b
    ply = _play_one(_mover(pa, pb))
    wait_for(lambda: t["id"] not in ma.tables, 10, "a unloading the table")
    wait_for(lambda: dict(r.pubsub_numsub(table_channel(t["id"])))[
        table_channel(t["id"]).encode()] == 1, 10, "a leaving the table's channel")
    while ply < 3 and not pa.state["finished"]:
        ply = _play_one(_mover(pa, pb))
    assert t["id"] not in ma.tables and reads == []  # never read again on a
    got = a.get(f"/api/tables/{t['id']}").json()  # loaded fresh when asked for
    assert got["ply"] == ply and reads == [t["id"]]


def test_a_table_of_humans_without_a_clock_takes_no_lease(replicas, redis_url):
    """Only a table with bots or a clock has something for the lease's holder to run: a
    table of humans without a clock is neither leased when it loads nor at the renewals
    (no Redis work for it every ``LEASE_RENEW`` seconds)."""
    import redis

    from regalia.server.replicas.leases import LEASE_RENEW, lease_key

    a, b = replicas
    humans = new_table(a, "ribauds", ["human", "human"])
    bot = new_table(a, "ribauds", ["human", "tactical"])
    pa = join(a, humans, 0)
    time.sleep(2 * LEASE_RENEW)
    assert pa.state is not None and humans["id"] in a.app.state.manager.tables
    assert redis.Redis.from_url(redis_url).get(lease_key(humans["id"])) is None
    assert humans["id"] not in health(a)["leases"] and bot["id"] in health(a)["leases"]


def test_a_table_with_a_bot_stays_loaded_where_its_bot_runs(replicas):
    """A table whose bot runs on the replica that made it (its lease) is read again there
    at each move of its player on another replica: the move may be the bot's cue."""
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "tactical"])
    ma = a.app.state.manager
    p = join(b, t, 0)
    for _ in range(3):
        if p.state["finished"]:
            break
        wait_for(lambda: p.drain() or p.state["legal"] or p.state["finished"],
                 timeout=30, what="the human's turn")
        if p.state["legal"]:
            _play_one(p)
            assert t["id"] in ma.tables and ma.cluster.holds(t["id"])
    # the bot played on a (a Ribauds seat may act again before the bot: wait for its move)
    wait_for(lambda: health(a)["moves"] >= 1, timeout=30, what="the bot's move on a")


def test_a_seat_handed_over_after_an_unwatched_table_was_unloaded_gets_its_bot(
        replicas, monkeypatch):
    """A table of two humans without a clock has no lease, and its maker unloaded it at a
    move: when a seat is handed over to a bot later, a replica takes the lease (the players'
    at its renewal, or any at its scan of the tables with bots) and the bot plays."""
    from regalia.server.tables import seats

    monkeypatch.setattr(seats, "HANDOVER_GRACE", 0.3)
    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    ma, mb = a.app.state.manager, b.app.state.manager
    pa, pb = join(b, t, 0), join(b, t, 1)
    _play_one(_mover(pa, pb))
    wait_for(lambda: t["id"] not in ma.tables, 10, "a unloading the table")
    assert not mb.cluster.holds(t["id"])  # humans without a clock: no lease to run anything
    pb.close()
    pa.recv_until(lambda m: m["type"] == "seats" and not m["seats"][1]["connected"])
    time.sleep(0.5)  # past the grace
    pa.send({"type": "bot", "seat": 1, "on": True})
    while pa.state["current"] == 0:  # (a Ribauds game lasts 4 moves at least)
        _play_one(wait_for(lambda: pa.drain() or pa.state["legal"] and pa,
                           what="seat 0's legal actions"))
    pa.state_at(pa.state["ply"] + 1, timeout=30)  # the bot's move, under a lease taken now


def test_a_connection_awaiting_its_hello_keeps_an_unwatched_table_loaded(replicas):
    """A websocket that has the table and has not said hello yet counts as watching it: a
    move stored meanwhile on another replica is read, not an unload, and the connection
    joins the live table and sees the next moves."""
    from regalia.server.tables.audience import StateReader
    from server_helpers import spectator_token

    a, b = replicas
    t = new_table(a, "ribauds", ["human", "human"])
    ma = a.app.state.manager
    pa, pb = join(b, t, 0), join(b, t, 1)
    reader = StateReader()

    def state(ws) -> dict:
        while (m := reader.read(ws.receive_json()))["type"] != "state":
            pass
        return m

    with a.websocket_connect(f"/ws/{t['id']}") as ws:  # (a may have unloaded it already)
        wait_for(lambda: t["id"] in ma.tables and ma.tables[t["id"]].audience.arriving,
                 10, "the socket waiting for its hello")
        ply = _play_one(_mover(pa, pb))
        wait_for(lambda: t["id"] in ma.tables and ma.tables[t["id"]].ply == ply,
                 10, "a reading the move, the table kept loaded")
        ws.send_json({"type": "hello", "token": spectator_token(t)})
        assert state(ws)["ply"] == ply
        if not pa.state["finished"]:
            ply = _play_one(_mover(pa, pb))
            while state(ws)["ply"] < ply:
                pass
        assert t["id"] in ma.tables


# -- races between the two unloads (the janitor's idle round, ``on_event``'s drop) and the
# requests that load a table again


class _HeldRound:
    """The janitor's round on replica ``a`` held in the middle: tables ``w`` (nobody ever
    plays it) and ``x`` (its players ``px0``, ``px1`` on ``b``, a copy loaded on ``a``),
    both idle long enough on ``a``; the round (``round_``, run by hand) has unloaded ``w``
    and waits in ``w``'s park until ``gate`` is set, with ``x`` still on its list."""

    def __init__(self, a, b, monkeypatch) -> None:
        import asyncio

        self.ma = ma = a.app.state.manager
        a.portal.call(ma._janitor.cancel)  # the rounds are run by hand here
        self.w = w = new_table(a, "ribauds", ["human", "human"])
        self.x = x = new_table(a, "ribauds", ["human", "human"])
        self.px0, self.px1 = join(b, x, 0), join(b, x, 1)
        # x loaded on a as it is (its seats' claims on b may have dropped a's first copy)
        wait_for(lambda: x["id"] not in ma.tables or not ma.tables[x["id"]].unwatched(),
                 what="the claims' drop")
        time.sleep(0.3)
        assert a.get(f"/api/tables/{x['id']}").status_code == 200 and x["id"] in ma.tables
        for t in (w, x):
            ma.tables[t["id"]].core.last_active = 0.0  # idle long enough
        self.gate = gate = threading.Event()
        self.parked: list[str] = []
        park = ma.cluster.park

        async def slow_park(i: str) -> None:
            if i == w["id"]:
                while not gate.is_set():
                    await asyncio.sleep(0.01)
            self.parked.append(i)
            await park(i)
        monkeypatch.setattr(ma.cluster, "park", slow_park)
        self.round_ = a.portal.start_task_soon(ma.unload_idle)
        wait_for(lambda: w["id"] not in ma.tables, what="the round unloading w")

    def drop_x(self) -> None:
        """A move of ``x`` stored on ``b``: ``a`` drops ``x`` (unwatched there)."""
        _play_one(_mover(self.px0, self.px1))
        wait_for(lambda: self.x["id"] not in self.ma.tables, what="a dropping x")


def test_a_drop_during_the_janitors_round_does_not_abort_it(replicas, monkeypatch):
    """The janitor's round (``unload_idle``) lists the idle tables, then unloads them one by
    one with awaits in between. A table of that list that another replica's move unloads
    meanwhile (``on_event`` -> ``_drop``) is no longer in ``tables``: the round must not fail
    on it (``del self.tables[t.id]``: KeyError)."""
    held = _HeldRound(*replicas, monkeypatch)
    held.drop_x()
    held.gate.set()
    assert held.round_.result(timeout=5) == 1  # w only; a KeyError on x before the re-check


def test_a_table_loaded_again_during_the_janitors_round_stays_loaded(replicas, monkeypatch):
    """As above, and the dropped table is loaded again on a (a spectator opens it there)
    before the round reaches it: the round must leave the *new* copy in ``tables``, with its
    lease and its channel, so that the spectator on a sees the next moves."""
    a, b = replicas
    held = _HeldRound(a, b, monkeypatch)
    held.drop_x()
    spectator = join(a, held.x, None)  # loads x again on a
    fresh = held.ma.tables[held.x["id"]]
    held.gate.set()
    held.round_.result(timeout=5)
    try:
        if not held.px0.state["finished"]:
            ply = _play_one(_mover(held.px0, held.px1))  # stored on b
            spectator.state_at(ply, timeout=3)  # else a's copy is orphaned
    finally:
        assert held.ma.tables.get(held.x["id"]) is fresh, held.parked


def test_a_socket_that_waited_for_a_load_is_not_left_on_a_dropped_copy(replicas,
                                                                             monkeypatch):
    """A websocket whose ``get`` waited for another request's load of the table resumes a
    few loop turns after the load ended. Another replica's move handled in between drops
    the table (``on_event``: unwatched, not loading any more) and only *schedules* its stop:
    ``table.closing`` is still False when ``serve_socket`` checks it, so the socket stays on
    the dropped copy and sees no more moves. The interleaving is forced: the event is
    handed to ``on_event`` right after the waiter's ``asyncio.shield`` returns, as the
    subscriber task would if it ran between the load's end and the waiter's wake-up."""
    import asyncio
    import types

    from regalia.server.tables import registry as reg
    from server_helpers import spectator_token

    a, b = replicas
    ma = a.app.state.manager
    t = new_table(b, "ribauds", ["human", "human"])  # loaded on b only
    pa, pb = join(b, t, 0), join(b, t, 1)
    assert t["id"] not in ma.tables
    load = ma.store.load_table

    def slow_load(i, *x, **k):  # a's load takes a while: a second asker waits for it
        time.sleep(0.6)
        return load(i, *x, **k)
    monkeypatch.setattr(ma.store, "load_table", slow_load)
    fired: list[str] = []
    real_shield = asyncio.shield

    def shield(fut):
        async def waited():
            got = await real_shield(fut)
            if got is not None and got.id == t["id"] and not fired:
                fired.append(got.id)  # b's next move, heard in that window
                ma.on_event({"t": got.id, "k": "move", "ply": got.ply})
            return got
        return waited()
    proxy = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio)
                                     if not k.startswith("__")})
    proxy.shield = shield
    monkeypatch.setattr(reg, "asyncio", proxy)
    first = threading.Thread(target=lambda: a.get(f"/api/tables/{t['id']}"))
    first.start()  # the first asker: an HTTP GET, which loads it
    time.sleep(0.2)
    spectator = Peer(a, t["id"], spectator_token(t), name="spectator on a")
    spectator.recv_until(lambda m: m["type"] == "state")
    first.join()
    assert fired, "the socket did not wait for the load"
    if not pa.state["finished"]:
        ply = _play_one(_mover(pa, pb))
        spectator.state_at(ply, timeout=3)
    assert t["id"] in ma.tables and spectator is not None
    assert ma.tables[t["id"]].audience.conns


def test_a_socket_awaiting_its_hello_keeps_a_table_the_janitor_listed(replicas, monkeypatch):
    """``Audience.arriving`` keeps a table loaded under a socket awaiting its hello, and
    the janitor's round, which lists the idle tables once before its awaits, checks each
    again: a socket that opens a listed table during the round is not left on a copy the
    round unloads (``close_all`` closes only the joined connections)."""
    from regalia.server.tables.audience import StateReader
    from server_helpers import spectator_token

    a, b = replicas
    held = _HeldRound(a, b, monkeypatch)
    x, ma = held.x, held.ma
    reader = StateReader()
    with a.websocket_connect(f"/ws/{x['id']}") as ws:
        wait_for(lambda: x["id"] in ma.tables and ma.tables[x["id"]].audience.arriving,
                 what="the socket waiting for its hello")
        held.gate.set()
        held.round_.result(timeout=5)
        ws.send_json({"type": "hello", "token": spectator_token(x)})
        while reader.read(ws.receive_json())["type"] != "state":
            pass
        assert x["id"] in ma.tables  # not unloaded under the socket
