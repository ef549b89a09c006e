"""The same store and tables on PostgreSQL (``--database-url postgresql+psycopg://...``).

Runs only when ``REGALIA_TEST_POSTGRES_URL`` names a database it may write to and a
PostgreSQL driver is installed, e.g.::

    REGALIA_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:5432/regalia pytest tests/server
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

MIGRATIONS = Path(__file__).resolve().parents[2] / "src" / "regalia" / "server" / "storage" / "migrations" / "versions"
URL = os.environ.get("REGALIA_TEST_POSTGRES_URL")
# CI (.ci/run) starts a PostgreSQL server and sets the URL: there the test always runs.
pytestmark = pytest.mark.skipif(not URL and not os.environ.get("CI"),
                                reason="REGALIA_TEST_POSTGRES_URL is not set (CI sets it)")


def test_postgres_migrates_stores_moves_once_and_plays():
    assert URL, "REGALIA_TEST_POSTGRES_URL must name a PostgreSQL database in CI"
    from sqlalchemy import update

    from regalia.server.storage.engine import current_revision
    from regalia.server.storage.models import ABANDONED, GameTable
    from regalia.server.storage.store import Store
    from regalia.server.storage.values import Conflict
    from server_helpers import join, new_table, play_randomly, running_app

    s = Store(URL)
    heads = sorted(p.stem.split("_")[0] for p in MIGRATIONS.glob("0*.py"))
    assert current_revision(s.engine) == heads[-1]
    data, _ = s.new_table("regicide", {"players": 1}, 3, [("human", None)])
    assert data == s.load_table(data.id)  # answered as it would be read back
    tid = data.id
    s.append_move(tid, 0, 0, "yield")
    with pytest.raises(Conflict):
        s.append_move(tid, 0, 0, "yield")
    assert s.append_moves([(tid, 1, 0, "a", False), (tid, 1, 0, "b", False)])[1] is not None
    import secrets  # a new table's random id taken: its aborted transaction written again
    ids, token_urlsafe = iter([tid, f"pg{random.randrange(10**6)}"]), secrets.token_urlsafe
    secrets.token_urlsafe = lambda n=None: next(ids) if n == 6 else token_urlsafe(n)
    try:
        other, _ = s.new_table("ribauds", {"players": 2}, 4, [("human", None), ("human", None)])
    finally:
        secrets.token_urlsafe = token_urlsafe
    assert other.id != tid and s.load_table(other.id).game == "ribauds"
    assert s.load_table(tid).game == "regicide"
    with s.engine.begin() as conn:  # its moves are not a game: no server may load it
        conn.execute(update(GameTable).where(GameTable.id == tid).values(status=ABANDONED))
    s.close()
    with running_app(URL) as client:
        d = new_table(client, "regicide", ["human", "heuristic"], seed=5)
        human, spectator = join(client, d, 0), join(client, d, None)
        play_randomly({0: human}, spectator, random.Random(5), chatter=False)
        assert client.get(f"/api/tables/{d['id']}").json()["status"] == "finished"


def test_postgres_keeps_accounts_sessions_and_the_seats_they_adopted():
    """Accounts on PostgreSQL: the name unique in any case, a session cookie, a finished
    game's seat adopted, counted on the profile and kept by the rematch (an UPDATE whose
    value reads the old table's seats), and the deletion that anonymises."""
    assert URL, "REGALIA_TEST_POSTGRES_URL must name a PostgreSQL database in CI"
    from argon2 import PasswordHasher
    from sqlalchemy import text

    from regalia.server.web.passwords import Passwords
    from server_helpers import join, new_table, play_randomly, running_app

    name = f"Pg{random.randrange(10**8)}"
    cheap = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    with running_app(URL, passwords=cheap, sign_up_rate="1000/second") as c:
        body = {"name": name, "password": "correct horse battery"}
        assert c.post("/api/account/sign-up", json=body).status_code == 201
        assert c.post("/api/account/sign-up", json={**body, "name": name.upper()}
                      ).status_code == 409
        d = new_table(c, "ribauds", ["human", "random"], seed=6)
        human, spectator = join(c, d, 0), join(c, d, None)
        play_randomly({0: human}, spectator, random.Random(6), chatter=False)
        token = d["seats"][0]["token"]
        r = c.post("/api/account/tables", json={"tables": [{"id": d["id"], "token": token}]})
        assert r.json() == {"adopted": [{"id": d["id"], "seat": 0}]}
        winner = c.get(f"/api/tables/{d['id']}").json()["outcome"]["winner"]
        p = c.get(f"/api/players/{name.lower()}").json()
        assert p["games"] == [{"game": "ribauds", "players": 2, "played": 1,
                               "won": int(winner == 0)}]
        again = c.post(f"/api/tables/{d['id']}/rematch", json={"token": token}).json()
        store = c.app.state.manager.store
        with store.engine.connect() as conn:
            linked = conn.execute(text("SELECT seat FROM seats WHERE table_id = :t AND "
                                       "account_id IS NOT NULL"), {"t": again["id"]}).all()
        assert linked == [(0,)]
        r = c.request("DELETE", "/api/account", json={"password": body["password"]})
        assert r.status_code == 200
        assert store.load_table(d["id"]).seats[0].name == "deleted player"
        assert c.get(f"/api/players/{name}").status_code == 404


def test_postgres_rates_a_rated_game_once_even_from_two_replicas_at_once():
    """Ratings on PostgreSQL: a rated game conceded is rated by the server; two stores (two
    replicas) rating one game at the same moment rate it once (the key of its changes), and
    two games of one account rated at once both count (row versions, accounts locked in
    one order)."""
    assert URL, "REGALIA_TEST_POSTGRES_URL must name a PostgreSQL database in CI"
    import threading

    from argon2 import PasswordHasher
    from sqlalchemy import text

    from regalia.server.storage.accounts import AccountStore
    from regalia.server.storage.models import HUMAN
    from regalia.server.storage.values import NewSeat
    from regalia.server.storage.ratings import RatingStore
    from regalia.server.storage.store import Store
    from regalia.server.web.passwords import Passwords
    from server_helpers import join, running_app

    tag = random.randrange(10**8)
    cheap = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    with running_app(URL, passwords=cheap, sign_up_rate="1000/second") as c:
        sessions = {}
        for who in ("A", "B"):
            c.cookies.clear()
            body = {"name": f"R{who}{tag}", "password": "correct horse battery"}
            assert c.post("/api/account/sign-up", json=body).status_code == 201
            sessions[who] = c.cookies.get("regalia_session")
        c.cookies.clear()
        c.cookies.set("regalia_session", sessions["A"])
        d = c.post("/api/tables", json={"game": "ribauds", "rated": True}).json()
        a = join(c, d, 0)
        c.cookies.clear()
        c.cookies.set("regalia_session", sessions["B"])
        b = join(c, d, 1)
        b.send({"type": "concede"})
        a.recv_until(lambda m: m["type"] == "state" and m["finished"])
        board = c.get("/api/leaderboard?limit=100").json()
        mine = {p["name"]: (p["wins"], p["losses"]) for p in board["players"]
                if p["name"].endswith(str(tag))}
        assert mine == {f"RA{tag}": (1, 0), f"RB{tag}": (0, 1)}
    one, two = Store(URL), Store(URL)
    ids = [AccountStore(one).create(f"T{k}{tag}", f"t{k}{tag}", None).id for k in range(3)]

    def finished(x: int, y: int) -> str:
        data, _ = one.new_table("ribauds", {"players": 2}, 7, [
            NewSeat(HUMAN, None, None, True, None, ids[x]),
            NewSeat(HUMAN, None, None, True, None, ids[y])], rated=True)
        one.append_move(data.id, 0, 1, "@conceded", True)
        return data.id

    def at_once(calls):
        start = threading.Barrier(len(calls))
        out = []

        def go(store, table_id):
            start.wait()
            out.append(RatingStore(store).apply(table_id, [1.0, 0.0]))

        threads = [threading.Thread(target=go, args=call) for call in calls]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    for _ in range(3):
        same = finished(0, 1)
        assert sorted(r is None for r in at_once([(one, same), (two, same)])) == [False, True]
    at_once([(one, finished(0, 1)), (two, finished(0, 2))])
    with one.engine.connect() as conn:
        games = conn.execute(text("SELECT games, wins FROM ratings WHERE account_id = :a"),
                             {"a": ids[0]}).one()
    assert tuple(games) == (5, 5)
    one.close()
    two.close()


def test_postgres_keeps_friends_invitations_and_one_daily_play_a_day():
    """Friends and the daily deal on PostgreSQL: a request accepted, an invitation that
    seats the friend and links the seat to the account, block and unblock; the day's deal
    played once per account (the second start refused), the day drawn once whichever of
    two stores draws it."""
    assert URL, "REGALIA_TEST_POSTGRES_URL must name a PostgreSQL database in CI"
    from datetime import date, datetime, timedelta, timezone

    from argon2 import PasswordHasher
    from sqlalchemy import text

    from regalia.server.storage.daily import DailyStore
    from regalia.server.storage.store import Store
    from regalia.server.web.passwords import Passwords
    from server_helpers import join, new_table, running_app

    tag = random.randrange(10**8)
    # a day of its own (the database may hold other runs' days)
    day = date(2100, 1, 1) + timedelta(days=tag % 30000)
    now = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc)
    cheap = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    a, b = f"Fa{tag}", f"Fb{tag}"
    with running_app(URL, passwords=cheap, sign_up_rate="1000/second",
                     friend_rate="1000/second", invite_rate="1000/second",
                     utc_now=lambda: now) as c:
        sessions = {}
        for name in (a, b):
            c.cookies.clear()
            body = {"name": name, "password": "correct horse battery"}
            assert c.post("/api/account/sign-up", json=body).status_code == 201
            sessions[name] = c.cookies.get("regalia_session")

        def as_(name):
            c.cookies.clear()
            c.cookies.set("regalia_session", sessions[name])
            return c

        assert as_(a).post("/api/friends/requests", json={"name": b.lower()}
                           ).json()["state"] == "requested"
        assert as_(b).post("/api/friends/accept", json={"name": a}).json()["state"] == "friends"
        assert [f["name"] for f in as_(a).get("/api/friends").json()["friends"]] == [b]
        t = new_table(c, "regicide", ["human", "human"], seed=5)
        join(c, t, 0)  # the seat is held: its player may invite
        r = as_(a).post("/api/friends/invite",
                        json={"name": b, "table": t["id"], "token": t["seats"][0]["token"]})
        assert r.status_code == 201, r.text
        [inv] = as_(b).get("/api/friends/invitations").json()["invitations"]
        seat = as_(b).post(f"/api/friends/invitations/{inv['id']}/accept", json={}).json()
        assert seat["seat"] == 1
        store = c.app.state.manager.store
        with store.engine.connect() as conn:
            linked = conn.execute(text("SELECT a.name FROM seats s JOIN accounts a ON "
                                       "a.id = s.account_id WHERE s.table_id = :t"),
                                  {"t": t["id"]}).scalar()
        assert linked == b
        assert as_(a).post("/api/friends/block", json={"name": b}).json()["state"] == "blocked"
        assert as_(a).get("/api/friends").json()["friends"] == []
        assert as_(a).post("/api/friends/unblock", json={"name": b}).json()["state"] == "none"

        first = as_(a).post("/api/daily/play", json={})
        assert first.status_code == 201 and first.json()["ranked"], first.text
        again = as_(a).post("/api/daily/play", json={})
        assert again.status_code == 409 and again.json()["code"] == "daily_played"
        other = as_(b).post("/api/daily/play", json={})
        assert other.status_code == 201
        seeds = {store.load_table(x.json()["id"]).seed for x in (first, other)}
        assert len(seeds) == 1  # the same deal for everyone
    one, two = Store(URL), Store(URL)
    later = (day + timedelta(days=1)).isoformat()
    drawn = {DailyStore(s).deal(later, seed, {"players": 1}).seed
             for s, seed in ((one, 11), (two, 22))}
    one.close()
    two.close()
    assert len(drawn) == 1  # the first draw is every replica's


def test_postgres_takes_a_passkey_ceremony_once_and_keeps_one_vapid_pair():
    """Two replicas at once on PostgreSQL: a passkey ceremony answered on both is taken by
    one (single use), and the site's VAPID key pair made by both is the first one stored."""
    assert URL, "REGALIA_TEST_POSTGRES_URL must name a PostgreSQL database in CI"
    import secrets
    import threading
    from datetime import datetime, timedelta, timezone

    from regalia.server.storage.passkeys import PasskeyStore
    from regalia.server.storage.push import PushStore
    from regalia.server.storage.store import Store

    one, two = Store(URL), Store(URL)
    try:
        stores = (PasskeyStore(one), PasskeyStore(two))
        for _ in range(20):
            key = secrets.token_hex(32)
            stores[0].open_ceremony(key, "sign-in", "Y2hhbGxlbmdl",
                                    datetime.now(timezone.utc) + timedelta(minutes=5))
            taken: list = []
            start = threading.Barrier(2)

            def take(s):
                start.wait()
                taken.append(s.take_ceremony(key, "sign-in"))

            threads = [threading.Thread(target=take, args=(s,)) for s in stores]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(c is None for c in taken) == [False, True], taken
        kept = PushStore(one).keys() or PushStore(one).keep_keys("pem-one", "public-one")
        assert PushStore(two).keep_keys("pem-two", "public-two") == kept
    finally:
        one.close()
        two.close()
