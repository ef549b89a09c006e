"""Rate limits of one server (the ``limits`` library: moving windows kept in memory, each
key forgotten once its window has passed).

The keyed rates are the ``Settings`` fields ``table_rate`` (per client address),
``message_rate`` (websocket messages per client address), ``talk_rate`` (per table seat) and
``join_rate`` (seats taken at open tables per client address).
"""

from __future__ import annotations

import limits
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from regalia.server.settings import Settings
from regalia.server.tables import Refusal

RATES = {"table_rate": "tables created", "message_rate": "messages",
         "talk_rate": "table messages", "join_rate": "seats taken"}


class RateLimits:
    """``check(name, *key)``: count one event against the rate ``name`` for ``key``."""

    def __init__(self, settings: Settings) -> None:
        self.window = MovingWindowRateLimiter(MemoryStorage())
        self.rates = {name: limits.parse(getattr(settings, name)) for name in RATES}
        self.texts = {name: getattr(settings, name) for name in RATES}

    def check(self, name: str, *key: str) -> None:
        """Raises ``Refusal("too_fast")`` (the event is not counted) over the rate."""
        if not self.window.hit(self.rates[name], name, *key):
            raise Refusal("too_fast", f"too many {RATES[name]}: at most {self.texts[name]}; "
                                      "wait a moment and try again")
