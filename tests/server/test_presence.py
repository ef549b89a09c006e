"""What the others see of a seat's connections is held back: its connected flag changes at
most once per ``presence_every`` seconds and a seat gone for less stays shown connected, the
last state shown when the time is up. A finding of an audit: the flag of a Regicide seat
flipped on every page opened and closed (135 flips in 10 s seen by the other seat), a channel
around the rule that Regicide players may not tell what they hold (rules 1.15)."""

from __future__ import annotations

import time

from server_helpers import join, new_table, running_app


def flips(peer, seat: int) -> list[bool]:
    """The values of ``seat``'s connected flag in every seat list ``peer`` received, each
    change once."""
    seen: list[bool] = []
    for m in peer.messages:
        if m["type"] in ("state", "seats"):
            v = m["seats"][seat]["connected"]
            if not seen or seen[-1] != v:
                seen.append(v)
    return seen


def test_a_seat_opened_and_closed_20_times_shows_a_couple_of_changes(db_url):
    with running_app(db_url, presence_every=1.0) as c:
        d = new_table(c, "regicide", ["human", "human"])
        other = join(c, d, 0)
        watcher = join(c, d, None)
        start = time.monotonic()
        for _ in range(20):  # each open and close lasts past the seat list's flush
            p = join(c, d, 1)
            time.sleep(0.06)
            p.close()
            time.sleep(0.07)
        assert time.monotonic() - start < 5
        other.drain(0.1)
        # seat 1 shows connected at once, then stays so while it comes and goes
        assert flips(other, 1) == [False, True]
        # gone for good: shown once the hold is over
        other.recv_until(lambda m: m["type"] == "seats" and not m["seats"][1]["connected"],
                         timeout=3)
        watcher.drain(0.1)
        for p in (other, watcher):
            assert flips(p, 1) == [False, True, False]
            assert not p.state["seats"][1]["connected"]
        # a seat list is sent only when the one a connection sees changed
        assert sum(m["type"] == "seats" for m in other.messages) <= 4
        assert c.get(f"/api/tables/{d['id']}").json()["seats"][1]["connected"] is False


def test_a_seat_left_open_at_the_end_shows_connected_and_its_own_windows_are_exact(db_url):
    with running_app(db_url, presence_every=1.0) as c:
        d = new_table(c, "regicide", ["human", "human"])
        other = join(c, d, 0)
        for _ in range(10):
            p = join(c, d, 1)
            time.sleep(0.06)
            p.close()
            time.sleep(0.07)
        mine = join(c, d, 1)  # back for good
        time.sleep(1.2)
        other.drain(0.1)
        mine.drain(0.1)
        assert flips(other, 1) == [False, True] and other.state["seats"][1]["connected"]
        assert mine.state["seats"][1]["windows"] == 1  # a seat's own count is not held back
        mine.close()
        other.recv_until(lambda m: m["type"] == "seats" and not m["seats"][1]["connected"],
                         timeout=3)
