"""Regicide and Le Roy des Ribauds as OpenSpiel games.

Importing this package registers ``python_regicide`` (parameters ``players`` 1-4 and the rule
options) and ``python_ribauds`` with ``pyspiel.register_game``, in the manner of OpenSpiel's
own Python games::

    import pyspiel
    import regalia.adapters.openspiel  # noqa: F401  (registers the games)
    game = pyspiel.load_game("python_regicide", {"players": 2})

Needs open-spiel: ``pip install -e '.[research]'``.
"""

try:
    import pyspiel  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised by a test with pyspiel hidden
    raise ImportError(
        "regalia.adapters.openspiel needs OpenSpiel (the open-spiel package): "
        "install the research extra with  pip install -e '.[research]'") from e

from regalia.adapters.openspiel.regicide import RegicideGame  # noqa: E402  (registers)
from regalia.adapters.openspiel.ribauds import RibaudsGame  # noqa: E402  (registers)

__all__ = ["RegicideGame", "RibaudsGame"]
