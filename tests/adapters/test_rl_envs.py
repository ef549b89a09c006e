"""The environments as a standard RL stack uses them: rewards as options, the outcome in the
last ``info``, the benchmark deals of ``regalia eval`` by ``reset(options={"deal": ...})``,
rendering as ``make_vec_env`` asks, reproducible Ribauds opponents, and Stable-Baselines3 /
sb3-contrib (when installed) taking the environments as they are."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest

import regalia.adapters.gymnasium  # noqa: F401  (registers the environments)
from regalia.adapters import encoding as E
from regalia.adapters.pettingzoo import regicide_env, ribauds_env
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE
from regalia.games.ribauds import RIBAUDS
from regalia.lab.deals import load_deals


def _first_legal_game(env, reset_kwargs):
    """Play the lowest legal id each step; returns the steps' (obs, reward, info)."""
    obs, info = env.reset(**reset_kwargs)
    out = [(obs, 0.0, info)]
    while True:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        out.append((obs, reward, info))
        if terminated or truncated:
            return out


def _random_game(env, seed, **reset_kwargs):
    obs, info = env.reset(seed=seed, **reset_kwargs)
    rng = np.random.default_rng(seed)
    rewards = []
    while True:
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(reward)
        if terminated or truncated:
            return rewards, info


# ----------------------------------------------------------------------------- deals


@pytest.mark.parametrize("deal", load_deals("regicide", 1)[:3])
def test_a_solo_deal_is_the_game_regalia_eval_plays(deal):
    """The first position is eval's (``Match(REGICIDE, {"players": 1}, seed)``), and the same
    actions keep both games equal (every chance event too)."""
    env = gym.make("regalia/RegicideSolo-v0")
    obs, info = env.reset(options={"deal": deal})
    match = Match(REGICIDE, {"players": 1}, deal)
    ep = env.unwrapped.episode
    assert REGICIDE.to_json(ep.state) == REGICIDE.to_json(match.state)
    while True:
        assert np.array_equal(obs, E.regicide_observation(REGICIDE.view(match.state, 0)))
        ids = E.legal_ids(REGICIDE.view(match.state, 0), REGICIDE.legal_actions(match.state),
                          E.regicide_action_id)
        assert np.array_equal(info["action_mask"], E.mask_of(ids, E.REGICIDE_ACTIONS))
        first = min(ids)
        match.play(ids[first])
        obs, _, terminated, truncated, info = env.step(first)
        assert REGICIDE.to_json(ep.state) == REGICIDE.to_json(match.state)
        if terminated or truncated:
            break
    out = REGICIDE.outcome(match.state)
    assert info["won"] == (out["result"] == "won")
    assert info["enemies_defeated"] == out["enemies_defeated"]
    assert info["medal"] == out["medal"]


@pytest.mark.parametrize("players", [2, 3])
def test_a_pettingzoo_regicide_deal_is_the_game_regalia_eval_plays(players):
    for deal in load_deals("regicide", players)[:2]:
        env = regicide_env(players=players)
        env.reset(options={"deal": deal})
        match = Match(REGICIDE, {"players": players}, deal)
        for _ in range(30):
            if REGICIDE.is_terminal(match.state):
                break
            assert REGICIDE.to_json(env.episode.state) == REGICIDE.to_json(match.state)
            seat = match.state.current
            assert env.agent_selection == f"player_{seat}"
            mask = env.observe(env.agent_selection)["action_mask"]
            ids = E.legal_ids(REGICIDE.view(match.state, seat),
                              REGICIDE.legal_actions(match.state), E.regicide_action_id)
            first = min(ids)
            assert mask[first] == 1
            match.play(ids[first])
            env.step(first)


def test_a_pettingzoo_ribauds_deal_is_the_game_regalia_eval_plays():
    for deal in load_deals("ribauds", 2)[:3]:
        env = ribauds_env()
        env.reset(options={"deal": deal})
        match = Match(RIBAUDS, {"players": 2}, deal)
        for _ in range(40):
            if RIBAUDS.is_terminal(match.state):
                break
            assert RIBAUDS.to_json(env.episode.state) == RIBAUDS.to_json(match.state)
            seat = RIBAUDS.current_seat(match.state)
            ids = E.legal_ids(RIBAUDS.view(match.state, seat),
                              RIBAUDS.legal_actions(match.state), E.ribauds_action_id)
            first = min(ids)
            match.play(ids[first])
            env.step(first)


def test_ribauds_env_deals_the_published_deal():
    deal = load_deals("ribauds", 2)[0]
    env = gym.make("regalia/Ribauds-v0", opponent="random", seat=0, first_player=0)
    env.reset(seed=1, options={"deal": deal})
    match = Match(RIBAUDS, {"players": 2, "first_player": 0}, deal)
    assert RIBAUDS.to_json(env.unwrapped.episode.state) == RIBAUDS.to_json(match.state)


# ----------------------------------------------------------------------------- rewards


def test_rewards_are_options_and_the_last_info_holds_the_outcome():
    for seed in range(6):
        envs = {r: gym.make("regalia/RegicideSolo-v0", reward=r) for r in ("win", "enemies", "medal")}
        games = {r: _random_game(e, seed) for r, e in envs.items()}
        infos = [info for _, info in games.values()]
        assert infos[0]["won"] == infos[1]["won"] == infos[2]["won"]  # the same game
        info = infos[0]
        assert set(info) >= {"action_mask", "won", "enemies_defeated", "medal"}
        assert sum(games["win"][0]) == (1.0 if info["won"] else 0.0)
        assert sum(games["enemies"][0]) == pytest.approx(info["enemies_defeated"] / 12)
        assert all(r >= 0 for r in games["enemies"][0])
        value = {"gold": 1.0, "silver": 2 / 3, "bronze": 1 / 3, None: 0.0}[info["medal"]]
        assert sum(games["medal"][0]) == pytest.approx(value)


def test_only_the_last_info_holds_the_outcome():
    steps = _first_legal_game(gym.make("regalia/RegicideSolo-v0"), {"seed": 3})
    assert all(set(info) == {"action_mask"} for _, _, info in steps[:-1])
    assert {"won", "enemies_defeated", "medal"} <= set(steps[-1][2])


def test_a_won_game_pays_its_medal(monkeypatch):
    """Rewards of a won game, with a won state forced at the end (random play rarely wins)."""
    env = gym.make("regalia/RegicideSolo-v0", reward="medal").unwrapped
    env.reset(seed=0)
    monkeypatch.setattr(env.episode, "outcome",
                        lambda: {"won": True, "enemies_defeated": 12, "medal": "silver"})
    monkeypatch.setattr(type(env.episode), "over", property(lambda self: True))
    assert env._reward() == pytest.approx(2 / 3)


def test_an_unknown_reward_is_refused():
    with pytest.raises(ValueError, match="win, enemies, medal"):
        gym.make("regalia/RegicideSolo-v0", reward="score")


def test_ribauds_last_info_says_who_won():
    env = gym.make("regalia/Ribauds-v0", opponent="random")
    rewards, info = _random_game(env, 5)
    assert info["won"] == (rewards[-1] > 0)
    assert info["winner"] in (0, 1)


# ----------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("mode", [None, "ansi", "rgb_array"])
def test_the_render_modes_declared_are_implemented(mode):
    env = gym.make("regalia/RegicideSolo-v0", render_mode=mode)
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    frame = env.render()
    if mode is None:
        assert frame is None
    elif mode == "ansi":
        assert "legal:" in frame
    else:
        assert frame.shape == (400, 800, 3) and frame.dtype == np.uint8
        assert frame.min() < 128 < frame.max()  # text drawn on white


def test_an_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="rgb_array"):
        gym.make("regalia/RegicideSolo-v0", render_mode="depth_array")


# ----------------------------------------------------------------------------- Ribauds opponents


def _ribauds_trajectory(seed, **kwargs):
    env = gym.make("regalia/Ribauds-v0", **kwargs)
    obs, info = env.reset(seed=seed)
    rng = random.Random(seed)
    trace = [obs.tobytes()]
    while True:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
        trace.append(obs.tobytes())
        if terminated or truncated:
            return trace, reward


def test_a_search_opponent_with_iterations_replays_by_seed():
    a = _ribauds_trajectory(7, opponent="ismcts", opponent_iterations=4)
    b = _ribauds_trajectory(7, opponent="ismcts", opponent_iterations=4)
    assert a == b


def test_a_search_opponent_has_a_fixed_effort_by_default():
    env = gym.make("regalia/Ribauds-v0", opponent="ismcts").unwrapped
    assert env.opponent.iterations == regalia.adapters.gymnasium.RIBAUDS_ITERATIONS
    timed = gym.make("regalia/Ribauds-v0", opponent="ismcts", opponent_budget=0.01).unwrapped
    assert timed.opponent.iterations is None


def test_iterations_for_a_bot_without_search_are_refused():
    with pytest.raises(ValueError, match="iterations"):
        gym.make("regalia/Ribauds-v0", opponent="heuristic", opponent_iterations=10)
    with pytest.raises(ValueError, match="positive"):
        gym.make("regalia/Ribauds-v0", opponent="ismcts", opponent_iterations=0)


# ----------------------------------------------------------------------------- SB3


def test_make_vec_env_takes_the_id_alone_and_finds_the_masks():
    pytest.importorskip("stable_baselines3", reason="the rl extra (stable-baselines3) is not "
                        "installed: pip install -e '.[rl]'")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("regalia/RegicideSolo-v0", n_envs=2, seed=0)
    obs = vec.reset()
    assert obs.shape == (2, E.REGICIDE_OBS)
    masks = np.stack(vec.env_method("action_masks"))
    assert masks.shape == (2, E.REGICIDE_ACTIONS) and masks.dtype == bool and masks.any(axis=1).all()
    vec.step(masks.argmax(axis=1))
    sb3_check_env(gym.make("regalia/RegicideSolo-v0", reward="enemies").unwrapped)
    vec = make_vec_env("regalia/Ribauds-v0", n_envs=1, seed=0, env_kwargs={"opponent": "random"})
    assert vec.reset().shape == (1, E.RIBAUDS_OBS)


def test_sb3_contrib_reads_the_masks_through_the_vec_env():
    pytest.importorskip("sb3_contrib", reason="the rl extra (sb3-contrib) is not installed: "
                        "pip install -e '.[rl]'")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("regalia/RegicideSolo-v0", n_envs=2)
    vec.reset()
    assert is_masking_supported(vec)
    assert get_action_masks(vec).shape == (2, E.REGICIDE_ACTIONS)
