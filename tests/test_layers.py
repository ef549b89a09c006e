"""The dependency rules of pyproject.toml ``[tool.importlinter]`` hold: every import points
down the layers (core < games < fast < bots < lab, adapters < server, cli) and no package's
modules import each other in a circle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    assert lint.exists(), f"import-linter is not installed beside {sys.executable} (the test extra)"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    r = subprocess.run([str(lint), "--no-cache", "--no-logo"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
