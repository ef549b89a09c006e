"""``regalia serve`` stopped by SIGTERM (systemd, Docker, a process manager) shuts down as
it does on Ctrl+C: the tables' database is closed, nothing left behind, exit status 0."""

from __future__ import annotations

import sqlite3

import pytest

from serve_process import ServeProcess, free_port


@pytest.mark.slow
def test_a_server_stopped_by_sigterm_closes_its_database(tmp_path):
    db = tmp_path / "tables.sqlite3"
    server = ServeProcess(free_port(), f"sqlite:///{db}", tmp_path / "serve.log")
    server.start()
    try:
        table = server.create("regicide", ["human"])
        assert (tmp_path / "tables.sqlite3-wal").exists()  # open in WAL mode meanwhile
        server.proc.terminate()
        assert server.proc.wait(20) == 0, server.tail()
    finally:
        server.stop()
    assert not (tmp_path / "tables.sqlite3-wal").exists(), "the database was not closed"
    assert not (tmp_path / "tables.sqlite3-shm").exists()
    with sqlite3.connect(db) as conn:  # what was written is in the database file itself
        ids = {row[0] for row in conn.execute("SELECT id FROM game_tables")}
    assert table["id"] in ids
