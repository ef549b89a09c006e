"""Passkeys: signing up and in without a password, and an account's passkeys, under
``/api/account/passkeys`` (WebAuthn with py_webauthn: ``web.ceremonies``).

Each ceremony is two requests: its beginning answers ``PasskeyOptions`` (``{"ceremony",
"publicKey"}``: the page hands ``publicKey`` to ``navigator.credentials.create()`` or
``.get()``), its finish sends the browser's answer with the ceremony's token. A ceremony
lasts ``ceremonies.CEREMONY_TTL`` (5 minutes) and is answered once, on any replica; a
finish whose ceremony is unknown, answered already, expired, begun for something else or
by another account is refused 400 ``passkey_expired`` (start again). An answer that does
not check out (another challenge, another origin or relying party, a bad signature, an
unknown passkey or another account's) is refused 401 ``passkey_refused``, always in the same
words: no answer says whether an account exists.

Signed out:

* ``POST /api/account/passkeys/sign-up/begin`` (``PasskeySignUp``: ``{"name"}``): a passkey
  sign-up for a new account named ``name``, with no password. 400 for a name the rules
  refuse (``ACCOUNT_NAME_RULE``, as a sign-up with a password), 409 ``name_taken``, 429 over
  ``sign_up_rate`` (each sign-up begun counts; a malformed one does not).
* ``POST /api/account/passkeys/sign-up/finish`` (``PasskeyRegistration``): the account and
  its first passkey stored; 201 ``Me`` and the browser signed in to it (a new session, as
  a sign-up with a password). 409 ``name_taken`` when the name was taken meanwhile,
  ``passkey_taken`` for a passkey stored already.
* ``POST /api/account/passkeys/sign-in/begin`` (``BeginPasskey``: ``{}``): a sign-in with
  any of the site's passkeys (a discoverable credential: no name asked). 429 over
  ``sign_in_rate`` (each sign-in begun counts).
* ``POST /api/account/passkeys/sign-in/finish`` (``PasskeyAnswer``): the answer checked, the
  passkey's signature counter and last use stored, and a new session started exactly as a
  sign-in with a password does (a fresh token; the browser's earlier session ended); 200
  ``Me``.

Signed in (401 ``signed_out`` otherwise):

* ``POST /api/account/passkeys/register/begin`` (``{}``): adding a passkey to the account
  (the account's passkeys excluded: one per authenticator). 409 ``too_many_passkeys`` at
  ``ceremonies.MOST_PASSKEYS``; counted in ``sign_in_rate``.
* ``POST /api/account/passkeys/register/finish`` (``PasskeyRegistration``, ``label``
  optional: "Passkey N" by default): 201 ``PasskeyInfo``; 409 ``passkey_taken``,
  ``too_many_passkeys``; 400 for a label the rule refuses (``ceremonies.LABEL_RULE``).
* ``GET /api/account/passkeys``: ``PasskeyList``, the passkeys and whether the account has
  a password.
* ``DELETE /api/account/passkeys/{passkey_id}``: the passkey removed; 200 ``PasskeyList``.
  404 ``not_found`` for a passkey that is not the account's; 409 ``last_passkey`` for the
  last passkey of an account without a password (its one way to sign in).
* ``POST /api/account/passkeys/confirm/begin`` (``{}``): a confirmation with one of the
  account's passkeys, for ``DELETE /api/account`` (``web.accounts``); 409 ``no_passkey``
  for an account without one; counted in ``sign_in_rate``.

Every request that changes something must come from the site's own pages (``SAME_SITE``,
403 ``cross_origin``) and be JSON.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response

from regalia.server.refusal import Refusal
from regalia.server.storage.accounts import AccountData, NameTaken
from regalia.server.storage.passkeys import (CONFIRM, LAST, REGISTER, SIGN_IN, SIGN_UP,
                                             UNKNOWN, PasskeyData, TooManyPasskeys)
from regalia.server.storage.values import NewPasskey, PasskeyTaken
from regalia.server.tables import gamekit
from regalia.server.web.accounts import PROBLEMS, SAME_SITE, Accounts, Service, info
from regalia.server.web.ceremonies import (MOST_PASSKEYS, b64, clean_label, new_handle,
                                           refused, transports_of)
from regalia.server.web.deps import Address
from regalia.server.web.schemas.accounts import Me
from regalia.server.web.schemas.passkeys import (BeginPasskey, PasskeyAnswer, PasskeyInfo,
                                                 PasskeyList, PasskeyOptions, PasskeyRegistration,
                                                 PasskeySignUp)

router = APIRouter(prefix="/api/account/passkeys", responses=PROBLEMS)

TOO_MANY = Refusal("too_many_passkeys", f"an account has at most {MOST_PASSKEYS} passkeys: "
                                        "remove one first")
PasskeyId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the passkey's id")]
TAKEN = Refusal("passkey_taken", "this passkey is registered already")


def name_taken(name: str) -> Refusal:
    return Refusal("name_taken", f"the name {name!r} is taken (names are the same whatever "
                                 "their case or width): choose another")


def passkey_info(p: PasskeyData) -> dict[str, Any]:
    return {"id": p.id, "label": p.label, "created_at": p.created_at,
            "last_used_at": p.last_used_at, "transports": p.transports}


async def listing(a: Accounts, account: AccountData) -> dict[str, Any]:
    passkeys = await a.m.db(a.passkeys.of_account, account.id)
    return {"passkeys": [passkey_info(p) for p in passkeys],
            "password": account.password_hash is not None}


def new_passkey(verified: Any, body: PasskeyRegistration, user_handle: str,
                count: int) -> NewPasskey:
    """The passkey a verified registration stores (``count``: the account's passkeys
    before it, for the default label)."""
    return NewPasskey(credential_id=b64(verified.credential_id),
                      public_key=bytes(verified.credential_public_key),
                      sign_count=int(verified.sign_count),
                      transports=transports_of(body.credential.response.transports),
                      user_handle=user_handle,
                      label=clean_label(body.label, f"Passkey {count + 1}"))


# -- signed out: sign up, sign in -------------------------------------------------------


@router.post("/sign-up/begin", response_model=PasskeyOptions, dependencies=SAME_SITE)
async def sign_up_begin(body: PasskeySignUp, request: Request, a: Service,
                        address: Address) -> Any:
    name = gamekit.clean_account_name(body.name)
    if name is None:
        raise Refusal("bad_request", gamekit.ACCOUNT_NAME_RULE)
    await a.m.limits.hit("sign_up_rate", address)
    if await a.m.db(a.store.find, gamekit.fold_name(name)) is not None:
        raise name_taken(name)
    return await a.ceremonies.begin_registration(request, SIGN_UP, name, new_handle())


@router.post("/sign-up/finish", status_code=201, response_model=Me, dependencies=SAME_SITE)
async def sign_up_finish(body: PasskeyRegistration, request: Request, response: Response,
                         a: Service) -> Any:
    clean_label(body.label, "")  # a bad label refused before the ceremony is taken
    ceremony = await a.ceremonies.take(body.ceremony, SIGN_UP)
    verified = await a.ceremonies.check_registration(request, ceremony,
                                                     body.credential.model_dump())
    name = ceremony.name or ""
    passkey = new_passkey(verified, body, ceremony.user_handle or new_handle(), 0)
    try:
        account = await a.m.writer.write(a.store.create, name, gamekit.fold_name(name), None,
                                         passkey)
    except NameTaken:
        raise name_taken(name) from None
    except PasskeyTaken:
        raise TAKEN from None
    await a.start_session(account, request, response)
    return {"account": info(account)}


@router.post("/sign-in/begin", response_model=PasskeyOptions, dependencies=SAME_SITE)
async def sign_in_begin(body: BeginPasskey, request: Request, a: Service,
                        address: Address) -> Any:
    await a.m.limits.hit("sign_in_rate", address)
    return await a.ceremonies.begin_assertion(request, SIGN_IN)


@router.post("/sign-in/finish", response_model=Me, dependencies=SAME_SITE)
async def sign_in_finish(body: PasskeyAnswer, request: Request, response: Response,
                         a: Service) -> Any:
    ceremony = await a.ceremonies.take(body.ceremony, SIGN_IN)
    passkey = await a.ceremonies.check_assertion(request, ceremony,
                                                 body.credential.model_dump())
    account = await a.m.db(a.store.get, passkey.account_id)
    if account is None:  # deleted meanwhile
        raise refused()
    await a.start_session(account, request, response)
    return {"account": info(account)}


# -- signed in: the account's passkeys ----------------------------------------------------


@router.post("/register/begin", response_model=PasskeyOptions, dependencies=SAME_SITE)
async def register_begin(body: BeginPasskey, request: Request, a: Service,
                         address: Address) -> Any:
    account = await a.signed_in(request)
    await a.m.limits.hit("sign_in_rate", address)
    passkeys = await a.m.db(a.passkeys.of_account, account.id)
    if len(passkeys) >= MOST_PASSKEYS:
        raise TOO_MANY
    handle = passkeys[0].user_handle if passkeys else new_handle()
    return await a.ceremonies.begin_registration(request, REGISTER, account.name, handle,
                                                 account.id, passkeys)


@router.post("/register/finish", status_code=201, response_model=PasskeyInfo,
             dependencies=SAME_SITE)
async def register_finish(body: PasskeyRegistration, request: Request, a: Service) -> Any:
    account = await a.signed_in(request)
    clean_label(body.label, "")
    ceremony = await a.ceremonies.take(body.ceremony, REGISTER, account.id)
    verified = await a.ceremonies.check_registration(request, ceremony,
                                                     body.credential.model_dump())
    count = len(await a.m.db(a.passkeys.of_account, account.id))
    passkey = new_passkey(verified, body, ceremony.user_handle or new_handle(), count)
    try:
        stored = await a.m.writer.write(a.passkeys.add, account.id, passkey, MOST_PASSKEYS)
    except PasskeyTaken:
        raise TAKEN from None
    except TooManyPasskeys:
        raise TOO_MANY from None
    return passkey_info(stored)


@router.get("", response_model=PasskeyList)
async def list_passkeys(request: Request, a: Service) -> Any:
    return await listing(a, await a.signed_in(request))


@router.delete("/{passkey_id}", response_model=PasskeyList, dependencies=SAME_SITE)
async def remove_passkey(passkey_id: PasskeyId, request: Request, a: Service) -> Any:
    account = await a.signed_in(request)
    done = await a.m.writer.write(a.passkeys.remove, account.id, passkey_id)
    if done == UNKNOWN:
        raise Refusal("not_found", "no such passkey on this account (GET /api/account/passkeys "
                                   "lists them)")
    if done == LAST:
        raise Refusal("last_passkey", "this is the account's only way to sign in (it has no "
                                      "password): add another passkey before removing this one")
    return await listing(a, account)


@router.post("/confirm/begin", response_model=PasskeyOptions, dependencies=SAME_SITE)
async def confirm_begin(body: BeginPasskey, request: Request, a: Service,
                        address: Address) -> Any:
    account = await a.signed_in(request)
    await a.m.limits.hit("sign_in_rate", address)
    passkeys = await a.m.db(a.passkeys.of_account, account.id)
    if not passkeys:
        raise Refusal("no_passkey", "this account has no passkey: confirm with its password")
    return await a.ceremonies.begin_assertion(request, CONFIRM, account.id, passkeys)
