"""Shared fixtures: where the shared cases live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared folder beside the checkout (``REGALIA_SHARED`` overrides)."""
    env = os.environ.get("REGALIA_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


@pytest.fixture
def shared() -> Path:
    return shared_dir()
