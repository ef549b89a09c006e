"""PettingZoo AEC environments: PettingZoo's own API checker, and what the checker does not
look at (rewards of each game, rule options, seeding, refusals)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from regalia.adapters.encoding import REGICIDE_ACTIONS, RIBAUDS_ACTIONS
from regalia.adapters.pettingzoo import regicide_env, ribauds_env
from regalia.core.errors import InvalidPosition


# The checker warns about every observation that is a dict with an action mask, the form
# PettingZoo's own card games use; the rest of its checks apply.
dict_space = pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning")
dict_observation = pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@dict_space
@dict_observation
def test_regicide_env_passes_the_pettingzoo_api_test(players):
    api_test(regicide_env(players=players), num_cycles=300)


@dict_space
@dict_observation
def test_ribauds_env_passes_the_pettingzoo_api_test():
    api_test(ribauds_env(), num_cycles=300)


def _play_out(env, seed: int):
    """Plays one game with random legal ids; returns the rewards summed per agent."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        for other in env.agents:  # only the seat to act has legal ids
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return total


def test_regicide_rewards_are_shared_and_ribauds_rewards_zero_sum():
    results = set()
    for seed in range(12):
        total = _play_out(regicide_env(players=3), seed)
        assert len(set(total.values())) == 1  # cooperative: every seat the same
        results.add(next(iter(total.values())))
    assert results <= {0.0, 1.0}
    for seed in range(6):
        total = _play_out(ribauds_env(), seed)
        assert sorted(total.values()) == [-1.0, 1.0]


def test_spaces_are_discrete_over_the_encoding():
    assert regicide_env(players=2).action_space("player_0").n == REGICIDE_ACTIONS
    assert ribauds_env().action_space("player_1").n == RIBAUDS_ACTIONS


def test_same_seed_same_game():
    a, b = regicide_env(players=2), regicide_env(players=2)
    a.reset(seed=3)
    b.reset(seed=3)
    for _ in range(6):
        oa, ob = a.observe(a.agent_selection), b.observe(b.agent_selection)
        assert a.agent_selection == b.agent_selection
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        if a.terminations[a.agent_selection]:
            break
        action = int(np.flatnonzero(oa["action_mask"])[0])
        a.step(action)
        b.step(action)


def test_rule_options_reach_the_game():
    """rules 3.R6: with jester_choose_self off, only other seats can be chosen."""
    env = regicide_env(players=2, jester_choose_self=False, first_player=1)
    env.reset(seed=0)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.episode.state.options.jester_choose_self is False
    with pytest.raises(InvalidPosition, match="options.solo_yeld"):
        regicide_env(players=1, solo_yeld=True)
    with pytest.raises(InvalidPosition, match="1 to 4 players"):
        regicide_env(players=5)


def test_an_illegal_id_is_refused_and_changes_nothing():
    env = regicide_env(players=2)
    env.reset(seed=1)
    before = env.unwrapped.episode.state
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=f"action id {bad} is not legal"):
        env.step(bad)
    assert env.unwrapped.episode.state is before


def test_render_shows_the_position_as_text():
    env = regicide_env(players=2, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "to act" in text and "legal:" in text
