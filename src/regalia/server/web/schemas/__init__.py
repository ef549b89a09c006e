"""The JSON API's request and answer models: FastAPI validates each request body with them
and publishes them in the OpenAPI schema (``/openapi.json``, ``/api/docs``).

The models check a body's shape (fields, types); what a value means for a game (its
player count, rule options, bots, the site's clock presets, hints) is the table
registry's to check. A body the models refuse is answered 400 ``{"error", "code":
"bad_request"}`` with the first problem in the registry's words (``refusals.refusal``), so
that a client reads the same sentence whichever layer refused.

One module per topic, each the models of the router named: ``tables`` (``web.api``),
``accounts``, ``passkeys``, ``players`` (profiles and the leaderboard), ``turns``,
``push``, ``daily``, ``friends``; what they share in ``common`` (``Closed``, a seat's
proof, ``Problem``); each route's body model and the refusals' words in ``refusals``.
"""
