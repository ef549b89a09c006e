"""Rate limits of one server (the ``limits`` library: moving windows kept in memory, each
key forgotten once its window has passed).

The keyed rates are the ``Settings`` fields ``table_rate`` (per client address),
``message_rate`` (websocket messages per client address), ``talk_rate`` (per table seat),
``join_rate`` (seats taken at open tables per client address), ``analysis_rate`` (game
analyses per client address), ``hint_rate`` (hints per client address: each is a bot's
search in the shared bot pool), ``sign_up_rate`` and ``sign_in_rate`` (accounts created and
sign-ins per client address: each is a password hash's work), ``friend_rate`` and
``invite_rate`` (friend requests and table invitations sent per account) and ``push_rate``
(notification subscriptions added or removed per client address).

The library's in-memory storage forgets expired entries on a timer thread that it starts
again after every burst of hits. Started from the event loop's thread, each such start
waits for the new thread to run, up to a GIL switch interval (5 ms) under load, on the path
of every websocket message: here expired entries are swept instead at most once a second,
from ``check`` itself (no thread).

With many replicas (``SharedRateLimits``) the windows are kept in Redis (``limits``' asyncio
Redis storage over redis-py), so a client meets the same limits whichever replica it
reaches.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import limits
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from regalia.server.settings import Settings
from regalia.server.refusal import Refusal

if TYPE_CHECKING:  # pragma: no cover
    from regalia.server.replicas.cluster import Cluster

RATES = {"table_rate": "tables created", "message_rate": "messages",
         "talk_rate": "table messages", "join_rate": "seats taken",
         "analysis_rate": "game analyses", "replay_rate": "replays", "hint_rate": "hints",
         "sign_up_rate": "accounts created", "sign_in_rate": "sign-ins",
         "friend_rate": "friend requests", "invite_rate": "table invitations",
         "push_rate": "notification subscriptions"}
SWEEP_EVERY = 1.0  # seconds between two sweeps of the expired entries


def clock() -> float:
    """Seconds, for the sweeps' schedule (tests replace it)."""
    return time.monotonic()


class SweptMemoryStorage(MemoryStorage):
    """``limits``' ``MemoryStorage`` without its expiry timer thread: ``sweep()`` forgets the
    expired entries (the library's own expiry, called by ``RateLimits.check``) and the keys
    left without any."""

    def __init__(self) -> None:
        super().__init__()
        self.timer.cancel()  # the library starts one at once: stopped, and waited for
        self.timer.join()

    def _MemoryStorage__schedule_expiry(self) -> None:  # the library's private hook
        pass

    def sweep(self) -> None:
        self._MemoryStorage__expire_events()
        for key in [k for k, entries in self.events.items() if not entries]:
            del self.events[key]  # the library keeps a key's empty list: a key per address


class RateLimits:
    """``check(name, *key)``: count one event against the rate ``name`` for ``key``."""

    def __init__(self, settings: Settings) -> None:
        self.storage = SweptMemoryStorage()
        self.window = MovingWindowRateLimiter(self.storage)
        self.rates = {name: limits.parse(getattr(settings, name)) for name in RATES}
        self.texts = {name: getattr(settings, name) for name in RATES}
        self.swept = clock()

    def check(self, name: str, *key: str) -> None:
        """Raises ``Refusal("too_fast")`` (the event is not counted) over the rate."""
        now = clock()
        if now - self.swept >= SWEEP_EVERY:
            self.swept = now
            self.storage.sweep()
        if not self.window.hit(self.rates[name], name, *key):
            self.refuse(name, self.window.get_window_stats(self.rates[name], name, *key))

    async def hit(self, name: str, *key: str) -> None:
        """``check``, for callers that may share the limits with other replicas."""
        self.check(name, *key)

    def refuse(self, name: str, stats: Any) -> None:
        """Raises the ``too_fast`` refusal of ``name``, its ``limit`` saying when to try
        again (``stats``: the ``limits`` library's window of the key)."""
        rate = self.rates[name]
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        raise Refusal("too_fast", f"too many {RATES[name]}: at most {self.texts[name]}; "
                                  f"try again in {wait} s",
                      limit={"what": name.removesuffix("_rate"), "amount": rate.amount,
                             "per": rate.multiples, "unit": rate.GRANULARITY.name,
                             "retry_after": wait})


class SharedRateLimits(RateLimits):
    """The same limits counted in Redis for all the replicas of a site (``hit``: one Redis
    round trip, counted in the cluster's ``round_trips``), over the cluster's own connection
    pool, which the cluster closes at its stop."""

    def __init__(self, settings: Settings, cluster: "Cluster") -> None:
        from limits.aio.storage import RedisStorage
        from limits.aio.strategies import MovingWindowRateLimiter as AsyncWindow

        super().__init__(settings)
        self.cluster = cluster
        self.shared = AsyncWindow(RedisStorage(
            cluster.url, implementation="redispy", key_prefix="regalia:limits",
            connection_pool=cluster.redis.connection_pool))

    async def hit(self, name: str, *key: str) -> None:
        """When Redis fails, this replica's own window decides."""
        self.cluster.round_trips += 1
        try:
            allowed = await self.shared.hit(self.rates[name], name, *key)
        except Exception as e:  # noqa: BLE001 - Redis is down: count here only
            self.cluster.error = f"rate limits: {e}"
            self.check(name, *key)
            return
        if not allowed:
            self.refuse(name, await self.shared.get_window_stats(self.rates[name], name, *key))
