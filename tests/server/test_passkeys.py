"""Passkeys (WebAuthn): an account created with a passkey and no password, a passkey added
to an account, signing in with one (a new session, the signature counter kept), the
refusals (another challenge, a ceremony answered twice or expired, another origin or
relying party, an unknown passkey or another account's, all in the same words), the rate
limits, removing passkeys, deleting an account that has no password, and a database
upgraded with its tables.

The authenticator is software written here: an ES256 key (``cryptography``), attestation
``none``, the authenticator data's bytes as WebAuthn lays them out (the relying party id's
SHA-256, the flags, the signature counter, then for a new passkey the AAGUID, the
credential id's length and the id, and the COSE public key)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from datetime import datetime, timezone

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import text

from regalia.server.storage.engine import current_revision, head_revision
from test_accounts import PASSWORD, cheap, cookie_of, me, sign_in, sign_up, stored_sessions
from regalia.server.storage.models import token_hash
from server_helpers import as_address, latest_revision, old_database, running_app

ORIGIN = "http://testserver"  # the test client's site
REFUSED = {"error": "the passkey was not accepted", "code": "passkey_refused"}
UP, UV, AT = 0x01, 0x04, 0x40  # the authenticator data's flags: present, verified, new key


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text_: str) -> bytes:
    return base64.urlsafe_b64decode(text_ + "=" * (-len(text_) % 4))


class Authenticator:
    """A passkey authenticator in software: its discoverable passkeys by relying party id
    (each an ES256 key, a credential id, the user handle it was created for, and a
    signature counter that grows at each use unless ``counting`` is false)."""

    def __init__(self, counting: bool = True) -> None:
        self.counting = counting
        self.keys: dict[bytes, dict] = {}

    def create(self, options: dict, origin: str = ORIGIN, rp_id: str | None = None,
               challenge: str | None = None, cred_id: bytes | None = None) -> dict:
        """The answer of ``navigator.credentials.create(publicKey=options)``, in WebAuthn's
        JSON form. ``origin``, ``rp_id``, ``challenge``: what a browser elsewhere, or
        answering another ceremony, would put in it; ``cred_id``: the new passkey's id
        (default: random)."""
        rp_id = rp_id or options["rp"]["id"]
        excluded = {unb64(c["id"]) for c in options.get("excludeCredentials", [])}
        assert not excluded & set(self.keys), "the authenticator holds an excluded passkey"
        key = ec.generate_private_key(ec.SECP256R1())
        cred_id = cred_id or os.urandom(32)
        self.keys[cred_id] = {"key": key, "rp_id": rp_id, "count": 0,
                              "user": unb64(options["user"]["id"])}
        nums = key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: nums.x.to_bytes(32, "big"),
                            -3: nums.y.to_bytes(32, "big")})
        auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([UP | UV | AT])
                     + struct.pack(">I", 0) + bytes(16) + struct.pack(">H", len(cred_id))
                     + cred_id + cose)
        client = self.client_data("webauthn.create", challenge or options["challenge"], origin)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {"id": b64(cred_id), "rawId": b64(cred_id), "type": "public-key",
                "authenticatorAttachment": "platform", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client), "attestationObject": b64(attestation),
                             "transports": ["internal", "hybrid"]}}

    def get(self, options: dict, origin: str = ORIGIN, cred_id: bytes | None = None,
            challenge: str | None = None, rp_id: str | None = None) -> dict:
        """The answer of ``navigator.credentials.get(publicKey=options)``: with the passkey
        ``cred_id`` (default: the only or the first one allowed for the relying party)."""
        rp_id = rp_id or options["rpId"]
        if cred_id is None:
            allowed = [unb64(c["id"]) for c in options.get("allowCredentials", [])]
            mine = [c for c, k in self.keys.items() if k["rp_id"] == rp_id
                    and (not allowed or c in allowed)]
            cred_id = mine[0]
        k = self.keys[cred_id]
        if self.counting:
            k["count"] += 1
        auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([UP | UV])
                     + struct.pack(">I", k["count"]))
        client = self.client_data("webauthn.get", challenge or options["challenge"], origin)
        signature = k["key"].sign(auth_data + hashlib.sha256(client).digest(),
                                  ec.ECDSA(hashes.SHA256()))
        return {"id": b64(cred_id), "rawId": b64(cred_id), "type": "public-key",
                "authenticatorAttachment": "platform", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client), "authenticatorData": b64(auth_data),
                             "signature": b64(signature), "userHandle": b64(k["user"])}}

    @staticmethod
    def client_data(kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin,
                           "crossOrigin": False}).encode()


@pytest.fixture
def client(db_url):
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second",
                     sign_in_rate="1000/second") as c:
        yield c


def post(c, path: str, body: dict, **kw):
    return c.post(f"/api/account/passkeys/{path}", json=body, **kw)


def begin(c, path: str, body: dict | None = None) -> dict:
    r = post(c, f"{path}/begin", body or {})
    assert r.status_code == 200, r.text
    return r.json()


def passkey_sign_up(c, auth: Authenticator, name: str, label: str | None = None):
    """Begin and finish a passkey sign-up; the finish's answer."""
    began = begin(c, "sign-up", {"name": name})
    body = {"ceremony": began["ceremony"], "credential": auth.create(began["publicKey"])}
    if label is not None:
        body["label"] = label
    return post(c, "sign-up/finish", body)


def passkey_sign_in(c, auth: Authenticator, **answer):
    began = begin(c, "sign-in")
    return post(c, "sign-in/finish", {"ceremony": began["ceremony"],
                                      "credential": auth.get(began["publicKey"], **answer)})


def add_passkey(c, auth: Authenticator, label: str | None = None):
    began = begin(c, "register")
    body = {"ceremony": began["ceremony"], "credential": auth.create(began["publicKey"])}
    if label is not None:
        body["label"] = label
    return post(c, "register/finish", body)


def rows(c, sql: str, **params) -> list:
    with c.app.state.manager.store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(sql), params)]


def sign_out(c):
    assert c.post("/api/account/sign-out", json={}).status_code == 200


# -- signing up and in -------------------------------------------------------------------


def test_a_passkey_sign_up_makes_an_account_without_a_password_and_signs_it_in(client):
    auth = Authenticator()
    began = begin(client, "sign-up", {"name": "Paula"})
    options = began["publicKey"]
    assert options["rp"] == {"id": "testserver", "name": "Regalia"}
    assert options["user"]["name"] == options["user"]["displayName"] == "Paula"
    assert len(unb64(options["user"]["id"])) == 32  # a random handle, not the account's id
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "preferred"
    assert options["attestation"] == "none" and options["excludeCredentials"] == []
    assert {p["alg"] for p in options["pubKeyCredParams"]} == {-7, -8, -257}
    assert me(client) is None  # nothing yet: no account before the passkey's answer
    assert rows(client, "SELECT count(*) FROM accounts") == [(0,)]
    credential = auth.create(options)
    r = post(client, "sign-up/finish", {"ceremony": began["ceremony"], "credential": credential})
    assert r.status_code == 201, r.text
    assert r.json()["account"]["name"] == "Paula"
    assert me(client)["name"] == "Paula"
    assert stored_sessions(client) == [token_hash(cookie_of(r)["value"])]
    assert rows(client, "SELECT name, password_hash FROM accounts") == [("Paula", None)]
    (stored,) = rows(client, "SELECT credential_id, sign_count, transports, user_handle, label, "
                             "last_used_at FROM passkeys")
    assert stored[0] == credential["id"] and stored[1] == 0
    assert json.loads(stored[2]) == ["internal", "hybrid"]
    assert stored[3] == options["user"]["id"] and stored[4] == "Passkey 1" and stored[5] is None
    assert rows(client, "SELECT count(*) FROM passkey_challenges") == [(0,)]  # taken
    listed = client.get("/api/account/passkeys").json()
    assert listed["password"] is False
    assert [(p["label"], p["transports"], p["last_used_at"]) for p in listed["passkeys"]] == [
        ("Passkey 1", ["internal", "hybrid"], None)]
    sign_out(client)
    assert sign_in(client, "Paula", "any password at all").status_code == 401  # none to guess


def test_signing_in_with_a_passkey_starts_a_fresh_session_and_keeps_the_counter(client):
    auth = Authenticator()
    first = cookie_of(passkey_sign_up(client, auth, "Sigrid"))["value"]
    sign_out(client)
    planted = "P" * 43  # a token set in the browser before the sign-in never becomes one
    client.cookies.set("regalia_session", planted)
    began = begin(client, "sign-in")
    options = began["publicKey"]
    assert options["rpId"] == "testserver" and options["allowCredentials"] == []
    assert options["userVerification"] == "preferred"
    r = post(client, "sign-in/finish", {"ceremony": began["ceremony"],
                                        "credential": auth.get(options)})
    assert r.status_code == 200, r.text
    assert r.json()["account"]["name"] == "Sigrid"
    token = cookie_of(r)["value"]
    assert token not in (planted, first)
    assert "httponly" in cookie_of(r) and cookie_of(r)["samesite"].lower() == "lax"
    assert stored_sessions(client) == [token_hash(token)]
    client.cookies.clear()  # the test client's jar keeps the planted cookie beside it
    client.cookies.set("regalia_session", token)
    assert me(client)["name"] == "Sigrid"
    (count, used), = rows(client, "SELECT sign_count, last_used_at FROM passkeys")
    assert count == 1 and used is not None
    assert passkey_sign_in(client, auth).status_code == 200
    assert rows(client, "SELECT sign_count FROM passkeys") == [(2,)]
    second = client.get("/api/account/passkeys").json()["passkeys"][0]
    assert second["last_used_at"] is not None


def test_a_counter_that_does_not_grow_is_refused_as_a_cloned_authenticator(client):
    auth = Authenticator()
    passkey_sign_up(client, auth, "Clara")
    sign_out(client)
    assert passkey_sign_in(client, auth).status_code == 200  # counter 1
    (cred,) = auth.keys.values()
    cred["count"] = 0  # a copy of the key with an older counter: answers 1 again
    sign_out(client)
    r = passkey_sign_in(client, auth)
    assert r.status_code == 401 and r.json() == REFUSED
    assert me(client) is None and rows(client, "SELECT sign_count FROM passkeys") == [(1,)]


def test_an_authenticator_without_a_counter_signs_in_every_time(client):
    auth = Authenticator(counting=False)  # counters of 0: synced passkeys keep none
    passkey_sign_up(client, auth, "Zero")
    for _ in range(2):
        sign_out(client)
        assert passkey_sign_in(client, auth).status_code == 200
    assert rows(client, "SELECT sign_count FROM passkeys") == [(0,)]


# -- challenges: another one, answered twice, expired, on another replica ---------------


def test_an_answer_to_another_challenge_is_refused_and_the_ceremony_is_spent(client):
    auth = Authenticator()
    passkey_sign_up(client, auth, "Wanda")
    sign_out(client)
    one, two = begin(client, "sign-in"), begin(client, "sign-in")
    wrong = auth.get(one["publicKey"], challenge=two["publicKey"]["challenge"])
    r = post(client, "sign-in/finish", {"ceremony": one["ceremony"], "credential": wrong})
    assert r.status_code == 401 and r.json() == REFUSED and me(client) is None
    right = auth.get(one["publicKey"])  # the ceremony was answered once: spent
    r = post(client, "sign-in/finish", {"ceremony": one["ceremony"], "credential": right})
    assert r.status_code == 400 and r.json()["code"] == "passkey_expired"
    r = post(client, "sign-up/finish", {"ceremony": two["ceremony"],  # begun to sign in
                                        "credential": auth.create(two["publicKey"] | {
                                            "rp": {"id": "testserver"},
                                            "user": {"id": b64(b"x" * 32)}})})
    assert r.status_code == 400 and r.json()["code"] == "passkey_expired"
    a_signup = begin(client, "sign-up", {"name": "Other"})
    forged = auth.create(a_signup["publicKey"], challenge=b64(os.urandom(32)))
    r = post(client, "sign-up/finish", {"ceremony": a_signup["ceremony"], "credential": forged})
    assert r.status_code == 401 and r.json() == REFUSED
    assert rows(client, "SELECT name FROM accounts") == [("Wanda",)]


def test_a_ceremony_answered_twice_is_refused_the_second_time(client):
    auth = Authenticator()
    passkey_sign_up(client, auth, "Twice")
    sign_out(client)
    began = begin(client, "sign-in")
    answer = {"ceremony": began["ceremony"], "credential": auth.get(began["publicKey"])}
    assert post(client, "sign-in/finish", answer).status_code == 200
    sign_out(client)
    r = post(client, "sign-in/finish", answer)  # the very same answer, replayed
    assert r.status_code == 400 and r.json() == {
        "error": "this passkey request is unknown, answered already or expired (each lasts 5 "
                 "minutes and is answered once): start again", "code": "passkey_expired"}
    assert me(client) is None and "set-cookie" not in r.headers
    again = begin(client, "sign-in")  # an old answer under a new ceremony: its challenge
    r = post(client, "sign-in/finish", {"ceremony": again["ceremony"],
                                        "credential": answer["credential"]})
    assert r.status_code == 401 and r.json() == REFUSED


def test_an_expired_ceremony_is_refused(client):
    auth = Authenticator()
    passkey_sign_up(client, auth, "Late")
    sign_out(client)
    began = begin(client, "sign-in")
    (expires,), = rows(client, "SELECT expires_at FROM passkey_challenges")
    created, = rows(client, "SELECT created_at FROM passkey_challenges")
    assert 299 <= (datetime.fromisoformat(str(expires)) - datetime.fromisoformat(
        str(created[0]))).total_seconds() <= 301  # five minutes
    with client.app.state.manager.store.engine.begin() as conn:
        conn.execute(text("UPDATE passkey_challenges SET expires_at = :t"),
                     {"t": datetime(2000, 1, 1, tzinfo=timezone.utc)})
    r = post(client, "sign-in/finish", {"ceremony": began["ceremony"],
                                        "credential": auth.get(began["publicKey"])})
    assert r.status_code == 400 and r.json()["code"] == "passkey_expired"
    assert me(client) is None
    begin(client, "sign-in")  # a new ceremony sweeps the expired ones
    assert rows(client, "SELECT count(*) FROM passkey_challenges") == [(1,)]


def test_a_ceremony_begun_on_one_replica_is_answered_on_another(db_url):
    """The challenge is kept in the database: any process serving the site checks it."""
    auth = Authenticator()
    with running_app(db_url, passwords=cheap(), sign_up_rate="1000/second") as a, \
            running_app(db_url, passwords=cheap(), sign_up_rate="1000/second") as b:
        began = begin(a, "sign-up", {"name": "Rita"})
        answer = {"ceremony": began["ceremony"], "credential": auth.create(began["publicKey"])}
        r = post(b, "sign-up/finish", answer)
        assert r.status_code == 201, r.text
        assert me(b)["name"] == "Rita"
        assert post(a, "sign-up/finish", answer).json()["code"] == "passkey_expired"
        began = begin(b, "sign-in")
        r = post(a, "sign-in/finish", {"ceremony": began["ceremony"],
                                       "credential": auth.get(began["publicKey"])})
        assert r.status_code == 200 and me(a)["name"] == "Rita"


# -- the same refusal whatever the passkey, origins and relying parties ---------------------


def test_an_unknown_passkey_and_a_bad_signature_get_the_same_refusal(client):
    auth, stranger = Authenticator(), Authenticator()
    passkey_sign_up(client, auth, "Known")
    sign_out(client)
    stranger.create({"rp": {"id": "testserver"}, "user": {"id": b64(b"u" * 32)},
                     "challenge": b64(b"c")})  # a passkey this site never stored
    unknown = passkey_sign_in(client, stranger)
    began = begin(client, "sign-in")
    bad = auth.get(began["publicKey"])
    bad["response"]["signature"] = b64(b"\x30\x06\x02\x01\x01\x02\x01\x01")
    forged = post(client, "sign-in/finish", {"ceremony": began["ceremony"], "credential": bad})
    began = begin(client, "sign-in")
    junk = auth.get(began["publicKey"])
    junk["rawId"] = junk["id"] = "not-base64url-at-all*"
    malformed = post(client, "sign-in/finish", {"ceremony": began["ceremony"],
                                                "credential": junk})
    began = begin(client, "sign-in")
    other_user = auth.get(began["publicKey"])
    other_user["response"]["userHandle"] = b64(b"someone else's handle")
    handle = post(client, "sign-in/finish", {"ceremony": began["ceremony"],
                                             "credential": other_user})
    for r in (unknown, forged, handle):
        assert r.status_code == 401 and r.json() == REFUSED, r.text
        assert "set-cookie" not in r.headers
    assert malformed.status_code == 400 and malformed.json()["code"] == "bad_request"
    assert me(client) is None


def test_another_accounts_passkey_cannot_confirm_a_deletion(client):
    mine, theirs = Authenticator(), Authenticator()
    passkey_sign_up(client, theirs, "Theirs")
    sign_out(client)
    passkey_sign_up(client, mine, "Mine")
    began = begin(client, "confirm")
    allowed = [c["id"] for c in began["publicKey"]["allowCredentials"]]
    assert allowed == [b64(c) for c in mine.keys]  # the account's own passkeys only
    other = theirs.get(began["publicKey"] | {"allowCredentials": []})
    r = client.request("DELETE", "/api/account", json={
        "passkey": {"ceremony": began["ceremony"], "credential": other}})
    assert r.status_code == 401 and r.json() == REFUSED
    assert me(client)["name"] == "Mine"
    assert sorted(rows(client, "SELECT name FROM accounts")) == [("Mine",), ("Theirs",)]


def test_answers_from_another_origin_or_for_another_relying_party_are_refused(client):
    auth = Authenticator()
    began = begin(client, "sign-up", {"name": "Orla"})
    evil = auth.create(began["publicKey"], origin="https://evil.example")
    r = post(client, "sign-up/finish", {"ceremony": began["ceremony"], "credential": evil})
    assert r.status_code == 401 and r.json() == REFUSED
    began = begin(client, "sign-up", {"name": "Orla"})
    elsewhere = auth.create(began["publicKey"], rp_id="evil.example")
    r = post(client, "sign-up/finish", {"ceremony": began["ceremony"], "credential": elsewhere})
    assert r.status_code == 401 and r.json() == REFUSED
    assert rows(client, "SELECT count(*) FROM accounts") == [(0,)]
    assert passkey_sign_up(client, auth, "Orla").status_code == 201
    sign_out(client)
    for answer in ({"origin": "https://evil.example"}, {"rp_id": "evil.example"}):
        began = begin(client, "sign-in")
        credential = auth.get(began["publicKey"] | {"rpId": "testserver"}, **answer)
        r = post(client, "sign-in/finish", {"ceremony": began["ceremony"],
                                            "credential": credential})
        assert r.status_code == 401 and r.json() == REFUSED
    assert me(client) is None
    evil_page = {"Origin": "https://evil.example"}  # a request from another site's page
    for path, body in (("sign-up/begin", {"name": "Eve"}), ("sign-in/begin", {}),
                       ("sign-in/finish", {}), ("register/begin", {}), ("confirm/begin", {})):
        r = post(client, path, body, headers=evil_page)
        assert r.status_code == 403 and r.json()["code"] == "cross_origin", path
    r = client.request("DELETE", "/api/account/passkeys/1", json={}, headers=evil_page)
    assert r.status_code == 403 and r.json()["code"] == "cross_origin"


def test_the_relying_party_id_comes_from_the_settings_when_given(db_url):
    with running_app(db_url, passwords=cheap(), rp_id="regalia.example") as c:
        auth = Authenticator()
        began = begin(c, "sign-up", {"name": "Remi"})
        assert began["publicKey"]["rp"]["id"] == "regalia.example"
        r = post(c, "sign-up/finish", {"ceremony": began["ceremony"],
                                       "credential": auth.create(began["publicKey"])})
        assert r.status_code == 201, r.text
        sign_out(c)
        began = begin(c, "sign-in")
        assert began["publicKey"]["rpId"] == "regalia.example"
        r = post(c, "sign-in/finish", {"ceremony": began["ceremony"],
                                       "credential": auth.get(began["publicKey"])})
        assert r.status_code == 200
        sign_out(c)
        began = begin(c, "sign-in")  # signed for the name the page was reached by: refused
        signed = auth.get(began["publicKey"], cred_id=next(iter(auth.keys)), rp_id="testserver")
        r = post(c, "sign-in/finish", {"ceremony": began["ceremony"], "credential": signed})
        assert r.status_code == 401 and r.json() == REFUSED


# -- limits and bad input -----------------------------------------------------------------


def test_passkey_sign_ins_and_sign_ups_are_rate_limited_per_address(db_url):
    with running_app(db_url, passwords=cheap(), sign_in_rate="3/minute",
                     sign_up_rate="2/hour") as c:
        auth = Authenticator()
        assert passkey_sign_up(c, auth, "Limo").status_code == 201
        sign_out(c)
        for _ in range(3):
            assert post(c, "sign-in/begin", {}).status_code == 200
        r = post(c, "sign-in/begin", {})
        assert r.status_code == 429 and r.json()["code"] == "too_fast"
        assert "sign-ins" in r.json()["error"] and int(r.headers["Retry-After"]) >= 1
        assert post(c, "sign-up/begin", {"name": "Two2"}).status_code == 200
        r = post(c, "sign-up/begin", {"name": "Three3"})
        assert r.status_code == 429 and "accounts created" in r.json()["error"]
        assert post(c, "sign-up/begin", {"name": "x"}).status_code == 400  # not counted
        as_address(c, "10.1.2.3")
        assert passkey_sign_in(c, auth).status_code == 200


def test_bad_bodies_are_refused_with_what_is_allowed_and_change_nothing(client):
    auth = Authenticator()
    for body, said in (
            ({"name": "Bot"}, "name: 3 to 20"),
            ({"name": "Ann", "password": PASSWORD}, "only 'name'"),
            ({}, "name: 3 to 20")):
        r = post(client, "sign-up/begin", body)
        assert r.status_code == 400 and r.json()["code"] == "bad_request", r.text
        assert said in r.json()["error"], r.json()
    r = post(client, "sign-in/begin", {"name": "Ann"})
    assert r.status_code == 400 and r.json()["error"] == (
        "the body must be an empty JSON object ({})")  # a beginning takes no field
    began = begin(client, "sign-up", {"name": "Laila"})
    good = auth.create(began["publicKey"])
    for body, said in (
            ({"ceremony": began["ceremony"]}, "credential: the browser's passkey answer"),
            ({"ceremony": began["ceremony"], "credential": good | {"type": "password"}},
             "credential: the browser's passkey answer"),
            ({"ceremony": began["ceremony"], "credential": good, "label": "x" * 41},
             "label: 1 to 40 characters"),
            ({"ceremony": began["ceremony"], "credential": good, "label": " \u200b "},
             "label: 1 to 40 characters"),
            ({"credential": good}, "ceremony: the token")):
        r = post(client, "sign-up/finish", body)
        assert r.status_code == 400 and said in r.json()["error"], (body.keys(), r.text)
    assert rows(client, "SELECT count(*) FROM accounts") == [(0,)]
    r = post(client, "sign-up/finish", {"ceremony": began["ceremony"], "credential": good,
                                        "label": "  My\tphone "})
    assert r.status_code == 201, r.text  # the bad bodies left the ceremony to its answer
    assert rows(client, "SELECT label FROM passkeys") == [("My phone",)]
    r = post(client, "sign-up/begin", {"name": "laila"})
    assert r.status_code == 409 and r.json()["code"] == "name_taken"


def test_a_name_taken_between_the_beginning_and_the_answer_is_refused(client):
    auth = Authenticator()
    began = begin(client, "sign-up", {"name": "Dupe"})
    assert sign_up(client, "DUPE").status_code == 201  # with a password, meanwhile
    sign_out(client)
    r = post(client, "sign-up/finish", {"ceremony": began["ceremony"],
                                        "credential": auth.create(began["publicKey"])})
    assert r.status_code == 409 and r.json()["code"] == "name_taken"
    assert rows(client, "SELECT count(*) FROM passkeys") == [(0,)]


# -- an account's passkeys -----------------------------------------------------------------


def test_an_account_with_a_password_adds_lists_and_removes_passkeys(client):
    laptop, phone = Authenticator(), Authenticator()
    sign_up(client, "Hana")
    assert client.get("/api/account/passkeys").json() == {"passkeys": [], "password": True}
    r = add_passkey(client, laptop, "Laptop")
    assert r.status_code == 201, r.text
    assert r.json()["label"] == "Laptop" and r.json()["transports"] == ["internal", "hybrid"]
    began = begin(client, "register")
    assert [c["id"] for c in began["publicKey"]["excludeCredentials"]] == [
        b64(c) for c in laptop.keys]  # one passkey per authenticator
    handle = began["publicKey"]["user"]["id"]
    assert handle == b64(next(iter(laptop.keys.values()))["user"])  # one handle per account
    r = post(client, "register/finish", {"ceremony": began["ceremony"],
                                         "credential": phone.create(began["publicKey"])})
    assert r.status_code == 201 and r.json()["label"] == "Passkey 2"
    listed = client.get("/api/account/passkeys").json()
    assert [p["label"] for p in listed["passkeys"]] == ["Laptop", "Passkey 2"]
    again = begin(client, "register")  # a credential id stored already: refused
    copied = Authenticator().create(again["publicKey"], cred_id=next(iter(laptop.keys)))
    r = post(client, "register/finish", {"ceremony": again["ceremony"], "credential": copied})
    assert r.status_code == 409 and r.json()["code"] == "passkey_taken"
    assert rows(client, "SELECT count(*) FROM passkeys") == [(2,)]
    sign_out(client)
    assert passkey_sign_in(client, phone).json()["account"]["name"] == "Hana"
    assert sign_in(client, "Hana").status_code == 200  # the password still works
    first, second = listed["passkeys"]
    r = client.request("DELETE", f"/api/account/passkeys/{first['id']}", json={})
    assert r.status_code == 200 and [p["label"] for p in r.json()["passkeys"]] == ["Passkey 2"]
    r = client.request("DELETE", f"/api/account/passkeys/{second['id']}", json={})
    assert r.status_code == 200 and r.json() == {"passkeys": [], "password": True}
    sign_out(client)
    r = passkey_sign_in(client, phone)  # removed: unknown now
    assert r.status_code == 401 and r.json() == REFUSED


def test_the_last_passkey_of_an_account_without_a_password_stays(client):
    one, two = Authenticator(), Authenticator()
    passkey_sign_up(client, one, "Solo")
    (only,) = client.get("/api/account/passkeys").json()["passkeys"]
    r = client.request("DELETE", f"/api/account/passkeys/{only['id']}", json={})
    assert r.status_code == 409 and r.json()["code"] == "last_passkey"
    assert "add another passkey" in r.json()["error"]
    assert add_passkey(client, two).status_code == 201
    r = client.request("DELETE", f"/api/account/passkeys/{only['id']}", json={})
    assert r.status_code == 200 and len(r.json()["passkeys"]) == 1
    sign_out(client)
    assert passkey_sign_in(client, two).status_code == 200
    assert passkey_sign_in(client, one).json() == REFUSED


def test_another_accounts_passkey_is_not_found_and_stays(client):
    passkey_sign_up(client, Authenticator(), "Owner")
    (theirs,) = client.get("/api/account/passkeys").json()["passkeys"]
    sign_out(client)
    sign_up(client, "Thief")
    for pid in (theirs["id"], 999999):
        r = client.request("DELETE", f"/api/account/passkeys/{pid}", json={})
        assert r.status_code == 404 and r.json()["code"] == "not_found"
    assert rows(client, "SELECT count(*) FROM passkeys") == [(1,)]


def test_the_passkey_endpoints_of_an_account_need_one_signed_in(client):
    for r in (client.get("/api/account/passkeys"), post(client, "register/begin", {}),
              post(client, "confirm/begin", {}),
              client.request("DELETE", "/api/account/passkeys/1", json={})):
        assert r.status_code == 401 and r.json()["code"] == "signed_out"


def test_a_ceremony_begun_by_one_account_is_not_finished_by_another(client):
    sign_up(client, "First")
    began = begin(client, "register")
    sign_out(client)
    sign_up(client, "Second")
    r = post(client, "register/finish", {"ceremony": began["ceremony"],
                                         "credential": Authenticator().create(began["publicKey"])})
    assert r.status_code == 400 and r.json()["code"] == "passkey_expired"
    assert rows(client, "SELECT count(*) FROM passkeys") == [(0,)]


# -- deleting an account --------------------------------------------------------------------


def test_an_account_with_only_passkeys_is_deleted_with_a_fresh_passkey_answer(client):
    auth = Authenticator()
    passkey_sign_up(client, auth, "Gone")
    r = client.request("DELETE", "/api/account", json={"password": "whatever it is"})
    assert r.status_code == 401 and "no password" in r.json()["error"]
    r = client.request("DELETE", "/api/account", json={})
    assert r.status_code == 400 and "one of password" in r.json()["error"]
    began = begin(client, "confirm")
    answer = {"ceremony": began["ceremony"], "credential": auth.get(began["publicKey"])}
    r = client.request("DELETE", "/api/account", json={"password": "x", "passkey": answer})
    assert r.status_code == 400 and me(client)["name"] == "Gone"
    sign_in_ceremony = begin(client, "sign-in")  # a sign-in's answer confirms nothing
    r = client.request("DELETE", "/api/account", json={"passkey": {
        "ceremony": sign_in_ceremony["ceremony"],
        "credential": auth.get(sign_in_ceremony["publicKey"])}})
    assert r.status_code == 400 and r.json()["code"] == "passkey_expired"
    r = client.request("DELETE", "/api/account", json={"passkey": answer})
    assert r.status_code == 200 and r.json() == {"account": None}, r.text
    assert cookie_of(r)["max-age"] == "0" and me(client) is None
    for table in ("accounts", "passkeys", "passkey_challenges", "sessions"):
        assert rows(client, f"SELECT count(*) FROM {table}") == [(0,)], table
    r = passkey_sign_in(client, auth)
    assert r.status_code == 401 and r.json() == REFUSED
    assert passkey_sign_up(client, Authenticator(), "Gone").status_code == 201  # free again


def test_an_account_with_a_password_and_passkeys_is_deleted_with_either(client):
    auth = Authenticator()
    sign_up(client, "Both")
    add_passkey(client, auth)
    assert client.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 200
    assert rows(client, "SELECT count(*) FROM passkeys") == [(0,)]
    sign_up(client, "Both")
    r = post(client, "confirm/begin", {})
    assert r.status_code == 409 and r.json()["code"] == "no_passkey"


# -- the database --------------------------------------------------------------------------


def test_a_database_before_passkeys_is_upgraded_with_its_tables_and_accounts(db_url):
    old_database(db_url, "0012")
    from regalia.server.storage.engine import make_engine

    engine = make_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO accounts (name, folded, password_hash, created_at) "
                          "VALUES ('Olga', 'olga', NULL, :t)"), {"t": datetime.now(timezone.utc)})
    engine.dispose()
    with running_app(db_url, passwords=cheap()) as c:  # upgrades
        store = c.app.state.manager.store
        assert current_revision(store.engine) == head_revision() == latest_revision()
        t = store.load_table("keep0001")
        assert t is not None and t.seats[0].name == "Old" and t.seats[0].claimed
        assert c.get("/api/tables/keep0001").status_code == 200
        assert rows(c, "SELECT name FROM accounts") == [("Olga",)]
        auth = Authenticator()
        assert passkey_sign_up(c, auth, "Newbie").status_code == 201
        sign_out(c)
        assert passkey_sign_in(c, auth).json()["account"]["name"] == "Newbie"
