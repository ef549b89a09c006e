"""Faces of the games for the standard research interfaces (design.md, "adapters").

Each adapter is built on the engines' views only and needs its library, installed with the
``research`` extra (``pip install -e '.[research]'``):

* ``openspiel``: ``python_regicide`` and ``python_ribauds`` registered with ``pyspiel``;
* ``encoding``: the fixed action ids, observation vectors and legal-action masks, built only
  from ``Game.view(state, seat)`` and the seat's legal actions (needs numpy only);
* ``pettingzoo``: ``regicide_env(players=N, **options)`` and ``ribauds_env()``, AEC
  environments;
* ``gymnasium``: registers ``regalia/RegicideSolo-v0``, ``regalia/Regicide-v0`` (2-4
  players) and ``regalia/Ribauds-v0``.

Importing an adapter without its library raises ``ImportError`` naming that extra. The batch
simulators with the PettingZoo and Gymnasium encoding (numpy and the compiled fast paths
only) are in ``batch``: ``RegicideBatch`` and ``RibaudsBatch``.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, package: str) -> ModuleType:
    """Import ``module`` for an adapter; raise ``ImportError`` naming the extra to install.

    ``package`` is the PyPI name shown in the message (``pettingzoo``, ``gymnasium``).
    """
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"this Regalia adapter needs {package}, which is not installed: "
            f"pip install 'regalia[research]' (or pip install -e '.[research]' in a checkout)"
        ) from e
