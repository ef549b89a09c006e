"""Shared fixtures: where the shared cases live; the helper modules of this folder
(``serve_process``) importable from every test folder."""

from __future__ import annotations

import ast
import os
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


if sys.version_info < (3, 12, 6):
    # CPython before 3.12.6 keeps the AST builder's recursion depth in one global: two
    # threads building ASTs at once fail with "SystemError: AST constructor recursion depth
    # mismatch" (CPython issue gh-106905). In the tests hypothesis reads its strategies'
    # source on the main thread while an app's threads parse signatures (inspect, pydantic)
    # or import numpy: one lock around ast.parse makes them take turns.
    _ast_parse, _ast_lock = ast.parse, threading.RLock()

    def _parse_in_turn(*args, **kwargs):
        with _ast_lock:
            return _ast_parse(*args, **kwargs)

    ast.parse = _parse_in_turn


def shared_dir() -> Path:
    """The shared folder beside the checkout (``REGALIA_SHARED`` overrides)."""
    env = os.environ.get("REGALIA_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


@pytest.fixture
def shared() -> Path:
    return shared_dir()


@pytest.fixture(autouse=True)
def _own_data_home(tmp_path_factory, monkeypatch):
    """``regalia play`` keeps unfinished games in the user's data directory: a test's are
    kept in a folder of its own, never in the real one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))
