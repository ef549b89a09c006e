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
