"""The table websocket's protocol, ``/ws/{table_id}``: JSON text messages both ways.

A message is one JSON object with a string ``type``. The client (``static/table.js``, or
any program) speaks first; the server answers every refused message with one ``error``
and changes nothing.

Sent by the client
==================

``hello`` ``{"token": TOKEN, "name": NICKNAME}``
    First, within ``HELLO_TIMEOUT`` seconds: a seat token (the ``#s=`` of an invitation
    link) seats the connection, the spectators' token lets it watch. Anything else:
    ``error`` ``no_access`` and close ``NO_ACCESS``. In Regicide with other players a
    seat's name, once given, does not change until the end (a name could tell what is in
    a hand), and ``hello`` keeps it too: a seat still without one is named by its first
    ``hello``, before its hand is seen; without a valid name (1 to 24 characters):
    ``error`` ``name_needed``, close ``NAME_NEEDED``. At a rated table (``welcome``'s
    ``rated``) each seat is played by a signed-in account (the browser's session cookie,
    sent with the websocket), named by its account: a seat not linked yet is linked to the
    account of its first ``hello``; refused, with close ``RATED_SEAT``:
    ``rated_signed_out`` (no account signed in), ``rated_same_account`` (the account holds
    the other seat), ``rated_other_account`` (the seat is another account's). Too many
    spectators: ``too_many_spectators``. Any other message before ``hello``: ``error``
    ``hello_first``.
    ``{"account": true}`` besides (or instead of the token): when the token opens no seat
    and is not the spectators', the connection takes the first seat of this table linked
    to the account its session cookie is signed in to (adopted, rated, taken by an
    invitation, a ranked daily deal), as that seat's token would; only that account's
    seats, never another's. No account signed in, or none of its seats here: ``error``
    ``no_access``, close ``NO_ACCESS``. ``account`` not a boolean: ``error``
    ``bad_message`` (the connection stays open for another ``hello``).
``act`` ``{"ply": N, "action": "play 5C"}``
    A move, for the position at ``ply`` (another ply: ``error`` ``stale``).
``wish`` ``{"value": "yes" | "no"}``
    Regicide's Jester window: whether this player would like to go next.
``say`` ``{"message_id": ID}``
    One of the sayings Regicide's rules allow (``state.talk``).
``chat`` ``{"text": ...}``
    Free chat (Le Roy des Ribauds).
``bot`` ``{"seat": N, "on": bool}``
    Hand a seat to a bot (also how a player leaves) or take it back; another player's
    seat only once nobody has been connected to it for 30 s, else ``error`` ``seat_away``
    (at once for an invitation never opened: the game starts with the bot).
``name`` ``{"name": ...}``
    A new nickname (counted with the talk, as is a new name in ``hello``).
``concede``
    Le Roy des Ribauds: this seat resigns; the opponent wins and the game ends (the stored
    record says it ended by concession, and who conceded). Refused (nothing changed) for a
    spectator (``spectator``), a game over (``finished``, ``expired``), one not started
    (``waiting``), a seat a bot plays (``bot_seat``) and in Regicide (``no_concede``).
``stop`` ``{"agree": true | false}``
    Regicide: ``true`` proposes to stop (counted with the talk) or accepts the proposal
    under way; ``false`` declines it (from the proposer: withdraws it). Every other human
    seat must accept (a seat a bot plays counts as agreeing; a player alone with bots stops
    at once); a decline or any move cancels the proposal. When all agree, the game ends as
    a loss, stopped by agreement. Refused as ``concede`` is (``no_stop`` in Ribauds), and
    ``bad_message`` (``agree`` not a boolean), ``no_proposal`` (``false`` with none under
    way), ``already_agreed`` (twice).
``hint``
    At a table created with hints: a suggested move, answered by a ``hint`` message.
``ping``
    Answered by ``pong``, in order with everything else.

Sent by the server
==================

``welcome`` ``{"table", "game", "seat", "players", "options", "talk", "sayings",
"early_end", "rated", ...}``
    The connection is seated (``seat``) or watching (``seat: null``); ``talk`` says how
    this game's players talk (``"say"``: the ``sayings`` only, or ``"chat"``);
    ``early_end`` how they may end it before its rules do (``"concede"``: ``concede``;
    ``"agree"``: ``stop``); ``rated``: the game changes its players' ratings.
``state``
    The seat's view of the game (``view``; a spectator's: the public one), with ``ply``,
    ``clock`` and ``waiting`` (a human seat was never taken and no bot plays it: nobody
    acts yet; ``open``: a table of the lobby's list), ``bot_played`` (a bot played some
    move for a person: no medal), ``stop`` (Regicide's proposal to stop under way, ``{"by",
    "agreed", "waiting"}``, or ``null``), the ``outcome`` once ``finished`` (with
    ``"ending": {"how": "conceded" | "stopped", "seat"}`` when the players ended the game:
    ``current`` is then ``null``), and the ``log``, whose entries a bot did for a person
    carry ``"bot": true`` and which ends, when the players ended the game, with an entry of
    kind ``conceded`` or ``stopped`` (``seat``: who conceded, who proposed): once when the
    connection joins.
``update``
    After each move: what changed since the last ``state``/``update`` this connection was
    sent (``ply``, new ``log`` events from ``log_start``, the view's changed keys,
    ``view_removed``); ``tables.audience.merge_update`` (and ``static/table.js``) rebuild
    the full state from it.
``seats``
    The seat list (kinds, bots, names, connected); a seat's own entry also tells its
    ``windows``, its connections.
``talk`` / ``talk_history``
    A saying or chat line; the table's lines so far.
``timeout``
    A seat's time ran out: a bot plays it until its player takes it back.
``stop`` ``{"seat", "agree", "ply"}``
    A seat proposed to stop or accepted (``agree`` true) or declined (false); the next
    ``state`` (or ``update``) shows the proposal, or the game over.
``rematch`` ``{"table"}``
    A rematch of this finished table was made: the same seat token opens it.
``hint`` ``{"ply", "action", "why", "win", "next", "next_win", "worlds", "lead_range"}``
    The suggested move (``action``, in notation, legal at ``ply``: the table's search
    bot's move from the seat's view), and from that view only: ``why``, the reason for it
    as ``{"key": KIND, **params}`` (Regicide's kinds and their parameters:
    ``regalia.games.regicide.hints.REASONS``; the page says it in its language, texts
    ``hints.why.KIND``; cards in notation, suits as letters, seats from 0), or ``null``;
    ``win``, the move's win chance (0 to 1: the share of ``worlds`` positions sampled
    from the seat's view that the policy's playout wins after it); ``next``, the next best
    move (in notation, another legal move; ``null`` when it was the only one) and
    ``next_win``, its chance on the same positions; ``lead_range``, the 95% interval of
    ``win - next_win`` (paired: a ``[low, high]`` that holds 0 means the two are within
    the sampling noise; ``null`` without ``next``). The chances are ``null`` and
    ``worlds`` 0 for a game that has none.
``error`` ``{"code", "message", "ply"}``
    A refusal, nothing changed; for a refused move also ``reason`` (the engine's
    ``{"code", "params"}``). Codes include ``stale``, ``illegal``, ``too_fast``,
    ``too_large``, ``bad_json``, ``bad_message``, ``unknown_type``, ``storage`` (a database
    that refused the write: nothing applied), ``server_error``.
``pong``

Limits
======

A message over ``Settings.ws_message_max`` characters, malformed JSON, an unknown type or
one over ``message_rate`` gets an ``error`` and the connection stays open; over the rate
before ``hello`` was taken, it is closed with ``SLOW_READER`` (the page comes back later).
A client that does not read its messages (``send_queue`` waiting) is closed with
``SLOW_READER``; so is one over ``connections_per_address``.

Close codes
===========

``SLOW_READER`` (1013, "try again later"): the page reconnects and resumes.
``NO_ACCESS`` (4403): not a link of this table; the page stops.
``NAME_NEEDED`` (4401): the page asks the player's name, then comes back with it.
``RATED_SEAT`` (4402): a rated seat this browser's account may not take; the page says why
(and offers to sign in).
``NOT_FOUND`` (4404): no such table.
"""

from __future__ import annotations

SLOW_READER = 1013  # try again later (the page reconnects and resumes)
NO_ACCESS = 4403    # not a link of this table (the page stops)
NAME_NEEDED = 4401  # a Regicide seat is named before its hand is seen (the page asks it)
RATED_SEAT = 4402   # a rated seat needs another signed-in account (the page says which)
NOT_FOUND = 4404    # no such table

HELLO_TIMEOUT = 30.0  # seconds a new connection has to send its hello

CLIENT_TYPES = ("act", "wish", "say", "chat", "bot", "name", "concede", "stop", "hint", "ping")
"""The message types a client sends after ``hello``."""

CLOSE_FOR = {"no_access": NO_ACCESS, "name_needed": NAME_NEEDED,
             "rated_signed_out": RATED_SEAT, "rated_same_account": RATED_SEAT,
             "rated_other_account": RATED_SEAT}
"""The close code after a refused ``hello``, by error code (others: ``SLOW_READER``)."""
