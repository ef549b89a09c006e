"""The JSON API's request and answer models: FastAPI validates each request body with them
and publishes them in the OpenAPI schema (``/openapi.json``, ``/api/docs``).

The models check a body's shape (fields, types); what a value means for a game (its
player count, rule options, bots, the site's clock presets, hints) is the table
registry's to check. A body the models refuse is answered 400 ``{"error", "code":
"bad_request"}`` with the first problem in the registry's words (``refusal``), so that a
client reads the same sentence whichever layer refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from regalia.games import GAME_NAMES, get_game
from regalia.server import tutorials
from regalia.server.tables import gamekit
from regalia.server.web.ceremonies import LABEL_MAX, LABEL_RULE
from regalia.server.web.passwords import PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE

GameName = Literal[GAME_NAMES]  # type: ignore[valid-type] - the games registry's names


def _players_range() -> tuple[int, int]:
    games = [get_game(n) for n in GAME_NAMES]
    return min(g.min_players for g in games), max(g.max_players for g in games)


MIN_PLAYERS, MAX_PLAYERS = _players_range()
NAME = {"minLength": 1, "maxLength": gamekit.NAME_MAX}  # a nickname, as the schema tells it


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatRequest(Closed):
    """One seat of a new table: a person's or a bot's."""

    kind: Literal["human", "bot"]
    bot: Optional[StrictStr] = Field(None, description=(
        "a level (easy, medium, hard, strongest) or a bot of the game, by name (GET "
        "/api/games: levels, bots); default: the game's default bot"))


class CreateTable(Closed):
    """``POST /api/tables``. The server draws the seed and the first player: a ``seed``
    or ``options.first_player`` is refused."""

    game: GameName
    players: Optional[StrictInt] = Field(None, ge=MIN_PLAYERS, le=MAX_PLAYERS, description=(
        "the game's player count (default: its only one)"))
    options: Optional[dict[str, Any]] = Field(None, description="rule options (GET /api/games)")
    seats: Optional[list[SeatRequest]] = Field(None, description=(
        "one entry per player, seat 0 first (default: every seat for a person)"))
    open: Optional[StrictBool] = Field(None, description=(
        "listed in the lobby; the table waits until its human seats are taken"))
    clock: Optional[StrictStr] = Field(None, description=(
        "a time control by name (GET /api/clocks: live clocks, and turn-based ones with "
        "per_move); null: none"))
    name: Optional[StrictStr] = Field(None, json_schema_extra=NAME, description=(
        "the creator's nickname; the creator takes seat 0"))
    hints: Optional[StrictBool] = Field(None, description=(
        "a Hint button (solo Regicide played by a human; no medal)"))
    rated: Optional[StrictBool] = Field(None, description=(
        "a rated game (Le Roy des Ribauds, two people): asked by a signed-in browser, whose "
        "account takes seat 0; the other seat is taken by another signed-in account"))


class JoinTable(Closed):
    """``POST /api/tables/{id}/join``: take a free seat of an open table."""

    name: StrictStr = Field(json_schema_extra=NAME, description="the player's nickname")


class Rematch(Closed):
    """``POST /api/tables/{id}/rematch``, by a seated player of a finished table."""

    token: Optional[StrictStr] = Field(None, description="the player's seat token")


class TutorialMoves(Closed):
    """``POST /api/tutorials/{game}``: the learner's moves so far, in order."""

    moves: list[StrictStr] = Field(default_factory=list, max_length=tutorials.MAX_MOVES,
                                   description="actions in notation (formats.md), the "
                                               "learner's only")


class SeatCreated(BaseModel):
    seat: int
    kind: Literal["human", "bot"]
    bot: Optional[str]
    token: Optional[str] = Field(None, description="a human seat's secret token")
    link: Optional[str] = Field(None, description="a human seat's invitation link")


class TableCreated(BaseModel):
    """The answer to ``POST /api/tables`` (201)."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    seats: list[SeatCreated]
    open: bool
    clock: Optional[dict[str, Any]]
    rated: bool = Field(False, description="a rated game")
    you: Optional[int] = Field(description="the creator's seat (the first human seat)")
    spectate: str = Field(description="the spectators' link, with their secret token")
    replay: str


class SeatTaken(BaseModel):
    """The answer to ``POST /api/tables/{id}/join``."""

    id: str
    game: str
    players: int
    seat: int
    token: str
    link: str


class RematchMade(BaseModel):
    """The answer to ``POST /api/tables/{id}/rematch``: the new table, the same seat."""

    id: str
    game: str
    players: int
    seat: Optional[int]
    link: str


class Clock(BaseModel):
    """A time control a table may be created with (``clock``: its ``name``)."""

    name: str
    bank: float = Field(description="seconds each player starts with (turn-based: seconds "
                                    "for each move)")
    increment: float = Field(description="seconds added after each move (turn-based: 0)")
    per_move: bool = Field(False, description=(
        "a turn-based clock: the player to act has bank seconds for each move, real time "
        "(a day is a day), and a player out of time is replaced by a bot"))


class Problem(BaseModel):
    """Every error answer (4xx, 5xx): what was wrong and what is allowed, a code for
    programs, and over a rate limit (429) the seconds to wait (``Retry-After`` too)."""

    error: str
    code: str
    retry_after: Optional[int] = None


# -- accounts (``web.accounts``) ---------------------------------------------------------

ACCOUNT_NAME = {"minLength": gamekit.ACCOUNT_NAME_MIN, "maxLength": gamekit.ACCOUNT_NAME_MAX}
PASSWORD = {"minLength": PASSWORD_MIN, "maxLength": PASSWORD_MAX}


class Credentials(Closed):
    """``POST /api/account/sign-up`` and ``POST /api/account/sign-in``."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the account's name (unique whatever its case or width)"))
    password: StrictStr = Field(max_length=256, json_schema_extra=PASSWORD)


class SeatProof(Closed):
    """A seat this browser holds: its table and its secret token (from its link)."""

    id: StrictStr = Field(max_length=32, description="the table's id")
    token: StrictStr = Field(max_length=100, description="the seat's token")


class AdoptTables(Closed):
    """``POST /api/account/tables``: the seats this browser holds, to link to the account."""

    tables: list[SeatProof] = Field(max_length=100)


B64URL = r"^[A-Za-z0-9_-]*={0,2}$"  # WebAuthn's binary fields in JSON


def _b64(most: int, what: str) -> Any:
    return Field(max_length=most, pattern=B64URL, description=f"{what} (base64url)")


class Lenient(BaseModel):
    """A part of the browser's answer: the fields read, any other ignored (browsers add
    fields of their own)."""

    model_config = ConfigDict(extra="ignore")


class AttestationResponse(Lenient):
    clientDataJSON: StrictStr = _b64(8192, "the client data")
    attestationObject: StrictStr = _b64(32768, "the attestation object")
    transports: list[StrictStr] = Field(default_factory=list, max_length=10, description=(
        "how the authenticator is reached (usb, nfc, ble, internal, hybrid...)"))


class AssertionResponse(Lenient):
    clientDataJSON: StrictStr = _b64(8192, "the client data")
    authenticatorData: StrictStr = _b64(4096, "the authenticator data")
    signature: StrictStr = _b64(2048, "the signature")
    userHandle: Optional[StrictStr] = _b64(256, "the account's WebAuthn user handle")


class RegistrationCredential(Lenient):
    """The answer of ``navigator.credentials.create()`` in WebAuthn's JSON form."""

    id: StrictStr = _b64(1400, "the credential's id")
    rawId: StrictStr = _b64(1400, "the credential's id")
    type: Literal["public-key"]
    response: AttestationResponse
    authenticatorAttachment: Optional[StrictStr] = Field(None, max_length=32)


class AuthenticationCredential(Lenient):
    """The answer of ``navigator.credentials.get()`` in WebAuthn's JSON form."""

    id: StrictStr = _b64(1400, "the credential's id")
    rawId: StrictStr = _b64(1400, "the credential's id")
    type: Literal["public-key"]
    response: AssertionResponse
    authenticatorAttachment: Optional[StrictStr] = Field(None, max_length=32)


CEREMONY = Field(min_length=20, max_length=100, description=(
    "the ceremony's token, as its beginning answered it"))


class BeginPasskey(Closed):
    """The beginning of a passkey sign-in, addition or confirmation: no field."""


class PasskeySignUp(Closed):
    """``POST /api/account/passkeys/sign-up/begin``: the new account's name."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the account's name (unique whatever its case or width)"))


class PasskeyRegistration(Closed):
    """``POST /api/account/passkeys/register/finish`` and ``.../sign-up/finish``: the
    browser's new passkey, answering the ceremony begun."""

    ceremony: StrictStr = CEREMONY
    credential: RegistrationCredential
    label: Optional[StrictStr] = Field(None, max_length=64, description=(
        f"a name for the passkey, 1 to {LABEL_MAX} characters (default: Passkey N)"))


class PasskeyAnswer(Closed):
    """``POST /api/account/passkeys/sign-in/finish`` (and ``DELETE /api/account``'s
    ``passkey``): the browser's passkey signing the ceremony's challenge."""

    ceremony: StrictStr = CEREMONY
    credential: AuthenticationCredential


class ConfirmDeletion(Closed):
    """``DELETE /api/account``: the account's password again, or a passkey's answer to the
    ceremony of ``POST /api/account/passkeys/confirm/begin`` (one of the two)."""

    password: Optional[StrictStr] = Field(None, max_length=256)
    passkey: Optional[PasskeyAnswer] = None


class PasskeyOptions(BaseModel):
    """A ceremony begun: its token (to send back with the answer) and the options to hand
    to ``navigator.credentials.create()`` or ``.get()`` as ``publicKey`` (WebAuthn's JSON
    form: binary values as base64url)."""

    ceremony: str
    publicKey: dict[str, Any]


class PasskeyInfo(BaseModel):
    id: int
    label: str
    created_at: datetime
    last_used_at: Optional[datetime] = Field(description="the last sign-in with it")
    transports: list[str]


class PasskeyList(BaseModel):
    """The signed-in account's passkeys (the oldest first) and whether it has a password
    (without one, its last passkey cannot be removed)."""

    passkeys: list[PasskeyInfo]
    password: bool


class SeatAdopted(BaseModel):
    id: str
    seat: int


class SeatProofs(Closed):
    """``POST /api/turns``: the seats this browser holds (its tables, ``static/js/mytables.js``)."""

    tables: list[SeatProof] = Field(max_length=100, description=(
        "each table's id and the seat's token from its link (at most 100)"))


class Turn(BaseModel):
    """A seat whose player is to act now."""

    id: str = Field(description="the table's id")
    game: str
    players: int
    seat: int = Field(description="the seat to act (from 0)")
    per_move: bool = Field(description="a turn-based table (its clock gives a time per move)")
    deadline: Optional[float] = Field(description=(
        "when the seat's time runs out (seconds since the epoch); null without a clock"))


class Turns(BaseModel):
    """The seats asked about whose player is to act now, the earliest deadline first (then
    the ones without a clock, by table id). Only the seats asked about are ever named."""

    turns: list[Turn]


class AccountTable(BaseModel):
    """A seat of the signed-in account at a table still being played: its page ``/t/{id}``
    opens it by the account's session, without the seat's link."""

    id: str = Field(description="the table's id")
    game: str
    players: int
    seat: int = Field(description="the account's seat (from 0)")
    rated: bool
    to_act: bool = Field(description="the seat's player is to act now")


class AccountTables(BaseModel):
    """The signed-in account's seats at tables still being played, the table played latest
    first."""

    tables: list[AccountTable]


PUSH_ENDPOINT_MAX = 1024  # characters of a push subscription's endpoint (its column's)
B64URL = r"^[A-Za-z0-9_-]+={0,2}$"


class PushKeys(Closed):
    """A push subscription's keys, base64url, as the browser's ``PushSubscription.toJSON()``
    gives them."""

    p256dh: StrictStr = Field(min_length=80, max_length=100, pattern=B64URL, description=(
        "the browser's P-256 public key (65 bytes, base64url)"))
    auth: StrictStr = Field(min_length=16, max_length=32, pattern=B64URL, description=(
        "the subscription's authentication secret (16 bytes, base64url)"))


class PushSubscriptionInfo(Closed):
    """A browser's push subscription (``PushSubscription.toJSON()``, without
    ``expirationTime``)."""

    endpoint: StrictStr = Field(min_length=12, max_length=PUSH_ENDPOINT_MAX, description=(
        "the push service's https URL for this browser"))
    keys: PushKeys
    expirationTime: Optional[float] = Field(None, description="ignored")


class Subscribe(Closed):
    """``POST /api/push/subscriptions``: notify this browser of its turns (and, signed in, of
    its account's turns, friend requests and invitations)."""

    subscription: PushSubscriptionInfo
    seats: list[SeatProof] = Field(default_factory=list, max_length=100, description=(
        "seats to be notified for, each a table's id and the seat's token (at most 100); "
        "a signed-in account's seats are notified without them"))


class Unsubscribe(Closed):
    """``DELETE /api/push/subscriptions``: stop notifying this browser."""

    endpoint: StrictStr = Field(min_length=1, max_length=PUSH_ENDPOINT_MAX, description=(
        "the subscription's endpoint"))


class PushPublicKey(BaseModel):
    """The site's VAPID public key: a page's ``applicationServerKey``."""

    key: str = Field(description="the P-256 public key, uncompressed, base64url")


class Subscribed(BaseModel):
    """A subscription stored: whether it notifies for the signed-in ``account``, and the
    ``seats`` it notifies for (those whose token proved the seat)."""

    account: bool
    seats: list[SeatAdopted]


class Unsubscribed(BaseModel):
    deleted: bool = Field(description="a subscription with that endpoint was deleted")


class AccountInfo(BaseModel):
    name: str
    created_at: datetime
    profile: str = Field(description="the account's profile page")


class Me(BaseModel):
    """Who the browser is signed in as (``account``: ``null`` when it is not)."""

    account: Optional[AccountInfo]


class Adopted(BaseModel):
    """The seats linked to the account (now or before), in the order asked."""

    adopted: list[SeatAdopted]


class GameCount(BaseModel):
    game: str
    players: int
    played: int = Field(description="finished games")
    won: int


class RecentGame(BaseModel):
    id: str
    game: str
    players: int
    seat: int
    status: Literal["finished", "abandoned"]
    won: Optional[bool] = Field(description="null for an abandoned game")
    ended_at: Optional[datetime]
    replay: str


class RatedGameRow(BaseModel):
    id: str
    seat: int
    won: bool
    opponent: Optional[str] = Field(description="the opponent's seat name")
    before: int = Field(description="the shown rating before the game")
    after: int = Field(description="the shown rating after the game")
    at: datetime
    replay: str


class RatingSummary(BaseModel):
    """An account's rating in one game (``lab.ratings``): ``rating`` is the number shown,
    ``round(1500 + 24 * (mu - 3 * sigma))``."""

    rating: int
    mu: float
    sigma: float
    games: int = Field(description="rated games played")
    wins: int
    losses: int
    rank: int = Field(description="on the game's leaderboard, 1: the top")
    recent: list[RatedGameRow] = Field(description="the latest rated games, newest first")


class PlayerCountRecord(BaseModel):
    players: int
    played: int = Field(description="finished games")
    won: int
    win_rate: Optional[float] = Field(description="won / played, 0 to 1")


class Medals(BaseModel):
    gold: int
    silver: int
    bronze: int


class RegicideRecord(BaseModel):
    """An account's Regicide (cooperative) record: its finished games by player count, its
    solo medals (none for a game played with hints or with a bot's moves for the person),
    and its solo streaks: consecutive solo wins (``streak``: the latest run, 0 after a loss;
    a game stopped by agreement is a loss)."""

    by_players: list[PlayerCountRecord]
    medals: Medals
    best_streak: int
    streak: int


class Profile(BaseModel):
    """``GET /api/players/{name}``: an account's games."""

    name: str
    created_at: datetime
    games: list[GameCount] = Field(description="per game and player count")
    recent: list[RecentGame] = Field(description="the latest ended games, newest first")
    ratings: dict[str, RatingSummary] = Field(description=(
        "by game, the games it played rated (Le Roy des Ribauds)"))
    regicide: RegicideRecord


class LeaderRow(BaseModel):
    rank: int
    name: str
    profile: str
    rating: int = Field(description="the shown rating, round(1500 + 24 * (mu - 3 * sigma))")
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int


class BotRow(BaseModel):
    level: str = Field(description="a bot level (easy, medium, hard, strongest)")
    rating: int
    mu: float
    sigma: float


class Leaderboard(BaseModel):
    """``GET /api/leaderboard``: the rated accounts, the highest shown rating first, and
    the bot levels' fixed published ratings (reference rows)."""

    game: str
    total: int = Field(description="rated accounts in all")
    limit: int
    offset: int
    formula: str
    players: list[LeaderRow]
    bots: list[BotRow] = Field(description="the strongest level first")


# -- the daily deal (``web.daily``) -------------------------------------------------------


class DailyPlay(Closed):
    """``POST /api/daily/play``: play today's daily deal."""

    name: Optional[StrictStr] = Field(None, json_schema_extra=NAME, description=(
        "the nickname of a player without an account (a signed-in player plays under the "
        "account's name)"))


class DailyStarted(BaseModel):
    """The answer to ``POST /api/daily/play`` (201): the new table and its one seat."""

    id: str
    date: str = Field(description="the day whose deal it is (YYYY-MM-DD, UTC)")
    seat: int
    token: str = Field(description="the seat's secret token")
    link: str = Field(description="the seat's link")
    spectate: str = Field(description="the spectators' link, with their secret token")
    replay: str
    ranked: bool = Field(description="played with an account: on the day's leaderboard")


class DailyResult(BaseModel):
    won: bool
    medal: Optional[Literal["gold", "silver", "bronze"]] = Field(description=(
        "a win's medal (rules 1.14); null for a loss or a game a bot played part of"))
    enemies: int = Field(description="enemies defeated, 0 to 12")
    moves: int = Field(description="actions played")
    finished_at: Optional[datetime]
    assisted: bool = Field(description="a bot played some move: not ranked")


class DailyYou(BaseModel):
    account: Optional[str] = Field(description="the account signed in, or null")
    table: Optional[str] = Field(description="your table of that day's deal")
    status: Optional[Literal["playing", "finished", "abandoned"]]
    ranked: bool
    result: Optional[DailyResult] = Field(description="once your game is over")
    rank: Optional[int] = Field(description="your place on the leaderboard (1: best)")
    can_play: bool = Field(description="today's deal, not played by this account (a "
                                       "player without an account: not by this table)")


class DailyEntry(BaseModel):
    rank: int
    name: str
    profile: str
    won: bool
    medal: Optional[str]
    enemies: int
    moves: int
    finished_at: datetime
    you: bool
    replay: Optional[str] = Field(description="the game's replay, once the day is over (or "
                                              "your own)")


class DailyVerdict(BaseModel):
    state: Literal["hidden", "pending", "ready"] = Field(description=(
        "hidden until your game of that day is over; pending while the solver works"))
    result: Optional[Literal["won", "lost", "undecided"]] = None
    winnable: Optional[bool] = Field(None, description="null: not proven in the time allowed")
    best_medal: Optional[str] = None
    medal_proven: Optional[bool] = None
    line_moves: Optional[int] = None
    line: Optional[str] = Field(None, description="the replay page of a winning line")
    seconds: Optional[float] = None
    limit: Optional[float] = None


class DailyReport(BaseModel):
    """``GET /api/daily``: a day's daily deal, your status, its leaderboard and verdict."""

    date: str
    today: str
    previous: str
    next: Optional[str]
    you: DailyYou
    played: int = Field(description="tables dealt that day's deal, ranked or not")
    ranked: int = Field(description="ranked results that day")
    leaderboard: list[DailyEntry] = Field(description="best first: medal, then enemies "
                                                      "defeated, then fewer moves, then "
                                                      "the earlier finish")
    verdict: DailyVerdict


# -- friends (``web.friends``) -----------------------------------------------------------


class FriendName(Closed):
    """``POST /api/friends/requests``, ``.../accept``, ``.../decline``, ``.../remove``,
    ``.../block``, ``.../unblock``: another player, by account name."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the player's account name (in any case or width)"))


class InviteFriend(Closed):
    """``POST /api/friends/invite``: invite a friend to a free seat of a table one sits at."""

    name: StrictStr = Field(max_length=64, json_schema_extra=ACCOUNT_NAME, description=(
        "the friend's account name (in any case or width)"))
    table: StrictStr = Field(max_length=32, description="the table's id")
    token: StrictStr = Field(max_length=100, description=(
        "the inviter's seat token at that table (from its seat's link)"))


class Player(BaseModel):
    name: str
    profile: str = Field(description="the player's profile page")
    since: datetime = Field(description=(
        "when the friendship was accepted, the request made or the block set"))


class Friend(Player):
    online: bool = Field(description=(
        "a lobby or a table page of the friend's is open (now, or a few seconds ago)"))


class InvitationInfo(BaseModel):
    id: int
    name: str = Field(description="who invites")
    profile: str
    table: str = Field(description="the table's id")
    game: str
    players: int
    free: int = Field(description="the table's seats waiting for a player")
    at: datetime


class FriendList(BaseModel):
    """``GET /api/friends``: the account's friends (by name, each with ``online``), the
    friend requests it received and sent, the players it blocks, and the invitations to a
    table it may accept now (the newest first)."""

    friends: list[Friend]
    incoming: list[Player]
    outgoing: list[Player]
    blocked: list[Player]
    invitations: list[InvitationInfo]


class Invitations(BaseModel):
    """``GET /api/friends/invitations``: the invitations the account may accept now."""

    invitations: list[InvitationInfo]


class FriendState(BaseModel):
    """What the account and the player named are to each other after a change:
    ``friends``, ``requested`` (its request waits for an answer), ``blocked`` (the
    account blocks the player) or ``none``."""

    name: str
    state: Literal["friends", "requested", "blocked", "none"]


class InvitationSent(BaseModel):
    """The answer to ``POST /api/friends/invite`` (201)."""

    id: int
    name: str = Field(description="the friend invited")
    table: str


class InvitationDeclined(BaseModel):
    id: int


BODIES: dict[str, type[BaseModel]] = {
    "/api/tables": CreateTable, "/api/tables/{table_id}/join": JoinTable,
    "/api/tables/{table_id}/rematch": Rematch,
    "/api/account/sign-up": Credentials, "/api/account/sign-in": Credentials,
    "/api/account/tables": AdoptTables, "/api/account": ConfirmDeletion,
    "/api/account/passkeys/register/begin": BeginPasskey,
    "/api/account/passkeys/register/finish": PasskeyRegistration,
    "/api/account/passkeys/sign-up/begin": PasskeySignUp,
    "/api/account/passkeys/sign-up/finish": PasskeyRegistration,
    "/api/account/passkeys/sign-in/begin": BeginPasskey,
    "/api/account/passkeys/sign-in/finish": PasskeyAnswer,
    "/api/account/passkeys/confirm/begin": BeginPasskey,
    "/api/tutorials/{game}": TutorialMoves, "/api/daily/play": DailyPlay,
    **{f"/api/friends/{action}": FriendName
       for action in ("requests", "accept", "decline", "remove", "block", "unblock")},
    "/api/friends/invite": InviteFriend, "/api/turns": SeatProofs,
    "/api/push/subscriptions": Subscribe, "DELETE /api/push/subscriptions": Unsubscribe}
"""Each route's body model, by its path, or by ``"METHOD PATH"`` where one path takes two
bodies (the refusals name the model's fields)."""
PUSH_SUBSCRIPTION = ("subscription: the browser's push subscription, {\"endpoint\": its "
                     f"push service's https URL (at most {PUSH_ENDPOINT_MAX} characters), "
                     "\"keys\": {\"p256dh\", \"auth\"} (base64url)}")
_SEAT = "(a seat has kind, and bot for a bot seat)"


def refusal(error: dict[str, Any], body: Any, model: type[BaseModel] | None,
            clocks: str) -> tuple[str, str]:
    """One pydantic error of a request body (``loc`` starting with ``"body"``) as the
    refusal ``(code, message)`` in the registry's words. ``body``: the request's decoded
    JSON; ``model``: the route's body model; ``clocks``: the words that list the site's
    time controls (``creation.clock_choices``)."""
    loc, kind = error["loc"][1:], error["type"]
    if kind == "json_invalid" or (not loc and body in (None, b"", "")):
        return "bad_request", "the body must be JSON"
    field = str(loc[0]) if loc else ""
    if not loc or (kind == "extra_forbidden" and len(loc) == 1 and field != "seed"):
        if model is not None and not model.model_fields:
            return "bad_request", "the body must be an empty JSON object ({})"
        if model is not CreateTable and model is not None:
            only = ", ".join(repr(f) for f in model.model_fields)
            return "bad_request", f"the body must be a JSON object with only {only}"
    if not loc:
        return "bad_request", "the body must be a JSON object"
    if kind == "extra_forbidden" and len(loc) == 1:
        if field == "seed":
            return "bad_request", ("seed: the server deals every table from a secret random "
                                   "source; it cannot be chosen")
        return "bad_request", (f"unknown field {field[:40]!r}; the fields are "
                               f"{', '.join(CreateTable.model_fields)}")
    return ("no_access" if field == "token" else "bad_request"), _said(field, loc, kind, body,
                                                                      clocks, error["msg"],
                                                                      model)


def _said(field: str, loc: tuple, kind: str, body: Any, clocks: str, msg: str,
          model: type[BaseModel] | None = None) -> str:
    if field == "subscription":
        return PUSH_SUBSCRIPTION
    if field in ("seats", "tables") and model in (Subscribe, SeatProofs, AdoptTables):
        return (f"{field}: at most 100 seats, each {{\"id\": a table's id, \"token\": the "
                "seat's token from its link}")
    if field == "endpoint":
        return (f"endpoint: the push subscription's endpoint (at most {PUSH_ENDPOINT_MAX} "
                "characters)")
    if field == "game":
        return f"game: choose one of {', '.join(GAME_NAMES)}"
    if field == "players":
        g = get_game(body["game"])
        how = (f"exactly {g.min_players}" if g.min_players == g.max_players
               else f"{g.min_players} to {g.max_players}")
        return f"players: {g.name} is for {how} players"
    if field == "options":
        return "options: an object of rule options"
    if field == "seats" and len(loc) == 1:
        players = body.get("players")
        return f"seats: give one entry per player ({players or get_game(body['game']).min_players})"
    if field == "seats":
        if kind == "extra_forbidden":
            return f"seats[{loc[1]}]: unknown field {str(loc[2])[:40]!r} {_SEAT}"
        if len(loc) > 2 and loc[2] == "bot":
            return (f"seats[{loc[1]}].bot: the name of a level (easy, medium, hard, "
                    "strongest) or of a bot of the game (GET /api/games)")
        return f"seats[{loc[1]}].kind: human or bot"
    if field == "open":
        return "open: true (listed in the lobby) or false"
    if field == "clock":
        return clocks
    if field == "name":
        if model in (FriendName, InviteFriend):
            return "name: a player's account name"
        return (gamekit.ACCOUNT_NAME_RULE if model in (Credentials, PasskeySignUp)
                else gamekit.NAME_RULE)
    if field == "ceremony":
        return "ceremony: the token the ceremony's beginning answered (a string)"
    if field == "credential":
        return ("credential: the browser's passkey answer in WebAuthn's JSON form (id, rawId, "
                "type 'public-key', response with base64url fields)")
    if field == "passkey":
        return ("passkey: {ceremony, credential}, a passkey's answer to POST "
                "/api/account/passkeys/confirm/begin")
    if field == "label":
        return LABEL_RULE
    if field == "password":
        return PASSWORD_RULE
    if field == "hints":
        return "hints: true (a Hint button, no medal) or false"
    if field == "rated":
        return "rated: true (a game between two accounts that changes their ratings) or false"
    if field == "token":
        return "token: the seat link of a player of this table"
    if field == "moves":
        return (f"moves: a list of at most {tutorials.MAX_MOVES} actions in notation "
                "(e.g. 'play 5C')")
    if field == "table":
        return "table: a table's id"
    return f"{field}: {msg}"
