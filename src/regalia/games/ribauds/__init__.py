"""Le Roy des Ribauds (rules/ribauds.md): the rules object ``RIBAUDS`` (the Game protocol).

Example::

    import random
    from regalia.games.ribauds import RIBAUDS
    rng = random.Random(7)
    state = RIBAUDS.new_game({"players": 2}, rng)
    action = RIBAUDS.legal_actions(state)[0]
    state, events = RIBAUDS.apply(state, action, rng)
    RIBAUDS.view(state, 0)          # what seat 0 knows

Modules: ``inferred`` (the two inferred rules, 3.L1 and 3.L2), ``cards``, ``state`` (the
state record and the per-seat knowledge model), ``knowledge``, ``actions`` (codes and
text), ``rules`` (setup, legal actions, apply), ``position`` (JSON), ``view``.
"""

from __future__ import annotations

import random
from typing import Any

from regalia.core.errors import IllegalAction
from regalia.core.game import Game
from regalia.games.ribauds import actions as _actions
from regalia.games.ribauds import position as _position
from regalia.games.ribauds import rules as _rules
from regalia.games.ribauds import state as _state
from regalia.games.ribauds.rules import resolve_reine_check
from regalia.games.ribauds.state import WON, Options, State
from regalia.games.ribauds.view import view as _view


class Ribauds(Game):
    """Le Roy des Ribauds rules (rules/ribauds.md sections 2.1-2.8, 3.L1-L18). Stateless;
    see ``Game``."""

    name = "ribauds"
    min_players = 2
    max_players = 2

    def new_game(self, config: dict[str, Any], rng: random.Random) -> State:
        return _rules.new_game(config, rng)

    def current_seat(self, state: State) -> int | None:
        return None if state.phase == WON else state.current

    def legal_actions(self, state: State) -> list[int]:
        return _rules.legal_actions(state)

    def apply(self, state: State, action: int, rng: random.Random):
        return _rules.apply(state, action, rng)

    def view(self, state: State, seat: int | None, log: bool = True) -> dict[str, Any]:
        return _view(state, seat, log)

    def is_terminal(self, state: State) -> bool:
        return state.phase == WON

    def returns(self, state: State) -> list[float]:
        """``[1.0, 0.0]`` or ``[0.0, 1.0]`` once won; ``[0.0, 0.0]`` while playing."""
        if state.phase != WON:
            return [0.0, 0.0]
        return [1.0 if seat == state.winner else 0.0 for seat in (0, 1)]

    def outcome(self, state: State) -> dict[str, Any] | None:
        """``None`` while playing; else ``{"winner": seat, "conspiracy": name}``."""
        if state.phase != WON:
            return None
        return {"winner": state.winner, "conspiracy": state.conspiracy}

    def to_json(self, state: State) -> dict[str, Any]:
        return _state.to_json(state)

    def from_json(self, obj: Any) -> State:
        return _position.from_json(obj)

    def action_to_text(self, state: State, action: int) -> str:
        """Canonical text of ``action``; raises ``IllegalAction`` for a code of no action."""
        try:
            return _actions.to_text(action)
        except ValueError as e:
            raise IllegalAction(str(e)) from None

    def action_from_text(self, state: State, text: str) -> int:
        return _actions.from_text(text)

    def problem(self, state: State, action: int) -> str | None:
        """Why ``action`` would be refused in ``state`` (with the rule section), or
        ``None`` if it is legal."""
        return _rules.problem(state, action)


RIBAUDS = Ribauds()

__all__ = ["RIBAUDS", "Ribauds", "State", "Options", "resolve_reine_check"]
