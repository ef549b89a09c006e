"""``regalia serve`` in a subprocess, for the tests that need a real server (the browser
tests, the multi-replica tests): its address, start and readiness, ``/healthz``, a table made
through the HTTP API, ``kill -9`` and stop, and the end of its log."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    """``regalia serve --port PORT --database-url URL ARGS...`` (on 127.0.0.1, logging
    warnings and errors to ``log``)."""

    label = "the server"  # in error messages

    def __init__(self, port: int, database_url: str, log: Path, args: tuple[str, ...] = ()) -> None:
        self.port = port
        self.database_url = database_url
        self.log = Path(log)
        self.args = tuple(args)
        self.proc: subprocess.Popen | None = None
        self.killed_at: float | None = None
        self._out = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def launch(self) -> None:
        """Start the process (without waiting for it: ``wait_ready``)."""
        cmd = [sys.executable, "-m", "regalia.cli.app", "serve", "--host", "127.0.0.1",
               "--port", str(self.port), "--database-url", self.database_url,
               "--log-level", "warning", *self.args]
        if self._out is not None:  # started again after a kill
            self._out.close()
        self._out = open(self.log, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self._out, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def wait_ready(self, timeout: float = 60.0) -> dict[str, Any]:
        """``/healthz``'s body once it says ``ok``; ``RuntimeError`` (with the log's end)
        when the process exits or does not answer in ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive:
                raise RuntimeError(f"{self.label} exited at start:\n{self.tail()}")
            try:
                h = self.health(timeout=2)
                if h.get("ok"):
                    return h
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.label} did not answer /healthz in {timeout}s:\n{self.tail()}")

    def start(self, timeout: float = 60.0) -> None:
        self.launch()
        self.wait_ready(timeout)

    def health(self, timeout: float = 10) -> dict[str, Any]:
        """``/healthz``'s JSON body (a 503 too)."""
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=timeout) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.loads(e.read() or b"{}")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.load(r)

    def create(self, game: str, seats: list[str], options: dict | None = None,
               clock: str | None = None) -> dict[str, Any]:
        """A new table (the server deals it from its secret source); ``seats``: ``"human"``
        or a bot's name each; ``clock``: a clock preset's name (``GET /api/clocks``)."""
        body = {"game": game, "players": len(seats), "options": options or {},
                "seats": [{"kind": "human"} if s == "human" else {"kind": "bot", "bot": s}
                          for s in seats]}
        if clock is not None:
            body["clock"] = clock
        req = urllib.request.Request(self.url + "/api/tables", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            return json.load(r)

    def kill9(self) -> None:
        assert self.proc is not None
        self.killed_at = time.monotonic()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL after 10 s) and close its log."""
        if self.alive:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()
        if self._out is not None:
            self._out.close()
            self._out = None

    def tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"
