"""The tables of one server: ``registry`` (``TableRegistry``: all tables, loaded, created,
unloaded, expired; ``creation`` checks a new table's request, ``lobby`` lists the open
tables, ``ratings`` rates the rated games, ``analysis`` analyses finished games) and each
``table.Table``, composed of parts handed what they need, each owning its state:

* ``core.TableCore``: the match, seats, status and lock, read by every part;
* ``audience.Audience``: the connections and what each is sent;
* ``seats.Seating``: tokens, names, hand-over to bots and back;
* ``clocks.TableClock``: the clocks (written from this one part) and the time-out alarm;
* ``talk.Talk``: table talk, the rematch's address, hints;
* ``peers.Replica``: the other replicas (``peers.SOLO``: none, with one process);
* ``botrunner.BotLoop`` and ``botpool.BotPool``: the bots' loop and the worker pool they
  think in (what runs in a worker: ``botwork``).

``gamekit`` holds what the server knows of each game beyond the ``Game`` protocol;
``limits`` the rate limits.

Where a move goes: the websocket (``web/socket.py``) -> ``Table.submit`` (``table.py``:
the seat and ply checked under the table's lock, the engine's validation on a copy: the
``submission`` functions) -> the writer (``storage/writer.py``, group commit) -> applied at
once (``TableCore.apply``, the clocks ``TableClock.set``) -> broadcast
(``Audience.broadcast_state``) and the peers (``Replica.tell_others``) -> the bot loop
(``botrunner.BotLoop``), woken, plays the bot seats through ``Table.submit`` too.
"""
