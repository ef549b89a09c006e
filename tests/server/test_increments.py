"""Views and logs sent as increments: a connection gets one full
``state`` message when it joins, then ``update`` messages holding only what changed (the
changed fields, the view's changed keys, the new log events); merged as a client merges
them (``StateReader``), every update gives exactly the full state the server would have
sent (the secrecy tests check those against the engine's view at every ply)."""

from __future__ import annotations

import json
import random

from regalia.server.tables.audience import StateReader, increment, merge_update
from server_helpers import join, new_table, play_randomly


def test_increment_holds_only_what_changed_and_merges_back():
    sent = {"type": "state", "ply": 3, "log_start": 0, "log": [{"e": 1}], "seat": 0,
            "legal": ["yield"], "clock": None,
            "view": {"hand": ["5C"], "damage": 2, "options": {"a": 1}, "gone": 1}}
    now = {"type": "state", "ply": 4, "log_start": 1, "log": [{"e": 2}], "seat": 0,
           "legal": [], "clock": None,
           "view": {"hand": ["5C"], "damage": 7, "options": {"a": 1}, "new": [1]}}
    u = increment(sent, now)
    assert u == {"type": "update", "ply": 4, "log_start": 1, "log": [{"e": 2}], "legal": [],
                 "view": {"damage": 7, "new": [1]}, "view_removed": ["gone"]}
    assert merge_update(sent, u) == now
    assert increment(None, now) is now  # a connection that was sent nothing: the full state


def test_a_connection_gets_one_full_state_then_updates(client):
    d = new_table(client, "regicide", ["human", "human"], seed=4)
    peers = {k: join(client, d, k) for k in (0, 1)}
    spectator = join(client, d, None)
    play_randomly(peers, spectator, random.Random(4))
    for p in (*peers.values(), spectator):
        kinds = [json.loads(r)["type"] for r in p.raw]
        states = [k for k in kinds if k in ("state", "update")]
        assert states[0] == "state" and states.count("state") == 1
        assert states.count("update") >= 3
        full = [len(r) for r in p.raw if json.loads(r)["type"] == "state"][0]
        updates = [r for r in p.raw if json.loads(r)["type"] == "update"]
        # an update never repeats the view's fixed parts, and is smaller than a full state
        assert all('"options"' not in json.dumps(json.loads(r).get("view", {})) for r in updates)
        assert sum(map(len, updates)) / len(updates) < full


def test_a_reconnection_gets_a_full_state_again(client):
    d = new_table(client, "regicide", ["human", "human"], seed=9)
    a, b = join(client, d, 0), join(client, d, 1)
    mover = a if a.state["legal"] else b
    mover.act(mover.state["legal"][0])
    for p in (a, b):
        p.recv_until(lambda m: m["type"] == "state" and m["ply"] == 1)
    a.close()
    again = join(client, d, 0)
    first = next(json.loads(r) for r in again.raw if json.loads(r)["type"] in ("state", "update"))
    assert first["type"] == "state" and first["ply"] == 1 and "hand" in first["view"]


def test_the_reader_merges_updates_and_writes_out_the_legal_actions():
    r = StateReader()
    assert r.read({"type": "talk", "text": "hi"}) == {"type": "talk", "text": "hi"}
    full = {"type": "state", "ply": 0, "log_start": 0, "log": [], "legal": ["jester"],
            "discards": {"from": ["5C", "9H"], "at_least": 9, "minimal": False},
            "view": {"hand": ["5C", "9H"], "phase": "suffer"}}
    st = r.read(full)
    assert st["legal"] == ["jester", "discard 9H", "discard 5C 9H"] and r.wire is full
    st = r.read({"type": "update", "ply": 1, "log_start": 0, "log": [], "legal": [],
                 "discards": None, "view": {"phase": "play"}})
    assert st["type"] == "state" and st["legal"] == [] and st["view"] == {"hand": ["5C", "9H"], "phase": "play"}
