"""Web Push: the site's VAPID keys (made once, kept across a restart), the browsers'
subscriptions (added, replaced, removed; refused when they prove nothing), the message sent
when a move makes it a seat's turn at a turn-based table (through a fake sender that
records it; a subscription answered 410 is deleted), the friends' notifications, and one
message encrypted and signed for real by pywebpush, sent to a local HTTP server and
decrypted there."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time

import pytest

from server_helpers import join, new_table, running_app

FCM = "https://fcm.googleapis.com/fcm/send/"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def browser_keys():
    """A browser's side of a subscription: its private key and the ``keys`` it sends."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    raw = key.public_key().public_bytes(serialization.Encoding.X962,
                                        serialization.PublicFormat.UncompressedPoint)
    auth = os.urandom(16)
    return key, auth, {"p256dh": b64(raw), "auth": b64(auth)}


def subscription(name: str) -> dict:
    return {"endpoint": FCM + name, "keys": browser_keys()[2]}


class FakeSender:
    """Records every message (endpoint, payload, ttl) and answers ``status[endpoint]``
    (default 201)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict, int]] = []
        self.status: dict[str, int] = {}

    async def send(self, target, payload: bytes, ttl: int) -> int:
        self.sent.append((target.endpoint, json.loads(payload), ttl))
        return self.status.get(target.endpoint, 201)

    async def close(self) -> None:
        pass

    def to(self, name: str) -> list[dict]:
        return [p for e, p, _ in self.sent if e == FCM + name]

    def wait_for(self, name: str, pred, timeout: float = 5.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for p in self.to(name):
                if pred(p):
                    return p
            assert time.monotonic() < deadline, (name, self.sent)
            time.sleep(0.02)


def settle(c) -> None:
    """Every message asked for so far was sent (the background tasks are done)."""
    c.portal.call(c.app.state.push.idle)


def subscribe(c, sub, seats=(), **kw):
    return c.post("/api/push/subscriptions", json={"subscription": sub, "seats": list(seats)},
                  **kw)


def seat(d, k):
    return {"id": d["id"], "token": d["seats"][k]["token"]}


def count(c) -> int:
    return c.app.state.push.store.count()


def test_the_vapid_keys_are_made_once_and_kept_across_a_restart(db_url):
    with running_app(db_url, push_sender=FakeSender()) as c:
        key = c.get("/api/push/key").json()["key"]
        assert c.get("/api/push/key").json()["key"] == key
        private = c.app.state.push.store.keys()[0]
    raw = unb64(key)
    assert len(raw) == 65 and raw[0] == 4  # an uncompressed P-256 point
    assert "PRIVATE KEY" in private
    with running_app(db_url, push_sender=FakeSender()) as c:
        assert c.get("/api/push/key").json()["key"] == key
        assert c.app.state.push.store.keys()[0] == private
        # a second replica racing to keep its own pair gets the one kept
        from regalia.server.web.push import new_keys
        assert c.app.state.push.store.keep_keys(*new_keys()) == (private, key)


def test_subscriptions_are_added_replaced_and_removed(db_url):
    with running_app(db_url, push_sender=FakeSender()) as c:
        d = new_table(c, "ribauds", ["human", "human"])
        sub = subscription("one")
        r = subscribe(c, sub, [seat(d, 0), {"id": d["id"], "token": "not-a-seat"}])
        assert r.status_code == 200, r.text
        assert r.json() == {"account": False, "seats": [{"id": d["id"], "seat": 0}]}
        again = {**sub, "keys": browser_keys()[2]}  # the same browser, new keys
        assert subscribe(c, again, [seat(d, 1)]).status_code == 200
        assert count(c) == 1
        assert c.app.state.push.store.for_seat(d["id"], 2) == []  # no such seat: nobody
        (target,) = c.app.state.push.store.for_seat(d["id"], 1)
        assert target.p256dh == again["keys"]["p256dh"]  # replaced
        assert c.app.state.push.store.for_seat(d["id"], 0) == [target]  # kept
        r = c.request("DELETE", "/api/push/subscriptions", json={"endpoint": sub["endpoint"]})
        assert r.json() == {"deleted": True} and count(c) == 0
        r = c.request("DELETE", "/api/push/subscriptions", json={"endpoint": sub["endpoint"]})
        assert r.json() == {"deleted": False}


def test_bad_subscriptions_are_refused_and_store_nothing(db_url):
    with running_app(db_url, push_sender=FakeSender()) as c:
        d = new_table(c, "ribauds", ["human", "human"])
        good = subscription("good")
        cases = [
            ({**good, "endpoint": "http://fcm.googleapis.com/fcm/send/x"}, [seat(d, 0)], 400,
             "https URL of a push service"),
            ({**good, "endpoint": "https://evil.example/push/x"}, [seat(d, 0)], 400,
             "fcm.googleapis.com"),
            ({**good, "endpoint": "https://127.0.0.1/x"}, [seat(d, 0)], 400, "push service"),
            ({**good, "keys": {"p256dh": "A" * 87, "auth": good["keys"]["auth"]}}, [seat(d, 0)],
             400, "P-256"),
            ({**good, "keys": {"p256dh": good["keys"]["p256dh"], "auth": "A" * 30}},
             [seat(d, 0)], 400, "16 bytes"),
            ({"endpoint": good["endpoint"]}, [seat(d, 0)], 400, "subscription:"),
            (good, [], 403, "sign in"),
            (good, [{"id": d["id"], "token": "nobody"}], 403, "seats:"),
        ]
        for sub, seats, status, said in cases:
            r = subscribe(c, sub, seats)
            assert r.status_code == status, (sub, r.text)
            assert said in r.json()["error"], r.json()
        r = c.post("/api/push/subscriptions", json={"subscription": good, "seats": [],
                                                    "more": 1})
        assert r.status_code == 400
        r = subscribe(c, good, [seat(d, 0)], headers={"Origin": "https://elsewhere.example"})
        assert r.status_code == 403 and r.json()["code"] == "cross_origin"
        r = c.request("DELETE", "/api/push/subscriptions", json={"endpoint": ""})
        assert r.status_code == 400 and "endpoint:" in r.json()["error"]
        assert count(c) == 0


def test_the_subscriptions_are_rate_limited(db_url):
    with running_app(db_url, push_sender=FakeSender(), push_rate="2/hour") as c:
        d = new_table(c, "ribauds", ["human", "human"])
        for name in ("a", "b"):
            assert subscribe(c, subscription(name), [seat(d, 0)]).status_code == 200
        r = subscribe(c, subscription("c"), [seat(d, 0)])
        assert r.status_code == 429 and "notification subscriptions" in r.json()["error"]
        assert count(c) == 2


def play_until_turn_passes(peers: dict, table_id: str, c):
    """The seat to act plays until the other seat is to act; returns that seat."""
    first = c.get(f"/api/tables/{table_id}").json()["current"]
    while True:
        p = peers[c.get(f"/api/tables/{table_id}").json()["current"]]
        ply = c.get(f"/api/tables/{table_id}").json()["ply"]
        p.state_at(ply)
        if p.state["current"] != first:
            return p.state["current"]
        p.act(p.state["legal"][0])
        p.state_at(ply + 1)


def test_a_move_that_makes_it_a_seats_turn_sends_it_a_push(db_url):
    sender = FakeSender()
    with running_app(db_url, push_sender=sender, turn_presets="long=3600") as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="long", seed=2)
        for k in (0, 1):
            assert subscribe(c, subscription(f"seat{k}"), [seat(d, k)]).status_code == 200
        peers = {0: join(c, d, 0), 1: join(c, d, 1)}
        first = c.get(f"/api/tables/{d['id']}").json()["current"]
        # the game's start: its first player is told
        told = sender.wait_for(f"seat{first}", lambda p: p["kind"] == "turn")
        assert told == {"kind": "turn", "table": d["id"], "game": "ribauds", "seat": first,
                        "deadline": told["deadline"], "url": f"/t/{d['id']}",
                        "tag": f"turn-{d['id']}"}
        assert abs(told["deadline"] - (time.time() + 3600)) < 10
        other = play_until_turn_passes(peers, d["id"], c)
        assert other == 1 - first
        sender.wait_for(f"seat{other}", lambda p: p["kind"] == "turn")
        settle(c)
        assert len(sender.to(f"seat{other}")) == 1
        assert len(sender.to(f"seat{first}")) == 1  # its own moves tell it nothing
        assert all(d["seats"][k]["token"] not in json.dumps(sender.sent) for k in (0, 1))
        assert all(ttl == 86400 for _, _, ttl in sender.sent)


def test_tables_that_are_not_turn_based_send_nothing(db_url):
    sender = FakeSender()
    with running_app(db_url, push_sender=sender) as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="rapid", seed=2)
        e = new_table(c, "ribauds", ["human", "human"], seed=3)
        for t in (d, e):
            for k in (0, 1):
                assert subscribe(c, subscription(f"{t['id']}{k}"), [seat(t, k)]).status_code == 200
            play_until_turn_passes({0: join(c, t, 0), 1: join(c, t, 1)}, t["id"], c)
        settle(c)
        assert sender.sent == []


def test_a_subscription_gone_410_is_deleted_and_a_failure_is_logged(db_url, caplog):
    sender = FakeSender()
    sender.status[FCM + "gone"] = 410
    sender.status[FCM + "busy"] = 503
    with running_app(db_url, push_sender=sender, turn_presets="long=3600") as c:
        d = new_table(c, "ribauds", ["human", "human"], clock="long", seed=2)
        for name in ("gone", "busy"):
            assert subscribe(c, subscription(name), [seat(d, 0), seat(d, 1)]).status_code == 200
        assert count(c) == 2
        join(c, d, 0), join(c, d, 1)  # the game starts: the first player's browsers told
        sender.wait_for("gone", lambda p: p["kind"] == "turn")
        sender.wait_for("busy", lambda p: p["kind"] == "turn")
        settle(c)
        assert count(c) == 1  # 410: deleted; 503: kept
        assert "refused: HTTP 503" in caplog.text


def sign_up(c, name):
    c.cookies.clear()
    r = c.post("/api/account/sign-up", json={"name": name, "password": "a good password"})
    assert r.status_code == 201, r.text
    return c.cookies.get("regalia_session")


def as_account(c, session):
    c.cookies.clear()
    c.cookies.set("regalia_session", session)


def test_an_account_is_told_of_its_seats_turns_friend_requests_and_invitations(db_url):
    sender = FakeSender()
    with running_app(db_url, push_sender=sender, turn_presets="long=3600",
                     sign_up_rate="100/second") as c:
        ann = sign_up(c, "Ann Push")
        bea = sign_up(c, "Bea Push")
        r = subscribe(c, subscription("bea"))  # signed in: no seat needed
        assert r.json() == {"account": True, "seats": []}
        as_account(c, ann)
        assert c.post("/api/friends/requests", json={"name": "Bea Push"}).status_code == 200
        asked = sender.wait_for("bea", lambda p: p["kind"] == "friend_request")
        assert asked == {"kind": "friend_request", "name": "Ann Push", "url": "/",
                         "tag": "friend-Ann Push"}
        as_account(c, bea)
        assert c.post("/api/friends/accept", json={"name": "Ann Push"}).status_code == 200
        as_account(c, ann)
        d = new_table(c, "ribauds", ["human", "human"], clock="long", seed=4)
        join(c, d, 0)
        r = c.post("/api/friends/invite", json={"name": "Bea Push", "table": d["id"],
                                                "token": d["seats"][0]["token"]})
        assert r.status_code == 201, r.text
        invited = sender.wait_for("bea", lambda p: p["kind"] == "invited")
        assert invited == {"kind": "invited", "name": "Ann Push", "game": "ribauds",
                           "table": d["id"], "url": "/", "tag": f"invited-{d['id']}"}
        # Bea takes the seat by the invitation: linked to her account, told of its turns
        as_account(c, bea)
        inv = c.get("/api/friends/invitations").json()["invitations"][0]
        taken = c.post(f"/api/friends/invitations/{inv['id']}/accept", json={}).json()
        assert "token" in taken, taken
        peers = {0: join(c, d, 0), 1: join(c, {**d, "seats": [
            d["seats"][0], {**d["seats"][1], "token": taken["token"]}]}, 1)}
        if c.get(f"/api/tables/{d['id']}").json()["current"] == 0:  # else told at the start
            play_until_turn_passes(peers, d["id"], c)
        sender.wait_for("bea", lambda p: p["kind"] == "turn" and p["seat"] == 1)
        # her account deleted: its subscriptions go with it
        r = c.request("DELETE", "/api/account", json={"password": "a good password"})
        assert r.status_code == 200, r.text
        assert count(c) == 0


def test_a_real_message_is_encrypted_and_signed_by_pywebpush(tmp_path):
    """``WebPushSender`` against a local HTTP server standing for a push service: the
    request carries a valid VAPID signature for the endpoint's origin and a body that the
    browser's keys decrypt to the payload (RFC 8291 aes128gcm)."""
    aiohttp = pytest.importorskip("aiohttp")
    from aiohttp import web
    import http_ece
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    from regalia.server.storage.push import PushTarget
    from regalia.server.web.push import WebPushSender, new_keys

    key, auth, keys = browser_keys()
    private_pem, public = new_keys()
    received: list[tuple[dict, bytes, str]] = []

    async def push_service(request):
        received.append((dict(request.headers), await request.read(), request.path))
        return web.Response(status=410 if request.path.endswith("/gone") else 201)

    async def run():
        app = web.Application()
        app.router.add_post("/push/{name}", push_service)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        sender = WebPushSender(private_pem, "mailto:ops@regalia.example")
        try:
            base = f"http://127.0.0.1:{port}/push/"
            ok = await sender.send(PushTarget(1, base + "abc", keys["p256dh"], keys["auth"]),
                                   b'{"kind": "turn", "table": "abcd1234"}', 3600)
            gone = await sender.send(PushTarget(2, base + "gone", keys["p256dh"],
                                                keys["auth"]), b"{}", 60)
        finally:
            await sender.close()
            await runner.cleanup()
        return ok, gone, port

    ok, gone, port = asyncio.run(run())
    assert (ok, gone) == (201, 410)
    headers, body, path = received[0]
    assert path == "/push/abc"
    headers = {k.lower(): v for k, v in headers.items()}
    assert headers["content-encoding"] == "aes128gcm" and headers["ttl"] == "3600"
    # the body decrypts with the browser's private key and auth secret
    assert http_ece.decrypt(body, private_key=key, auth_secret=auth,
                            version="aes128gcm") == b'{"kind": "turn", "table": "abcd1234"}'
    # VAPID (RFC 8292): "vapid t=JWT,k=PUBLIC KEY", the JWT signed by the site's key
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(p.strip().split("=", 1) for p in params.split(","))
    assert fields["k"] == public
    head, claims, sig = fields["t"].split(".")
    signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public))
    raw = unb64(sig)
    signer.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                       int.from_bytes(raw[32:], "big")),
                  f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(unb64(claims))
    assert claims["aud"] == f"http://127.0.0.1:{port}"
    assert claims["sub"] == "mailto:ops@regalia.example" and claims["exp"] > time.time()


def test_a_database_of_the_previous_revision_is_upgraded_and_can_go_back(db_url):
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import inspect, text

    from server_helpers import latest_revision, old_database
    from regalia.server.storage.engine import (MIGRATIONS, current_revision, head_revision,
                                               make_engine)

    old_database(db_url, "0013")
    with running_app(db_url, push_sender=FakeSender(), turn_presets="long=3600") as c:
        store = c.app.state.manager.store
        assert current_revision(store.engine) == head_revision() == latest_revision() == "0014"
        kept = store.load_table("keep0001")
        assert kept is not None and kept.seats[0].name == "Old" and kept.clock is None
        assert c.get("/api/tables/keep0001").status_code == 200
        assert len(unb64(c.get("/api/push/key").json()["key"])) == 65
        d = new_table(c, "ribauds", ["human", "human"], clock="long")  # the new column works
        assert subscribe(c, subscription("up"), [seat(d, 0)]).status_code == 200
    engine = make_engine(db_url)
    assert {"push_keys", "push_subscriptions", "push_seats"} <= set(inspect(engine).get_table_names())
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:  # and back down, the tables still there
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0013")
    tables = set(inspect(engine).get_table_names())
    assert not tables & {"push_keys", "push_subscriptions", "push_seats"}
    assert "turn_deadline" not in {col["name"] for col in inspect(engine).get_columns("game_tables")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM game_tables")).scalar() == 2
    engine.dispose()
