"""The smallest outside policy ``regalia eval --policy`` scores: the lowest legal action id.

    regalia eval --policy examples/first_legal_policy.py:policy --deals 100

A policy is ``policy(observation, action_mask) -> action id`` on the encoding of
``regalia.adapters.encoding`` (what the Gymnasium and PettingZoo environments give); see
``regalia.adapters.policy`` for the contract and the other forms (a factory, ``sb3:PATH``).
"""

import numpy as np


def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """The lowest legal id."""
    return int(np.flatnonzero(action_mask)[0])
