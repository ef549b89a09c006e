"""``regalia --help`` stays light: building the command line and printing any command's help
imports neither numba (the compiled fast path, bots and lab) nor SQLAlchemy (the server's
store); each command imports what it needs when it runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HELP = """
import sys
from typer.main import get_command
from typer.testing import CliRunner
import regalia.cli.app as cli

command = get_command(cli.app)
runner = CliRunner()
for args in [["--help"]] + [[name, "--help"] for name in command.commands]:
    r = runner.invoke(cli.app, args)
    assert r.exit_code == 0, (args, r.output)
print(" ".join(m for m in ("numba", "sqlalchemy") if m in sys.modules))
"""


def _heavy_after_help() -> set[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-c", HELP], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return set(r.stdout.split())


def test_help_imports_no_numba():
    assert "numba" not in _heavy_after_help()


def test_help_imports_no_sqlalchemy():
    assert "sqlalchemy" not in _heavy_after_help()
