"""The table websocket, ``/ws/{table_id}``: its protocol is ``protocol``'s docstring.

One task per connection reads the client's messages (``serve_socket``); what the table
sends goes through the connection's own queue (``tables.audience.Conn``), so a slow reader
never holds a table up. While it is open, the account a signed-in browser's session cookie
names is online to its friends (``friends.Friends.online_while``), and may be seated at
that account's own seat without the seat's token (``welcome``'s ``by_account``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fastapi import WebSocket
from starlette.routing import Match, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocketClose, WebSocketDisconnect

from regalia.server.settings import Settings
from regalia.server.tables import gamekit
from regalia.server.tables.audience import Conn
from regalia.server.refusal import Refusal
from regalia.server.storage.accounts import AccountData
from regalia.server.web.accounts import accounts
from regalia.server.web.deps import Registry, address_of
from regalia.server.web.friends import online_while
from regalia.server.web.protocol import (CLIENT_TYPES, CLOSE_FOR, HELLO_TIMEOUT, NOT_FOUND,
                                         SLOW_READER)

log = logging.getLogger("regalia.server")


async def table_socket(ws: WebSocket) -> None:
    """A table's websocket (``/ws/{table_id}``): the connection counted against its
    address's cap (closed at once over it), then served until it closes (``serve_socket``).
    A plain Starlette route: it reads the registry, the settings and the address itself, as
    FastAPI's dependencies would, without their resolution at each of a game's openings."""
    m: Registry = ws.app.state.manager
    settings: Settings = ws.app.state.settings
    table_id: str = ws.path_params["table_id"]
    address = address_of(ws)
    await ws.accept()
    if not await m.connection_opened(address):
        await close_with(ws, "too_many_connections", "too many open connections from your "
                         f"address (at most {settings.connections_per_address})", SLOW_READER)
        return
    try:
        async with online_while(ws):  # a signed-in browser's account: online meanwhile
            await serve_socket(ws, m, settings, table_id, address)
    finally:
        await m.connection_closed(address)


route = WebSocketRoute("/ws/{table_id}", table_socket)


async def socket_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    """Every websocket of the site as a bare ASGI app: ``/ws/{table_id}`` (``route``) is
    ``table_socket``; any other path is closed (code 1000), as Starlette's router closes
    a websocket it has no route for. The app (``app.Site``) puts it behind the host check
    and the ``Guard`` alone, not behind the HTTP middleware, the exception handlers and
    the router that every request crosses: those hold a coroutine each for as long as the
    socket is open (a game's length) and wrap each of its sends, and do nothing for a
    websocket that this endpoint does not do itself. (With an operator's middleware or
    OpenTelemetry on, the sockets take the whole stack to ``route``: ``Site.short_way``.)"""
    match, child = route.matches(scope)
    if match is not Match.FULL:
        await WebSocketClose()(scope, receive, send)
        return
    scope.update(child)
    await table_socket(WebSocket(scope, receive, send))


async def serve_socket(ws: WebSocket, m: Registry, settings: Settings, table_id: str,
                       address: str) -> None:
    """Read the connection's messages until it closes: ``hello`` first (``welcome``), then
    each message handled in order (``handle``); the close code as the protocol says."""
    try:
        table = await m.get(table_id)
        if table is not None and table.closing:  # unloaded while this one waited for its load
            table = await m.get(table_id)
    except Refusal as e:
        await close_with(ws, e.code, e.message, SLOW_READER)
        return
    if table is None:
        await close_with(ws, "not_found", "no such table", NOT_FOUND)
        return
    conn = Conn(ws.send_text, address, settings.send_queue)
    table.audience.arriving.add(conn)  # until it joins or leaves (no await since the get)
    pump = conn.start()
    # the sender stopping (a dropped slow client) ends a wait for the next message
    # (a cancellation of this task, taken back below: no task per message)
    handler = asyncio.current_task()
    receiving = stopping = False

    def sender_stopped(_: asyncio.Task) -> None:
        nonlocal stopping
        if receiving:
            stopping = True
            handler.cancel()
    pump.add_done_callback(sender_stopped)

    def error(code: str, message: str) -> None:
        conn.put({"type": "error", "code": code, "message": message, "ply": table.ply})

    joined = False
    close: tuple[int, str] | None = None
    try:
        while True:
            if not joined:
                try:
                    msg = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
                except asyncio.TimeoutError:
                    break
            else:
                if pump.done():
                    break
                receiving = True
                try:
                    msg = await ws.receive()
                except asyncio.CancelledError:
                    if stopping and handler.uncancel() == 0:  # only ours
                        break
                    raise
                finally:
                    receiving = False
            if msg["type"] == "websocket.disconnect":
                break
            raw = msg.get("text")
            if raw is None:
                raw = (msg.get("bytes") or b"").decode("utf-8", "replace")
            try:
                await m.limits.hit("message_rate", address)
            except Refusal as e:
                if not joined:  # its hello may be lost: closed, the page comes back later
                    error(e.code, e.message + "; the connection is closed: reconnect later")
                    close = (SLOW_READER, e.code)
                    break
                error(e.code, e.message + "; this message was ignored")
                continue
            if len(raw) > settings.ws_message_max:
                error("too_large", f"message too large ({len(raw)} characters; at most "
                                   f"{settings.ws_message_max}); nothing was changed")
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError):
                error("bad_json", "not JSON; nothing was changed")
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                error("bad_message", "a message is a JSON object with a string 'type'")
                continue
            kind = obj["type"]
            if joined:
                await handle(table, conn, kind, obj)
                continue
            if kind != "hello":
                error("hello_first", "send hello (with your seat token) first")
                continue
            by_account = obj.get("account", False)
            if type(by_account) is not bool:
                error("bad_message", "hello's account is true (seat me by my signed-in "
                                     "account when the token opens no seat) or false")
                continue
            try:
                refusal = await welcome(table, conn, settings, obj.get("token"), obj.get("name"),
                                        ws, by_account=by_account)
            except Refusal as e:
                refusal = (e.code, e.message)
            if refusal is not None:
                error(*refusal)
                close = (CLOSE_FOR.get(refusal[0], SLOW_READER), refusal[0])
                break
            joined = True
    except WebSocketDisconnect:
        pass
    except Exception:  # pragma: no cover - one connection must never take others down
        log.exception("table %s: websocket handler failed", table_id)
        error("server_error", "the server failed on this message; please reload")
    finally:
        table.audience.arriving.discard(conn)
        table.audience.leave(conn)
        if conn.dropped:
            close = (SLOW_READER, "too slow: reconnect")
        conn.close()
        try:
            await asyncio.wait_for(pump, 1.0)
        except (asyncio.TimeoutError, asyncio.CancelledError, Exception):
            pump.cancel()
        if close is not None:
            try:
                await ws.close(code=close[0], reason=close[1])
            except Exception:  # the client is already gone
                pass


async def welcome(table, conn: Conn, settings: Settings, token: Any,
                  name: Any, ws: WebSocket | None = None, *,
                  by_account: bool = False) -> tuple[str, str] | None:
    """Seat the connection (a seat token: the seat is claimed, with the nickname
    ``name``; at a rated table by the account of ``ws``'s session cookie) or let it watch
    (the spectators' token). ``by_account``: when the token is neither, the first seat of
    the table linked to the account of ``ws``'s session cookie (``account_seat``) is
    claimed as its token would be. Otherwise the refusal ``(code, message)``
    (``no_access``, ``too_many_spectators``, ``name_needed``: a seat that must be named
    before its hand is seen, given none; a rated seat's, ``Seating.check_rated``). Raises
    ``Refusal("storage")``."""
    seat = table.seating.seat_of_token(token)
    account = None
    if seat is None and by_account and ws is not None and not table.seating.is_watch_token(token):
        account, seat = await account_seat(table, ws)
        if seat is None:
            return ("no_access", "this link is not valid for this table, and "
                    + ("your account holds none of its seats" if account is not None
                       else "no account is signed in in this browser (a signed-in account "
                            "opens its own seats without their links)")
                    + ": a table is watched only through its spectator link")
    if seat is None and not table.seating.is_watch_token(token):
        return ("no_access", "this link is not valid for this table: a table is watched "
                             "only through its spectator link")
    if seat is None and table.audience.spectators() >= settings.spectators_per_table:
        return ("too_many_spectators", "this table has as many spectators as it allows "
                                       f"({settings.spectators_per_table}); try later")
    if seat is not None and table.seating.name_needed(seat, name):
        return ("name_needed", "give your name with hello (1 to "
                               f"{gamekit.NAME_MAX} characters): at a Regicide table with "
                               "other players a seat is named before its hand is seen, and "
                               "the name does not change until the end (rules 1.15)")
    if seat is not None:
        if account is None and table.core.rated and ws is not None:
            account = (await (await accounts(ws)).current(ws))[0]
        await table.seating.claim(seat, name, account)
    table.audience.join(conn, seat)
    return None


async def account_seat(table, ws: WebSocket) -> tuple[AccountData | None, int | None]:
    """The account ``ws``'s session cookie is signed in to (``None``: none) and the first
    seat of ``table`` linked to it (stored: adopted, rated, taken by an invitation or as
    the daily deal's ranked game; ``None``: none). Another account's seat, or a seat of
    a deleted account (its link cut, its sessions gone), is never found."""
    a = await accounts(ws)
    account, _ = await a.current(ws)
    if account is None:
        return None, None
    seats = await a.m.db(a.m.store.account_seats, table.id, account.id)
    return account, seats[0] if seats else None


async def close_with(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    """Send one ``error`` message and close the websocket."""
    try:
        await ws.send_text(json.dumps({"type": "error", "code": code, "message": message}))
        await ws.close(code=close_code)
    except Exception:  # the client is already gone
        pass


async def handle(table, conn: Conn, kind: str, obj: dict[str, Any]) -> None:
    """One client message after ``hello``; a refusal becomes an ``error`` message."""
    try:
        if kind == "act":
            await table.submit(conn.seat, obj.get("action"), obj.get("ply"))
        elif kind == "wish":
            if conn.seat is None:
                raise Refusal("spectator", "spectators cannot state a wish")
            text = gamekit.wish_text(table.game.name, conn.seat, obj.get("value"))
            if text is None:
                raise Refusal("bad_message", "value: yes or no (only in Regicide's Jester "
                                             "window)")
            await table.submit(conn.seat, text, None)
        elif kind == "say":
            await table.talk.say(conn, "say", obj.get("message_id"))
        elif kind == "chat":
            await table.talk.say(conn, "chat", obj.get("text"))
        elif kind == "bot":
            await table.seating.set_bot(conn.seat, obj.get("seat"), obj.get("on"))
        elif kind == "name":
            await table.seating.rename(conn.seat, obj.get("name"))
        elif kind == "concede":
            await table.endings.concede(conn.seat)
        elif kind == "stop":
            await table.endings.stop(conn.seat, obj.get("agree"))
        elif kind == "hint":  # worked out aside: this connection's next messages go on
            background(hint_for(table, conn))
        elif kind == "ping":
            conn.put({"type": "pong"})
        elif kind == "hello":
            raise Refusal("bad_message", "already joined")
        else:
            raise Refusal("unknown_type", f"unknown message type {kind[:40]!r}; the types are "
                                          f"{', '.join(CLIENT_TYPES)}")
    except Refusal as e:
        conn.put(refusal_message(table, e))


def refusal_message(table, e: Refusal) -> dict[str, Any]:
    """The ``error`` message of a refusal (with the engine's ``reason``, or the rate
    ``limit``, when it has one)."""
    return {"type": "error", "code": e.code, "message": e.message, "ply": table.ply,
            **({"reason": e.reason} if e.reason else {}),
            **({"limit": e.limit} if e.limit else {})}


async def hint_for(table, conn: Conn) -> None:
    """The ``hint`` message for the connection's seat, or the refusal."""
    try:
        conn.put(await table.talk.hint(conn.seat, conn.address))
    except Refusal as e:
        conn.put(refusal_message(table, e))


_BACKGROUND: set[asyncio.Task] = set()


def background(coro) -> None:
    """Run ``coro`` as a task of its own, kept until it ends; its failure is logged."""
    task = asyncio.get_running_loop().create_task(coro)
    _BACKGROUND.add(task)
    task.add_done_callback(_ended)


def _ended(task: asyncio.Task) -> None:
    _BACKGROUND.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("a background task failed", exc_info=task.exception())
