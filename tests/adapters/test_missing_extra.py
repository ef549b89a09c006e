"""Without the ``research`` extra the core still imports, and an adapter says what to install.

The missing libraries are simulated in a fresh interpreter whose import system refuses
``pettingzoo``, ``gymnasium`` and ``pyspiel``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

BLOCK = textwrap.dedent("""
    import importlib.abc, sys

    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("pettingzoo", "gymnasium", "pyspiel"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing())
""")


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120, env=os.environ.copy())


def test_the_core_and_the_batch_simulator_import_without_the_extra():
    done = _run("""
        import regalia.adapters.encoding, regalia.adapters.episode, regalia.adapters.batch
        import regalia.games.regicide, regalia.bots
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("module,library", [("regalia.adapters.pettingzoo", "pettingzoo"),
                                            ("regalia.adapters.gymnasium", "gymnasium")])
def test_an_adapter_without_its_library_names_the_extra(module, library):
    done = _run(f"""
        try:
            import {module}
        except ImportError as e:
            print(e)
    """)
    assert done.returncode == 0, done.stderr
    assert f"needs {library}" in done.stdout and "regalia[research]" in done.stdout
