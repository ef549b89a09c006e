"""The server's settings: bots and every limit (README, "Limits and security").

One object, read from three places, the first found winning: a keyword given in code
(``create_app(bot_delay=0)``) or a ``regalia serve`` option (``--tables-per-address`` for
``tables_per_address``: the command's options are made from these fields), then the
environment (``REGALIA_BOT_DELAY=0.2``; a tuple as JSON: ``REGALIA_ALLOWED_ORIGINS='["https://a.example"]'``),
then the defaults below. Rates use the ``limits`` notation (``"20/minute"``,
``"30/second"``). Nothing here can be reached from an HTTP or websocket request.

This module imports nothing heavier than pydantic and ``limits``: ``regalia serve --help``
reads it without loading the database layer or the bots.
"""

from __future__ import annotations

import os
import re
import secrets
from typing import Any, Callable, Optional

import limits
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SQLITE_SYNC = ("full", "normal")  # SQLite's disk syncs a store may use (storage.store)


def secure_seed() -> int:
    """A table's seed, from the operating system's cryptographic source (never from a
    client: games are deterministic from config + seed)."""
    return secrets.randbits(52)


def parse_presets(text: str) -> dict[str, tuple[float, float]]:
    """``"blitz=180+10,rapid=600+15"`` -> ``{"blitz": (180.0, 10.0), ...}`` (bank and
    increment in seconds). Raises ``ValueError`` with what is wrong."""
    out: dict[str, tuple[float, float]] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, spec = part.partition("=")
        bank, _, inc = spec.partition("+")
        try:
            b, i = float(bank), float(inc or 0)
        except ValueError:
            raise ValueError(f"clock_presets: {part!r} is not NAME=BANK+INCREMENT (seconds), "
                             "e.g. rapid=600+15") from None
        if not name.strip().isidentifier() or b <= 0 or i < 0:
            raise ValueError(f"clock_presets: {part!r}: a name, a bank over 0 and an "
                             "increment of 0 or more seconds")
        out[name.strip()] = (b, i)
    return out


def parse_turn_presets(text: str) -> dict[str, float]:
    """``"day=86400,3days=259200"`` -> ``{"day": 86400.0, "3days": 259200.0}`` (seconds a
    player has for each move of a turn-based table). Raises ``ValueError`` with what is
    wrong."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, spec = part.partition("=")
        name = name.strip()
        try:
            seconds = float(spec)
        except ValueError:
            raise ValueError(f"turn_presets: {part!r} is not NAME=SECONDS, e.g. "
                             "day=86400") from None
        if not name or not name.replace("_", "a").isalnum() or not seconds > 0:
            raise ValueError(f"turn_presets: {part!r}: a name of letters, digits or _ and "
                             "more than 0 seconds")
        out[name] = seconds
    return out


def _cli(**how: Any) -> dict[str, Any]:
    """A field's ``regalia serve`` option when it is not ``--FIELD-NAME VALUE``: ``flag``
    (its option name), ``inverse`` (a flag meaning the field's negation), ``repeat`` (the
    option is given once per item of a tuple), ``choices``."""
    return {"cli": how}


class Settings(BaseSettings):
    """Bots and limits of one server; see the README for what each limit protects.
    Immutable; raises ``pydantic.ValidationError`` (a ``ValueError``) naming the field."""

    model_config = SettingsConfigDict(env_prefix="REGALIA_", frozen=True, extra="forbid",
                                      validate_default=False, hide_input_in_errors=True)

    bot_delay: float = Field(0.6, description="seconds a bot waits before it acts")
    wish_wait: float = Field(6.0, description=(
        "seconds a bot who chooses after a Jester gives the connected players to say a wish "
        "(rules 1.10)"))
    bot_budget: Optional[float] = Field(0.5, description="seconds of search per bot decision")
    bot_workers: int = Field(max(1, (os.cpu_count() or 2) - 1),
                             description="bot decisions at once (worker processes)")
    bot_processes: bool = Field(True, description="bots think in threads, not processes",
                                json_schema_extra=_cli(flag="bot-threads", inverse=True))
    max_body: int = Field(64 * 1024, description="bytes of an HTTP request body (413 above)")
    ws_message_max: int = Field(4096, description="characters of a websocket message")
    table_rate: str = Field("20/minute", description="tables created per client address")
    message_rate: str = Field("30/second", description="websocket messages per client address")
    talk_rate: str = Field("8/10 seconds", description="table messages per seat")
    connections_per_address: int = Field(32, description="open websockets per client address")
    http_connections_per_address: int = Field(64, description=(
        "open connections (HTTP and websocket) per client address, counted as they open "
        "(proxies of --forwarded-allow-ips aside)"))
    request_timeout: float = Field(10.0, description=(
        "seconds a client has to send a whole HTTP request (headers and body); a slower one "
        "is disconnected"))
    spectators_per_table: int = Field(50, description="spectators per table")
    send_queue: int = Field(500, description="unread messages before a slow client is closed")
    idle_unload: float = Field(300.0, description="seconds an idle table stays in memory")
    abandon_after_days: float = Field(30.0, description="days without a move before a "
                                                        "table expires")
    write_timeout: float = Field(5.0, description="seconds a database write may take before "
                                                  "it is refused")
    allowed_origins: tuple[str, ...] = Field(
        (), description="another site allowed to open websockets (repeatable)",
        json_schema_extra=_cli(flag="allowed-origin", repeat=True))
    allowed_hosts: tuple[str, ...] = Field(
        (), description=("a name the site is reached by (the Host header: e.g. regalia.example "
                         "or *.example.org; * for any), beside localhost, the loopback "
                         "addresses and the address served (repeatable)"),
        json_schema_extra=_cli(flag="allowed-host", repeat=True))
    join_rate: str = Field("20/minute", description="seats taken at open tables per client "
                                                    "address")
    open_list_max: int = Field(50, description="open tables listed in the lobby")
    clock_presets: str = Field("blitz=180+10,rapid=600+15,slow=1800+30", description=(
        "time controls NAME=BANK+INCREMENT seconds, comma-separated"))
    turn_presets: str = Field("day=86400,3days=259200", description=(
        "turn-based time controls NAME=SECONDS per move, comma-separated (the player to act "
        "has that long for each move; real time, a restart included)"))
    push_contact: str = Field("mailto:regalia@localhost", description=(
        "the contact the site's Web Push requests name (VAPID 'sub': mailto:ADDRESS or an "
        "https URL); push services may refuse a made-up one"))
    push_hosts: tuple[str, ...] = Field(
        ("fcm.googleapis.com", "updates.push.services.mozilla.com", "*.push.apple.com",
         "*.notify.windows.com"),
        description=("a push service's host a subscription may name (repeatable; "
                     "*.DOMAIN, or * for any https host)"),
        json_schema_extra=_cli(flag="push-host", repeat=True))
    push_rate: str = Field("30/hour", description=(
        "notification subscriptions added or removed per client address"))
    ws_compression: bool = Field(False, description=(
        "compress websocket messages (permessage-deflate: less bandwidth, more CPU per move)"))
    analysis_rate: str = Field("6/minute", description="game analyses per client address")
    replay_rate: str = Field("30/minute", description=(
        "game replays built per client address (one built already is free)"))
    hint_rate: str = Field("20/minute", description="hints per client address (tables with "
                                                    "hints)")
    hint_workers: int = Field(0, description=(
        "bot workers hints may take at once (0: half of bot_workers, at least 1); the bot "
        "moves a person waits for are served before hints"))
    hint_queue: int = Field(8, description=(
        "hints waiting for a bot worker (per server) beyond which a new hint is refused as "
        "busy"))
    open_tables_per_address: int = Field(3, description=(
        "open tables listed in the lobby per creator's address (all replicas)"))
    presence_every: float = Field(5.0, description=(
        "seconds between two changes of a seat's connected flag as the others see it (a "
        "player away for less stays shown connected)"))
    sign_up_rate: str = Field("10/hour", description="accounts created per client address")
    sign_in_rate: str = Field("10/minute", description=(
        "sign-ins per client address (refused ones too)"))
    rp_id: Optional[str] = Field(None, description=(
        "the passkeys' relying party id: the site's domain name (e.g. regalia.example), "
        "the same for every replica; a passkey works on that name and its subdomains. "
        "Unset: the name the page was reached by (its Host header, without the port)"))
    session_days: float = Field(30.0, description=(
        "days a browser stays signed in to an account (a new sign-in starts anew)"))
    daily_secret: Optional[str] = Field(None, repr=False, min_length=16, description=(
        "the key the daily deal's seeds are drawn with (HMAC-SHA256; at least 16 "
        "characters; every replica the same): better given as REGALIA_DAILY_SECRET than on "
        "the command line; unset: one drawn at the first start and kept in the database"))
    daily_solve_seconds: float = Field(60.0, description=(
        "seconds the solver may spend on a day's daily deal (once a day, in the analyses' "
        "worker); past them its verdict is 'not proven'"))
    friend_rate: str = Field("20/hour", description=(
        "friend requests sent per account (to names that exist or not)"))
    invite_rate: str = Field("30/hour", description="table invitations sent per account")
    online_ttl: float = Field(30.0, description=(
        "seconds a signed-in account stays shown online to its friends after its last "
        "sign of life (a lobby's poll; an open table page keeps it online)"))
    sqlite_sync: str = Field("full", description=(
        "SQLite's disk syncs: full (a stored move survives a power cut) or normal (it "
        "survives a crash of the server; a power cut may lose the last moves)"),
        json_schema_extra=_cli(choices=SQLITE_SYNC))

    @field_validator("clock_presets")
    @classmethod
    def _presets(cls, v: str) -> str:
        parse_presets(v)
        return v

    @field_validator("turn_presets")
    @classmethod
    def _turn_presets(cls, v: str) -> str:
        parse_turn_presets(v)
        return v

    @field_validator("push_contact")
    @classmethod
    def _contact(cls, v: str) -> str:
        if not (v.startswith("mailto:") and "@" in v) and not v.startswith("https://"):
            raise ValueError(f"push_contact: mailto:ADDRESS or an https:// URL, not {v!r}")
        return v

    @field_validator("push_hosts")
    @classmethod
    def _push_hosts(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for name in v:
            if not name or "*" in name[1:] or (name.startswith("*") and name != "*"
                                                and not name.startswith("*.")):
                raise ValueError(f"push_hosts: a host name, *.DOMAIN or *, not {name!r}")
        return v

    @field_validator("table_rate", "message_rate", "talk_rate", "join_rate", "analysis_rate",
                     "replay_rate", "hint_rate", "sign_up_rate", "sign_in_rate",
                     "friend_rate", "invite_rate", "push_rate")
    @classmethod
    def _rate(cls, v: str, info) -> str:
        try:
            limits.parse(v)
        except ValueError:
            raise ValueError(f"{info.field_name}: a rate like '20/minute', not {v!r}") from None
        return v

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for name in v:
            if not name or "*" in name[1:] or (name.startswith("*") and name != "*"
                                                and not name.startswith("*.")):
                raise ValueError(f"allowed_hosts: a host name, *.DOMAIN or *, not {name!r}")
        return v

    @field_validator("rp_id")
    @classmethod
    def _rp_id(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?"
                                              r"(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*", v):
            raise ValueError(f"rp_id: a domain name in lower case (e.g. regalia.example), "
                             f"without scheme or port, not {v!r}")
        return v

    @field_validator("sqlite_sync")
    @classmethod
    def _sync(cls, v: str) -> str:
        if v not in SQLITE_SYNC:
            raise ValueError(f"sqlite_sync: one of {', '.join(SQLITE_SYNC)}, not {v!r}")
        return v

    @model_validator(mode="after")
    def _counts(self) -> "Settings":
        for name in type(self).model_fields:
            v = getattr(self, name)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
                raise ValueError(f"{name}: must not be negative")
        if self.bot_workers < 1:
            raise ValueError("bot_workers: at least 1")
        same = set(parse_presets(self.clock_presets)) & set(parse_turn_presets(self.turn_presets))
        if same:
            raise ValueError(f"turn_presets: {sorted(same)[0]!r} is a clock preset's name "
                             "already; every time control needs a name of its own")
        return self

    @classmethod
    def names(cls) -> list[str]:
        """The fields' names, in order."""
        return list(cls.model_fields)

    def but(self, **changes: Any) -> "Settings":
        """A copy with ``changes`` (field names), validated like a new one; the
        environment is not read again."""
        return type(self)(**{**self.model_dump(), **changes})


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The names a site always answers to (a browser on the server's own machine)."""


def site_hosts(settings: Settings) -> list[str]:
    """The ``Host`` headers the site answers to: ``LOOPBACK_HOSTS`` and
    ``settings.allowed_hosts`` (Starlette's ``TrustedHostMiddleware`` patterns). A page of
    another site that a DNS name made point to this server (DNS rebinding) gets a 400."""
    return list(dict.fromkeys(LOOPBACK_HOSTS + settings.allowed_hosts))


def problem(e: ValidationError) -> str:
    """The first error of a ``Settings`` validation, in one line (``"sqlite_sync: one of
    full, normal, not 'off'"``; a type error: ``"bot_delay: Input should be a valid
    number..."``)."""
    err = e.errors()[0]
    msg = str(err["msg"]).removeprefix("Value error, ")
    where = ".".join(str(x) for x in err["loc"])
    return msg if not where or msg.startswith(f"{where}:") else f"{where}: {msg}"


SeedSource = Callable[[], int]
