"""PettingZoo AEC environments of Regicide and Le Roy des Ribauds (needs the ``research`` extra).

Example::

    from regalia.adapters.pettingzoo import regicide_env

    env = regicide_env(players=2)
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        mask = obs["action_mask"]
        action = None if terminated or truncated else env.action_space(agent).sample(mask)
        env.step(action)

Agents are ``player_0``... (seat order). Each observation is ``{"observation": float32
vector, "action_mask": int8 vector}`` computed from that seat's view only
(``regalia.adapters.encoding``; the mask is all zeros for a seat not to act). Actions are
``Discrete`` ids of the same encoding. Rewards come at the end: Regicide is cooperative,
every seat gets 1 for a win and 0 for a loss; Le Roy des Ribauds is zero-sum, +1 / -1.
A game still running after ``max_steps`` actions is truncated (reward 0). When the game
ends every agent's ``info`` holds the outcome (``Episode.outcome``: Regicide ``won``,
``enemies_defeated``, ``medal``; Le Roy des Ribauds ``winner``, ``returns``).

``reset(seed=S)`` deals from the environment's random source; ``reset(options={"deal":
D})`` deals the benchmark deal ``D`` of ``regalia eval`` exactly (``regalia.lab.deals``);
``reset(options={"state": state})`` starts from a state of the game.
"""

from __future__ import annotations

from typing import Any

from regalia.adapters import require

require("pettingzoo", "pettingzoo")
spaces = require("gymnasium.spaces", "gymnasium")

from pettingzoo import AECEnv  # noqa: E402

from regalia.adapters.episode import (  # noqa: E402
    MAX_STEPS,
    REGICIDE_CODEC,
    RIBAUDS_CODEC,
    Episode,
    GameCodec,
)


class RegaliaAECEnv(AECEnv):
    """An AEC environment over one ``Episode`` (see the module doc).

    ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"``
    (prints it). ``env.unwrapped.episode.state`` is the true state, for tests and tools;
    agents must not read it.
    """

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False,
                "name": "regalia"}

    def __init__(self, codec: GameCodec, config: dict[str, Any], max_steps: int = MAX_STEPS,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: use None, 'ansi' or 'human'")
        self.episode = Episode(codec, config, max_steps)
        codec.game.new_game(dict(config), codec.make_rng(0))  # refuse a bad config now
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"regalia_{codec.game.name}"}
        self.possible_agents = [f"player_{q}" for q in range(self.episode.players)]
        self._seat = {a: q for q, a in enumerate(self.possible_agents)}
        self._action_space = spaces.Discrete(codec.n_actions)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (codec.obs_size,), "float32"),
            "action_mask": spaces.Box(0, 1, (codec.n_actions,), "int8"),
        })

    def observation_space(self, agent: str):
        return self._observation_space

    def action_space(self, agent: str):
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (``seed``: see ``Episode.reset``); ``options={"deal": D}`` deals
        the benchmark deal ``D`` as ``regalia eval`` does, ``options={"state": state}``
        starts from a given state of the game instead."""
        options = dict(options or {})  # other keys are ignored (the API checkers pass some)
        self.episode.reset(seed, options.get("state"), options.get("deal"))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.episode.current]

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat[agent]
        return {"observation": self.episode.observation(seat),
                "action_mask": self.episode.mask(seat)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        ep = self.episode
        ep.step(action)
        if ep.over:
            outcome = ep.outcome()
            for a, r in zip(self.possible_agents, ep.rewards()):
                self.infos[a] = dict(outcome)
                self.rewards[a] = r
                self.terminations[a] = not ep.truncated
                self.truncations[a] = ep.truncated
        else:
            self._clear_rewards()
            self.agent_selection = self.possible_agents[ep.current]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = self.episode.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def regicide_env(players: int = 1, max_steps: int = MAX_STEPS, render_mode: str | None = None,
                 **options: Any) -> RegaliaAECEnv:
    """A Regicide AEC environment for ``players`` (1-4) with rule options (rules page,
    "Rule options", e.g. ``solo_yield=True``). Raises ``InvalidPosition`` for a bad
    player count or option."""
    return RegaliaAECEnv(REGICIDE_CODEC, {"players": players, **options}, max_steps,
                         render_mode)


def ribauds_env(max_steps: int = MAX_STEPS, render_mode: str | None = None,
                **options: Any) -> RegaliaAECEnv:
    """A Le Roy des Ribauds AEC environment (2 players) with rule options (e.g.
    ``replaced_card="discard"``). Raises ``InvalidPosition`` for a bad option."""
    return RegaliaAECEnv(RIBAUDS_CODEC, {"players": 2, **options}, max_steps, render_mode)
