"""The checks of a new table's request (``POST /api/tables``): ``check_create`` turns its
body into a ``NewTable`` or refuses it, before anything is counted or stored."""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Any

from regalia.bots import bot_choices, unknown_bot
from regalia.core.errors import RegaliaError
from regalia.core.records import Match
from regalia.games import GAME_NAMES, TITLES, get_game
from regalia.lab.ratings import RATED_GAMES
from regalia.server.refusal import Refusal
from regalia.server.storage.accounts import AccountData
from regalia.server.storage.models import BOT, HUMAN
from regalia.server.storage.values import NewSeat
from regalia.server.tables import gamekit
from regalia.server.tables.clocks import Clock

CREATE_FIELDS = ("game", "players", "options", "seats", "open", "clock", "name", "hints",
                 "rated")


def creator_key(address: str) -> str:
    """What the database keeps of an open table's creator: a hash of the client's address
    (never the address), the same on every replica; an IPv6 address counts by its /64
    network (one subscriber's block)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        ip = None
    if ip is not None and ip.version == 6 and ip.ipv4_mapped is None:
        address = str(ipaddress.ip_network(f"{ip}/64", strict=False))
    elif ip is not None and ip.version == 6:
        address = str(ip.ipv4_mapped)
    return hashlib.sha256(f"regalia-creator:{address}".encode()).hexdigest()[:32]


@dataclass
class NewTable:
    """A new table as its request asks for it: the game, its config (``players`` and the
    rule options), the secret seed it is dealt from, the seats (the creator's first, claimed
    when it is a human seat; at a rated table linked to the creator's account and named by
    it), whether it is listed in the lobby, its clocks' config (``Clock.config``), hints,
    and whether it is rated."""

    game: str
    config: dict[str, Any]
    seed: int
    seats: list[NewSeat]
    is_open: bool
    clock: dict[str, Any] | None
    hints: bool
    rated: bool = False


def clock_choices(clock_presets: dict[str, tuple[float, float]],
                  turn_presets: dict[str, float] | None = None) -> str:
    """The words that list the time controls a table may have (a refusal's)."""
    live = ", ".join(clock_presets) or "none"
    turns = ", ".join(turn_presets or {})
    return ("clock: null (no clock), a live clock (" + live + ")"
            + (f" or a turn-based one, time per move ({turns})" if turns else ""))


def check_create(body: Any, clock_presets: dict[str, tuple[float, float]], seed: int,
                 account: AccountData | None = None,
                 turn_presets: dict[str, float] | None = None) -> NewTable:
    """The table a ``POST /api/tables`` body asks for, to be dealt from ``seed``
    (``clock_presets``: the server's live clocks, ``settings.parse_presets``;
    ``turn_presets``: its turn-based ones, ``settings.parse_turn_presets``); ``account``: the
    account the request is signed in to (``None``: none). A rated table (``rated``) is a
    game of ``lab.ratings.RATED_GAMES`` whose every seat is a person's, created by a
    signed-in player, whose seat is linked to the account and named by it. Raises
    ``Refusal("bad_request")`` saying what is wrong, ``Refusal("rated_signed_out")`` for
    a rated table asked by nobody signed in."""
    if not isinstance(body, dict):
        raise Refusal("bad_request", "the body must be a JSON object")
    for key in body:
        if key == "seed":
            raise Refusal("bad_request", "seed: the server deals every table from a secret "
                                         "random source; it cannot be chosen")
        if key not in CREATE_FIELDS:
            raise Refusal("bad_request", f"unknown field {str(key)[:40]!r}; the fields "
                                         f"are {', '.join(CREATE_FIELDS)}")
    game, players, options, seats, is_open, clock, nickname, hints, rated = (
        body.get(k) for k in CREATE_FIELDS)
    if not isinstance(game, str) or game not in GAME_NAMES:
        raise Refusal("bad_request", f"game: choose one of {', '.join(GAME_NAMES)}")
    g = get_game(game)
    if players is None and g.min_players == g.max_players:
        players = g.min_players
    if type(players) is not int or not g.min_players <= players <= g.max_players:
        how_many = (f"exactly {g.min_players}" if g.min_players == g.max_players
                    else f"{g.min_players} to {g.max_players}")
        raise Refusal("bad_request", f"players: {g.name} is for {how_many} players")
    options = {} if options is None else options
    if not isinstance(options, dict) or "players" in options:
        raise Refusal("bad_request", "options: an object of rule options")
    why = gamekit.options_problem(game, options)
    if why:
        raise Refusal("bad_request", why)
    if seats is None:  # every seat for a person
        seats = [{"kind": HUMAN}] * players
    if not isinstance(seats, list) or len(seats) != players:
        raise Refusal("bad_request", f"seats: give one entry per player ({players})")
    kinds: list[tuple[str, str | None]] = []
    for i, s in enumerate(seats):
        kind = s.get("kind") if isinstance(s, dict) else None
        extra = sorted(set(s) - {"kind", "bot"}) if isinstance(s, dict) else []
        if extra or (kind == HUMAN and "bot" in s):
            field = (extra[0] if extra else "bot")[:40]
            raise Refusal("bad_request", f"seats[{i}]: unknown field {field!r} (a seat has "
                                         "kind, and bot for a bot seat)")
        if kind == HUMAN:
            kinds.append((HUMAN, None))
        elif kind == BOT:
            name = s.get("bot", gamekit.default_bot(game))
            if not isinstance(name, str) or name not in bot_choices(game):
                raise Refusal("bad_request", f"seats[{i}].bot: {unknown_bot(game, name)}")
            kinds.append((BOT, name))
        else:
            raise Refusal("bad_request", f"seats[{i}].kind: human or bot")
    if is_open is not None and type(is_open) is not bool:
        raise Refusal("bad_request", "open: true (listed in the lobby) or false")
    turn_presets = turn_presets or {}
    if clock is not None and (not isinstance(clock, str)
                              or (clock not in clock_presets and clock not in turn_presets)):
        raise Refusal("bad_request", clock_choices(clock_presets, turn_presets))
    clean = gamekit.clean_name(nickname) if nickname is not None else None
    if nickname is not None and clean is None:
        raise Refusal("bad_request", gamekit.NAME_RULE)
    if hints is not None and type(hints) is not bool:
        raise Refusal("bad_request", "hints: true (a Hint button, no medal) or false")
    if hints and not (g.solo_hints and players == 1 and kinds[0][0] == HUMAN):
        raise Refusal("bad_request", "hints: only a solo Regicide table played by a human "
                                     "may have hints")
    if kinds[0][0] != HUMAN and is_open:
        raise Refusal("bad_request", "open: the creator takes the first seat (seat 0), "
                                     "which must be a human seat")
    if rated is not None and type(rated) is not bool:
        raise Refusal("bad_request", "rated: true (a game between two accounts that changes "
                                     "their ratings) or false")
    if rated and game not in RATED_GAMES:
        raise Refusal("bad_request", "rated: only "
                      + ", ".join(TITLES.get(n, n) for n in RATED_GAMES)
                      + " tables may be rated")
    if rated and any(kind != HUMAN for kind, _ in kinds):
        raise Refusal("bad_request", "rated: every seat of a rated table is a person's (a "
                                     "rated game is between two accounts; no bot)")
    if rated and account is None:
        raise Refusal("rated_signed_out", "rated: sign in first: a rated table is created "
                                          "by a signed-in player, and each of its seats is "
                                          "taken by a signed-in account")
    config = {"players": players, **options}
    try:
        Match(g, config, seed)
    except (RegaliaError, TypeError, ValueError) as e:
        raise Refusal("bad_request", f"options: {e}") from None
    new = [NewSeat(kind, bot) for kind, bot in kinds]
    if new[0].kind == HUMAN:  # the creator's seat
        new[0].claimed, new[0].name = True, clean
    if rated and account is not None:  # played by the creator's account, named by it
        new[0].name, new[0].account_id = account.name, account.id
    clock_cfg = None
    if clock is not None and clock in turn_presets:
        clock_cfg = Clock.new(clock, turn_presets[clock], 0.0, players, per_move=True).config()
    elif clock is not None:
        bank, inc = clock_presets[clock]
        clock_cfg = Clock.new(clock, bank, inc, players).config()
    return NewTable(game, config, seed, new, bool(is_open), clock_cfg, bool(hints), bool(rated))
