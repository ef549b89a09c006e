"""Errors raised by the engines.

Every refusal says what was wrong and what is allowed instead; a refused action or
position never changes any state (the engines only build new states).
"""


class RegaliaError(ValueError):
    """Base class of every refusal raised by Regalia."""


class IllegalAction(RegaliaError):
    """An action that is not legal in the position it was applied to.

    The message names the action, the reason (with the rule section) and what is allowed.
    """


class InvalidPosition(RegaliaError):
    """A position (JSON object) that cannot be read: the message names the field."""
