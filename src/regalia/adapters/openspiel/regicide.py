"""``python_regicide``: Regicide (rules/regicide.md) as an OpenSpiel game.

Parameters: ``players`` (1-4) and the rule options (rules page, "Rule options"):
``jester_choose_self``, ``minimal_discard``, ``solo_yield`` (refused in solo: free yields
behind a full shield would make the game endless, and OpenSpiel needs a finite
``max_game_length``) and ``first_player`` (``-1``: drawn at random).

Chance nodes: the setup (the three royal shuffles of the Castle, the Tavern shuffle, the
first player) and the Hearts heal (the discard pile shuffled, rules 1.6), one card per node.
Rewards: identical for all seats, at the end: 1 won, 0 lost. Actions: the fixed encoding of
``regicide_actions`` (344 ids; a Step 4 discard is picked card by card), mapped to the shared
encoding's 516 ids by ``regicide_actions.to_encoding_id`` and ``from_encoding_id``.
Tensors: the shared encoding's (``RegicideObserver``; ``regalia.adapters.encoding``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from regalia.adapters import encoding as E
from regalia.adapters.openspiel import regicide_actions as RA
from regalia.adapters.openspiel.base import (EngineGame, EngineState, ViewObserver, capped,
                                             config_from_params)
from regalia.bots.regicide.belief import determinize
from regalia.games.regicide import REGICIDE
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import card_text, cards_of
from regalia.games.regicide.rules import legal_actions
from regalia.games.regicide.state import MAX_HAND, SUFFER

NAME = "python_regicide"
DEFAULTS: dict[str, Any] = {"players": 1, "solo_yield": False, "jester_choose_self": True,
                            "minimal_discard": False, "first_player": -1}
N_CARDS = 54
ENEMIES = 12
_INDEX = {card_text(c): min(c, 52) for c in range(54)}  # a card's text -> tensor index
PLAYS_PER_ENEMY = 40 + 2  # a non-Jester play deals at least 1 of <= 40 health; two Jesters


def max_game_length(players: int) -> int:
    """An upper bound on the decisions of a game (rules 1.4-1.14).

    Per enemy at most 42 plays (each non-Jester play deals at least 1 damage, health is at
    most 40; each Jester is played once); before each play at most ``players - 1`` yields;
    after each play or yield one Step 4 discard of at most ``MAX_HAND + 1`` decisions (the
    picks and ``discard picked``) or one ``choose``; ``players - 1`` more yields before a
    final loss; the two solo refreshes.
    """
    turn = 1 + MAX_HAND[players] + 1
    return ENEMIES * PLAYS_PER_ENEMY * players * turn + players * turn + 2


_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Regicide (Regalia)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.IDENTICAL,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class RegicideState(EngineState):
    """A Regicide position, a chance draw of the setup or of a heal, or a discard being
    picked (``picked``: card mask chosen so far by the seat in Step 4)."""

    ENGINE = REGICIDE

    def __init__(self, game, engine_state=None, deal=True) -> None:
        self.picked = 0
        super().__init__(game, engine_state, deal)

    def _copy_extra(self, other: "RegicideState") -> None:
        other.picked = self.picked

    def _card_text(self, card: int) -> str:
        return card_text(card)

    def _player_actions(self) -> list[int]:
        s = self.engine
        codes = legal_actions(s)
        if s.phase != SUFFER:
            return sorted({RA.turn_id(c) for c in codes})
        hand = s.hands[s.current]
        discards = [c for c in codes if A.kind(c) == A.DISCARD]
        ids = RA.pick_ids(discards, self.picked, hand)
        if not self.picked and A.JESTER_REFRESH in codes:
            ids.append(RA.REFRESH)
        return sorted(ids)

    def _apply_player_action(self, action: int) -> None:
        s = self.engine
        hand = s.hands[s.current]
        if RA.PICK <= action < RA.DISCARD_DONE:
            self.picked |= 1 << RA.pick_card(action, hand, self.picked)
        elif action == RA.DISCARD_DONE:
            code = A.DISCARD | self.picked
            self.picked = 0
            self._run_action(code)
        else:
            self._run_action(RA.turn_code(action, hand))

    def _player_action_text(self, action: int) -> str:
        return RA.to_text(action)

    def _utilities(self) -> list[float]:
        return [float(x) for x in REGICIDE.returns(self.engine)]

    def _determinize(self, view, rng: random.Random):
        return determinize(view, rng)

    def view(self, seat):
        v = super().view(seat)
        if v is not None and seat is not None and seat == v["current"] and self.picked:
            v["picked"] = [card_text(c) for c in cards_of(self.picked)]
        return v


class RegicideObserver(ViewObserver):
    """Tensors of a Regicide view (float32, values in [0, 1]; ``regalia.adapters.encoding``
    documents the layout). Observation (416): the pieces of ``encoding.REGICIDE_LAYOUT``
    (``regicide_observation`` of the seat's view, 408), then ``picked`` (8): the hand slots
    already picked for the Step 4 discard being chosen card by card. Information state
    (523): those, then from the seat's event log ``played`` (53, per card id, 52 = both
    Jesters: times seen played or discarded, ``min(n, 4) / 4``), ``drawn`` (53: times this
    seat drew the card, ``min(n, 4) / 4``), ``heals`` (1: Hearts heals so far,
    ``min(n, 12) / 12``)."""

    CARD_CAP = 4
    HEAL_CAP = 12

    def pieces(self, game):
        return list(E.REGICIDE_LAYOUT) + [("picked", (E.MAX_SLOTS,))]

    def history_pieces(self, game):
        return [("played", (53,)), ("drawn", (53,)), ("heals", (1,))]

    def fill(self, state, v: dict[str, Any], player: int) -> None:
        self.tensor[:E.REGICIDE_OBS] = E.regicide_observation(v, player)
        picked = list(v.get("picked") or ())
        for i, t in enumerate(v.get("hand") or ()):
            if t in picked:  # picks and hand in canonical order: Jesters fill the first X slots
                picked.remove(t)
                self.dict["picked"][i] = 1

    def fill_history(self, state, v: dict[str, Any], player: int) -> None:
        played = np.zeros(53)
        drawn = np.zeros(53)
        heals = 0
        for e in v["log"]:
            kind = e["kind"]
            if kind == "play" or kind == "jester" or kind == "discard":
                for t in e["cards"]:
                    played[_INDEX[t]] += 1
            elif kind in ("draw", "refresh") and "cards" in e:
                for t in e["cards"]:
                    drawn[_INDEX[t]] += 1
            elif kind == "heal":
                heals += 1
        d = self.dict
        d["played"][:] = capped(played, self.CARD_CAP)
        d["drawn"][:] = capped(drawn, self.CARD_CAP)
        d["heals"][0] = min(heals, self.HEAL_CAP) / self.HEAL_CAP


class RegicideGame(EngineGame):
    """Regicide for OpenSpiel; see the module docstring. Raises ``ValueError`` for a bad
    parameter (the message names it and what is allowed)."""

    STATE = RegicideState
    OBSERVER = RegicideObserver

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = params.get("players", DEFAULTS["players"])
        if not 1 <= players <= 4:
            raise ValueError(f"players={players}: Regicide is for 1 to 4 players")
        if players == 1 and params.get("solo_yield", False):
            raise ValueError("solo_yield=True is not offered here: solo yields behind a full "
                             "shield can go on for ever, and OpenSpiel needs games of bounded "
                             "length; use the engine (regalia.games.regicide) for it")
        config = config_from_params(params, DEFAULTS)
        REGICIDE.new_game(config, random.Random(0))  # checks the options (InvalidPosition)
        info = pyspiel.GameInfo(
            num_distinct_actions=RA.NUM_ACTIONS,
            max_chance_outcomes=N_CARDS,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=max_game_length(players))
        super().__init__(_GAME_TYPE, info, params, config)


pyspiel.register_game(_GAME_TYPE, RegicideGame)
