"""Each route's body model (``BODIES``) and a body's first problem as a refusal in the
table registry's words (``refusal``), so that a client reads the same sentence
whichever layer refused (``web.errors``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from regalia.games import GAME_NAMES, get_game
from regalia.server import tutorials
from regalia.server.tables import gamekit
from regalia.server.web.ceremonies import LABEL_RULE
from regalia.server.web.passwords import PASSWORD_RULE
from regalia.server.web.schemas.accounts import AdoptTables, ConfirmDeletion, Credentials
from regalia.server.web.schemas.daily import DailyPlay
from regalia.server.web.schemas.friends import FriendName, InviteFriend
from regalia.server.web.schemas.passkeys import (BeginPasskey, PasskeyAnswer, PasskeyRegistration,
                                                 PasskeySignUp)
from regalia.server.web.schemas.push import PUSH_ENDPOINT_MAX, Subscribe, Unsubscribe
from regalia.server.web.schemas.tables import CreateTable, JoinTable, Rematch, TutorialMoves
from regalia.server.web.schemas.turns import SeatProofs

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
