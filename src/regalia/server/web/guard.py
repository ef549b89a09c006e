"""The HTTP guard of the server (one ASGI middleware, ``Guard``):

* every HTTP answer carries the security headers, with a Content-Security-Policy that allows
  only the site's own scripts, styles, images and sockets (the API docs page, which loads
  Swagger's scripts, gets none);
* a state-changing request (POST, PUT, PATCH, DELETE) must declare a JSON body
  (``Content-Type: application/json``): a cross-site form or ``text/plain`` post is refused
  with 415 before the application sees it;
* a request body over ``max_body`` bytes is refused with 413 (declared or streamed);
* a websocket handshake whose ``Origin`` is neither the site itself (the ``Host`` it was
  sent to) nor one of ``allowed_origins`` is refused (HTTP 403). Clients that send no
  ``Origin`` (programs, not browsers) are let through.

Refusals are JSON: ``{"error": "what was wrong and what is allowed"}``.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
NO_CSP = ("/api/docs",)
CHANGING = {"POST", "PUT", "PATCH", "DELETE"}

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers") or []:
        if k == name:
            return v.decode("latin-1")
    return None


def same_origin(scope: Scope, allowed: tuple[str, ...]) -> bool:
    """The websocket's ``Origin`` is the site itself or an allowed one (or absent)."""
    origin = header(scope, b"origin")
    if origin is None:
        return True
    if origin.rstrip("/") in allowed:
        return True
    host = header(scope, b"host")
    parts = urlsplit(origin)
    return host is not None and parts.scheme in ("http", "https") and parts.netloc == host


async def refuse(send: Send, status: int, code: str, message: str) -> None:
    """Answer ``status`` with the API's usual ``{"error", "code"}`` body."""
    body = json.dumps({"error": message, "code": code}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The middleware (see the module docstring)."""

    def __init__(self, app: Any, max_body: int, allowed_origins: tuple[str, ...]) -> None:
        self.app = app
        self.max_body = max_body
        self.allowed = tuple(o.rstrip("/") for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not same_origin(scope, self.allowed):
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] in CHANGING:
            ctype = (header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if ctype != "application/json":
                await refuse(send, 415, "not_json", "send the request body as JSON "
                                                    "(Content-Type: application/json)")
                return
            body = await self._read(scope, receive)
            if body is None:
                await refuse(send, 413, "too_large", "the request body is too large (at "
                                                     f"most {self.max_body} bytes)")
                return
            receive = replay(body, receive)
        await self.app(scope, receive, self._with_headers(scope, send))

    async def _read(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or ``None`` when it is over the limit."""
        declared = header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                break
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not msg.get("more_body"):
                break
        return b"".join(chunks)

    def _with_headers(self, scope: Scope, send: Send) -> Send:
        extra = list(HEADERS)
        if not scope["path"].startswith(NO_CSP):
            extra.append((b"content-security-policy", CSP.encode()))

        async def wrapped(msg: dict[str, Any]) -> None:
            if msg["type"] == "http.response.start":
                msg = {**msg, "headers": [*msg.get("headers", []), *extra]}
            await send(msg)

        return wrapped


def replay(body: bytes, then: Receive) -> Receive:
    """A ``receive`` that hands the already-read body to the application, then waits for
    the client's disconnect as usual."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await then()

    return receive
