"""Gymnasium environments: Gymnasium's own checker, the MaskablePPO mask convention, the
Ribauds opponent, illegal actions."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import regalia.adapters.gymnasium  # noqa: F401  (registers the environments)


@pytest.mark.parametrize("env_id,kwargs", [
    ("regalia/RegicideSolo-v0", {}),
    ("regalia/RegicideSolo-v0", {"solo_yield": True}),
    ("regalia/Ribauds-v0", {}),
    ("regalia/Ribauds-v0", {"opponent": "random", "seat": 1}),
])
def test_environments_pass_the_gymnasium_checker(env_id, kwargs):
    check_env(gym.make(env_id, **kwargs).unwrapped, skip_render_check=False)


def _play(env, seed: int) -> tuple[float, int]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        mask = info["action_mask"]
        assert mask.dtype == np.int8
        assert np.array_equal(env.unwrapped.action_masks(), mask.astype(bool))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps


def test_solo_games_end_with_reward_one_for_a_win_else_zero():
    env = gym.make("regalia/RegicideSolo-v0")
    rewards = {_play(env, seed)[0] for seed in range(15)}
    assert rewards <= {0.0, 1.0} and rewards


def test_ribauds_against_a_bot_ends_with_plus_or_minus_one():
    env = gym.make("regalia/Ribauds-v0", opponent="heuristic")
    results = [_play(env, seed)[0] for seed in range(8)]
    assert set(results) <= {-1.0, 1.0}


def test_the_bot_moves_first_when_it_holds_the_first_turn():
    env = gym.make("regalia/Ribauds-v0", opponent="random", seat=1, first_player=0)
    env.reset(seed=4)
    ep = env.unwrapped.episode
    assert ep.current == 1 and ep.steps >= 1


def test_an_illegal_action_ends_the_episode_with_the_illegal_reward():
    env = gym.make("regalia/RegicideSolo-v0", illegal_reward=-2.0)
    obs, info = env.reset(seed=0)
    state = env.unwrapped.episode.state
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(bad)
    assert (reward, terminated, truncated, info2["illegal_action"]) == (-2.0, True, False, bad)
    assert env.unwrapped.episode.state is state and np.array_equal(obs, obs2)


def test_bad_settings_are_refused():
    with pytest.raises(KeyError, match="unknown ribauds bot"):
        gym.make("regalia/Ribauds-v0", opponent="nobody")
    with pytest.raises(ValueError, match="seat 2"):
        gym.make("regalia/Ribauds-v0", seat=2)
