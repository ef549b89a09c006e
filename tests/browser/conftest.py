"""Fixtures of the browser and restart tests: the real server (``regalia serve``) in a
subprocess on a free loopback port with a temporary SQLite file, and Playwright driving
Debian's chromium by its executable path (no browser download). Screenshots go to
``artifacts/screenshots/``."""

from __future__ import annotations

import json
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


@pytest.fixture(scope="module")
def chromium():
    # module scope: Playwright's sync API keeps an event loop running in this thread while
    # it lives, which would break asyncio.run() in the test modules that follow
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not path:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
    yield NamedBrowser(browser)
    browser.close()
    pw.stop()


class NamedBrowser:
    """The launched Chromium, whose new contexts already hold a nickname in localStorage
    (as a returning player's browser does), so the first-visit name dialog does not cover
    the table. ``new_context(nickname=None)`` gives a first-time visitor's browser."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def new_context(self, *, nickname: str | None = "Tester", **options):
        ctx = self._browser.new_context(**options)
        if nickname:
            ctx.add_init_script(
                "try { if (!localStorage.getItem('regalia.name')) "
                f"localStorage.setItem('regalia.name', {json.dumps(nickname)}); }} catch (e) {{}}")
        return ctx

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture
def shots():
    SHOTS.mkdir(parents=True, exist_ok=True)

    def shot(page, name: str, full_page: bool = True) -> None:
        """The page from its top: all of it, or only what the viewport shows."""
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)

    return shot
