"""Fixtures of the server tests: an app on a temporary SQLite file, driven by the ASGI test
client (no network). Makes ``server_helpers`` importable whatever pytest's import mode."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)


@pytest.fixture
def db_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'regalia-test.sqlite3'}"


@pytest.fixture
def client(db_url):
    """A started app (bots act at once) and its test client."""
    from server_helpers import running_app

    with running_app(db_url) as c:
        yield c


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A Redis for a module's replicas: ``REGALIA_TEST_REDIS_URL`` as it is, or a private
    ``redis-server`` (``replica_helpers.RedisServer``)."""
    from replica_helpers import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server.url
    server.stop()


@pytest.fixture
def two_replicas(db_url, redis_url):
    """``two_replicas(**settings)``: a context of two started apps (``a``, ``b``; test
    clients) on one SQLite file and one emptied Redis, each with ``settings``."""
    from contextlib import ExitStack, contextmanager

    import redis

    from server_helpers import running_app

    @contextmanager
    def start(**settings):
        redis.Redis.from_url(redis_url).flushdb()
        with ExitStack() as stack:
            yield tuple(stack.enter_context(running_app(db_url, redis_url=redis_url,
                                                        replica=name, **settings))
                        for name in ("a", "b"))

    return start
