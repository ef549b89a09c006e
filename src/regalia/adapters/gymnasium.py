"""Gymnasium environments (needs the ``research`` extra); importing this module registers them.

* ``regalia/RegicideSolo-v0``: solo Regicide (rules 1.14); keyword arguments are the rule
  options (``solo_yield=True``...) and ``max_steps``. Reward 1 for a win, else 0.
* ``regalia/Ribauds-v0``: Le Roy des Ribauds against a Regalia bot: ``opponent`` (a name of
  ``regalia.bots.bot_names("ribauds")``, default ``"heuristic"``), ``opponent_budget``
  (seconds per decision, ``None``: the bot's default), ``seat`` (0, 1, or ``None``: drawn
  at each reset), rule options. Reward +1 for a win, -1 for a loss.

Observations are the float32 vectors of ``regalia.adapters.encoding`` (the learner's view
only), actions its ``Discrete`` ids. The legal ids come as ``info["action_mask"]`` (int8)
and from ``env.action_masks()`` (bool), the convention of sb3-contrib's MaskablePPO. An
illegal id ends the episode with reward ``illegal_reward`` (default -1) and
``info["illegal_action"]``, the position unchanged (as PettingZoo's
``TerminateIllegalWrapper``). Example::

    import gymnasium as gym
    import regalia.adapters.gymnasium  # registers the environments

    env = gym.make("regalia/RegicideSolo-v0")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from regalia.adapters import require

gym = require("gymnasium", "gymnasium")
spaces = require("gymnasium.spaces", "gymnasium")

from regalia.adapters.episode import (  # noqa: E402
    MAX_STEPS,
    REGICIDE_CODEC,
    RIBAUDS_CODEC,
    Episode,
    GameCodec,
)
from regalia.bots import make_bot  # noqa: E402


class _EpisodeEnv(gym.Env):
    """A single-learner environment over an ``Episode``; subclasses say who else plays."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, codec: GameCodec, config: dict[str, Any], max_steps: int,
                 render_mode: str | None, illegal_reward: float):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: use None, 'ansi' or 'human'")
        codec.game.new_game(dict(config), codec.make_rng(0))  # refuse a bad config now
        self.episode = Episode(codec, config, max_steps)
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.seat = 0
        self.action_space = spaces.Discrete(codec.n_actions)
        self.observation_space = spaces.Box(0.0, 1.0, (codec.obs_size,), np.float32)

    def _others_play(self) -> None:
        """Let the seats other than the learner's act until it is the learner's turn."""

    def _answer(self) -> tuple[np.ndarray, dict[str, Any]]:
        mask = self.episode.mask(self.seat)
        return self.episode.observation(self.seat), {"action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.episode.reset(seed)
        self._others_play()
        return self._answer()

    def step(self, action):
        ep = self.episode
        if int(action) not in ep.legal():  # as PettingZoo's TerminateIllegalWrapper
            obs, info = self._answer()
            info["illegal_action"] = int(action)
            return obs, self.illegal_reward, True, False, info
        ep.step(action)
        self._others_play()
        obs, info = self._answer()
        reward = ep.rewards()[self.seat] if ep.over else 0.0
        terminated = ep.over and not ep.truncated
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, ep.truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal ids as a bool vector (sb3-contrib's MaskablePPO calls this)."""
        return self.episode.mask(self.seat).astype(bool)

    def render(self) -> str | None:
        """The position as text (``"ansi"``), printed (``"human"``), or ``None``."""
        if self.render_mode is None:
            return None
        text = self.episode.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text


class RegicideSoloEnv(_EpisodeEnv):
    """Solo Regicide (``regalia/RegicideSolo-v0``); ``options``: rule options."""

    def __init__(self, max_steps: int = MAX_STEPS, render_mode: str | None = None,
                 illegal_reward: float = -1.0, **options: Any):
        super().__init__(REGICIDE_CODEC, {"players": 1, **options}, max_steps, render_mode,
                         illegal_reward)


class RibaudsEnv(_EpisodeEnv):
    """Le Roy des Ribauds against a Regalia bot (``regalia/Ribauds-v0``); see the module doc.

    Raises ``KeyError`` naming the available bots for an unknown ``opponent``, ``ValueError``
    for a seat other than 0, 1 or ``None``.
    """

    def __init__(self, opponent: str = "heuristic", opponent_budget: float | None = None,
                 seat: int | None = None, max_steps: int = MAX_STEPS,
                 render_mode: str | None = None, illegal_reward: float = -1.0,
                 **options: Any):
        if seat not in (None, 0, 1):
            raise ValueError(f"seat {seat!r}: the learner sits at seat 0 or 1, or None "
                             "(drawn at each reset)")
        super().__init__(RIBAUDS_CODEC, {"players": 2, **options}, max_steps, render_mode,
                         illegal_reward)
        self.opponent = make_bot("ribauds", opponent)
        self.opponent_budget = opponent_budget
        self.fixed_seat = seat
        self._bot_rng = random.Random()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._bot_rng = random.Random(f"ribauds-opponent:{seed}")
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else self._bot_rng.randrange(2))
        return super().reset(seed=seed, options=options)

    def _others_play(self) -> None:
        ep = self.episode
        while ep.current is not None and ep.current != self.seat:
            q = ep.current
            code = self.opponent.act(ep.view(q), ep.codec.game.legal_actions(ep.state),
                                     self._bot_rng, self.opponent_budget)
            ep.step(ep.codec.action_id(ep.view(q), code))


gym.register("regalia/RegicideSolo-v0", entry_point=RegicideSoloEnv)
gym.register("regalia/Ribauds-v0", entry_point=RibaudsEnv)
