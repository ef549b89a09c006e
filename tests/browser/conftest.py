"""Fixtures of the browser and restart tests: the real server (``regalia serve``) in a
subprocess on a free loopback port with a temporary SQLite file, and Playwright driving
Debian's chromium by its executable path (no browser download). Screenshots go to
``artifacts/screenshots/``."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from browser_helpers import CHROMIUM, CHROMIUM_ARGS, Server, free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "regalia.sqlite3", free_port())
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def chromium():
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not path:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    pw.stop()


@pytest.fixture
def shots():
    SHOTS.mkdir(parents=True, exist_ok=True)

    def shot(page, name: str, full_page: bool = True) -> None:
        """The page from its top: all of it, or only what the viewport shows."""
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)

    return shot
