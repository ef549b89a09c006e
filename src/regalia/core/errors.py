"""Errors raised by the engines.

Every refusal says what was wrong and what is allowed instead; a refused action or
position never changes any state (the engines only build new states).

A refused action also carries a stable reason ``code`` and its ``params`` (seats 0-based,
cards in notation), so that an interface can say why in its own language while the English
message stays for logs, the terminal and the API.
"""

from __future__ import annotations

from typing import Any


class RegaliaError(ValueError):
    """Base class of every refusal raised by Regalia."""


class Reason(str):
    """Why something is refused, in English words, with a stable ``code`` and ``params``.

    A ``str`` (so it reads as before wherever a reason is shown or joined) that an
    ``IllegalAction`` can take its code from.
    """

    code: str
    params: dict[str, Any]

    def __new__(cls, text: str, code: str, **params: Any) -> "Reason":
        r = super().__new__(cls, text)
        r.code = code
        r.params = params
        return r


class IllegalAction(RegaliaError):
    """An action that is not legal in the position it was applied to.

    The message names the action, the reason (with the rule section) and what is allowed.
    ``code`` (default ``"illegal"``: no more precise reason) and ``params`` say the reason
    in a form an interface translates, e.g. ``code="discard_short", params={"total": 7,
    "attack": 10}``.
    """

    def __init__(self, message: str, code: str = "illegal",
                 params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.params = dict(params or {})

    def coded(self, code: str, **params: Any) -> "IllegalAction":
        """Set the reason code and parameters; returns ``self`` (``raise e.coded(...)``)."""
        self.code = code
        self.params = params
        return self

    def reason(self) -> dict[str, Any]:
        """``{"code": ..., "params": {...}}``: the reason as JSON for an interface."""
        return {"code": self.code, "params": dict(self.params)}


class InvalidPosition(RegaliaError):
    """A position (JSON object) that cannot be read: the message names the field."""
