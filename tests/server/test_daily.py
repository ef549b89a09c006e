"""The daily deal: one solo Regicide deal a UTC day, the same for everyone and drawn with
the server's secret (HMAC-SHA256 over the day), so that no day's seed can be told without
it; one ranked play per account, unranked play without one; the leaderboard by medal
(rules 1.14), then enemies defeated, then fewer moves; the solver's verdict and its
winning line shown once the player's game is over, never before; a database upgraded
with its tables."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from datetime import date, datetime, timedelta, timezone

import pytest
from alembic import command
from alembic.config import Config
from argon2 import PasswordHasher
from sqlalchemy import text

from regalia.core.records import Match
from regalia.games import get_game
from regalia.lab.solve import solve_seed
from regalia.server.storage.daily import AlreadyPlayed, DailyStore
from regalia.server.storage.engine import (MIGRATIONS, current_revision, head_revision,
                                           make_engine)
from regalia.server.storage.models import HUMAN
from regalia.server.storage.values import NewSeat
from regalia.server.tables import daily as daily_module
from regalia.server.tables.daily import daily_seed, score
from regalia.server.web.passwords import Passwords
from server_helpers import Peer, join, old_database, running_app

PASSWORD = "correct horse battery"
DAY = date(2026, 5, 1)


class Clock:
    """The server's time (``create_app(utc_now=...)``), moved by the tests."""

    def __init__(self, day: date = DAY) -> None:
        self.t = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.t

    def next_day(self) -> None:
        self.t += timedelta(days=1)


def app(db_url, clock=None, **kw):
    kw.setdefault("daily_solve_seconds", 5.0)
    return running_app(db_url, utc_now=clock or Clock(), sign_up_rate="1000/second",
                       sign_in_rate="1000/second",
                       passwords=Passwords(PasswordHasher(time_cost=1, memory_cost=1024,
                                                          parallelism=1)), **kw)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def client(db_url, clock):
    with app(db_url, clock) as c:
        c.clock = clock
        yield c


def sign_up(c, name: str) -> None:
    c.post("/api/account/sign-out", json={})
    r = c.post("/api/account/sign-up", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text


def sign_out(c) -> None:
    c.post("/api/account/sign-out", json={})


def start(c, **body):
    return c.post("/api/daily/play", json=body)


def started(c, **body) -> dict:
    r = start(c, **body)
    assert r.status_code == 201, r.text
    return r.json()


def seat_of(d: dict) -> dict:
    """A ``POST /api/daily/play`` answer in the form ``server_helpers.join`` takes."""
    return {"id": d["id"], "game": "regicide", "players": 1,
            "seats": [{"token": d["token"]}]}


def stored_seed(c, table_id: str) -> int:
    return c.app.state.manager.store.load_table(table_id).seed


def stop(c, d: dict) -> None:
    """End the game at once: alone, a proposal to stop is agreed (a loss)."""
    p = join(c, seat_of(d), 0)
    p.send({"type": "stop", "agree": True})
    p.finished()
    p.close()


def report(c, **params) -> dict:
    r = c.get("/api/daily", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def ready(c, **params) -> dict:
    """The report once the solver's verdict is stored."""
    deadline = time.monotonic() + 60
    while True:
        out = report(c, **params)
        if out["verdict"]["state"] != "pending" or time.monotonic() > deadline:
            return out
        time.sleep(0.1)


# -- the seed ---------------------------------------------------------------------------


def test_the_seed_is_hmac_sha256_of_the_secret_over_the_day():
    key = b"k" * 32
    mac = hmac.new(key, b"regalia-daily:2026-05-01", hashlib.sha256).digest()
    assert daily_seed(key, DAY) == int.from_bytes(mac[:8], "big") >> 12
    assert 0 <= daily_seed(key, DAY) < 2 ** 52


def test_the_seed_differs_between_days_and_between_secrets():
    key, other = b"a" * 32, b"b" * 32
    days = [DAY + timedelta(days=k) for k in range(400)]
    seeds = [daily_seed(key, d) for d in days]
    assert len(set(seeds)) == len(seeds)
    assert all(daily_seed(key, d) != daily_seed(other, d) for d in days)


def test_the_same_day_deals_everyone_the_same_seed(client):
    a = started(client, name="Ann")
    b = started(client)
    sign_up(client, "Cara")
    c = started(client)
    seeds = {stored_seed(client, d["id"]) for d in (a, b, c)}
    assert len(seeds) == 1
    assert {a["date"], b["date"], c["date"]} == {"2026-05-01"}
    client.clock.next_day()
    sign_out(client)
    tomorrow = started(client)
    assert tomorrow["date"] == "2026-05-02"
    assert stored_seed(client, tomorrow["id"]) not in seeds


def test_the_seed_cannot_be_computed_without_the_servers_secret(db_url, clock):
    """The secret, drawn at the first start, is kept in the database and named by no
    answer; the seed is its HMAC over the day and no key but it gives that seed."""
    with app(db_url, clock) as c:
        d = started(c)
        with c.app.state.manager.store.engine.connect() as conn:
            secret = conn.execute(text("SELECT value FROM server_secrets WHERE name = 'daily'")
                                  ).scalar_one()
        seed = stored_seed(c, d["id"])
        assert len(secret) == 64 and seed == daily_seed(bytes.fromhex(secret), DAY)
        for guess in (b"", b"regalia", DAY.isoformat().encode(), bytes(32)):
            assert daily_seed(guess, DAY) != seed
        said = json.dumps([d, report(c, table=d["id"]), c.get(f"/api/tables/{d['id']}").json()])
        assert secret not in said and str(seed) not in said
    with app(db_url, clock) as c:  # a restart keeps the secret: the same deal
        assert stored_seed(c, started(c)["id"]) == seed


def test_a_secret_setting_draws_other_seeds_and_a_days_stored_deal_is_every_replicas(tmp_path):
    first, second = Clock(), Clock(date(2026, 5, 2))
    with app(f"sqlite:///{tmp_path / 'a.sqlite3'}", first) as a, \
            app(f"sqlite:///{tmp_path / 'b.sqlite3'}", first,
                daily_secret="another secret of the site") as b:
        seed_a = stored_seed(a, started(a)["id"])
        seed_b = stored_seed(b, started(b)["id"])
        assert seed_b == daily_seed(b"another secret of the site", DAY) != seed_a
    # a replica with another secret on the same database deals the day already drawn
    with app(f"sqlite:///{tmp_path / 'a.sqlite3'}", first,
             daily_secret="another secret of the site") as a2:
        assert stored_seed(a2, started(a2)["id"]) == seed_a
    with app(f"sqlite:///{tmp_path / 'a.sqlite3'}", second) as a3:
        assert stored_seed(a3, started(a3)["id"]) != seed_a


def test_no_day_is_drawn_before_it_begins(client):
    r = client.get("/api/daily", params={"date": "2026-05-02"})
    assert r.status_code == 400 and "opens on that day" in r.json()["error"]
    for bad in ("2026-13-01", "yesterday", "2026-5-1"):
        r = client.get("/api/daily", params={"date": bad})
        assert r.status_code == 400 and r.json()["code"] == "bad_request", bad
    r = client.get("/api/daily", params={"date": "2026-04-30"})
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    with client.app.state.manager.store.engine.connect() as conn:
        days = [r[0] for r in conn.execute(text("SELECT day FROM daily_deals"))]
    assert days == []  # a refused day stores nothing
    assert report(client)["date"] == "2026-05-01"
    with client.app.state.manager.store.engine.connect() as conn:
        assert [r[0] for r in conn.execute(text("SELECT day FROM daily_deals"))] == ["2026-05-01"]


# -- plays ------------------------------------------------------------------------------


def test_a_daily_table_is_solo_with_the_standard_options_no_hints_no_bots(client):
    d = started(client, name="Sol")
    summary = client.get(f"/api/tables/{d['id']}").json()
    assert summary["players"] == 1 and summary["options"] == {} and not summary["hints"]
    assert [s["kind"] for s in summary["seats"]] == [HUMAN]
    assert summary["seats"][0]["name"] == "Sol" and summary["clock"] is None
    assert not d["ranked"] and d["link"] == f"/t/{d['id']}#s={d['token']}"
    r = start(client, name="Bot 2")
    assert r.status_code == 400 and r.json()["code"] == "bad_request"
    r = start(client, seed=3)
    assert r.status_code == 400


def test_an_account_plays_each_days_deal_once_ranked(client):
    sign_up(client, "Rita")
    d = started(client)
    assert d["ranked"]
    tables = client.app.state.manager.store.count_tables()
    r = start(client)
    assert r.status_code == 409 and r.json()["code"] == "daily_played"
    assert "once a day" in r.json()["error"]
    stop(client, d)
    assert start(client).status_code == 409  # over or not
    assert client.app.state.manager.store.count_tables() == tables
    you = report(client)["you"]
    assert you["table"] == d["id"] and you["ranked"] and not you["can_play"]
    with client.app.state.manager.store.engine.connect() as conn:
        linked = conn.execute(text("SELECT a.name FROM seats s JOIN accounts a "
                                   "ON a.id = s.account_id WHERE s.table_id = :t"),
                              {"t": d["id"]}).scalar()
    assert linked == "Rita"  # the seat is the account's: its profile counts the game
    client.clock.next_day()
    assert started(client)["date"] == "2026-05-02"  # a new day, a new play


def test_two_starts_racing_store_one_ranked_play(client):
    """The database refuses a second play of one account on one day (two replicas racing):
    the second table is rolled back with it."""
    sign_up(client, "Race")
    store = client.app.state.manager.store
    with store.engine.connect() as conn:
        account = conn.execute(text("SELECT id FROM accounts")).scalar()
    seed = daily_seed(b"x" * 16, DAY)
    DailyStore(store).deal("2026-05-01", seed, {"players": 1})
    tables = store.count_tables()
    store.new_table("regicide", {"players": 1}, seed, [NewSeat(HUMAN, claimed=True)],
                    also=DailyStore.recorder("2026-05-01", account))
    with pytest.raises(AlreadyPlayed):
        store.new_table("regicide", {"players": 1}, seed, [NewSeat(HUMAN, claimed=True)],
                        also=DailyStore.recorder("2026-05-01", account))
    assert store.count_tables() == tables + 1


def test_a_player_without_an_account_plays_unranked(client):
    a = started(client, name="Anon")
    b = started(client)  # the server does not refuse: the page keeps one per browser
    assert not a["ranked"] and not b["ranked"]
    stop(client, a)
    out = report(client, table=a["id"])
    assert out["you"]["table"] == a["id"] and not out["you"]["ranked"]
    assert out["you"]["result"]["enemies"] == 0 and out["you"]["rank"] is None
    assert out["leaderboard"] == [] and out["ranked"] == 0 and out["played"] == 2


# -- the leaderboard --------------------------------------------------------------------


def test_the_leaderboard_ranks_medal_then_enemies_then_fewer_moves_then_the_earlier(client):
    plays = {}
    for name in ("Goldie", "Silva", "Eight", "Eighty", "Late", "Helped"):
        sign_up(client, name)
        plays[name] = started(client)["id"]
    sign_out(client)
    store = DailyStore(client.app.state.manager.store)
    with store.engine.connect() as conn:
        ids = dict(conn.execute(text("SELECT table_id, id FROM daily_plays")).all())
    t = datetime(2026, 5, 1, 13, tzinfo=timezone.utc)
    results = {  # (won, medal, enemies, moves, minutes after 13:00, a bot played)
        "Silva": (True, "silver", 12, 40, 1, False), "Goldie": (True, "gold", 12, 90, 9, False),
        "Late": (False, None, 8, 25, 7, False), "Eight": (False, None, 8, 30, 2, False),
        "Eighty": (False, None, 8, 25, 3, False), "Helped": (True, None, 12, 50, 0, True)}
    store.set_scores({ids[plays[n]]: {
        "won": w, "medal": m, "medal_rank": {"gold": 3, "silver": 2}.get(m, 0), "enemies": e,
        "moves": mv, "finished_at": t + timedelta(minutes=k), "assisted": a}
        for n, (w, m, e, mv, k, a) in results.items()})
    board = report(client)["leaderboard"]
    assert [e["name"] for e in board] == ["Goldie", "Silva", "Eighty", "Late", "Eight"]
    assert [e["rank"] for e in board] == [1, 2, 3, 4, 5]
    assert board[0]["medal"] == "gold" and board[2]["enemies"] == 8 and board[2]["moves"] == 25
    assert all(e["replay"] is None for e in board)  # no table named while the day lasts
    client.clock.next_day()
    past = report(client, date="2026-05-01")["leaderboard"]
    assert [e["replay"] for e in past] == [f"/replay/{plays[e['name']]}" for e in past]


def test_a_won_game_scores_its_medal_all_enemies_and_its_moves(client):
    """Played to the end with the solver's winning line: gold, 12 enemies, the line's
    length; first on the board, above a game stopped at once."""
    sign_up(client, "Loser")
    stop(client, started(client))
    sign_up(client, "Winner")
    d = started(client)
    sol = solve_seed(stored_seed(client, d["id"]), time_limit=30)
    assert sol.result == "won"
    p = join(client, seat_of(d), 0)
    for i, action in enumerate(sol.line):
        p.act(action)
        p.state_at(i + 1)
    assert p.finished()["outcome"]["medal"] == sol.medal
    p.close()
    out = report(client)
    assert out["you"]["result"] == {"won": True, "medal": sol.medal, "enemies": 12,
                                    "moves": len(sol.line), "assisted": False,
                                    "finished_at": out["you"]["result"]["finished_at"]}
    assert [(e["name"], e["medal"], e["enemies"]) for e in out["leaderboard"]] == [
        ("Winner", sol.medal, 12), ("Loser", None, 0)]
    assert out["you"]["rank"] == 1 and out["leaderboard"][0]["you"]
    assert out["leaderboard"][0]["replay"] == f"/replay/{d['id']}"  # one's own: linked


def test_score_reads_the_medal_only_of_a_win_no_bot_played():
    g = get_game("regicide")
    m = Match(g, {"players": 1}, 5)
    first = g.action_to_text(m.state, list(g.legal_actions(m.state))[0])
    r = score({"players": 1}, 5, [first], None, False)
    assert r == {"won": False, "medal": None, "medal_rank": 0, "enemies": r["enemies"],
                 "moves": 1, "assisted": False}
    sol = solve_seed(5, time_limit=30)
    won = score({"players": 1}, 5, sol.line, None, False)
    assert won["won"] and won["medal"] == sol.medal and won["enemies"] == 12
    assert score({"players": 1}, 5, sol.line, None, True)["medal"] is None


# -- the verdict ------------------------------------------------------------------------


def test_the_verdict_is_hidden_until_the_game_is_over_then_shown_with_its_line(client):
    sign_up(client, "Vera")
    d = started(client)
    out = report(client)
    assert out["verdict"] == {"state": "hidden"}
    r = client.get("/api/daily/line")
    assert r.status_code == 409 and r.json()["code"] == "not_finished"
    sign_out(client)
    stranger = report(client)  # no game today: nothing shown either
    assert stranger["verdict"] == {"state": "hidden"} and stranger["you"]["can_play"]
    assert client.get("/api/daily/line", params={"table": "nosuchid"}).status_code == 409
    client.post("/api/account/sign-in", json={"name": "Vera", "password": PASSWORD})
    stop(client, d)
    v = ready(client)["verdict"]
    seed = stored_seed(client, d["id"])
    sol = solve_seed(seed, time_limit=30)
    assert v["state"] == "ready" and v["result"] == sol.result == "won" and v["winnable"]
    assert v["line_moves"] > 0
    # The server's search has its own time limit: on a loaded machine it may stop at a
    # lesser medal, not proven; a proven medal is the best one, so both proven agree.
    rank = {"bronze": 0, "silver": 1, "gold": 2}
    if sol.medal_proven:
        assert rank[v["best_medal"]] <= rank[sol.medal]
        assert v["best_medal"] == sol.medal or not v["medal_proven"]
    assert v["line"] == f"/daily/2026-05-01/line?table={d['id']}"
    r = client.get(v["line"].replace("/daily/2026-05-01/line", "/api/daily/line"))
    assert r.status_code == 200, r.text
    line = r.json()
    assert line["daily"] == "2026-05-01" and line["seats"][0]["bot"] == "solver"
    assert line["record"]["seed"] == seed and len(line["steps"]) == v["line_moves"] + 1
    assert line["outcome"]["result"] == "won" and line["outcome"]["medal"] == v["best_medal"]
    assert client.get("/daily/2026-05-01/line").status_code == 200  # the replay page
    with client.app.state.manager.store.engine.connect() as conn:  # worked out once, kept
        stored = json.loads(conn.execute(text("SELECT verdict FROM daily_deals")).scalar())
    assert stored["line"] and stored["limit"] == 5.0


def test_a_player_without_an_account_sees_the_verdict_of_their_own_ended_game(client):
    a = started(client)
    b = started(client)
    stop(client, a)
    assert ready(client, table=a["id"])["verdict"]["state"] == "ready"
    assert report(client, table=b["id"])["verdict"] == {"state": "hidden"}  # still playing
    assert client.get("/api/daily/line", params={"table": b["id"]}).status_code == 409
    assert client.get("/api/daily/line", params={"table": a["id"]}).status_code == 200
    client.clock.next_day()  # the day is over: shown to anyone without a game going on
    assert report(client, date="2026-05-01")["verdict"]["state"] == "ready"
    assert report(client, date="2026-05-01", table=b["id"])["verdict"] == {"state": "hidden"}


def test_a_solver_out_of_time_says_not_proven(client, monkeypatch):
    def out_of_time(seed, config, seconds):
        return {"seed": seed, "result": "undecided", "medal": None, "medal_proven": False,
                "line": [], "nodes": 10, "seconds": seconds, "decide_seconds": seconds,
                "limit": seconds}
    monkeypatch.setattr(daily_module, "solve_deal", out_of_time)
    d = started(client)
    stop(client, d)
    v = ready(client, table=d["id"])["verdict"]
    assert v["state"] == "ready" and v["result"] == "undecided" and v["winnable"] is None
    assert v["line"] is None and v["best_medal"] is None
    r = client.get("/api/daily/line", params={"table": d["id"]})
    assert r.status_code == 404


def test_the_verdict_is_worked_out_once_and_kept(db_url, clock, monkeypatch):
    calls = []

    def counted(seed, config, seconds):
        calls.append(seed)
        return {"seed": seed, "result": "lost", "medal": None, "medal_proven": False,
                "line": [], "nodes": 1, "seconds": 0.1, "decide_seconds": 0.1,
                "limit": seconds}
    monkeypatch.setattr(daily_module, "solve_deal", counted)
    with app(db_url, clock) as c:
        first = started(c)
        started(c)
        stop(c, first)
        v = ready(c, table=first["id"])["verdict"]
        assert v["winnable"] is False and v["result"] == "lost" and v["line"] is None
    with app(db_url, clock) as c:  # a restart reads it from the database
        assert report(c, table=first["id"])["verdict"]["winnable"] is False
    assert len(calls) == 1


def test_one_replica_at_a_time_works_a_verdict_out(db_url):
    """A claim on a day's verdict holds until it is stored, given up, or stale."""
    from regalia.server.storage.store import Store

    db = Store(db_url)
    store = DailyStore(db)
    store.deal("2026-05-01", 7, {"players": 1})
    t = datetime.now(timezone.utc)
    assert store.claim_solve("2026-05-01", "a", t - timedelta(minutes=3))
    assert not store.claim_solve("2026-05-01", "b", t - timedelta(minutes=3))
    store.release_solve("2026-05-01", "b")  # not b's: nothing
    assert not store.claim_solve("2026-05-01", "b", t - timedelta(minutes=3))
    assert store.claim_solve("2026-05-01", "b", t + timedelta(minutes=1))  # a's is stale
    store.release_solve("2026-05-01", "b")
    assert store.claim_solve("2026-05-01", "a", t - timedelta(minutes=3))
    store.set_verdict("2026-05-01", {"result": "lost"})
    assert not store.claim_solve("2026-05-01", "b", t + timedelta(minutes=1))
    assert store.find_deal("2026-05-01").verdict == {"result": "lost"}
    db.close()


def test_a_profile_lists_no_daily_game_of_the_day_but_a_past_days(client):
    sign_up(client, "Pia")
    d = started(client)
    stop(client, d)
    p = client.get("/api/players/pia").json()
    assert p["games"][0]["played"] == 1 and p["recent"] == []
    client.clock.next_day()
    assert [g["id"] for g in client.get("/api/players/pia").json()["recent"]] == [d["id"]]


def test_the_ranked_game_opens_in_another_browser_of_the_account_and_is_finished_there(client):
    """The account's seat of its ranked game is linked to it from the start: a browser
    signed in to it later, without the seat's token, opens it by its session and plays it
    to its end; a second start is still refused."""
    sign_up(client, "Roamer")
    d = started(client)
    client.cookies.clear()  # another browser, signed in to the same account
    r = client.post("/api/account/sign-in", json={"name": "Roamer", "password": PASSWORD})
    assert r.status_code == 200, r.text
    you = report(client)["you"]
    assert you["table"] == d["id"] and you["status"] == "playing"
    assert start(client).json()["code"] == "daily_played"
    tables = client.get("/api/account/tables").json()["tables"]
    assert [(t["id"], t["seat"]) for t in tables] == [(d["id"], 0)]
    p = Peer(client, d["id"], None, "by account", account=True)
    welcome = p.recv()
    assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
    assert p.recv_until(lambda m: m["type"] == "state")["view"]["hand"]
    p.send({"type": "stop", "agree": True})
    p.finished()
    p.close()
    assert report(client)["you"]["status"] == "finished"
    client.cookies.clear()  # a browser signed out: no seat
    q = Peer(client, d["id"], None, "signed out", account=True)
    assert q.recv()["code"] == "no_access"
    q.close()


def test_deleting_an_account_keeps_its_daily_game_unranked(client):
    sign_up(client, "Gone")
    d = started(client)
    stop(client, d)
    assert [e["name"] for e in report(client)["leaderboard"]] == ["Gone"]
    r = client.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    assert report(client)["leaderboard"] == []
    assert report(client, table=d["id"])["you"]["table"] == d["id"]


# -- the database -----------------------------------------------------------------------


def test_a_database_of_the_previous_revision_is_upgraded_with_its_tables(db_url, clock):
    old_database(db_url, "0009")
    with app(db_url, clock) as c:  # upgrades
        store = c.app.state.manager.store
        assert current_revision(store.engine) == head_revision()
        t = store.load_table("keep0001")
        assert t is not None and t.seats[0].name == "Old" and t.seed == 7
        assert c.get("/api/tables/keep0001").status_code == 200
        assert started(c)["date"] == "2026-05-01"
    engine = make_engine(db_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:  # and back down, the tables still there
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0009")
    with engine.connect() as c:
        assert c.execute(text("SELECT count(*) FROM game_tables WHERE id = 'keep0001'")
                         ).scalar() == 1
    engine.dispose()
