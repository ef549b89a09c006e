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
winner, -1 the other. Action ids are the engine's action codes (formats.md 2.3, below
``N_CODES``).
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from regalia.adapters.openspiel.base import EngineGame, EngineState, ViewObserver, config_from_params
from regalia.bots.ribauds.belief import determinize
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.cards import LETTERS
from regalia.games.ribauds.rules import legal_actions
from regalia.games.ribauds.state import CONSPIRACIES, PHASES

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
        return sorted(legal_actions(self.engine))

    def _apply_player_action(self, action: int) -> None:
        self.moves += 1
        self._run_action(action)

    def _player_action_text(self, action: int) -> str:
        return A.to_text(action)

    def _utilities(self) -> list[float]:
        winner = self.engine.winner
        if winner is None:  # stopped at max_game_length
            return [0.0, 0.0]
        return [1.0 if seat == winner else -1.0 for seat in (0, 1)]

    def _determinize(self, view, rng: random.Random):
        return determinize(view, rng)


class RibaudsObserver(ViewObserver):
    """Tensors of a Ribauds view. Card vectors count the 4 types (K Q N A). Observation
    pieces: ``seat``, ``current``, ``phase`` (one-hot), ``winner``, ``conspiracy``,
    ``court`` (per slot: the card's type if this seat knows it, face up, known by seat 0,
    known by seat 1), ``hand``, ``opponent_hand_known``, ``hand_known_by_opponent``,
    ``discard``, ``numbers`` (hand sizes, draw pile size, publicly known bottom Reines,
    re-deals). Information-state extra pieces, from the log: ``inspected`` (cards this seat
    saw in Reine inspections, either way), ``peeked`` (Court cards it saw by Assassin),
    ``events`` (how many events so far)."""

    def pieces(self, game):
        return [("seat", (2,)), ("current", (2,)), ("phase", (len(PHASES),)), ("winner", (2,)),
                ("conspiracy", (len(CONSPIRACIES),)), ("court", (4, 7)), ("hand", (4,)),
                ("opponent_hand_known", (4,)), ("hand_known_by_opponent", (4,)),
                ("discard", (4,)), ("numbers", (5,))]

    def history_pieces(self, game):
        return [("inspected", (4,)), ("peeked", (4,)), ("events", (1,))]

    @staticmethod
    def _cards(vec, texts) -> None:
        counts = [0, 0, 0, 0]
        for t in texts:
            counts[_TYPE[t]] += 1
        vec += counts

    def fill(self, v: dict[str, Any]) -> None:
        d = self.dict
        if v["seat"] is not None:
            d["seat"][v["seat"]] = 1
        d["current"][v["current"]] = 1
        d["phase"][PHASES.index(v["phase"])] = 1
        if v["winner"] is not None:
            d["winner"][v["winner"]] = 1
        if v["conspiracy"] is not None:
            d["conspiracy"][CONSPIRACIES.index(v["conspiracy"])] = 1
        for i, slot in enumerate(v["court"]):
            if slot["card"] is not None:
                d["court"][i, _TYPE[slot["card"]]] = 1
            d["court"][i, 4] = slot["face_up"]
            d["court"][i, 5:7] = slot["known_by"]
        self._cards(d["hand"], v["hand"] or ())
        self._cards(d["opponent_hand_known"], v["opponent_hand_known"] or ())
        self._cards(d["hand_known_by_opponent"], v["hand_known_by_opponent"] or ())
        self._cards(d["discard"], v["discard"])
        d["numbers"][:] = [*v["hand_sizes"], v["deck"], v["deck_bottom_reines"], len(v["redeals"])]

    def fill_history(self, v: dict[str, Any]) -> None:
        d = self.dict
        for e in v["log"]:
            if e["kind"] == "inspect" and "cards" in e:
                self._cards(d["inspected"], e["cards"])
            elif e["kind"] == "peek" and e.get("cards"):
                self._cards(d["peeked"], [c for c in e["cards"] if c])
        d["events"][0] = len(v["log"])


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
            num_distinct_actions=A.N_CODES,
            max_chance_outcomes=N_CARDS,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_moves)
        super().__init__(_GAME_TYPE, info, params, config)


pyspiel.register_game(_GAME_TYPE, RibaudsGame)
