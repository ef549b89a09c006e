"""Clients that never finish a request (slow-loris) cannot take the server's connections:
a request must arrive whole within ``--request-timeout``, one address holds at most
``--http-connections-per-address`` connections, the process holds at most its descriptor
limit less a reserve for the database (``regalia.server.web.transport``)."""

from __future__ import annotations

import asyncio
import http.client
import resource
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

from regalia.server.web import transport
from serve_process import ServeProcess, free_port

PARTIAL = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def half_sent(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0), timeout=5)
    s.sendall(PARTIAL)
    return s


def closed_within(s: socket.socket, seconds: float) -> bool:
    """Whether the server closed ``s`` within ``seconds`` (it sent nothing before)."""
    s.settimeout(seconds)
    try:
        return s.recv(1024) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def answered(port: int, source: str) -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    c.request("GET", "/api/games")
    return c.getresponse().status


@pytest.mark.slow
def test_half_sent_requests_are_cut_off_and_capped_per_address(tmp_path: Path):
    srv = ServeProcess(free_port(), f"sqlite:///{tmp_path / 'r.sqlite3'}", tmp_path / "log",
                       ("--request-timeout", "1.5", "--http-connections-per-address", "4"))
    srv.start()
    try:
        held = [half_sent(srv.port) for _ in range(4)]
        over = [half_sent(srv.port) for _ in range(3)]
        assert all(closed_within(s, 1.0) for s in over)       # over the address's cap: at once
        assert answered(srv.port, "127.0.0.2") == 200          # another address is served
        assert not any(closed_within(s, 0.05) for s in held)   # within the timeout: kept
        assert all(closed_within(s, 3.0) for s in held)        # then cut off
        assert answered(srv.port, "127.0.0.1") == 200          # the address is free again
        assert srv.health()["ok"]
    finally:
        for s in held + over:
            s.close()
        srv.stop()


@contextmanager
def uvicorn_with(app, http):
    """A uvicorn server of ``app`` with the ``http`` protocol class on a free port, in a
    thread; yields the port, stopped on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off",
                                           log_level="warning", http=http))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def test_connections_over_the_process_cap_are_closed_at_once():
    """A whole-process cap below the descriptor limit (here 3 connections): the fourth is
    closed as it opens, and a request is answered again once the others left."""

    async def app(scope, receive, send):
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

    with uvicorn_with(app, transport.protocol(30.0, 100, 3)) as port:
        held = [half_sent(port) for _ in range(3)]
        extra = half_sent(port)
        assert closed_within(extra, 1.0)
        assert not any(closed_within(s, 0.05) for s in held)
        for s in held:
            s.close()
        time.sleep(0.2)
        assert answered(port, "127.0.0.1") == 200


def test_the_descriptor_limit_is_raised_to_the_hard_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        if soft > 256:
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        now = transport.raise_descriptor_limit()
        assert now == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert now == (transport.FD_WANTED if hard == resource.RLIM_INFINITY else hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_websockets_count_against_their_address_until_they_close():
    """An upgraded connection keeps its address's slot (the same transport) and frees it
    when the websocket closes: the cap counts the address's open transports."""
    from websockets.sync.client import connect

    async def app(scope, receive, send):
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            while (await receive())["type"] != "websocket.disconnect":
                pass

    with uvicorn_with(app, transport.protocol(30.0, 2, 100)) as port:
        url = f"ws://127.0.0.1:{port}/"
        with connect(url, open_timeout=5), connect(url, open_timeout=5) as second:
            with pytest.raises(Exception):  # the third from that address: closed as it opens
                with connect(url, open_timeout=5):
                    pass
            second.close()
            time.sleep(0.2)
            with connect(url, open_timeout=5):  # the closed websocket's slot is free
                pass
