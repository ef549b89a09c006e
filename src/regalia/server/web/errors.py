"""The API's one error form, ``{"error": SENTENCE, "code": CODE}``, for every refusal,
malformed request, unknown path or method."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from regalia.server.settings import parse_presets, parse_turn_presets
from regalia.server.refusal import Refusal
from regalia.server.tables.creation import clock_choices
from regalia.server.web.schemas import refusals

STATUS = {"bad_request": 400, "too_fast": 429, "storage": 503, "full": 409, "not_open": 409,
          "too_many_open": 429,
          "no_access": 403, "not_finished": 409, "analysis_failed": 503, "not_found": 404,
          "busy": 503, "bad_credentials": 401, "signed_out": 401, "name_taken": 409,
          "cross_origin": 403, "rated_signed_out": 401, "rated_same_account": 409,
          "rated_other_account": 403, "daily_played": 409, "not_friends": 403,
          "blocked_by_you": 409, "invitation_expired": 409, "already_seated": 409,
          "passkey_expired": 400, "passkey_refused": 401, "passkey_taken": 409,
          "too_many_passkeys": 409, "last_passkey": 409, "no_passkey": 409}
"""HTTP status by refusal code (others: 400)."""

BAD_BODY = "There was an error parsing the body"  # FastAPI's words for undecodable bytes


def refused(e: Refusal) -> JSONResponse:
    """The answer to a refusal: its status (``STATUS``) and ``{"error", "code"}``; over a
    rate limit also ``retry_after`` (seconds) and the ``Retry-After`` header."""
    if e.limit:
        wait = e.limit["retry_after"]
        return JSONResponse({"error": e.message, "code": e.code, "retry_after": wait},
                            status_code=STATUS.get(e.code, 400),
                            headers={"Retry-After": str(wait)})
    return JSONResponse({"error": e.message, "code": e.code}, status_code=STATUS.get(e.code, 400))


async def refusal(_request: Request, exc: Refusal) -> JSONResponse:
    """A ``Refusal`` raised by an endpoint: answered as ``refused`` says."""
    return refused(exc)


async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A malformed body (the first problem, in the registry's words:
    ``schemas.refusals.refusal``), or a path or query parameter of the wrong type (each
    named): 400 with the usual ``{"error", "code"}`` body, not FastAPI's own 422 form."""
    errors = list(exc.errors())
    body = [e for e in errors if e["loc"][:1] == ("body",)]
    if body:
        # unknown fields first, as the registry checks them
        body.sort(key=lambda e: not (e["type"] == "extra_forbidden" and len(e["loc"]) == 2))
        route = request.scope.get("route")
        path = getattr(route, "path", "")
        model = (refusals.BODIES.get(f"{request.method} {path}")
                 or refusals.BODIES.get(path))
        settings = request.app.state.settings
        clocks = clock_choices(parse_presets(settings.clock_presets),
                               parse_turn_presets(settings.turn_presets))
        code, said = refusals.refusal(body[0], exc.body, model, clocks)
        return refused(Refusal(code, said))
    said = "; ".join(f"{e['loc'][-1]}: {e['msg']}" for e in errors)
    return refused(Refusal("bad_request", said or "malformed request"))


async def http_error(_request: Request, exc: StarletteHTTPException) -> Response:
    """An unknown path (404), a method a path does not take (405) and the like: the usual
    ``{"error", "code"}`` body (not FastAPI's ``{"detail"}``)."""
    if exc.status_code == 400 and exc.detail == BAD_BODY:  # bad UTF-8, nesting too deep
        return refused(Refusal("bad_request", "the body must be JSON"))
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse({"error": str(exc.detail).lower(), "code": code},
                        status_code=exc.status_code, headers=exc.headers)
