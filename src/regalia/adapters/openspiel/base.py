"""What the OpenSpiel faces of both games share: a ``pyspiel.State`` over a Regalia engine
state, with the engine's random draws as explicit chance nodes, and an observer built on
``Game.view(state, seat)`` only.

A subclass names its engine (``ENGINE``, a ``regalia.core.game.Game``), its engine config,
its player actions (``_player_actions``, ``_apply_player_action``), its utilities and its
tensor layout (``Observer`` subclass). Chance comes from ``regalia.adapters.chance``: the
setup and every action that shuffles or draws at random run through a ``ChanceDriver``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from regalia.adapters.chance import ChanceDriver
from regalia.core.game import Event, Game, log_events


def config_from_params(params: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """Engine config from OpenSpiel game parameters: ``-1`` for ``first_player`` means
    none (random); parameters equal to the rules' defaults are left out."""
    config = {}
    for key, default in defaults.items():
        value = params.get(key, default)
        if key == "first_player" and value == -1:
            continue
        if value != default or key == "players":
            config[key] = value
    return config


def log_seen_by(log: tuple | None, seat: int | None) -> tuple | None:
    """A copy of a persistent event log keeping only ``seat``'s private details (all of
    them gone for ``seat=None``): what the log of a sampled world may hold."""
    out = None
    for ev in log_events(log):
        private = ev.private
        if private:
            private = {seat: private[seat]} if seat in private else None
        out = (Event(ev.kind, ev.seat, ev.data, private or None), out)
    return out


class Position:
    """An engine state, pickled with its event log flattened: OpenSpiel serializes a Python
    state by pickling its attributes, and a long log, a nested ``(event, older)`` chain,
    would go past pickle's recursion limit."""

    __slots__ = ("s",)

    def __init__(self, s: Any) -> None:
        self.s = s

    def __deepcopy__(self, memo) -> "Position":
        return self  # engine states are never changed once built

    def __reduce__(self):
        s = self.s
        if s is None:
            return (Position, (None,))
        fields = {k: getattr(s, k) for k in type(s).__slots__ if k != "log"}
        return (_rebuild_position, (type(s), fields, log_events(s.log)))


def _rebuild_position(cls: type, fields: dict[str, Any], events: list[Event]) -> Position:
    s = cls.__new__(cls)
    for k, v in fields.items():
        setattr(s, k, v)
    log = None
    for ev in events:
        log = (ev, log)
    s.log = log
    return Position(s)


class EngineCall:
    """A picklable engine call for a ``ChanceDriver``: ``engine.new_game(config, rng)``, or
    the state after ``engine.apply(position.s, code, rng)``."""

    def __init__(self, engine: Game, config: dict[str, Any] | None = None,
                 position: Position | None = None, code: int | None = None) -> None:
        self.engine = engine
        self.config = config
        self.position = position
        self.code = code

    def __deepcopy__(self, memo) -> "EngineCall":
        return self  # never changed once built

    def __call__(self, rng: random.Random) -> Any:
        if self.position is None:
            return self.engine.new_game(self.config, rng)
        return self.engine.apply(self.position.s, self.code, rng)[0]


class EngineState(pyspiel.State):
    """An OpenSpiel state over a Regalia engine state (``engine``), or over the chance
    draws of an engine call in progress (``driver``: the setup, a Hearts heal, a Reine)."""

    ENGINE: Game

    def __init__(self, game: "EngineGame", engine_state: Any = None, deal: bool = True) -> None:
        """A new game being dealt, or (``deal=False``) the position ``engine_state``."""
        super().__init__(game)
        self._position = Position(engine_state)
        self.driver: ChanceDriver | None = None
        self._legal: list[int] | None = None
        self._player = pyspiel.PlayerId.CHANCE
        if deal:  # the first draws of the setup, worked out once per game
            self.driver = game.setup_driver().copy()
        else:
            self._settle(engine_state)

    @property
    def engine(self) -> Any:
        """The engine state (``None`` until the setup's chance draws are done)."""
        return self._position.s

    # ----------------------------------------------------------------- engine calls

    def _run(self, call) -> None:
        """Run an engine call, pausing at chance nodes while it needs random draws."""
        driver = ChanceDriver(call)
        result = driver.start()
        if driver.done:
            self._settle(result)
        else:
            self.driver = driver
            self._player = pyspiel.PlayerId.CHANCE

    def _run_action(self, code: int) -> None:
        """Apply the engine action ``code`` to the engine state."""
        self._run(EngineCall(self.ENGINE, position=self._position, code=code))

    def _settle(self, engine_state: Any) -> None:
        self._position = Position(engine_state)
        self.driver = None
        if engine_state is None:  # a state built to be filled in (a copy)
            return
        if self.ENGINE.is_terminal(engine_state) or self._truncated():
            self._player = pyspiel.PlayerId.TERMINAL
        else:
            self._player = self.ENGINE.current_seat(engine_state)

    # ----------------------------------------------------------------- OpenSpiel API

    def current_player(self) -> int:
        return self._player

    def _truncated(self) -> bool:
        return False

    def _legal_actions(self, player: int) -> list[int]:
        if player == pyspiel.PlayerId.CHANCE:
            return list(range(self.driver.size()))
        if self._legal is None:
            self._legal = self._player_actions()
        return self._legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.driver is None:
            raise ValueError("chance_outcomes called on a state that is not a chance node")
        n = self.driver.size()
        return [(j, 1.0 / n) for j in range(n)]

    def _apply_action(self, action: int) -> None:
        if self.driver is not None:
            result = self.driver.apply(action)
            if self.driver.done:
                self._settle(result)
            return
        if action not in self._legal_actions(self.current_player()):
            raise ValueError(f"action {action} is not legal here; the legal actions are "
                             f"{self._legal}")
        self._legal = None
        self._apply_player_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            card = self.driver.drawn_card(action) if self.driver is not None else None
            return f"chance {action}" + (f" ({self._card_text(card)})" if card is not None else "")
        return self._player_action_text(action)

    def is_terminal(self) -> bool:
        return self._player == pyspiel.PlayerId.TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.get_game().num_players()
        return self._utilities()

    def __str__(self) -> str:
        if self.engine is None:
            return "(dealing)"
        return json.dumps(self.ENGINE.to_json(self.engine), sort_keys=True)

    def resample_from_infostate(self, player: int, probability_sampler) -> "EngineState":
        """A state the seat ``player`` cannot tell from this one: the hidden cards sampled
        from its view (Regalia's determinization), the log kept as the seat saw it."""
        rng = random.Random(int(probability_sampler() * 2 ** 53))
        sample = self._determinize(self.ENGINE.view(self.engine, player), rng)
        sample.log = log_seen_by(self.engine.log, player)
        other = type(self)(self.get_game(), None, deal=False)
        self._copy_extra(other)
        other._settle(sample)
        return other

    # ----------------------------------------------------------------- views

    def view(self, seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` may know (``Game.view``) plus the adapter's own pending choice
        shown to the seat making it; ``None`` while the setup is being dealt."""
        if self.engine is None:
            return None
        return self.ENGINE.view(self.engine, seat)

    # ----------------------------------------------------------------- per game

    def _copy_extra(self, other: "EngineState") -> None:
        """Copy adapter-only fields (beyond engine, driver, legal cache) into ``other``."""

    def _card_text(self, card: Any) -> str:
        raise NotImplementedError

    def _player_actions(self) -> list[int]:
        raise NotImplementedError

    def _apply_player_action(self, action: int) -> None:
        raise NotImplementedError

    def _player_action_text(self, action: int) -> str:
        raise NotImplementedError

    def _utilities(self) -> list[float]:
        raise NotImplementedError

    def _determinize(self, view: dict[str, Any], rng: random.Random) -> Any:
        raise NotImplementedError


class EngineGame(pyspiel.Game):
    """A ``pyspiel.Game`` whose states are ``STATE``; ``config``: the engine config."""

    STATE: type[EngineState]
    OBSERVER: type["ViewObserver"]

    def __init__(self, game_type, game_info, params, config: dict[str, Any]) -> None:
        super().__init__(game_type, game_info, params)
        self.config = config

    def new_initial_state(self) -> EngineState:
        return self.STATE(self)

    def setup_driver(self) -> ChanceDriver:
        """The chance driver of the setup before its first draw (shared: copy it)."""
        driver = self.__dict__.get("_setup_driver")
        if driver is None:
            driver = ChanceDriver(EngineCall(self.STATE.ENGINE, config=self.config))
            if driver.start() is not None:
                raise RuntimeError("the setup drew nothing at random")
            self._setup_driver = driver
        return driver

    def make_py_observer(self, iig_obs_type=None, params=None) -> "ViewObserver":
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return self.OBSERVER(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class ViewObserver:
    """OpenSpiel observer (the PyObserver interface) reading only ``state.view(seat)`` and
    what every seat knows of the adapter's state (Ribauds: the decisions so far).

    The tensor is float32, every value in [0, 1]. Observation (``perfect_recall`` False):
    the shared encoding's vector of the seat's view (``regalia.adapters.encoding``), with
    the game's own extra pieces after it (``pieces``); the string is the view as JSON
    without its event log. Information state (``perfect_recall``): the same tensor followed
    by a fixed-size, capped and scaled summary of the view's event log (``history_pieces``);
    the string is the whole view as JSON, log included, so it tells apart every history the
    seat can tell apart. With ``private_info=NONE`` the view is a spectator's (``seat``
    None), encoded counting seats from the player asked for. ``dict`` names the pieces
    (views into ``tensor``, in order). Subclasses give ``pieces``, ``history_pieces``,
    ``fill`` and ``fill_history``.
    """

    def __init__(self, game: EngineGame, iig_obs_type) -> None:
        self.game = game
        self.perfect_recall = iig_obs_type.perfect_recall
        self.public_only = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        pieces = self.pieces(game) + (self.history_pieces(game) if self.perfect_recall else [])
        sizes = [int(np.prod(shape)) for _, shape in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for (name, shape), size in zip(pieces, sizes):
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def _view(self, state: EngineState, player: int) -> dict[str, Any] | None:
        v = state.view(None if self.public_only else player)
        if v is not None and not self.perfect_recall:
            v = {k: x for k, x in v.items() if k != "log"}
        return v

    def set_from(self, state: EngineState, player: int) -> None:
        """Fill ``tensor`` (and its named parts ``dict``) from ``player``'s view; all zero
        while the setup is being dealt."""
        self.tensor.fill(0)
        v = self._view(state, player)
        if v is None:
            return
        self.fill(state, v, player)
        if self.perfect_recall:
            self.fill_history(state, v, player)

    def string_from(self, state: EngineState, player: int) -> str:
        """``player``'s view as compact JSON (keys sorted)."""
        v = self._view(state, player)
        if v is None:
            return "(dealing)"
        return json.dumps(v, sort_keys=True, separators=(",", ":"))

    # per game
    def pieces(self, game: EngineGame) -> list[tuple[str, tuple[int, ...]]]:
        raise NotImplementedError

    def history_pieces(self, game: EngineGame) -> list[tuple[str, tuple[int, ...]]]:
        raise NotImplementedError

    def fill(self, state: EngineState, view: dict[str, Any], player: int) -> None:
        raise NotImplementedError

    def fill_history(self, state: EngineState, view: dict[str, Any], player: int) -> None:
        raise NotImplementedError


def capped(counts: np.ndarray, cap: int) -> np.ndarray:
    """``min(counts, cap) / cap``: counts scaled into [0, 1], ``cap`` or more giving 1."""
    return np.minimum(counts, cap) / cap
