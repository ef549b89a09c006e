"""The one way the server says no: ``Refusal`` (a code for the interface and a message in
words; nothing was changed)."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """A submission that changes nothing: ``code`` for the interface, ``message`` in words
    (safe to send to the submitting connection), for an engine refusal the engine's
    ``reason`` (``{"code", "params"}``, which the page translates), and for a rate limit
    (``too_fast``) the ``limit``: ``{"what": "hint", "amount": 20, "per": 1, "unit":
    "minute", "retry_after": seconds}`` (at most ``amount`` per ``per`` ``unit``s)."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None,
                 limit: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.limit = limit
