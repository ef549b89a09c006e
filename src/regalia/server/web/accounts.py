"""Optional accounts: the JSON API under ``/api/account`` and the players' profiles under
``/api/players``. Nobody needs an account to play: a table is reached by its links as
ever; an account adds a name that is one person's, and a profile of the games it played.

* ``POST /api/account/sign-up`` (``Credentials``): a new account, 201 ``Me``, and the browser
  signed in to it. 400 for a name or password the rules refuse (``ACCOUNT_NAME_RULE``:
  3-20 characters, not a bot's, a bot level's or a seat's label; ``PASSWORD_RULE``), 409
  ``name_taken`` for a name another account has in any case or width, 429 over
  ``sign_up_rate``.
* ``POST /api/account/sign-in`` (``Credentials``): 200 ``Me`` and a new session (a browser
  session started before, whoever's, is ended: no session fixation); 401
  ``bad_credentials`` with the same words and about the same time whether the name exists
  or not (an unknown name's password is checked against a dummy hash); 429 over
  ``sign_in_rate`` (every attempt counts).
* ``POST /api/account/sign-out``: the browser's session is deleted and its cookie cleared;
  200 ``Me`` (``account: null``), signed in or not.
* ``GET /api/account``: ``Me``, who the browser is signed in as (``account: null``: nobody).
* ``POST /api/account/tables`` (``AdoptTables``): the seats this browser holds (each table's
  id and the seat's token from its link), linked to the account when the token proves the
  seat (a human seat whose link was used, linked to no other account); 200 ``Adopted``;
  401 ``signed_out``. ``GET /api/account/tables``, the account's tables being played:
  ``web.turns``. A seat linked to an account opens by the session of any browser
  signed in to it (the websocket's ``hello`` with ``"account": true``, ``web.socket``).
* ``DELETE /api/account`` (``ConfirmDeletion``: ``{"password"}``, or ``{"passkey":
  {"ceremony", "credential"}}``, a passkey's answer to ``POST
  /api/account/passkeys/confirm/begin``, for an account with passkeys, with or without a
  password): the account, its sessions, its passkeys, its links and its seats' chat lines
  deleted; its seats' games stay, their names made ``DELETED_PLAYER``. 400 ``bad_request``
  unless exactly one of the two is given; 401 ``bad_credentials`` for a wrong password (or
  an account without one), ``passkey_refused`` for a passkey answer that does not check out
  or another account's passkey, ``signed_out``; 400 ``passkey_expired`` for a ceremony
  unknown, answered or expired; every attempt counted in ``sign_in_rate``.
* ``GET /api/players/{name}``: ``Profile`` (the name in any case or width): games played and
  won per game and player count, and the latest ended games with their replays' links
  (but the daily deal's games while their day lasts: no spoiler, ``tables.daily``); its
  ratings (``web.ratings.profile_ratings``: Le Roy des Ribauds, when it played rated) and
  its Regicide record (``regicide_record``: by player count, solo medals and streaks); 404
  ``not_found``. The results of finished games not worked out yet are worked out from their
  move logs (counted in ``replay_rate`` when there are some) and stored.

Browser sessions: the cookie ``regalia_session`` holds a random token (HttpOnly,
SameSite=Lax, Secure when the request came over TLS: the scheme uvicorn gives, from the
trusted proxies' ``X-Forwarded-Proto`` with ``--forwarded-allow-ips``), valid
``session_days``; the database keeps only its SHA-256. Every endpoint that changes
something is refused (403 ``cross_origin``) when the request's ``Origin`` is neither the
site itself nor an allowed origin (``guard.same_origin``, as the websockets), besides the
guard's JSON-only rule.

Passkeys (signing up and in without a password, an account's passkeys): ``web.passkeys``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import defaultdict
from datetime import timedelta
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request, Response
from starlette.requests import HTTPConnection

from regalia.server.refusal import Refusal
from regalia.server.settings import Settings
from regalia.server.storage.accounts import AccountData, AccountStore, NameTaken
from regalia.server.storage.models import FINISHED, now, token_hash
from regalia.server.storage.accounts import SeatLink
from regalia.server.storage.passkeys import CONFIRM, PasskeyStore
from regalia.server.tables import gamekit
from regalia.server.tables.seats import valid_token
from regalia.server.web.deps import Address, Config, Daily, Registry, Replays
from regalia.server.web.ceremonies import Ceremonies
from regalia.server.web.guard import same_origin
from regalia.server.web.passwords import Passwords, password_problem
from regalia.server.web.ratings import profile_ratings
from regalia.server.web.schemas.accounts import (Adopted, AdoptTables, ConfirmDeletion,
                                                 Credentials, Me)
from regalia.server.web.schemas.common import Problem
from regalia.server.web.schemas.players import Profile

log = logging.getLogger("regalia.server")

COOKIE = "regalia_session"
TOUCH_EVERY = timedelta(hours=1)  # a session's last_seen is written at most this often
RECENT = 20  # ended games a profile lists
RESULTS_PER_VIEW = 200  # finished games' results a profile view works out at most
WRONG = "wrong name or password"

PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 401, 403, 404, 409, 413, 415, 429, 503)}

router = APIRouter(prefix="/api", responses=PROBLEMS)


class Accounts:
    """The accounts of one server: the database calls (``AccountStore``, and the passkeys'
    ``PasskeyStore``, on the registry's database thread and writer), the password hashing
    (``Passwords``), the passkeys' WebAuthn ceremonies (``Ceremonies``) and the settings
    (rates, ``session_days``, ``rp_id``)."""

    def __init__(self, registry: Registry, settings: Settings,
                 passwords: Passwords | None = None) -> None:
        self.m = registry
        self.settings = settings
        self.store = AccountStore(registry.store)
        self.passkeys = PasskeyStore(registry.store)
        self.ceremonies = Ceremonies(self.passkeys, registry.db, registry.writer.write,
                                     settings)
        self.passwords = passwords or Passwords()

    def close(self) -> None:
        self.passwords.close()

    async def current(self, request: HTTPConnection) -> tuple[AccountData | None, str | None]:
        """The account the request's session cookie is signed in to (``None``: none, an
        unknown or expired session) and the hash of the cookie's token (``None``: no
        cookie that may be a token)."""
        token = request.cookies.get(COOKIE)
        if not valid_token(token):
            return None, None
        h = token_hash(token)
        return await self.m.db(self.store.session_account, h, TOUCH_EVERY), h

    async def signed_in(self, request: HTTPConnection) -> AccountData:
        """The request's account; raises ``Refusal("signed_out")`` (401) without one."""
        account, _ = await self.current(request)
        if account is None:
            raise Refusal("signed_out", "sign in first (no account is signed in in this "
                                        "browser)")
        return account

    async def start_session(self, account: AccountData, request: Request,
                            response: Response) -> None:
        """A new session for ``account``, its cookie set on ``response``; the browser's
        previous session, if any, is deleted."""
        token = secrets.token_urlsafe(32)
        old = request.cookies.get(COOKIE)
        days = self.settings.session_days
        await self.m.writer.write(self.store.open_session, account.id, token_hash(token),
                                  now() + timedelta(days=days),
                                  token_hash(old) if valid_token(old) else None)
        response.set_cookie(COOKIE, token, max_age=int(days * 86400), path="/",
                            httponly=True, samesite="lax", secure=tls(request))


def tls(request: HTTPConnection) -> bool:
    """The request came over TLS (directly, or through a trusted proxy that said so)."""
    return request.url.scheme in ("https", "wss")


async def accounts(conn: HTTPConnection) -> Accounts:
    """The running app's accounts (``app.state.accounts``, set by the lifespan)."""
    return conn.app.state.accounts


async def same_site(request: Request, settings: Config) -> None:
    """Refuses (403 ``cross_origin``) a request whose ``Origin`` is another site's."""
    if not same_origin(request.scope, settings.allowed_origins):
        raise Refusal("cross_origin", "this request must come from the site's own pages")


Service = Annotated[Accounts, Depends(accounts)]
SAME_SITE = [Depends(same_site)]


def info(account: AccountData) -> dict[str, Any]:
    return {"name": account.name, "created_at": account.created_at,
            "profile": f"/players/{quote(account.name)}"}


def clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=tls(request))


@router.post("/account/sign-up", status_code=201, response_model=Me, dependencies=SAME_SITE)
async def sign_up(body: Credentials, request: Request, response: Response, a: Service,
                  address: Address) -> Any:
    name = gamekit.clean_account_name(body.name)
    if name is None:
        raise Refusal("bad_request", gamekit.ACCOUNT_NAME_RULE)
    problem = password_problem(body.password)
    if problem:
        raise Refusal("bad_request", problem)
    await a.m.limits.hit("sign_up_rate", address)
    folded = gamekit.fold_name(name)
    taken = Refusal("name_taken", f"the name {name!r} is taken (names are the same whatever "
                                  "their case or width): choose another")
    if await a.m.db(a.store.find, folded) is not None:
        raise taken
    hashed = await a.passwords.hash(body.password)
    try:
        account = await a.m.writer.write(a.store.create, name, folded, hashed)
    except NameTaken:
        raise taken from None
    await a.start_session(account, request, response)
    return {"account": info(account)}


@router.post("/account/sign-in", response_model=Me, dependencies=SAME_SITE)
async def sign_in(body: Credentials, request: Request, response: Response, a: Service,
                  address: Address) -> Any:
    await a.m.limits.hit("sign_in_rate", address)
    name = gamekit.clean_name(body.name) or body.name
    account = await a.m.db(a.store.find, gamekit.fold_name(name))
    ok, rehashed = await a.passwords.check(account.password_hash if account else None,
                                           body.password)
    if not ok or account is None:
        raise Refusal("bad_credentials", WRONG)
    if rehashed is not None:
        await a.m.writer.write(a.store.set_password_hash, account.id, rehashed)
    await a.start_session(account, request, response)
    return {"account": info(account)}


@router.post("/account/sign-out", response_model=Me, dependencies=SAME_SITE)
async def sign_out(request: Request, response: Response, a: Service) -> Any:
    token = request.cookies.get(COOKIE)
    if valid_token(token):
        await a.m.writer.write(a.store.close_session, token_hash(token))
    clear_cookie(request, response)
    return {"account": None}


@router.get("/account", response_model=Me)
async def who_am_i(request: Request, a: Service) -> Any:
    account, _ = await a.current(request)
    return {"account": info(account) if account else None}


@router.post("/account/tables", response_model=Adopted, dependencies=SAME_SITE)
async def adopt_tables(body: AdoptTables, request: Request, a: Service) -> Any:
    account = await a.signed_in(request)
    proofs = [(t.id, token_hash(t.token)) for t in body.tables if valid_token(t.token)]
    linked = await a.m.writer.write(a.store.adopt, account.id, proofs) if proofs else []
    return {"adopted": [{"id": i, "seat": s} for i, s in linked]}


@router.delete("/account", response_model=Me, dependencies=SAME_SITE)
async def delete_account(body: ConfirmDeletion, request: Request, response: Response,
                         a: Service, replays: Replays, address: Address) -> Any:
    account = await a.signed_in(request)
    if (body.password is None) == (body.passkey is None):
        raise Refusal("bad_request", "give one of password (the account's password) or "
                                     "passkey (a passkey's answer to POST "
                                     "/api/account/passkeys/confirm/begin)")
    await a.m.limits.hit("sign_in_rate", address)
    if body.passkey is not None:
        ceremony = await a.ceremonies.take(body.passkey.ceremony, CONFIRM, account.id)
        await a.ceremonies.check_assertion(request, ceremony,
                                           body.passkey.credential.model_dump(), account.id)
    elif account.password_hash is None:
        raise Refusal("bad_credentials", "this account has no password: confirm with one of "
                                         "its passkeys")
    else:
        ok, _ = await a.passwords.check(account.password_hash, body.password or "")
        if not ok:
            raise Refusal("bad_credentials", "wrong password: the account was not deleted")
    m = a.m
    tables = await m.writer.write(a.store.delete, account.id, gamekit.DELETED_PLAYER)
    for table_id in tables:  # the names shown: read again here, and by the other replicas
        replays.forget(table_id)
        loaded = m.tables.get(table_id)
        if loaded is not None:
            await loaded.replica.sync_now(a.settings.write_timeout)
        m.peers.publish(table_id, {"k": "sync"})
    clear_cookie(request, response)
    return {"account": None}


@router.get("/players/{name}", response_model=Profile)
async def player(name: str, a: Service, address: Address, daily: Daily) -> Any:
    account = await a.m.db(a.store.find, gamekit.fold_name(name)) if len(name) <= 64 else None
    if account is None:
        raise Refusal("not_found", "no such player")
    todo = await a.m.db(a.store.unscored, account.id, RESULTS_PER_VIEW)
    if todo:
        await a.m.limits.hit("replay_rate", address)
        results, medals = await asyncio.to_thread(work_out, todo)
        if results:
            await a.m.writer.write(a.store.set_results, results, medals)
    links = await a.m.db(a.store.seats_of, account.id)
    counts: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    recent = []
    today = daily.today().isoformat()
    for s in links:
        if s.status == FINISHED:
            c = counts[s.game, s.players]
            c[0] += 1
            c[1] += bool(s.won)
        if s.daily is not None and s.daily >= today:  # today's daily deal: no spoiler
            continue
        if s.status in (FINISHED, "abandoned") and len(recent) < RECENT:
            recent.append({"id": s.table_id, "game": s.game, "players": s.players,
                           "seat": s.seat, "status": s.status,
                           "won": bool(s.won) if s.status == FINISHED else None,
                           "ended_at": s.updated_at, "replay": f"/replay/{s.table_id}"})
    return {"name": account.name, "created_at": account.created_at,
            "games": [{"game": g, "players": n, "played": p, "won": w}
                      for (g, n), (p, w) in sorted(counts.items())],
            "recent": recent, "ratings": await profile_ratings(a.m, account.id),
            "regicide": regicide_record(links)}


def regicide_record(links: list[SeatLink]) -> dict[str, Any]:
    """An account's Regicide record from its seats (``AccountStore.seats_of``, the latest
    first): ``{"by_players": [{"players", "played", "won", "win_rate"}], "medals": {"gold",
    "silver", "bronze"}, "best_streak", "streak"}``. Finished games count (an abandoned one
    does not; one stopped by agreement is a loss); the streaks are runs of consecutive solo
    wins in the order the games ended (``streak``: the run the latest games make)."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    medals = {"gold": 0, "silver": 0, "bronze": 0}
    solo: list[bool] = []  # the latest first
    for s in links:
        if s.game != "regicide" or s.status != FINISHED:
            continue
        c = counts[s.players]
        c[0] += 1
        c[1] += bool(s.won)
        if s.players == 1:
            solo.append(bool(s.won))
            if s.won and s.medal in medals:
                medals[s.medal] += 1
    best = run = 0
    for won in reversed(solo):
        run = run + 1 if won else 0
        best = max(best, run)
    streak = next((i for i, won in enumerate(solo) if not won), len(solo))
    return {"by_players": [{"players": n, "played": p, "won": w,
                            "win_rate": round(w / p, 4) if p else None}
                           for n, (p, w) in sorted(counts.items())],
            "medals": medals, "best_streak": best, "streak": streak}


def work_out(tables: list[dict[str, Any]]) -> tuple[dict[str, list[bool]],
                                                      dict[str, str | None]]:
    """Who won each finished table (``gamekit.record_outcome``; a game its players ended, by
    its ``Ending``), by table id, and each solo Regicide table's medal (``None``: none,
    also for a game played with hints or with a bot's moves for the person); a record the
    rules refuse is logged and left out."""
    out: dict[str, list[bool]] = {}
    medals: dict[str, str | None] = {}
    for t in tables:
        try:
            result = gamekit.record_outcome(t)
        except Exception as e:  # noqa: BLE001 - one bad record spoils no profile
            log.error("table %s: its result cannot be worked out: %s", t["id"], e)
            continue
        out[t["id"]] = [r > 0 for r in result["returns"]][:t["players"]]
        if t["game"] == "regicide" and t["players"] == 1:
            assisted = t.get("hints") or t.get("bot_played")
            medals[t["id"]] = None if assisted else result.get("medal")
    return out, medals
