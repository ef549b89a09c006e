"""The daily deal (README "The daily deal"): each UTC day one solo Regicide deal, the same
for every player, dealt at a solo table with the standard solo options (rules 1.14, the
rule options' defaults), no hints and no bot seat.

* The seed: ``daily_seed(key, day)``, the first 52 bits of HMAC-SHA256 keyed with the
  server's secret over ``"regalia-daily:YYYY-MM-DD"``. The secret is the setting
  ``daily_secret`` (``REGALIA_DAILY_SECRET``), or 32 random bytes drawn at the server's
  first start and kept in the database (``DailyStore.secret``, the same for every
  replica). HMAC being a pseudorandom function, neither a day's seed nor any other day's
  can be told without the key, and one day's seed tells nothing of the next. A day's seed
  is stored at its first use that day (``DailyStore.deal``): from then on every replica
  deals it, even one started with another secret; no day is drawn before it begins.
* Plays (``Daily.start``): a signed-in account plays each day's deal once, ranked (a
  second start is refused, ``daily_played``, whatever the replica); a player without an
  account may play it too, unranked (the page keeps it to one play per browser).
* Results (``score``): medal (rules 1.14: gold, silver, bronze by Jesters left; none for
  a game lost or stopped), enemies defeated, moves played, the time of its last row;
  worked out from the move log once the game ended, and stored. A game a bot played any
  move of (a seat handed to a bot) is not ranked.
* The leaderboard (``Daily.report``): the ranked results by medal, then enemies defeated
  (most first), then moves (fewest first), then the earlier finish.
* The verdict: the solver (``regalia.lab.solve``, with its medals) works out once per day
  whether the deal can be won, the best medal reachable and a winning line, in the
  analyses' worker (``botwork.solve_deal``: off the event loop, within
  ``daily_solve_seconds``; past them the verdict is "not proven"), from the day's first
  play on; one replica at a time (``DailyStore.claim_solve``); stored with the day's deal.
  It is shown to a player once their game of that day is over, never before; a past day's
  to anyone who has no game of that day still being played.
* Spoilers: while a day lasts, its tables are named to nobody but their players (the
  leaderboard lists no table, profiles list none of that day's games).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from datetime import date, datetime, timedelta, timezone
from functools import partial
from typing import Any, Callable
from urllib.parse import quote

from regalia.core.records import Ending, Match
from regalia.games import get_game
from regalia.server.refusal import Refusal
from regalia.server.replicas.cluster import default_replica_name
from regalia.server.settings import Settings
from regalia.server.storage.accounts import AccountData
from regalia.server.storage.daily import AlreadyPlayed, DailyStore, DealData, PlayData
from regalia.server.storage.models import BOT, HUMAN, PLAYING, now
from regalia.server.storage.values import NewSeat, SeatData, TableData
from regalia.server.tables import gamekit
from regalia.server.tables.botwork import solve_deal
from regalia.server.tables.core import TableCore
from regalia.server.tables.registry import TableRegistry
from regalia.server.tables.table import Table

log = logging.getLogger("regalia.server")

GAME = "regicide"
CONFIG: dict[str, Any] = {"players": 1}  # solo, every rule option at its default
SEED_BITS = 52  # as a table's secret seed (settings.secure_seed)
SECRET = "daily"  # the name of the key among the server's secrets
LEADERBOARD_SIZE = 100  # the best results a report lists
SCORES_PER_VIEW = 200  # ended games a report works the results of out at most
SOLVE_MARGIN = 120.0  # seconds past daily_solve_seconds after which a claim is given up
SOLVE_FAILURES = 3  # failed attempts after which a day's verdict is "not proven"
MEDAL_RANK = {"gold": 3, "silver": 2, "bronze": 1}
SOLVER_SEAT = {"seat": 0, "kind": BOT, "bot": "solver", "bot_replaces": False,
               "connected": False, "name": None, "claimed": True, "name_fixed": False,
               "timed_out": False}  # the solver's line: its one seat, as a table shows it


def daily_seed(key: bytes, day: date) -> int:
    """The seed of ``day``'s deal: the first ``SEED_BITS`` bits of HMAC-SHA256(``key``,
    ``"regalia-daily:YYYY-MM-DD"``), an integer in ``[0, 2**52)``."""
    digest = hmac.new(key, f"regalia-daily:{day.isoformat()}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def parse_day(text: str) -> date:
    """``"YYYY-MM-DD"`` as a date; raises ``Refusal("bad_request")`` for anything else."""
    try:
        if len(text) != 10:
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise Refusal("bad_request", "date: a day as YYYY-MM-DD (UTC), e.g. 2026-05-01") from None


def score(config: dict[str, Any], seed: int, moves: list[str], ending: Ending | None,
          assisted: bool) -> dict[str, Any]:
    """The result of a daily game from its move log: ``{"won", "medal", "medal_rank",
    "enemies", "moves", "assisted"}``. ``medal`` (rules 1.14) only for a game its rules
    ended in a win and no bot played part of (``assisted``); ``medal_rank`` 3 to 0 (gold to
    none); ``enemies``: defeated, 0 to 12; ``moves``: actions played (an ending row is
    none). Raises ``RegaliaError`` for a log the rules refuse."""
    g = get_game(GAME)
    m = Match(g, config, seed)
    for action in moves:
        m.play(action)
    view = g.view(m.state, None, log=False)
    won = ending is None and (g.outcome(m.state) or {}).get("result") == "won"
    medal = view["medal"] if won and not assisted else None
    return {"won": won, "medal": medal, "medal_rank": MEDAL_RANK.get(medal or "", 0),
            "enemies": int(view["enemies_defeated"]), "moves": len(moves),
            "assisted": bool(assisted)}


def score_all(plays: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """``score`` of each play of ``DailyStore.unscored``, by play id, with its
    ``finished_at``; a log the rules refuse is logged and left out."""
    out = {}
    for p in plays:
        try:
            r = score(p["config"], p["seed"], p["moves"], p["ending"], p["assisted"])
        except Exception as e:  # noqa: BLE001 - one bad record spoils no leaderboard
            log.error("daily table %s: its result cannot be worked out: %s", p["table_id"], e)
            continue
        out[p["id"]] = {**r, "finished_at": p["finished_at"]}
    return out


def line_core(deal: DealData, line: list[str]) -> TableCore:
    """The solver's winning ``line`` of ``deal`` as a finished table's core (for its replay,
    ``web.api.replay_from``): one bot seat, the solver's, and the line as its move log.
    Raises ``RegaliaError`` for a line the rules refuse."""
    data = TableData(f"daily-{deal.day}", GAME, dict(deal.config), deal.seed, "finished",
                     now(), [SeatData(0, BOT, "solver", None, False, None, True)],
                     moves=[(i, 0, a) for i, a in enumerate(line)])
    return TableCore(data)


def _result(p: PlayData) -> dict[str, Any] | None:
    if not p.scored:
        return None
    return {"won": bool(p.won), "medal": p.medal, "enemies": p.enemies, "moves": p.moves,
            "finished_at": p.finished_at, "assisted": bool(p.assisted)}


class Daily:
    """The daily deal of one server (see the module docstring) over its table registry
    ``m`` (tables, writer, analyses' worker) and ``settings`` (``daily_secret``,
    ``daily_solve_seconds``). ``utc_now()``: the time the day is read from (tests may fix
    it; no request can)."""

    def __init__(self, registry: TableRegistry, settings: Settings,
                 utc_now: Callable[[], datetime] = now) -> None:
        self.m = registry
        self.settings = settings
        self.store = DailyStore(registry.store)
        self.utc_now = utc_now
        self.replica = registry.cluster.name if registry.cluster else default_replica_name()
        self._key: bytes | None = None
        self._solving: dict[str, asyncio.Task] = {}
        self._claimed: set[str] = set()  # the days whose verdict this replica works out
        self._failures: dict[str, int] = {}

    # -- life ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Read the server's secret (drawn and stored now when there is none and no setting
        gives one); a database that cannot store it now is asked again at the first daily
        deal."""
        try:
            await self.key()
        except Refusal as e:
            log.warning("the daily deal's secret could not be read or stored: %s", e.message)

    async def stop(self) -> None:
        """Stop waiting for the verdicts being worked out here, and give up their claims
        (another replica, or this one started again, may work them out)."""
        tasks = list(self._solving.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for day in list(self._claimed):
            try:
                await self.m.writer.write(self.store.release_solve, day, self.replica)
            except Exception as e:  # noqa: BLE001 - the claim goes stale instead
                log.warning("the claim on the daily verdict of %s was left: %s", day, e)
        self._claimed.clear()

    async def key(self) -> bytes:
        """The key of the daily seeds: the setting ``daily_secret`` (its UTF-8 bytes), or
        the one kept in the database (drawn there at the first start)."""
        if self.settings.daily_secret:
            return self.settings.daily_secret.encode()
        if self._key is None:
            stored = await self.m.writer.write(self.store.secret, SECRET,
                                               lambda: secrets.token_hex(32))
            self._key = bytes.fromhex(stored)
        return self._key

    def today(self) -> date:
        """The current UTC day."""
        return self.utc_now().astimezone(timezone.utc).date()

    async def deal(self, day: date, create: bool = False) -> DealData | None:
        """``day``'s deal as stored; with ``create`` (the current day only), drawn
        (``daily_seed``) and stored when it is not yet. ``None``: no deal of that day."""
        text = day.isoformat()
        found = await self._read(self.store.find_deal, text)
        if found is not None or not create:
            return found
        seed = daily_seed(await self.key(), day)
        return await self.m.writer.write(self.store.deal, text, seed, dict(CONFIG))

    async def _read(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the database thread; ``Refusal("storage")`` when it fails."""
        try:
            return await self.m.db(fn, *args)
        except Exception as e:
            self.m.writer.failed(str(e)[:200])
            raise Refusal("storage", "the server's database cannot be read now; try again "
                                     "later") from None

    # -- playing ------------------------------------------------------------------------

    async def start_play(self, account: AccountData | None, name: str | None = None,
                         count: Callable[[], Any] | None = None
                         ) -> tuple[Table, str, str, str]:
        """A new table of today's deal for ``account`` (ranked) or for a player without one
        (``name``: their nickname, or none). ``count``: awaited before the table is stored
        (the creator's rate limit). Returns the table, the seat's token, the spectators'
        token and the day (``YYYY-MM-DD``). Raises ``Refusal``: ``daily_played`` (409) when
        the account has a table of today's deal already; ``bad_request`` for a nickname the
        rules refuse (``gamekit.NAME_RULE``); ``too_fast``, ``storage``."""
        clean = None
        if account is None and name is not None:
            clean = gamekit.clean_name(name)
            if clean is None:
                raise Refusal("bad_request", gamekit.NAME_RULE)
        day = self.today()
        text = day.isoformat()
        deal = await self.deal(day, create=True)
        assert deal is not None
        played = Refusal("daily_played", "you have played today's daily deal already: each "
                                         "account plays it once a day (see /daily)")
        if account is not None and await self._read(self.store.play_of, text, account.id):
            raise played
        if count is not None:
            await count()
        # a ranked game's seat is the account's: any browser signed in to it opens it
        seat = NewSeat(HUMAN, None, account.name if account else clean, claimed=True,
                       account_id=account.id if account else None)
        try:
            data, tokens = await self.m.writer.write(partial(
                self.m.store.new_table, GAME, dict(deal.config), deal.seed, [seat],
                also=DailyStore.recorder(text, account.id if account else None)))
        except AlreadyPlayed:
            raise played from None
        table = await self.m.get(data.id, data)
        assert table is not None and tokens[0] is not None
        self.solve_soon(text)
        return table, tokens[0], data.watch_token or "", text

    # -- the verdict --------------------------------------------------------------------

    def solve_soon(self, day: str) -> None:
        """Work out ``day``'s verdict in the background unless it is stored or under way
        (here, or on another replica that claimed it)."""
        if day in self._solving or self.m.bots.closed:
            return
        task = asyncio.get_running_loop().create_task(self._solve(day))
        self._solving[day] = task
        task.add_done_callback(lambda _t: self._solving.pop(day, None))

    async def _solve(self, day: str) -> None:
        seconds = self.settings.daily_solve_seconds
        try:
            deal = await self.m.db(self.store.find_deal, day)
            if deal is None or deal.verdict is not None:
                return
            stale = now() - timedelta(seconds=seconds + SOLVE_MARGIN)
            if not await self.m.writer.write(self.store.claim_solve, day, self.replica, stale):
                return
            self._claimed.add(day)
            try:
                verdict = await self.m.analyses.pool.run(solve_deal, deal.seed,
                                                         dict(deal.config), seconds)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - tried again, then said "not proven"
                failures = self._failures[day] = self._failures.get(day, 0) + 1
                log.error("the solver failed on the daily deal of %s (%d): %r", day,
                          failures, e)
                if failures < SOLVE_FAILURES:
                    await self.m.writer.write(self.store.release_solve, day, self.replica)
                    self._claimed.discard(day)
                    return
                verdict = {"seed": deal.seed, "result": "undecided", "medal": None,
                           "medal_proven": False, "line": [], "nodes": 0, "seconds": 0.0,
                           "decide_seconds": 0.0, "limit": seconds, "failed": True}
            await self.m.writer.write(self.store.set_verdict, day, verdict)
            self._claimed.discard(day)
            log.info("daily deal of %s: the solver says %s (%s)", day, verdict["result"],
                     verdict.get("medal"))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the next report that needs it tries again
            log.exception("the daily deal of %s could not be solved", day)

    @staticmethod
    def verdict_info(deal: DealData, line_link: str | None) -> dict[str, Any]:
        """A stored verdict as a report shows it: ``{"state": "ready", "result"
        ("won", "lost", "undecided"), "winnable" (true, false, or null: not proven in
        time), "best_medal" (of the best line found), "medal_proven" (no better medal
        exists), "line_moves", "line" (the replay page of the winning line, or null),
        "seconds", "limit"}``."""
        v = deal.verdict or {}
        result = v.get("result", "undecided")
        won = result == "won" and bool(v.get("line"))
        return {"state": "ready", "result": result if won or result != "won" else "undecided",
                "winnable": True if won else False if result == "lost" else None,
                "best_medal": v.get("medal") if won else None,
                "medal_proven": bool(v.get("medal_proven")) if won else False,
                "line_moves": len(v.get("line") or []) if won else 0,
                "line": line_link if won else None,
                "seconds": v.get("seconds"), "limit": v.get("limit")}

    # -- reports ------------------------------------------------------------------------

    async def _score(self, day: str, play_id: int | None = None) -> None:
        """Work out and store the results of ``day``'s ranked games that ended (at most
        ``SCORES_PER_VIEW``), or of the one play ``play_id``."""
        todo = await self._read(self.store.unscored, day, SCORES_PER_VIEW, play_id)
        if todo:
            results = await asyncio.to_thread(score_all, todo)
            if results:
                await self.m.writer.write(self.store.set_scores, results)

    async def whose(self, day: date, account: AccountData | None,
                    table_id: str | None) -> PlayData | None:
        """The asker's play of ``day``: the account's, else the table ``table_id`` when it
        was dealt that day's deal (a table id is known to its players only, while the day
        lasts)."""
        text = day.isoformat()
        mine = None
        if account is not None:
            mine = await self._read(self.store.play_of, text, account.id)
        if mine is None and isinstance(table_id, str) and 0 < len(table_id) <= 32:
            p = await self._read(self.store.play_of_table, table_id)
            if p is not None and p.day == text:
                mine = p
        return mine

    def visible(self, day: date, mine: PlayData | None) -> bool:
        """Whether the verdict of ``day`` may be shown to the asker whose play that is:
        their game is over; or the day is over and they have no game of it going on."""
        if mine is not None:
            return mine.status != PLAYING
        return day < self.today()

    async def checked_day(self, text: str | None) -> tuple[date, DealData]:
        """The day asked (default: today) and its deal (today's drawn now if need be).
        Raises ``Refusal``: ``bad_request`` for a malformed day or one still to come,
        ``not_found`` for a past day nobody played."""
        today = self.today()
        day = today if text is None else parse_day(text)
        if day > today:
            raise Refusal("bad_request", f"date: the daily deal of a day opens on that day "
                                         f"(UTC); today is {today.isoformat()}")
        deal = await self.deal(day, create=day == today)
        if deal is None:
            raise Refusal("not_found", f"nobody played the daily deal of {day.isoformat()}")
        return day, deal

    async def report(self, day_text: str | None, account: AccountData | None,
                     table_id: str | None) -> dict[str, Any]:
        """The ``GET /api/daily`` answer (``web.schemas.daily.DailyReport``): the day, the
        asker's status (their play: the account's, else the table ``table_id`` of that day),
        the leaderboard (at most ``LEADERBOARD_SIZE``; a table's replay linked only once the
        day is over, or for the asker's own ended game) and the verdict (``verdict_info``;
        ``{"state": "hidden"}`` while the asker's game of that day is not over, or
        ``"pending"`` while it is worked out). Raises ``Refusal`` (``checked_day``,
        ``storage``)."""
        day, deal = await self.checked_day(day_text)
        today = self.today()
        text = day.isoformat()
        mine = await self.whose(day, account, table_id)
        await self._score(text)
        if mine is not None and mine.status != PLAYING and not mine.scored:
            await self._score(text, mine.id)
        if mine is not None:
            mine = await self._read(self.store.play_of_table, mine.table_id)
        ranked = await self._read(self.store.ranked, text)
        played = await self._read(self.store.count_plays, text)
        board = []
        rank = None
        for i, r in enumerate(ranked):
            own = mine is not None and r.table_id == mine.table_id
            if own:
                rank = i + 1
            if i < LEADERBOARD_SIZE:
                board.append({"rank": i + 1, "name": r.name,
                              "profile": f"/players/{quote(r.name)}", "won": r.won,
                              "medal": r.medal, "enemies": r.enemies, "moves": r.moves,
                              "finished_at": r.finished_at, "you": own,
                              "replay": f"/replay/{r.table_id}" if day < today or own
                              else None})
        if not self.visible(day, mine):
            verdict: dict[str, Any] = {"state": "hidden"}
        elif deal.verdict is None:
            self.solve_soon(text)
            verdict = {"state": "pending"}
        else:
            link = f"/daily/{text}/line" + (f"?table={mine.table_id}" if mine else "")
            verdict = self.verdict_info(deal, link)
        you = {"account": account.name if account else None,
               "table": mine.table_id if mine else None,
               "status": mine.status if mine else None,
               "ranked": bool(mine and mine.account_id is not None
                              and not (mine.scored and mine.assisted)),
               "result": _result(mine) if mine else None, "rank": rank,
               "can_play": day == today and mine is None}
        return {"date": text, "today": today.isoformat(),
                "previous": (day - timedelta(days=1)).isoformat(),
                "next": (day + timedelta(days=1)).isoformat() if day < today else None,
                "you": you, "played": played, "ranked": len(ranked),
                "leaderboard": board, "verdict": verdict}

    async def line(self, day_text: str | None, account: AccountData | None,
                   table_id: str | None) -> DealData:
        """The deal of the day asked, when its solver's winning line may be shown to the
        asker (as its verdict: ``visible``). Raises ``Refusal``: ``not_finished`` (409)
        before the asker's game of that day is over; ``not_found`` when the verdict is not
        worked out yet or has no winning line; those of ``checked_day``."""
        day, deal = await self.checked_day(day_text)
        mine = await self.whose(day, account, table_id)
        if not self.visible(day, mine):
            raise Refusal("not_finished", "the solver's line of a daily deal opens once your "
                                          "game of that day is over")
        if deal.verdict is None:
            self.solve_soon(day.isoformat())
            raise Refusal("not_found", "the solver is still working on this deal; try again "
                                       "in a minute")
        if deal.verdict.get("result") != "won" or not deal.verdict.get("line"):
            raise Refusal("not_found", "the solver found no winning line for this deal")
        return deal
