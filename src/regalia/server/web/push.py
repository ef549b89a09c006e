"""Web Push notifications: "your turn" at a turn-based table, a friend request, a friend's
acceptance, an invitation to a table, shown by the browser (its service worker,
``static/sw.js``, served at ``/sw.js``) even when no page of the site is open.

* ``GET /api/push/key``: ``PushPublicKey``, the site's VAPID public key (the page's
  ``applicationServerKey``). The key pair is made at the first start and kept in the
  database (``push_keys``), so that every replica signs with the same one.
* ``POST /api/push/subscriptions`` (``Subscribe``): store the browser's subscription
  (``PushSubscription.toJSON()``: its push service's ``endpoint``, https and of one of the
  ``push_hosts``, and its keys) and what it is told of: signed in, everything of the
  account (the turns of its seats, friend requests, acceptances, invitations); and the
  turns of the ``seats`` given (a table's id and the seat's token), for those whose token
  proves a human seat of a table being played. 200 ``Subscribed``. The same endpoint again
  replaces its keys and its account (signed out: none) and adds its seats. 400 for an
  endpoint or keys that are no push subscription's, 403 ``no_access`` for a browser signed
  in to no account whose seats prove nothing (nothing is stored), 429 over ``push_rate``
  (per address), 403 ``cross_origin`` from another site.
* ``DELETE /api/push/subscriptions`` (``Unsubscribe``): forget the subscription of
  ``endpoint`` (the endpoint is the subscription's secret: the browser's alone); 200
  ``Unsubscribed`` (``deleted``: whether there was one). 429 over ``push_rate``.

Sending (``Push``): when a change stored on this replica makes it a human seat's turn at a
turn-based table (``TableRegistry.on_your_turn``), and after a friend request, an
acceptance or an invitation is stored (``PushNotifier``, the friends' ``Notifier``), the
message is sent in a background task: the move or the request waits for nothing, a
failure is logged, and a subscription its push service answers 404 or 410 (gone) is
deleted. The message is a small JSON object, ``{"kind": "turn" | "friend_request" |
"friend_accepted" | "invited", "table"?, "game"?, "name"?, "url", "tag"}``, which the
service worker words in the page's language; it names no card and no token (a table is
opened by its id; the page finds the seat's link among the browser's tables). Sending
goes through a ``PushSender`` (``create_app(push_sender=...)``; by default
``WebPushSender``: pywebpush's aes128gcm encryption and VAPID signature, sent with aiohttp).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from typing import Annotated, Any, Awaitable, Callable, Protocol
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, Depends, Request
from starlette.requests import HTTPConnection

from regalia.server.refusal import Refusal
from regalia.server.settings import Settings
from regalia.server.storage.friends import Invitation
from regalia.server.storage.models import token_hash
from regalia.server.storage.push import PushStore, PushTarget
from regalia.server.tables.seats import valid_token
from regalia.server.tables.table import Table
from regalia.server.web.accounts import PROBLEMS, SAME_SITE, Accounts
from regalia.server.web.deps import Address, Registry
from regalia.server.web.friends import Notifier
from regalia.server.web.schemas.push import (PushPublicKey, PushSubscriptionInfo, Subscribe,
                                             Subscribed, Unsubscribe, Unsubscribed)

log = logging.getLogger("regalia.server")

router = APIRouter(prefix="/api/push", responses=PROBLEMS)

TURN_TTL = 86400  # seconds a push service keeps a turn's message for a browser offline
FRIEND_TTL = 7 * 86400  # ... and a friend request's or an invitation's
SEND_TIMEOUT = 10.0  # seconds a push service has to answer one message
STOP_WAIT = 2.0  # seconds the messages being sent get at shutdown
GONE = (404, 410)  # a push service's answers for a subscription that no longer exists


def b64url(data: bytes) -> str:
    """``data`` in base64url without padding (as browsers write push keys)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    """Base64url, padded or not; raises ``ValueError`` for anything else."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_keys() -> tuple[str, str]:
    """A new VAPID key pair (P-256): ``(private key as PKCS#8 PEM, public key uncompressed
    as base64url)``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.X962,
                                           serialization.PublicFormat.UncompressedPoint)
    return pem, b64url(public)


class PushSender(Protocol):
    """What sends one message (``payload``: the JSON bytes, encrypted by the sender for the
    subscription) to one subscription; returns the push service's HTTP status (201 when it
    took the message, 404 or 410 for a subscription that is gone); raises on a network
    failure. ``ttl``: seconds the service may keep the message for a browser offline."""

    async def send(self, target: PushTarget, payload: bytes, ttl: int) -> int: ...

    async def close(self) -> None: ...


class WebPushSender:
    """The real sender: pywebpush's encryption (RFC 8291, aes128gcm) and VAPID signature
    (RFC 8292, ``contact`` as its ``sub``) with the site's private key (PEM), POSTed with
    aiohttp (one client and its connection pool, made at the first message)."""

    def __init__(self, private_pem: str, contact: str, timeout: float = SEND_TIMEOUT) -> None:
        from py_vapid import Vapid

        self.vapid = Vapid.from_pem(private_pem.encode())
        self.contact = contact
        self.timeout = timeout
        self._client: Any = None

    async def send(self, target: PushTarget, payload: bytes, ttl: int) -> int:
        import aiohttp
        from pywebpush import WebPusher

        if self._client is None:
            self._client = aiohttp.ClientSession()
        parts = urlsplit(target.endpoint)
        claims = {"sub": self.contact, "aud": f"{parts.scheme}://{parts.netloc}",
                  "exp": int(time.time()) + 12 * 3600}
        headers = self.vapid.sign(claims)
        resp = await WebPusher(target.info(), aiohttp_session=self._client).send_async(
            payload, headers, ttl=ttl, timeout=aiohttp.ClientTimeout(total=self.timeout))
        return resp.status

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """``host`` is one of ``allowed`` (a name, ``*.DOMAIN`` for its subdomains, ``*``)."""
    host = host.lower().rstrip(".")
    for name in allowed:
        name = name.lower()
        if name == "*" or host == name or (name.startswith("*.") and host.endswith(name[1:])):
            return True
    return False


class Push:
    """The Web Push of one server: the site's keys, the subscriptions (``PushStore``), and
    the messages sent in background tasks through ``sender`` (``None``: a
    ``WebPushSender`` with the site's key, made at ``start``)."""

    def __init__(self, registry: Registry, accounts: Accounts, settings: Settings,
                 sender: PushSender | None = None) -> None:
        self.m = registry
        self.accounts = accounts
        self.settings = settings
        self.store = PushStore(registry.store)
        self.sender = sender
        self.public_key: str | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> None:
        """Read the site's key pair, or make and keep one (the first replica to store it
        wins; the others read it), and listen to the tables' turns."""
        kept = await self.m.db(self.store.keys)
        if kept is None:
            kept = await self.m.writer.write(self.store.keep_keys, *new_keys())
        private, self.public_key = kept
        if self.sender is None:
            self.sender = WebPushSender(private, self.settings.push_contact)
        self.m.on_your_turn = self.your_turn

    async def stop(self) -> None:
        """Give the messages being sent ``STOP_WAIT`` seconds, then stop."""
        self.m.on_your_turn = None
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=STOP_WAIT)
            for task in list(self._tasks):
                task.cancel()
        if self.sender is not None:
            await self.sender.close()

    async def idle(self) -> None:
        """Wait until every message asked for so far was sent (or failed): for tests and
        for a clean stop."""
        while self._tasks:
            await asyncio.wait(list(self._tasks))

    # -- what is sent ----------------------------------------------------------------

    def your_turn(self, table: Table, seat: int) -> None:
        """``TableRegistry.on_your_turn``: it is ``seat``'s turn at the turn-based
        ``table``: its subscriptions (the seat's, by its token, and its account's, as the
        database has them) are told, in the background."""
        clock = table.clock.info() or {}
        payload = {"kind": "turn", "table": table.id, "game": table.game.name, "seat": seat,
                   "deadline": clock.get("deadline"), "url": f"/t/{table.id}",
                   "tag": f"turn-{table.id}"}
        self._spawn(self._deliver(lambda: self.store.for_seat(table.id, seat), payload,
                                  TURN_TTL))

    def tell_account(self, account_id: int, payload: dict[str, Any]) -> None:
        """Send ``payload`` to every subscription of the account, in the background."""
        self._spawn(self._deliver(lambda: self.store.for_account(account_id), payload,
                                  FRIEND_TTL))

    def _spawn(self, job: Awaitable[None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver(self, find: Callable[[], list[PushTarget]], payload: dict[str, Any],
                       ttl: int) -> None:
        """Send ``payload`` to the subscriptions ``find()`` reads (on the database thread);
        delete those gone (404, 410); log every failure (nothing is retried)."""
        try:
            targets = await self.m.db(find)
        except Exception as e:  # noqa: BLE001 - a notification never stops anything
            log.warning("push %s: the subscriptions cannot be read: %s", payload["kind"], e)
            return
        body = orjson.dumps(payload)
        gone = []
        for target in targets:
            host = urlsplit(target.endpoint).hostname
            try:
                status = await self.sender.send(target, body, ttl)
            except Exception as e:  # noqa: BLE001 - one subscription's failure only
                log.warning("push %s to %s failed: %s", payload["kind"], host, e)
                continue
            if status in GONE:
                gone.append(target.id)
            elif status >= 400:
                log.warning("push %s to %s refused: HTTP %s", payload["kind"], host, status)
        if gone:
            try:
                await self.m.writer.write(self.store.drop, gone)
                log.info("push: %d subscription(s) gone, deleted", len(gone))
            except Exception as e:  # noqa: BLE001 - deleted at their next failure
                log.warning("push: the subscriptions gone could not be deleted: %s", e)

    # -- the checks of a subscription ------------------------------------------------

    def check(self, sub: PushSubscriptionInfo) -> None:
        """Raises ``Refusal("bad_request")`` unless ``sub`` may be a browser's push
        subscription: an https endpoint of one of ``push_hosts``, a P-256 public key and a
        16-byte secret."""
        parts = urlsplit(sub.endpoint)
        hosts = self.settings.push_hosts
        if (parts.scheme != "https" or not parts.hostname or parts.username or parts.password
                or not host_allowed(parts.hostname, hosts)):
            raise Refusal("bad_request", "subscription.endpoint: the https URL of a push "
                                         f"service ({', '.join(hosts) or 'none allowed'})")
        try:
            from cryptography.hazmat.primitives.asymmetric import ec

            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(),
                                                         unb64url(sub.keys.p256dh))
            if len(unb64url(sub.keys.auth)) != 16:
                raise ValueError("auth")
        except (ValueError, TypeError):
            raise Refusal("bad_request", "subscription.keys: p256dh, a P-256 public key (65 "
                                         "bytes), and auth, 16 bytes, both base64url") from None


class PushNotifier(Notifier):
    """The friends' notifications as Web Push messages to the account's browsers (sent in
    the background: the request waits for nothing)."""

    def __init__(self, push: Push) -> None:
        self.push = push

    async def friend_request(self, to: int, sender: str) -> None:
        self.push.tell_account(to, {"kind": "friend_request", "name": sender, "url": "/",
                                    "tag": f"friend-{sender}"})

    async def friend_accepted(self, to: int, friend: str) -> None:
        self.push.tell_account(to, {"kind": "friend_accepted", "name": friend, "url": "/",
                                    "tag": f"friend-{friend}"})

    async def invited(self, to: int, invitation: Invitation) -> None:
        self.push.tell_account(to, {"kind": "invited", "name": invitation.from_name,
                                    "game": invitation.game, "table": invitation.table_id,
                                    "url": "/", "tag": f"invited-{invitation.table_id}"})


async def push_service(conn: HTTPConnection) -> Push:
    """The running app's Web Push (``app.state.push``, set by the lifespan)."""
    return conn.app.state.push


PushDep = Annotated[Push, Depends(push_service)]


@router.get("/key", response_model=PushPublicKey)
async def public_key(p: PushDep) -> Any:
    return {"key": p.public_key}


@router.post("/subscriptions", response_model=Subscribed, dependencies=SAME_SITE)
async def subscribe(body: Subscribe, request: Request, p: PushDep, address: Address) -> Any:
    p.check(body.subscription)
    account, _ = await p.accounts.current(request)
    proofs = [(s.id, token_hash(s.token)) for s in body.seats if valid_token(s.token)]
    if account is None:
        proven = await p.m.db(p.m.store.seats_with_tokens, proofs) if proofs else []
        if not proven:
            raise Refusal("no_access", "seats: give the links of the seats to be notified for "
                                       "(each table's id and its seat's token, of a game "
                                       "being played), or sign in to be notified for your "
                                       "account's seats")
    await p.m.limits.hit("push_rate", address)
    sub = body.subscription
    seats = await p.m.writer.write(p.store.subscribe, sub.endpoint, sub.keys.p256dh,
                                   sub.keys.auth, account.id if account else None, proofs)
    return {"account": account is not None,
            "seats": [{"id": table, "seat": seat} for table, seat in seats]}


@router.delete("/subscriptions", response_model=Unsubscribed, dependencies=SAME_SITE)
async def unsubscribe(body: Unsubscribe, p: PushDep, address: Address) -> Any:
    await p.m.limits.hit("push_rate", address)
    return {"deleted": await p.m.writer.write(p.store.unsubscribe, body.endpoint)}
