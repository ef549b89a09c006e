"""The database threads run the moves' transactions first (``storage.writer``): a move
waits for the call under way, not for the table creations and seat claims queued before it."""

from __future__ import annotations

import threading

import pytest

from regalia.server.storage.threads import MOVES, OTHERS, DatabaseThreads


def test_the_moves_go_before_the_calls_waiting_and_each_priority_keeps_its_order():
    threads = DatabaseThreads(1, "test-db")
    gate, order = threading.Event(), []
    busy = threads.submit(gate.wait, 5)  # the call under way
    waiting = [threads.submit(order.append, "seat claim"),
               threads.submit_first(OTHERS, order.append, "table creation"),
               threads.submit_first(MOVES, order.append, "moves 1"),
               threads.submit_first(MOVES, order.append, "moves 2")]
    gate.set()
    for f in [busy, *waiting]:
        f.result(5)
    assert order == ["moves 1", "moves 2", "seat claim", "table creation"]
    threads.shutdown()


def test_a_failing_call_answers_its_error_and_the_thread_goes_on():
    threads = DatabaseThreads(1, "test-db")
    failing = threads.submit(int, "not a number")
    with pytest.raises(ValueError):
        failing.result(5)
    assert threads.submit(int, "7").result(5) == 7
    threads.shutdown()


def test_shutdown_runs_what_was_submitted_then_refuses_more():
    threads = DatabaseThreads(2, "test-db")
    gate, done = threading.Event(), []
    futures = [threads.submit(gate.wait, 5), threads.submit(done.append, 1),
               threads.submit_first(MOVES, done.append, 2)]
    stopper = threading.Thread(target=threads.shutdown)
    stopper.start()
    gate.set()
    stopper.join(5)
    assert not stopper.is_alive() and sorted(done) == [1, 2]
    assert all(f.done() for f in futures)
    with pytest.raises(RuntimeError, match="shut down"):
        threads.submit(done.append, 3)
