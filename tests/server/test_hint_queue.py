"""Hints and the bot moves people wait for share the bot pool, but not its first place: the
bot moves a person waits for come first, then hints (at most a share of the workers at once,
one per asker at a time, a bounded queue), then tables of bots alone. A finding of an audit:
6 to 12 addresses asking hints within their rate took a human's bot replies from a median of
2.2 s to 6.8 s."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from regalia.server.refusal import Refusal
from regalia.server.tables.botpool import BotPool
from server_helpers import as_address, join, new_table, running_app


def gated_job(order: list[str]):
    """A job that notes its name when it starts, then waits for its gate."""
    def job(name: str, gate: threading.Event) -> str:
        order.append(name)
        assert gate.wait(5), f"{name} was never let go"
        return name
    return job


async def until(pred, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "the condition never came"
        await asyncio.sleep(0.005)


def test_a_queue_of_hints_never_holds_up_a_decision_a_person_waits_for():
    """One worker: a hint in progress, six more hints queued from six addresses and a table
    of bots alone waiting; a person's bot decision asked last runs as soon as the hint in
    progress ends, then the hints in their order, then the table of bots alone."""
    async def main():
        pool = BotPool(workers=1, processes=False, hint_queue=100)
        order: list[str] = []
        job = gated_job(order)
        gate = threading.Event()
        first_gate = threading.Event()
        jobs = [asyncio.ensure_future(pool.hint("10.0.0.1", job, "hint1", first_gate))]
        await until(lambda: order == ["hint1"])
        jobs += [asyncio.ensure_future(pool.hint(f"10.0.0.{k}", job, f"hint{k}", gate))
                 for k in range(2, 8)]
        jobs.append(asyncio.ensure_future(pool.run(job, "bots", gate)))
        await asyncio.sleep(0.01)
        jobs.append(asyncio.ensure_future(pool.run(job, "person", gate, urgent=True)))
        await asyncio.sleep(0.01)
        assert order == ["hint1"]  # the worker is still busy with the first hint
        gate.set()
        first_gate.set()
        await asyncio.gather(*jobs)
        pool.close()
        return order

    order = asyncio.run(main())
    assert order == ["hint1", "person"] + [f"hint{k}" for k in range(2, 8)] + ["bots"]


def test_hints_take_at_most_their_share_of_the_workers():
    """Two workers, hints' share one: while a hint is worked out a second one waits, and
    the other worker stays free for the tables' bots."""
    async def main():
        pool = BotPool(workers=2, processes=False, hint_queue=100)
        assert pool.slots.hint_share == 1
        order: list[str] = []
        job = gated_job(order)
        hold, gate = threading.Event(), threading.Event()
        a = asyncio.ensure_future(pool.hint("10.0.0.1", job, "hintA", hold))
        b = asyncio.ensure_future(pool.hint("10.0.0.2", job, "hintB", gate))
        await until(lambda: "hintA" in order)
        bots = asyncio.ensure_future(pool.run(job, "bots", gate))
        await until(lambda: "bots" in order)  # the second worker, not the waiting hint
        assert order == ["hintA", "bots"] and pool.slots.hints_waiting() == 1
        gate.set()
        await bots
        await asyncio.sleep(0.02)
        assert "hintB" not in order  # still one hint at a time
        hold.set()
        await asyncio.gather(a, b)
        pool.close()
        return order

    assert asyncio.run(main()) == ["hintA", "bots", "hintB"]


def test_one_hint_per_asker_and_a_bounded_queue_refused_as_busy():
    async def main():
        pool = BotPool(workers=1, processes=False, hint_queue=2, hint_seconds=1.0)
        order: list[str] = []
        job = gated_job(order)
        gate = threading.Event()
        running = asyncio.ensure_future(pool.hint("10.0.0.1", job, "h1", gate))
        await until(lambda: order == ["h1"])
        with pytest.raises(Refusal) as e:
            await pool.hint("10.0.0.1", job, "again", gate)
        assert e.value.code == "busy" and "still being worked out" in e.value.message
        queued = [asyncio.ensure_future(pool.hint(f"10.0.0.{k}", job, f"h{k}", gate))
                  for k in (2, 3)]
        await asyncio.sleep(0.01)
        with pytest.raises(Refusal) as e:
            await pool.hint("10.0.0.4", job, "h4", gate)
        said = e.value.message
        assert e.value.code == "busy" and "2 hints are waiting" in said and "at most 2" in said
        assert "try again in about 3 s" in said  # two ahead, one at a time, about 1 s each
        gate.set()
        await asyncio.gather(running, *queued)
        assert pool.hint_askers == set()  # nothing left behind: asking again works
        await pool.hint("10.0.0.1", job, "h1b", gate)
        pool.close()
        return order

    assert asyncio.run(main()) == ["h1", "h2", "h3", "h1b"]


def test_a_hint_waiter_cancelled_passes_its_slot_on():
    async def main():
        pool = BotPool(workers=1, processes=False)
        busy = asyncio.ensure_future(pool.run(time.sleep, 0.05, urgent=True))
        await asyncio.sleep(0.01)
        gone = asyncio.ensure_future(pool.hint("10.0.0.1", time.sleep, 0))
        await asyncio.sleep(0)
        gone.cancel()
        await busy
        await asyncio.wait_for(pool.hint("10.0.0.1", time.sleep, 0), 2.0)
        assert pool.slots.free == 1 and pool.slots.hints == 0 and pool.hint_askers == set()
        pool.close()

    asyncio.run(main())


def slow_hints(monkeypatch, seconds: float) -> None:
    """Each hint takes ``seconds`` (the tables' bots think as usual)."""
    from regalia.server.tables import talk

    def hint_of(game, name, view, legal, seed, budget):
        time.sleep(seconds)
        return {"action": legal[0], "why": None, "win": None, "next": None, "next_win": None,
                "worlds": 0, "lead_range": None}
    monkeypatch.setattr(talk, "hint_of", hint_of)


def play_to_the_bot(me, timeout: float = 10.0) -> float:
    """Play the person's seat (seat 0) until the bot (seat 1) is to act; the time of the
    last move sent."""
    while True:
        ply = me.state["ply"]
        if not me.state["legal"]:  # the bot is to act (it may start): wait for the person's turn
            me.recv_until(lambda m: m["type"] == "state" and m["ply"] > ply, timeout)
            continue
        me.act(me.state["legal"][0])
        sent = time.monotonic()
        st = me.recv_until(lambda m: m["type"] == "state" and m["ply"] > ply, timeout)
        if st["current"] == 1:
            return sent


def test_hints_from_many_addresses_do_not_slow_a_persons_bot_replies(db_url, monkeypatch):
    """End to end, one bot worker: eight players each ask a hint (0.4 s each) at their own
    solo table from their own address; a person's bot opponent then answers after at most
    the hint under way, not after the eight."""
    slow_hints(monkeypatch, 0.4)
    with running_app(db_url, bot_workers=1, bot_budget=0.01, hint_queue=20) as c:
        as_address(c, "10.1.0.1")
        d = new_table(c, "regicide", ["human", "random"], seed=11)
        me = join(c, d, 0)
        askers = []
        for k in range(8):
            as_address(c, f"10.2.0.{k}")
            askers.append(join(c, new_table(c, "regicide", ["human"], hints=True), 0))
        as_address(c, "10.1.0.1")
        me.state_at(0)
        for p in askers:
            p.send({"type": "hint"})
        time.sleep(0.2)  # every hint asked: one worked out, seven queued
        sent = play_to_the_bot(me)
        ply = me.state["ply"]
        me.recv_until(lambda m: m["type"] == "state" and m["ply"] > ply, timeout=10)
        waited = time.monotonic() - sent
        for p in askers:
            assert p.recv_until(lambda m: m["type"] in ("hint", "error"), timeout=10)["type"] == "hint"
        assert waited < 1.2, f"the bot answered the person after {waited:.2f} s"


def test_beyond_the_hint_queue_a_hint_is_refused_as_busy_naming_the_wait(db_url, monkeypatch):
    slow_hints(monkeypatch, 0.5)
    with running_app(db_url, bot_workers=1, hint_queue=1) as c:
        askers = []
        for k in range(3):
            as_address(c, f"10.3.0.{k}")
            askers.append(join(c, new_table(c, "regicide", ["human"], hints=True), 0))
        for p in askers:
            p.send({"type": "hint"})
            time.sleep(0.05)
        got = [p.recv_until(lambda m: m["type"] in ("hint", "error"), timeout=10) for p in askers]
        assert [m["type"] for m in got] == ["hint", "hint", "error"], got
        assert got[2]["code"] == "busy" and "try again in about" in got[2]["message"]
