"""Friends, their presence and invitations to a table, under ``/api/friends``: for signed-in
accounts only (401 ``signed_out`` otherwise). Players are named by their account names (in
any case or width); an unknown name is answered 404 ``not_found``, as its profile page
would be: nothing is told that the profiles do not tell already.

* ``GET /api/friends``: ``FriendList``: the friends by name, each with ``online`` (a lobby
  or a table page of theirs open now: ``replicas.presence``; only friends are told), the
  friend requests received and sent, the players blocked, and the invitations that may be
  accepted now. Reading it is a sign of life: the lobby asks every few seconds
  (``static/js/friends.js``), which keeps its account online.
* ``POST /api/friends/requests`` (``FriendName``): ask a player to be friends; 200
  ``FriendState``: ``requested``, or ``friends`` when that player had asked first. 400 for
  one's own name, 409 ``blocked_by_you`` for a player one blocks, 429 over
  ``friend_rate`` (per account; counted before the name is looked up). A request to a
  player who blocks the asker is answered as any other and waits for ever: a block is
  never told.
* ``POST /api/friends/accept`` and ``.../decline`` (``FriendName``): answer a request
  received (404 ``not_found`` without one); ``FriendState`` ``friends`` or ``none``.
* ``POST /api/friends/remove`` (``FriendName``): end a friendship, or withdraw a request
  sent (404 without either), with the invitations between the two; ``none``.
* ``POST /api/friends/block`` (``FriendName``): block a player: their friendship, requests
  and invitations are deleted, and none of theirs reaches the blocker again; ``blocked``.
  ``POST /api/friends/unblock``: ``none`` (404 when not blocked).
* ``POST /api/friends/invite`` (``InviteFriend``): a player seated at a table (``token``:
  their seat's token, from its link: a seat held, whose link was used) invites a friend to
  a free seat of it (a human seat nobody holds, which no bot plays); 201
  ``InvitationSent``. 404 for an unknown table, 403 ``no_access`` for a token that is no
  held seat's of the table, 403 ``not_friends``, 409
  ``full`` when the table waits for nobody (or its game is over), 409 ``already_seated``
  for a friend whose account holds a seat there, 429 over ``invite_rate`` (per account).
  Inviting again replaces the invitation.
* ``GET /api/friends/invitations``: ``Invitations``, those that may be accepted now.
* ``POST /api/friends/invitations/{id}/accept``: take the table's first free seat, named
  after the account and linked to it; 200 ``SeatTaken``: the seat's token and link, as
  an invitation link gives them (the page remembers them and opens the table). 404 for
  an invitation that is not the account's; 409 ``invitation_expired`` when the table's
  seats are taken, its game is over, or the two are no longer friends (the invitation is
  deleted); 429 over ``join_rate`` (per address).
* ``POST /api/friends/invitations/{id}/decline``: 200 ``InvitationDeclined``; 404 without
  it.

Delivery: the lobby asks ``GET /api/friends`` every few seconds while it is open (the
database is the truth whichever replica answers: no live channel is needed), so an
invitation shows there within one poll. Notifications outside the pages (Web Push, later)
plug in as a ``Notifier`` handed to ``create_app``: it is awaited after each request,
acceptance and invitation is stored, and does nothing by default.

Every endpoint that changes something is refused (403 ``cross_origin``) when the
request's ``Origin`` is another site's, as the accounts' (``accounts.SAME_SITE``).
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from typing import Annotated, Any, AsyncIterator
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Request
from starlette.requests import HTTPConnection

from regalia.server.refusal import Refusal
from regalia.server.replicas.presence import Presence, SharedPresence
from regalia.server.settings import Settings
from regalia.server.storage.accounts import AccountData
from regalia.server.storage.friends import FriendStore, Invitation, Person, YouBlock
from regalia.server.tables import gamekit
from regalia.server.tables.seats import valid_token
from regalia.server.web.accounts import COOKIE, PROBLEMS, SAME_SITE, Accounts
from regalia.server.web.deps import Address, Registry
from regalia.server.web.schemas.friends import (FriendList, FriendName, FriendState,
                                                InvitationDeclined, InvitationSent, Invitations,
                                                InviteFriend)
from regalia.server.web.schemas.tables import SeatTaken

log = logging.getLogger("regalia.server")

router = APIRouter(prefix="/api/friends", responses=PROBLEMS)

EXPIRED = ("this invitation expired: the table's seats are taken, its game is over, or "
           "you are no longer friends")


class Notifier:
    """The hook for notifications outside the pages (a Web Push sender, later): each
    method is awaited once the change it tells is stored; a failure is logged and refuses
    nothing. This one does nothing. ``to``: the account told."""

    async def friend_request(self, to: int, sender: str) -> None:
        """``sender`` (an account name) asked ``to`` to be friends (not told to an account
        that blocks the sender)."""

    async def friend_accepted(self, to: int, friend: str) -> None:
        """``friend`` accepted ``to``'s request."""

    async def invited(self, to: int, invitation: Invitation) -> None:
        """``to`` was invited to a table (``invitation``: who, which game, the table)."""


class Friends:
    """The friends of one server: the database calls (``FriendStore``), the online
    accounts (``replicas.presence``: in Redis with many replicas) and the ``notifier``."""

    def __init__(self, registry: Registry, accounts: Accounts, settings: Settings,
                 notifier: Notifier | None = None) -> None:
        self.m = registry
        self.accounts = accounts
        self.settings = settings
        self.store = FriendStore(registry.store)
        self.presence: Presence = (SharedPresence(settings.online_ttl, registry.cluster)
                                   if registry.cluster else Presence(settings.online_ttl))
        self.notifier = notifier or Notifier()

    async def start(self) -> None:
        await self.presence.start()

    async def stop(self) -> None:
        await self.presence.stop()

    async def other(self, me: AccountData, name: str) -> tuple[int, str]:
        """The id and name of the account named ``name`` (any case or width); raises
        ``Refusal`` (``not_found``; ``bad_request`` for ``me``'s own name)."""
        found = await self.m.db(self.store.find, gamekit.fold_name(name))
        if found is None:
            raise Refusal("not_found", "no such player")
        if found[0] == me.id:
            raise Refusal("bad_request", "name: that is your own account")
        return found

    async def notify(self, method: str, *args: Any) -> None:
        """``notifier.METHOD(*args)``; a failure is logged."""
        try:
            await getattr(self.notifier, method)(*args)
        except Exception:  # noqa: BLE001 - a notification never refuses the change made
            log.exception("the %s notification failed", method)

    async def live_invitations(self, me: int) -> list[Invitation]:
        """The invitations ``me`` may accept now; the expired ones are deleted."""
        found = await self.m.db(self.store.invitations_to, me)
        expired = [i.id for i in found if not i.live]
        if expired:
            await self.m.writer.write(self.store.drop_invitations, expired, me)
        return [i for i in found if i.live]

    @asynccontextmanager
    async def online_while(self, conn: HTTPConnection) -> AsyncIterator[None]:
        """While the block runs (a table page's websocket is open), the account its
        session cookie is signed in to is online (``Presence.hold``). The account is looked
        up beside the block (the websocket waits for no database read); a browser with no
        session cookie costs nothing."""
        if not valid_token(conn.cookies.get(COOKIE)):
            yield
            return
        held: list[int] = []

        async def hold() -> None:
            account, _ = await self.accounts.current(conn)
            if account is not None:
                self.presence.hold(account.id)
                held.append(account.id)

        task = asyncio.get_running_loop().create_task(hold())
        task.add_done_callback(_quiet)
        try:
            yield
        finally:
            task.cancel()
            for account_id in held:
                self.presence.release(account_id)


def _quiet(task: asyncio.Task) -> None:
    """A presence lookup that failed: logged (the websocket goes on without it)."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("a websocket's account could not be looked up: %s", task.exception())


def friends(conn: HTTPConnection) -> Friends:
    """The running app's friends (``app.state.friends``, set by the lifespan)."""
    return conn.app.state.friends


def online_while(conn: HTTPConnection):
    """``Friends.online_while`` of the running app."""
    return friends(conn).online_while(conn)


Service = Annotated[Friends, Depends(friends)]
InvitationId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the invitation's id")]


def profile(name: str) -> str:
    return f"/players/{quote(name)}"


def player(p: Person) -> dict[str, Any]:
    return {"name": p.name, "profile": profile(p.name), "since": p.since}


def invitation_info(i: Invitation) -> dict[str, Any]:
    return {"id": i.id, "name": i.from_name, "profile": profile(i.from_name),
            "table": i.table_id, "game": i.game, "players": i.players, "free": i.free,
            "at": i.created_at}


@router.get("", response_model=FriendList)
async def friend_list(request: Request, f: Service) -> Any:
    me = await f.accounts.signed_in(request)
    await f.presence.note(me.id)
    circle = await f.m.db(f.store.circle, me.id)
    online = await f.presence.online(p.id for p in circle.friends)
    invitations = await f.live_invitations(me.id)
    return {"friends": [{**player(p), "online": p.id in online} for p in circle.friends],
            "incoming": [player(p) for p in circle.incoming],
            "outgoing": [player(p) for p in circle.outgoing],
            "blocked": [player(p) for p in circle.blocked],
            "invitations": [invitation_info(i) for i in invitations]}


@router.post("/requests", response_model=FriendState, dependencies=SAME_SITE)
async def send_request(body: FriendName, request: Request, f: Service) -> Any:
    me = await f.accounts.signed_in(request)
    await f.m.limits.hit("friend_rate", str(me.id))
    other, name = await f.other(me, body.name)
    try:
        state = await f.m.writer.write(f.store.request, me.id, other)
    except YouBlock:
        raise Refusal("blocked_by_you", "you block this player: unblock them first") from None
    if state == "requested" and not await f.m.db(f.store.blocks, other, me.id):
        await f.notify("friend_request", other, me.name)
    return {"name": name, "state": state}


async def change_with(request: Request, f: Friends, body: FriendName, change: Any,
                      state: str, missing: str | None = None) -> tuple[AccountData, int, dict]:
    """The signed-in account ``me`` applies ``change(me.id, other)`` (a ``FriendStore``
    method, through the writer) to the player named in ``body``. Returns ``me``, the other
    account's id and the ``FriendState`` answer (``state``). Raises ``Refusal``
    (``signed_out``; ``not_found`` for an unknown name, or with ``missing`` as its message
    when ``change`` found nothing to change)."""
    me = await f.accounts.signed_in(request)
    other, name = await f.other(me, body.name)
    if not await f.m.writer.write(change, me.id, other) and missing is not None:
        raise Refusal("not_found", missing)
    return me, other, {"name": name, "state": state}


@router.post("/accept", response_model=FriendState, dependencies=SAME_SITE)
async def accept_request(body: FriendName, request: Request, f: Service) -> Any:
    me, other, answer = await change_with(request, f, body, f.store.accept, "friends",
                                          "no friend request from this player")
    await f.notify("friend_accepted", other, me.name)
    return answer


@router.post("/decline", response_model=FriendState, dependencies=SAME_SITE)
async def decline_request(body: FriendName, request: Request, f: Service) -> Any:
    return (await change_with(request, f, body, f.store.decline, "none",
                              "no friend request from this player"))[2]


@router.post("/remove", response_model=FriendState, dependencies=SAME_SITE)
async def remove_friend(body: FriendName, request: Request, f: Service) -> Any:
    return (await change_with(request, f, body, f.store.remove, "none",
                              "this player is not your friend and you sent them no "
                              "request"))[2]


@router.post("/block", response_model=FriendState, dependencies=SAME_SITE)
async def block_player(body: FriendName, request: Request, f: Service) -> Any:
    return (await change_with(request, f, body, f.store.block, "blocked"))[2]


@router.post("/unblock", response_model=FriendState, dependencies=SAME_SITE)
async def unblock_player(body: FriendName, request: Request, f: Service) -> Any:
    return (await change_with(request, f, body, f.store.unblock, "none",
                              "you do not block this player"))[2]


@router.post("/invite", status_code=201, response_model=InvitationSent,
             dependencies=SAME_SITE)
async def invite(body: InviteFriend, request: Request, f: Service) -> Any:
    me = await f.accounts.signed_in(request)
    other, name = await f.other(me, body.name)
    table = await f.m.get(body.table)
    if table is None:
        raise Refusal("not_found", "no such table")
    seat = table.seating.seat_of_token(body.token)
    if seat is None or not table.seats[seat].claimed:  # a link not opened yet: no player
        raise Refusal("no_access", "token: the seat link of a player seated at this table")
    if not await f.m.db(f.store.are_friends, me.id, other):
        raise Refusal("not_friends", "you can invite only your friends (a friend request "
                                     "they accepted, or theirs you accepted)")
    if not table.core.open or not table.seating.free_seats():
        raise Refusal("full", "this table waits for no player: its seats are taken, or its "
                              "game is over")
    if await f.m.db(f.store.seated, table.id, other):
        raise Refusal("already_seated", "this friend has a seat at this table already")
    await f.m.limits.hit("invite_rate", str(me.id))
    invitation_id = await f.m.writer.write(f.store.invite, table.id, me.id, other)
    sent = await f.m.db(f.store.invitation, invitation_id)
    if sent is not None:
        await f.notify("invited", other, sent)
    return {"id": invitation_id, "name": name, "table": table.id}


@router.get("/invitations", response_model=Invitations)
async def invitations(request: Request, f: Service) -> Any:
    me = await f.accounts.signed_in(request)
    return {"invitations": [invitation_info(i) for i in await f.live_invitations(me.id)]}


@router.post("/invitations/{invitation_id}/accept", response_model=SeatTaken,
             dependencies=SAME_SITE)
async def accept_invitation(invitation_id: InvitationId, request: Request, f: Service,
                            address: Address) -> Any:
    me = await f.accounts.signed_in(request)
    found = await f.m.db(f.store.invitation, invitation_id)
    if found is None or found.to_id != me.id:
        raise Refusal("not_found", "no such invitation")
    table = await f.m.get(found.table_id) if found.live else None
    if table is None:
        await f.m.writer.write(f.store.drop_invitations, [found.id], me.id)
        raise Refusal("invitation_expired", EXPIRED)
    try:
        seat, token = await table.seating.take_free_seat(
            me.name, count=lambda: f.m.limits.hit("join_rate", address), invited=me.id)
    except Refusal as e:
        if e.code not in ("full", "not_open"):
            raise
        await f.m.writer.write(f.store.drop_invitations, [found.id], me.id)
        raise Refusal("invitation_expired", EXPIRED) from None
    await f.m.writer.write(f.store.drop_table_invitation, table.id, me.id)
    return {"id": table.id, "game": table.game.name, "players": len(table.seats),
            "seat": seat, "token": token, "link": f"/t/{table.id}#s={token}"}


@router.post("/invitations/{invitation_id}/decline", response_model=InvitationDeclined,
             dependencies=SAME_SITE)
async def decline_invitation(invitation_id: InvitationId, request: Request, f: Service) -> Any:
    me = await f.accounts.signed_in(request)
    if not await f.m.writer.write(f.store.drop_invitations, [invitation_id], me.id):
        raise Refusal("not_found", "no such invitation")
    return {"id": invitation_id}
