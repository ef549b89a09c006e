"""Running an example script of ``examples/`` in its smoke mode, as a user would, on this
checkout's ``src`` (importable from every test folder: ``tests/conftest.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_example(script: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    """Run ``examples/SCRIPT`` with ``args`` in a new process; assert it succeeded and
    return the JSON summary it prints on its last line."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    r = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args],
                       capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])
