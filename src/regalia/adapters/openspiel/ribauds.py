"""``python_ribauds``: Le Roy des Ribauds (rules/ribauds.md) as an OpenSpiel game.

Parameters: the rule options ``replaced_card`` (``"hand"`` or ``"discard"``) and
``first_player`` (``-1``: drawn at random), and ``max_game_length`` (decisions, default
``MAX_GAME_LENGTH``): the rules have no turn limit and face-down replacements can go on for
ever, while OpenSpiel needs a bounded game, so a game reaching that many decisions ends as a
draw (utility 0 each). Uniformly random play went past 584 decisions in none of 3,000
games.

Chance nodes: the setup (the 16-card shuffle, any cancel re-deal shuffle, the first player),
the Reine's two random cards (rules 2.4) and the reshuffle of the discard pile into an empty
draw pile (rules 2.6), one card per node. Rewards: zero-sum, at the end: +1 the conspiracy's
winner, -1 the other. Action ids and tensors are the shared encoding's
(``regalia.adapters.encoding``), as in the PettingZoo and Gymnasium environments: id ``i`` is
the ``i``-th valid engine action code in increasing order (``encoding.ribauds_code(i)``,
``encoding.ribauds_action_id``; 67 ids).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from regalia.adapters import encoding as E
from regalia.adapters.openspiel.base import (EngineGame, EngineState, ViewObserver, capped,
                                             config_from_params)
from regalia.bots.ribauds.belief import determinize
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.cards import LETTERS
from regalia.games.ribauds.rules import legal_actions

NAME = "python_ribauds"
MAX_GAME_LENGTH = 1000
DEFAULTS: dict[str, Any] = {"players": 2, "replaced_card": "hand", "first_player": -1,
                            "max_game_length": MAX_GAME_LENGTH}
N_CARDS = 16
_TYPE = {letter: i for i, letter in enumerate(LETTERS)}

_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Le Roy des Ribauds (Regalia)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class RibaudsState(EngineState):
    """A Ribauds position or a chance draw; ``moves``: decisions so far (for the length cap)."""

    ENGINE = RIBAUDS

    def __init__(self, game, engine_state=None, deal=True) -> None:
        self.moves = 0
        self.max_moves = game.max_moves
        super().__init__(game, engine_state, deal)

    def _copy_extra(self, other: "RibaudsState") -> None:
        other.moves = self.moves

    def _truncated(self) -> bool:
        return self.moves >= self.max_moves

    def _card_text(self, card: int) -> str:
        return LETTERS[card]

    def _player_actions(self) -> list[int]:
        return sorted(E.ribauds_action_id(None, code) for code in legal_actions(self.engine))

    def _apply_player_action(self, action: int) -> None:
        self.moves += 1
        self._run_action(E.ribauds_code(action))

    def _player_action_text(self, action: int) -> str:
        return A.to_text(E.ribauds_code(action))

    def _utilities(self) -> list[float]:
        winner = self.engine.winner
        if winner is None:  # stopped at max_game_length
            return [0.0, 0.0]
        return [1.0 if seat == winner else -1.0 for seat in (0, 1)]

    def _determinize(self, view, rng: random.Random):
        return determinize(view, rng)


class RibaudsObserver(ViewObserver):
    """Tensors of a Ribauds view (float32, values in [0, 1]; ``regalia.adapters.encoding``
    documents the layout). Observation (53): the pieces of ``encoding.RIBAUDS_LAYOUT``,
    ``ribauds_observation`` of the seat's view. Information state (62): those, then
    ``inspected`` (4, per type K Q N A: cards this seat saw in Reine inspections, either
    way, ``min(n, 8) / 8``), ``peeked`` (4: Court cards it saw by Assassin, ``min(n, 8) /
    8``), ``decisions`` (1: decisions so far / ``max_game_length``, the draw clock)."""

    CARD_CAP = 8

    def pieces(self, game):
        return list(E.RIBAUDS_LAYOUT)

    def history_pieces(self, game):
        return [("inspected", (4,)), ("peeked", (4,)), ("decisions", (1,))]

    def fill(self, state, v: dict[str, Any], player: int) -> None:
        self.tensor[:E.RIBAUDS_OBS] = E.ribauds_observation(v, player)

    def fill_history(self, state, v: dict[str, Any], player: int) -> None:
        inspected = np.zeros(4)
        peeked = np.zeros(4)
        for e in v["log"]:
            if e["kind"] == "inspect" and "cards" in e:
                for t in e["cards"]:
                    inspected[_TYPE[t]] += 1
            elif e["kind"] == "peek" and e.get("cards"):
                for t in e["cards"]:
                    if t:
                        peeked[_TYPE[t]] += 1
        d = self.dict
        d["inspected"][:] = capped(inspected, self.CARD_CAP)
        d["peeked"][:] = capped(peeked, self.CARD_CAP)
        d["decisions"][0] = min(state.moves, state.max_moves) / state.max_moves


class RibaudsGame(EngineGame):
    """Le Roy des Ribauds for OpenSpiel; see the module docstring. Raises ``ValueError`` for
    a bad parameter (the message names it and what is allowed)."""

    STATE = RibaudsState
    OBSERVER = RibaudsObserver

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.max_moves = params.get("max_game_length", MAX_GAME_LENGTH)
        if self.max_moves < 1:
            raise ValueError(f"max_game_length={self.max_moves}: must be at least 1")
        config = config_from_params(
            {k: v for k, v in params.items() if k != "max_game_length"},
            {k: v for k, v in DEFAULTS.items() if k != "max_game_length"})
        RIBAUDS.new_game(config, random.Random(0))  # checks the options (InvalidPosition)
        info = pyspiel.GameInfo(
            num_distinct_actions=E.RIBAUDS_ACTIONS,
            max_chance_outcomes=N_CARDS,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_moves)
        super().__init__(_GAME_TYPE, info, params, config)


pyspiel.register_game(_GAME_TYPE, RibaudsGame)
