"""What the table sockets' short way (``app.Site``: the host check and the ``Guard``, then
``web.socket.socket_endpoint``) must keep of FastAPI's whole stack: an operator's
OpenTelemetry sees a table's websocket as it sees a request (FastAPI's own telemetry wraps
``FastAPI.__call__``, which the short way skips)."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext

from server_helpers import new_table, running_app


class Recorded(NonRecordingSpan):
    def __init__(self, name: str, spans: list[str]) -> None:
        super().__init__(SpanContext(1, len(spans) + 1, False))
        self.name = name
        spans.append(name)


class Tracer(trace.Tracer):
    def __init__(self, spans: list[str]) -> None:
        self.spans = spans

    def start_span(self, name, *args, **kwargs):
        return Recorded(name, self.spans)

    def start_as_current_span(self, name, *args, **kwargs):  # pragma: no cover - unused
        return trace.use_span(self.start_span(name))


class Provider(trace.TracerProvider):
    """A configured tracer provider (as ``opentelemetry-instrument`` or FastAPI's
    ``FASTAPI_OTEL_AUTO_CONFIGURE=true`` installs): it records the names of the spans."""

    def __init__(self) -> None:
        self.spans: list[str] = []

    def get_tracer(self, *args, **kwargs):
        return Tracer(self.spans)


def test_a_table_socket_is_traced_as_the_requests_are(db_url, monkeypatch):
    provider = Provider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    with running_app(db_url) as c:
        d = new_table(c, "regicide", ["human"])
        assert "POST" in provider.spans  # the request that opened the table: traced
        with c.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "hello", "token": d["seats"][0]["token"]})
            assert ws.receive_json()["type"] == "welcome"
        assert "WS" in provider.spans, provider.spans  # and its socket


def test_a_middleware_added_to_the_app_sees_its_sockets(db_url):
    """An ASGI middleware an operator adds to the app ``create_app`` returned (error
    reporting, metrics) sees the table sockets, as it sees the requests."""
    seen: list[str] = []

    class Recorder:
        def __init__(self, app) -> None:
            self.app = app

        async def __call__(self, scope, receive, send) -> None:
            seen.append(scope["type"])
            await self.app(scope, receive, send)

    with running_app(db_url, prepare=lambda app: app.add_middleware(Recorder)) as c:
        d = new_table(c, "regicide", ["human"])
        with c.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "hello", "token": d["seats"][0]["token"]})
            assert ws.receive_json()["type"] == "welcome"
    assert "http" in seen and "websocket" in seen, seen


def test_the_sockets_take_the_short_way_otherwise(db_url, monkeypatch):
    """With neither, a socket skips the stack: no router, no exception handlers in its
    scope."""
    import regalia.server.web.socket as socket_module

    scopes: list[dict] = []
    online_while = socket_module.online_while

    def spy(ws):
        scopes.append(dict(ws.scope))
        return online_while(ws)

    monkeypatch.setattr(socket_module, "online_while", spy)
    with running_app(db_url) as c:
        d = new_table(c, "regicide", ["human"])
        with c.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "hello", "token": d["seats"][0]["token"]})
            assert ws.receive_json()["type"] == "welcome"
    assert len(scopes) == 1
    assert "router" not in scopes[0] and "starlette.exception_handlers" not in scopes[0]
