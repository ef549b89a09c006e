"""Regicide (rules/regicide.md): the rules object ``REGICIDE`` implementing the Game protocol.

Example::

    import random
    from regalia.games.regicide import REGICIDE
    rng = random.Random(7)
    state = REGICIDE.new_game({"players": 2}, rng)
    action = REGICIDE.legal_actions(state)[0]
    state, events = REGICIDE.apply(state, action, rng)
"""

from __future__ import annotations

import random
from typing import Any

from regalia.core.game import Game
from regalia.games.regicide import actions as _actions
from regalia.games.regicide import hints as _hints
from regalia.games.regicide import position as _position
from regalia.games.regicide import rules as _rules
from regalia.games.regicide import state as _state
from regalia.games.regicide.state import OVER, WON, State
from regalia.games.regicide.view import view as _view


class Regicide(Game):
    """Regicide rules (rules/regicide.md sections 1.1-1.15). Stateless; see ``Game``."""

    name = "regicide"
    min_players = 1
    max_players = 4
    talk = "say"  # no free talk (rules 1.15)
    solo_hints = True
    analysable = True
    early_end = "agree"  # cooperative: the players stop together, a loss for all

    def new_game(self, config: dict[str, Any], rng: random.Random) -> State:
        return _rules.new_game(config, rng)

    def current_seat(self, state: State) -> int | None:
        return None if state.phase in OVER else state.current

    # The functions called at every step are the rules' own (no wrapper frame); see Game.
    legal_actions = staticmethod(_rules.legal_actions)
    apply = staticmethod(_rules.apply)

    def side_actions(self, state: State) -> list[int]:
        """``prefer`` actions seats other than the one to act may take (rules 1.10)."""
        return _rules.side_actions(state)

    def view(self, state: State, seat: int | None, log: bool = True) -> dict[str, Any]:
        return _view(state, seat, log)

    def is_terminal(self, state: State) -> bool:
        return state.phase in OVER

    def returns(self, state: State) -> list[float]:
        won = 1.0 if state.phase == WON else 0.0
        return [won] * state.players

    def outcome(self, state: State) -> dict[str, Any] | None:
        """``None`` while playing; else ``{"result": "won"|"lost", "medal", "enemies_defeated"}``."""
        if state.phase not in OVER:
            return None
        return {"result": state.phase, "medal": _rules.medal(state),
                "enemies_defeated": _rules.enemies_defeated(state)}

    def to_json(self, state: State) -> dict[str, Any]:
        return _state.to_json(state)

    def from_json(self, obj: Any) -> State:
        return _position.from_json(obj)

    def action_to_text(self, state: State, action: int) -> str:
        return _actions.to_text(action)

    def action_from_text(self, state: State, text: str) -> int:
        def hand_of(_seat):
            return state.hands[state.current] if state.phase not in OVER else 0

        return _actions.from_text(text, hand_of)

    def hint_reason(self, view: dict[str, Any], action: int) -> dict[str, Any]:
        """The most telling fact of ``action`` from the seat's ``view`` (``hints.hint_reason``:
        ``{"key": KIND, **params}``, a kind of ``hints.REASONS``)."""
        return _hints.hint_reason(view, action)

    def all_legal_texts(self, state: State) -> list[str]:
        acts = list(_rules.legal_actions(state)) + _rules.side_actions(state)
        return [_actions.to_text(a) for a in acts]


REGICIDE = Regicide()

__all__ = ["REGICIDE", "Regicide", "State"]
