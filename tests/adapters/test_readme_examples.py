"""The README's "Research interfaces" examples run as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _example(name: str) -> str:
    """The section's Python example that mentions ``name``."""
    text = README.read_text()
    section = text.split("## Research interfaces", 1)[1].split("\n## ", 1)[0]
    found = [e for e in re.findall(r"```python\n(.*?)```", section, re.S) if name in e]
    assert len(found) == 1, f"one example of {name} expected in the README's section"
    return found[0]


@pytest.mark.parametrize("name", ["regalia.adapters.openspiel", "regalia.adapters.pettingzoo",
                                  "regalia.adapters.gymnasium", "regalia.adapters.batch"])
def test_example_runs(name):
    exec(compile(_example(name), f"README example of {name}", "exec"), {})
