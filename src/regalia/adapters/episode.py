"""One game stepped by action ids: the core the PettingZoo and Gymnasium environments share.

An ``Episode`` holds the true state and the random source; everything it hands toward a
seat (observation, mask, legal ids) is computed from ``Game.view(state, seat)`` and the
seat's legal actions through ``regalia.adapters.encoding``. Needs numpy only.

Chance: both games draw from ``regalia.fast.regicide.FastRandom``, so ``reset(seed)``
deals the same game as slot ``i`` of ``regalia.adapters.batch.RegicideBatch(seed=seed - i)``
(Le Roy des Ribauds: ``RibaudsBatch``) and the same actions give the same positions.
``reset()`` without a seed continues the random source, as a batch slot does after its
automatic reset. ``reset(deal=SEED)`` deals the benchmark deal
``SEED`` of ``regalia eval`` (``regalia.lab.deals``): like ``core.records.Match`` it deals
and draws every chance event from ``random.Random(SEED)``, so the same actions give the
same positions as the game ``regalia eval`` plays on that deal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from regalia.adapters import encoding as E
from regalia.core.game import Game
from regalia.fast.regicide import FastRandom
from regalia.games.regicide import REGICIDE
from regalia.games.regicide.rules import enemies_defeated
from regalia.games.regicide.rules import medal as solo_medal
from regalia.games.ribauds import RIBAUDS

MAX_STEPS = 1000  # a game still running after this many actions is truncated


@dataclass(frozen=True)
class GameCodec:
    """How one game is encoded: its rules, random source, encoding and rewards."""

    game: Game
    n_actions: int
    obs_size: int
    observation: Callable[[dict[str, Any]], np.ndarray]
    action_id: Callable[[dict[str, Any], int], int]
    make_rng: Callable[[int | None], random.Random]
    win: float  # reward of each winning seat
    loss: float  # reward of each losing seat


REGICIDE_CODEC = GameCodec(REGICIDE, E.REGICIDE_ACTIONS, E.REGICIDE_OBS, E.regicide_observation,
                           E.regicide_action_id, FastRandom, 1.0, 0.0)
RIBAUDS_CODEC = GameCodec(RIBAUDS, E.RIBAUDS_ACTIONS, E.RIBAUDS_OBS, E.ribauds_observation,
                          E.ribauds_action_id, FastRandom, 1.0, -1.0)


class Episode:
    """A game of ``codec.game`` with ``config`` (``players`` and rule options).

    Attributes: ``state`` (the true state; never shown to a seat), ``steps`` (actions
    taken), ``truncated`` (``max_steps`` reached before the end). Raises ``InvalidPosition``
    from ``reset`` for a bad config.
    """

    def __init__(self, codec: GameCodec, config: dict[str, Any], max_steps: int = MAX_STEPS):
        if type(max_steps) is not int or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, not {max_steps!r}")
        self.codec = codec
        self.config = dict(config)
        self.players = self.config.get("players", codec.game.min_players)
        self.max_steps = max_steps
        self.rng: random.Random | None = None
        self.state: Any = None
        self.steps = 0
        self.truncated = False
        self._legal: dict[int, int] | None = None
        self._views: dict[int, dict[str, Any]] = {}

    def reset(self, seed: int | None = None, state: Any = None, deal: int | None = None) -> None:
        """Deal a new game, or start from ``state`` (a state of the game, e.g. from
        ``Game.from_json``). Chance comes from ``seed``, or from the random source so far (a
        fresh one seeded by the operating system the first time). ``deal``: the benchmark
        deal of that seed instead (``random.Random(deal)``, as ``Match``; see the module
        doc). Raises ``ValueError`` for a ``state`` that is over or of another player count,
        or for a ``deal`` given with a ``state``, or a ``deal`` that is not an int."""
        game = self.codec.game
        if state is not None and (game.is_terminal(state)
                                  or len(game.returns(state)) != self.players):
            raise ValueError(f"the given state must be a {game.name} game still in play, "
                             f"with {self.players} players")
        if deal is not None:
            if state is not None:
                raise ValueError("give a deal or a state, not both")
            if type(deal) is not int:
                raise ValueError(f"deal {deal!r}: a deal is an int seed (regalia.lab.deals)")
            self.rng = random.Random(deal)
        elif seed is not None or self.rng is None:
            self.rng = self.codec.make_rng(seed)
        if state is None:
            state = self.codec.game.new_game(dict(self.config), self.rng)
        self.state = state
        self.steps = 0
        self.truncated = False
        self._legal = None
        self._views = {}

    @property
    def current(self) -> int | None:
        """Seat to act, ``None`` once the game is over (or truncated)."""
        return None if self.over else self.codec.game.current_seat(self.state)

    @property
    def over(self) -> bool:
        """The game ended or was truncated."""
        return self.truncated or self.codec.game.is_terminal(self.state)

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know (``Game.view``), computed once per position."""
        v = self._views.get(seat)
        if v is None:
            v = self._views[seat] = self.codec.game.view(self.state, seat)
        return v

    def observation(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (``encoding``)."""
        return self.codec.observation(self.view(seat))

    def legal(self) -> dict[int, int]:
        """``{action id: action code}`` of the seat to act; empty once over."""
        if self._legal is None:
            if self.over:
                self._legal = {}
            else:
                seat = self.current
                view = self.view(seat)
                self._legal = E.legal_ids(view, self.codec.game.legal_actions(self.state),
                                          self.codec.action_id)
        return self._legal

    def mask(self, seat: int) -> np.ndarray:
        """The int8 legal-action mask of ``seat``: its legal ids when it is to act, else 0s."""
        ids = self.legal() if seat == self.current else ()
        return E.mask_of(ids, self.codec.n_actions)

    def step(self, action_id: int) -> None:
        """Apply the seat to act's action ``action_id``.

        Raises ``ValueError`` (changing nothing) when the game is over or the id is not
        legal, naming the legal ids.
        """
        if self.over:
            raise ValueError("the game is over: reset it before stepping")
        legal = self.legal()
        try:
            code = legal[int(action_id)]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"action id {action_id!r} is not legal for seat {self.current} "
                             f"now; the legal ids are {sorted(legal)}") from None
        self.state, _ = self.codec.game.apply(self.state, code, self.rng)
        self.steps += 1
        self._legal = None
        self._views = {}
        if self.steps >= self.max_steps and not self.codec.game.is_terminal(self.state):
            self.truncated = True

    def rewards(self) -> list[float]:
        """Per-seat reward of the finished game (``codec.win`` / ``codec.loss``); 0.0 each
        while playing or when truncated."""
        if self.truncated or not self.codec.game.is_terminal(self.state):
            return [0.0] * self.players
        c = self.codec
        return [c.win if r > 0 else c.loss for r in c.game.returns(self.state)]

    def outcome(self) -> dict[str, Any]:
        """The result of the finished game for ``info``: Regicide ``{"won", "enemies_defeated",
        "medal"}`` (``medal``: ``"gold"``/``"silver"``/``"bronze"`` for a solo win, else
        ``None``); Le Roy des Ribauds ``{"winner", "returns"}`` (``winner``: a seat, ``None``
        when truncated). A truncated game counts as not won."""
        g = self.codec.game
        if g is REGICIDE:
            won = g.is_terminal(self.state) and g.returns(self.state)[0] > 0
            return {"won": bool(won), "enemies_defeated": enemies_defeated(self.state),
                    "medal": solo_medal(self.state) if won else None}
        out = g.outcome(self.state) if g.is_terminal(self.state) else None
        return {"winner": None if out is None else out["winner"], "returns": self.rewards()}

    def render(self) -> str:
        """The position as text for people: what the seat to act sees, and its legal moves."""
        g = self.codec.game
        seat = self.current
        lines = [f"{g.name}, {self.steps} actions"]
        if seat is None:
            lines.append(f"over: rewards {self.rewards()}" + (" (truncated)" if self.truncated
                                                               else ""))
        else:
            view = self.view(seat)
            shown = {k: v for k, v in view.items() if k not in ("log", "options")}
            lines.append(f"seat {seat} to act; view: {shown}")
            lines.append("legal: " + ", ".join(f"{i}={g.action_to_text(self.state, c)}"
                                                for i, c in sorted(self.legal().items())))
        return "\n".join(lines)
