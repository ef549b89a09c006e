"""The HTTP connections themselves, below the ASGI app, where a request that never ends
(slow-loris: headers sent a byte at a time, or never finished) is seen: uvicorn's
``httptools`` protocol with three bounds.

* ``request_timeout``: a request's headers and body must all arrive within this many
  seconds of its first byte (of the connection, for the first request); a slower client is
  disconnected. A request whose body is read and whose answer is under way is not timed
  (the app's own limits apply), nor a websocket once upgraded.
* ``per_address``: at most this many open connections (HTTP and websocket together) from
  one client address; a connection over it is closed at once. Addresses of trusted proxies
  (``--forwarded-allow-ips``, which carry many clients) are not counted.
* ``max_connections``: at most this many connections in all, below the process's file
  descriptor limit less ``FD_RESERVE``, so that the database can always open its files;
  ``raise_descriptor_limit`` lifts the soft limit to the hard one at start.

``protocol(settings, max_connections, trusted)`` makes the class that ``uvicorn.run(http=...)``
takes.
"""

from __future__ import annotations

import asyncio
import resource
import weakref
from typing import Any, Iterable

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

FD_RESERVE = 128  # descriptors kept for the database, its log, the bot workers and the rest
FD_WANTED = 65536  # the soft limit asked for when the hard limit is unlimited


def raise_descriptor_limit() -> int:
    """Lift the process's soft limit of open files to its hard limit (at most
    ``FD_WANTED`` when unlimited). Returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = FD_WANTED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft


class BoundedHttp(HttpToolsProtocol):
    """``HttpToolsProtocol`` with a request timeout, a per-address and a total connection
    cap (the module docstring); the bounds are class attributes set by ``protocol``, with
    ``by_address``: the transports open from each address (weakly held; one closing is
    no longer counted), so a new connection is checked against its own address's, not
    against every connection of the server."""

    request_timeout = 10.0
    per_address = 64
    max_connections = 1024
    trusted: frozenset[str] = frozenset()
    by_address: dict[str, weakref.WeakSet] = {}
    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._over_cap():
            transport.close()  # connection_lost follows and forgets it
            return
        self._arm()

    def _over_cap(self) -> bool:
        if len(self.connections) > self.max_connections:
            return True
        address = self.client[0] if self.client else None
        if address is None or address in self.trusted or "*" in self.trusted:
            return False
        mine = self.by_address.get(address)
        if mine is None:
            if len(self.by_address) > self.max_connections:  # forget the addresses gone
                for gone in [a for a, ts in self.by_address.items()
                             if not any(not t.is_closing() for t in ts)]:
                    del self.by_address[gone]
            mine = self.by_address[address] = weakref.WeakSet()
        for t in [t for t in mine if t.is_closing()]:  # closed (a websocket's end too)
            mine.discard(t)
        mine.add(self.transport)
        return len(mine) > self.per_address

    def _arm(self) -> None:
        if self._timer is None:
            self._timer = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def protocol(request_timeout: float, per_address: int, max_connections: int,
             trusted: Iterable[str] = ()) -> type[BoundedHttp]:
    """A ``BoundedHttp`` class with these bounds (seconds, connections, connections,
    addresses not counted per address)."""
    attrs: dict[str, Any] = {"request_timeout": request_timeout, "per_address": per_address,
                             "max_connections": max_connections, "trusted": frozenset(trusted),
                             "by_address": {}}
    return type("BoundedHttp", (BoundedHttp,), attrs)
