"""``regalia serve``'s process set-up (server/run.py)."""

import gc

from regalia.server.run import FULL_AFTER, quiet_collector


def test_quiet_collector_freezes_what_exists_and_spaces_out_full_collections():
    before = gc.get_threshold()
    kept = object.__new__(type("Kept", (), {}))  # a tracked object that exists at start
    try:
        quiet_collector()
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # out of every collection
        assert gc.get_threshold() == (before[0], 2, FULL_AFTER) and FULL_AFTER > 10
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
    assert any(o is kept for o in gc.get_objects())
