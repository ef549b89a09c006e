"""Gymnasium environments (needs the ``research`` extra); importing this module registers them.

* ``regalia/RegicideSolo-v0``: solo Regicide (rules 1.14); keyword arguments are the rule
  options (``solo_yield=True``...), ``max_steps`` and ``reward``:

  - ``"win"`` (default): 1 at the end of a won game, else 0;
  - ``"enemies"``: shaped, 1/12 at each step that defeats an enemy (a game's rewards sum to
    enemies defeated / 12: 1 for a win);
  - ``"medal"``: at the end of a won game its solo medal's value, gold 1, silver 2/3,
    bronze 1/3 (the Jesters used, rules 1.14); 0 for a loss.

* ``regalia/Regicide-v0``: Regicide for ``players`` = 2 (default), 3 or 4 (rules 1.3-1.13).
  By default the agent plays every seat in turn (a team policy): each step's observation is
  the view of the seat to act only (``info["seat"]`` says which seat; seats in the vector
  are counted from it), never another seat's hand. Rules 1.15 forbid telling partners one's
  hand: a policy that remembers across steps carries what one seat saw into another seat's
  decisions, so keep such memory per seat. ``partners="heuristic"`` (any name of
  ``regalia.bots.bot_choices("regicide")``) seats the agent at ``seat`` (0 to players - 1,
  or ``None``: drawn at each reset) and lets that bot play the other seats, with a fixed
  effort for search bots (``partner_iterations``, default ``PARTNER_ITERATIONS``, so that
  episodes replay by seed; or ``partner_budget`` seconds per decision, not reproducible).
  Rewards, shared by the team (Regicide is cooperative): ``"win"`` (default) and
  ``"enemies"`` as above (with partners, defeats on their moves count at the agent's next
  step); ``"medal"`` is refused (solo only, rules 1.14). Rule options as keywords.

* ``regalia/Ribauds-v0``: Le Roy des Ribauds against a Regalia bot: ``opponent`` (a name of
  ``regalia.bots.bot_names("ribauds")``, default ``"heuristic"``), ``opponent_iterations``
  (sampled positions per decision of a search bot, ``ismcts``: a fixed effort, default 40,
  so that episodes are reproducible by seed), ``opponent_budget`` (seconds per decision of
  ``ismcts`` instead of iterations: not reproducible), ``seat`` (0, 1, or ``None``: drawn
  at each reset), rule options. Reward +1 for a win, -1 for a loss. The opponent sets the
  cost (learner steps per second, the learner playing at random, one process on a shared
  2-core machine; README, "Research"): ``random`` about 4,000, ``tactical`` 500,
  ``heuristic`` (16 sampled positions per decision) 200, ``ismcts`` 100 at 10 iterations
  and 33 at 40.

Observations are the float32 vectors of ``regalia.adapters.encoding`` (the learner's view
only), actions its ``Discrete`` ids. The legal ids come as ``info["action_mask"]`` (int8)
and from ``env.action_masks()`` (bool), the convention of sb3-contrib's MaskablePPO (found
through the wrappers of ``make_vec_env``: ``env_method("action_masks")``). The last step's
``info`` also holds the outcome: Regicide ``won``, ``enemies_defeated``, ``medal``
(``None`` with 2-4 players); Le Roy des Ribauds ``won``, ``winner`` (a seat, ``None`` when
truncated). An illegal id ends the episode with reward ``illegal_reward`` (default -1) and
``info["illegal_action"]``, the position unchanged (as PettingZoo's
``TerminateIllegalWrapper``).

``reset(seed=S)`` deals from the environment's random source (the compiled simulators':
``RegicideBatch`` or ``RibaudsBatch`` slot ``i`` with seed ``S - i`` plays the same game;
see ``episode``); ``reset(options={"deal": D})`` deals the benchmark deal ``D`` exactly as
``regalia eval`` plays it (``regalia.lab.deals``; ``seed`` still seeds the opponent or the
partners). ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the position as
text), ``"human"`` (prints it) or ``"rgb_array"`` (that text drawn as an 800x400 RGB image,
for video recorders; ``make_vec_env`` asks for it by default). Example::

    import gymnasium as gym
    import regalia.adapters.gymnasium  # registers the environments

    env = gym.make("regalia/RegicideSolo-v0", reward="enemies")
    obs, info = env.reset(options={"deal": 2227728569})  # the first published solo deal
    done = False
    while not done:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print(info["won"], info["enemies_defeated"], info["medal"])
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
from regalia.games.regicide.rules import enemies_defeated  # noqa: E402

REWARDS = ("win", "enemies", "medal")
MEDAL_VALUE = {"gold": 1.0, "silver": 2 / 3, "bronze": 1 / 3}
FRAME = (800, 400)  # width, height of an "rgb_array" frame in pixels
RIBAUDS_ITERATIONS = 40  # the default fixed effort of a search opponent
PARTNER_ITERATIONS = 40  # the default fixed effort of a Regicide search partner


def text_frame(text: str, size: tuple[int, int] = FRAME) -> np.ndarray:
    """``text`` drawn in a monospaced font on white: an ``(height, width, 3)`` uint8 array
    (matplotlib, drawn off screen; lines beyond the frame are cut)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    w, h = size
    fig = Figure(figsize=(w / 100, h / 100), dpi=100)
    canvas = FigureCanvasAgg(fig)
    lines = [ln[i:i + 110] for ln in text.splitlines() for i in range(0, max(1, len(ln)), 110)]
    fig.text(0.01, 0.98, "\n".join(lines[:36]), family="monospace", fontsize=7, va="top")
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()



def fixed_effort(bot: Any, option: str, iterations: int | None, budget: float | None,
                 default: int) -> int | None:
    """Set a search ``bot``'s ``iterations`` for reproducible episodes: ``iterations``, or
    ``default`` when neither it nor a time ``budget`` is given (a budget leaves it None:
    timed, not reproducible). Returns the iterations set. Raises ``ValueError`` (``option``
    names the argument) for iterations that are not a positive int, or given to a bot that
    does no search by iterations."""
    if iterations is not None and (type(iterations) is not int or iterations < 1):
        raise ValueError(f"{option} {iterations!r}: a positive int")
    if not hasattr(bot, "iterations"):
        if iterations is not None:
            raise ValueError(f"{option}: the {bot.name} bot does no search with iterations "
                             "(its effort is fixed already)")
        return None
    if iterations is None and budget is None:
        iterations = default
    bot.iterations = iterations
    return iterations

class _EpisodeEnv(gym.Env):
    """A single-learner environment over an ``Episode``; subclasses say who else plays."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, codec: GameCodec, config: dict[str, Any], max_steps: int,
                 render_mode: str | None, illegal_reward: float):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: use None, 'ansi', 'human' or "
                             "'rgb_array'")
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
        info: dict[str, Any] = {"action_mask": mask}
        if self.episode.over:
            info.update(self._outcome())
        return self.episode.observation(self.seat), info

    def _outcome(self) -> dict[str, Any]:
        """The finished game's result for the last ``info``."""
        return self.episode.outcome()

    def _reward(self) -> float:
        """The learner's reward for the step just played."""
        ep = self.episode
        return float(ep.rewards()[self.seat]) if ep.over else 0.0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game: ``seed`` (see the module doc); ``options``: ``{"deal": D}`` the
        benchmark deal ``D`` as ``regalia eval`` plays it, or ``{"state": state}`` a state
        of the game still in play; other keys are ignored."""
        super().reset(seed=seed)
        options = dict(options or {})  # other keys are ignored (the API checkers pass some)
        self.episode.reset(seed, options.get("state"), options.get("deal"))
        self._dealt()
        self._others_play()
        return self._answer()

    def _dealt(self) -> None:
        """Called once a game is dealt, before the other seats play."""

    def step(self, action):
        ep = self.episode
        if int(action) not in ep.legal():  # as PettingZoo's TerminateIllegalWrapper
            obs, info = self._answer()
            info["illegal_action"] = int(action)
            return obs, self.illegal_reward, True, False, info
        ep.step(action)
        self._others_play()
        obs, info = self._answer()
        reward = self._reward()
        terminated = ep.over and not ep.truncated
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, ep.truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal ids as a bool vector (sb3-contrib's MaskablePPO calls this)."""
        return self.episode.mask(self.seat).astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The position as text (``"ansi"``), printed (``"human"``), drawn as an RGB array
        (``"rgb_array"``), or ``None``."""
        if self.render_mode is None:
            return None
        text = self.episode.render()
        if self.render_mode == "human":
            print(text)
            return None
        if self.render_mode == "rgb_array":
            return text_frame(text)
        return text


class _RegicideEnv(_EpisodeEnv):
    """A Regicide environment and its rewards (``reward``: ``"win"``, ``"enemies"`` or
    ``"medal"``, the module doc)."""

    def __init__(self, config: dict[str, Any], max_steps: int, render_mode: str | None,
                 illegal_reward: float, reward: str):
        super().__init__(REGICIDE_CODEC, config, max_steps, render_mode, illegal_reward)
        self.reward = reward
        self._enemies = 0

    def _dealt(self) -> None:
        self._enemies = enemies_defeated(self.episode.state)

    def _reward(self) -> float:
        ep = self.episode
        if self.reward == "enemies":
            now = enemies_defeated(ep.state)
            gained, self._enemies = now - self._enemies, now
            return gained / 12
        if not ep.over:
            return 0.0
        out = ep.outcome()
        if self.reward == "medal":
            return MEDAL_VALUE.get(out["medal"], 0.0)
        return 1.0 if out["won"] else 0.0


class RegicideSoloEnv(_RegicideEnv):
    """Solo Regicide (``regalia/RegicideSolo-v0``); ``reward``: ``"win"``, ``"enemies"`` or
    ``"medal"`` (the module doc); ``options``: rule options. Raises ``ValueError`` for
    another reward."""

    def __init__(self, max_steps: int = MAX_STEPS, render_mode: str | None = None,
                 illegal_reward: float = -1.0, reward: str = "win", **options: Any):
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}: choose one of {', '.join(REWARDS)}")
        super().__init__({"players": 1, **options}, max_steps, render_mode, illegal_reward,
                         reward)


class RegicideEnv(_RegicideEnv):
    """Regicide for 2 to 4 players (``regalia/Regicide-v0``; rules 1.3-1.13); see the module
    doc.

    ``players``: 2 (default), 3 or 4. ``partners``: ``None`` (default), the agent plays
    every seat in turn (a team policy); or the name of a Regicide bot or level
    (``regalia.bots.bot_choices("regicide")``, e.g. ``"heuristic"``) that plays every seat
    but the agent's ``seat`` (0 to ``players - 1``, or ``None``: drawn at each reset).
    ``partner_iterations`` / ``partner_budget``: a search bot's fixed effort (default
    ``PARTNER_ITERATIONS`` sampled positions per decision, so that episodes replay by seed)
    or seconds per decision (not reproducible). ``reward``: ``"win"`` or ``"enemies"``
    (``"medal"`` is solo only, rules 1.14). ``options``: rule options (rules page, "Rule
    options"). Raises ``ValueError`` for another player count, reward, seat or
    iterations, ``KeyError`` naming the bots for an unknown ``partners``,
    ``InvalidPosition`` for a bad rule option.
    """

    def __init__(self, players: int = 2, partners: str | None = None, seat: int | None = None,
                 partner_iterations: int | None = None, partner_budget: float | None = None,
                 max_steps: int = MAX_STEPS, render_mode: str | None = None,
                 illegal_reward: float = -1.0, reward: str = "win", **options: Any):
        if type(players) is not int or not 2 <= players <= 4:
            raise ValueError(f"players {players!r}: regalia/Regicide-v0 is for 2 to 4 players "
                             "(one player: regalia/RegicideSolo-v0)")
        if reward == "medal":
            raise ValueError("reward 'medal': medals grade solo wins only (rules 1.14); "
                             "choose win or enemies")
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}: choose win or enemies")
        if partners is None:
            if seat is not None or partner_iterations is not None or partner_budget is not None:
                raise ValueError("seat, partner_iterations and partner_budget go with "
                                 "partners (a bot's name); without partners the agent plays "
                                 "every seat")
        elif seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise ValueError(f"seat {seat!r}: the agent sits at a seat 0 to {players - 1}, "
                             "or None (drawn at each reset)")
        super().__init__({"players": players, **options}, max_steps, render_mode,
                         illegal_reward, reward)
        self.players = players
        self.partners = partners
        self.partner = None
        if partners is not None:
            self.partner = make_bot("regicide", partners)
            partner_iterations = fixed_effort(self.partner, "partner_iterations",
                                              partner_iterations, partner_budget,
                                              getattr(self.partner, "iterations", None)
                                              or PARTNER_ITERATIONS)
        self.partner_iterations = partner_iterations
        self.partner_budget = partner_budget
        self.fixed_seat = seat
        self._bot_rng = random.Random()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game (see ``_EpisodeEnv.reset``). With ``partners``, ``seed`` also
        seeds the partners and the drawn seat; a dealt game the partners end before the
        agent's first decision (rules 1.8: a seat that cannot absorb the attack) is dealt
        again from the same random source, unless ``options`` gives the deal or the state."""
        options = dict(options or {})
        for _ in range(100):
            if seed is not None:
                self._bot_rng = random.Random(f"regicide-partners:{seed}")
            if self.partners is not None:
                self.seat = (self.fixed_seat if self.fixed_seat is not None
                             else self._bot_rng.randrange(self.players))
            answer = super().reset(seed=seed, options=options)
            if not self.episode.over or "deal" in options or "state" in options:
                break
            seed = None  # the next deal of the same stream
        return answer

    def _others_play(self) -> None:
        """Without partners the agent takes the seat to act; with them, the partners play
        until it is the agent's seat's turn or the game is over."""
        ep = self.episode
        if self.partner is None:
            if ep.current is not None:
                self.seat = ep.current
            return
        while ep.current is not None and ep.current != self.seat:
            view = ep.view(ep.current)
            code = self.partner.act(view, ep.codec.game.legal_actions(ep.state),
                                    self._bot_rng, self.partner_budget)
            ep.step(ep.codec.action_id(view, code))

    def _answer(self) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = super()._answer()
        info["seat"] = self.seat
        return obs, info


class RibaudsEnv(_EpisodeEnv):
    """Le Roy des Ribauds against a Regalia bot (``regalia/Ribauds-v0``); see the module doc.

    Raises ``KeyError`` naming the available bots for an unknown ``opponent``, ``ValueError``
    for a seat other than 0, 1 or ``None``.
    """

    def __init__(self, opponent: str = "heuristic", opponent_budget: float | None = None,
                 seat: int | None = None, max_steps: int = MAX_STEPS,
                 render_mode: str | None = None, illegal_reward: float = -1.0,
                 opponent_iterations: int | None = None, **options: Any):
        if seat not in (None, 0, 1):
            raise ValueError(f"seat {seat!r}: the learner sits at seat 0 or 1, or None "
                             "(drawn at each reset)")
        super().__init__(RIBAUDS_CODEC, {"players": 2, **options}, max_steps, render_mode,
                         illegal_reward)
        self.opponent = make_bot("ribauds", opponent)
        opponent_iterations = fixed_effort(self.opponent, "opponent_iterations",
                                           opponent_iterations, opponent_budget,
                                           RIBAUDS_ITERATIONS)
        self.opponent_iterations = opponent_iterations
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

    def _outcome(self) -> dict[str, Any]:
        out = self.episode.outcome()
        return {"won": out["winner"] == self.seat, "winner": out["winner"]}


gym.register("regalia/RegicideSolo-v0", entry_point=RegicideSoloEnv)
gym.register("regalia/Regicide-v0", entry_point=RegicideEnv)
gym.register("regalia/Ribauds-v0", entry_point=RibaudsEnv)
