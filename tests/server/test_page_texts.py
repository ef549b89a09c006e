"""Every text key the pages name literally (``t("...")``, ``data-i18n``) exists in the
English dictionary (the other two languages have the same keys: test_api)."""

from __future__ import annotations

import json
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "regalia" / "server" / "static"


def test_every_literal_text_key_of_the_pages_exists():
    en = json.loads((STATIC / "i18n" / "en.json").read_text())
    used: set[str] = set()
    for js in (STATIC / "js").glob("*.js"):
        used |= set(re.findall(r'\bt\("([\w.\-]+)"\s*[,)]', js.read_text()))
    for html in STATIC.glob("*.html"):
        used |= set(re.findall(r'data-i18n(?:-title|-placeholder)?="([\w.\-]+)"', html.read_text()))
    assert len(used) > 100
    missing = sorted(k for k in used if k not in en and f"{k}_other" not in en)
    assert not missing, missing
