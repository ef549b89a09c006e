"""``regalia/Regicide-v0``: Regicide for 2-4 players in Gymnasium, the agent playing every
seat (a team policy) or one seat beside bot partners. The API checkers, the benchmark deals
of ``regalia eval``, the seat-to-act's view only (rules 1.15), rewards and outcome,
reproducibility by seed, refusals."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import regalia.adapters.gymnasium  # noqa: F401  (registers the environments)
from regalia.adapters import encoding as E
from regalia.core.errors import InvalidPosition
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE
from regalia.lab.deals import load_deals

SB3 = "the rl extra (stable-baselines3) is not installed: pip install -e '.[rl]'"


def _random_game(env, seed: int, **reset_kwargs):
    """Plays random legal ids; returns the steps' ``(obs, reward, info)`` after the reset's."""
    obs, info = env.reset(seed=seed, **reset_kwargs)
    rng = np.random.default_rng(seed)
    out = [(obs, 0.0, info)]
    while True:
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"]))))
        out.append((obs, reward, info))
        if terminated or truncated:
            return out


# ----------------------------------------------------------------------------- API checkers


@pytest.mark.parametrize("kwargs", [{}, {"players": 3}, {"players": 4, "minimal_discard": True},
                                    {"players": 3, "partners": "heuristic"},
                                    {"partners": "montecarlo", "partner_iterations": 4, "seat": 1}])
def test_the_environment_passes_the_gymnasium_checker(kwargs):
    check_env(gym.make("regalia/Regicide-v0", **kwargs).unwrapped, skip_render_check=False)


def test_stable_baselines3_takes_the_environment_as_it_is():
    pytest.importorskip("stable_baselines3", reason=SB3)
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("regalia/Regicide-v0")  # no argument: 2 players, rgb_array frames
    assert vec.reset().shape == (1, E.REGICIDE_OBS)
    masks = np.stack(vec.env_method("action_masks"))
    assert masks.shape == (1, E.REGICIDE_ACTIONS) and masks.dtype == bool and masks.any()
    vec.step(masks.argmax(axis=1))
    for kwargs in ({"players": 3}, {"players": 2, "partners": "heuristic", "reward": "enemies"}):
        sb3_check_env(gym.make("regalia/Regicide-v0", **kwargs).unwrapped)


def test_maskable_ppo_trains_on_the_team_environment():
    pytest.importorskip("sb3_contrib", reason="the rl extra (sb3-contrib) is not installed: "
                        "pip install -e '.[rl]'")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("regalia/Regicide-v0", n_envs=2, seed=0, env_kwargs={"players": 3})
    vec.reset()
    assert is_masking_supported(vec)
    assert get_action_masks(vec).shape == (2, E.REGICIDE_ACTIONS)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    assert model.num_timesteps >= 64


def test_the_default_is_two_players_played_by_the_agent_alone():
    env = gym.make("regalia/Regicide-v0").unwrapped
    env.reset(seed=0)
    assert env.episode.players == 2 and env.partner is None
    assert env.observation_space.shape == (E.REGICIDE_OBS,)
    assert env.action_space.n == E.REGICIDE_ACTIONS


# ----------------------------------------------------------------------------- deals


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_deal_is_the_game_regalia_eval_plays(players):
    """From ``reset(options={"deal": D})`` the game is ``Match(REGICIDE, {"players": P}, D)``
    action for action (every chance event too); each step shows the seat to act's
    observation and mask of that game; the last info is its outcome."""
    for deal in load_deals("regicide", players)[:2]:
        env = gym.make("regalia/Regicide-v0", players=players)
        obs, info = env.reset(options={"deal": deal})
        match = Match(REGICIDE, {"players": players}, deal)
        ep = env.unwrapped.episode
        while True:
            assert REGICIDE.to_json(ep.state) == REGICIDE.to_json(match.state)
            seat = match.state.current
            view = REGICIDE.view(match.state, seat)
            assert info["seat"] == seat
            assert np.array_equal(obs, E.regicide_observation(view))
            ids = E.legal_ids(view, REGICIDE.legal_actions(match.state), E.regicide_action_id)
            assert np.array_equal(info["action_mask"], E.mask_of(ids, E.REGICIDE_ACTIONS))
            first = min(ids)
            match.play(ids[first])
            obs, _, terminated, truncated, info = env.step(first)
            if terminated or truncated:
                break
        assert REGICIDE.to_json(ep.state) == REGICIDE.to_json(match.state)
        out = REGICIDE.outcome(match.state)
        assert info["won"] == (out["result"] == "won")
        assert info["enemies_defeated"] == out["enemies_defeated"]
        assert info["medal"] is None


def test_a_deal_with_partners_is_the_deal_of_regalia_eval():
    """The agent at the deal's first seat: no partner has moved at the reset."""
    for deal in load_deals("regicide", 3)[:3]:
        match = Match(REGICIDE, {"players": 3}, deal)
        seat = match.state.current
        env = gym.make("regalia/Regicide-v0", players=3, partners="heuristic", seat=seat)
        obs, info = env.reset(seed=4, options={"deal": deal})
        assert info["seat"] == seat and env.unwrapped.episode.steps == 0
        assert REGICIDE.to_json(env.unwrapped.episode.state) == REGICIDE.to_json(match.state)


# ----------------------------------------------------------------------------- information


def _positions(players: int, seed: int, count: int) -> list:
    """States still in play reached by random play."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = REGICIDE.new_game({"players": players}, rng)
        while not REGICIDE.is_terminal(s) and len(out) < count:
            out.append(s)
            legal = REGICIDE.legal_actions(s)
            s, _ = REGICIDE.apply(s, legal[rng.randrange(len(legal))], rng)
    return out[::3]


def _hidden_variant(s, seat: int, rng: random.Random):
    """``s`` with every card hidden from ``seat`` dealt again: the other hands and the Tavern
    below its publicly known top cards (sizes kept)."""
    t = s.copy()
    body = len(t.tavern) - t.known_top
    pool = t.tavern[:body]
    others = [q for q in range(t.players) if q != seat]
    for q in others:
        pool += [c for c in range(54) if t.hands[q] >> c & 1]
    rng.shuffle(pool)
    for q in others:
        size = t.hands[q].bit_count()
        t.hands[q] = sum(1 << c for c in pool[:size])
        del pool[:size]
    t.tavern[:body] = pool
    return t


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_observation_is_the_seat_to_acts_view_only(players):
    """Rules 1.15: the observation and the mask do not change when the other seats' hands
    (and the unknown Tavern) are dealt again; they change with the seat's own hand."""
    env = gym.make("regalia/Regicide-v0", players=players).unwrapped
    rng = random.Random(players)
    changed = 0
    for s in _positions(players, 50 + players, 150):
        seat = s.current
        t = _hidden_variant(s, seat, rng)
        changed += t.hands != s.hands
        o1, i1 = env.reset(options={"state": s})
        o2, i2 = env.reset(options={"state": t})
        assert i1["seat"] == i2["seat"] == seat
        assert np.array_equal(o1, o2) and np.array_equal(i1["action_mask"], i2["action_mask"])
        assert np.array_equal(o1, E.regicide_observation(REGICIDE.view(s, seat)))
    assert changed >= 20
    s = _positions(players, 9, 10)[1]
    seat = s.current
    t = s.copy()  # one card of the seat's own hand trades places with the Tavern's bottom
    own = min(c for c in range(52) if t.hands[seat] >> c & 1)
    t.hands[seat] = t.hands[seat] & ~(1 << own) | (1 << t.tavern[0])
    t.tavern[0] = own
    assert not np.array_equal(env.reset(options={"state": s})[0],
                              env.reset(options={"state": t})[0])


def test_every_step_shows_the_seat_to_act_and_its_legal_ids():
    """Without partners the agent is the seat to act at every step, whichever it is."""
    env = gym.make("regalia/Regicide-v0", players=4).unwrapped
    ep = env.episode
    seats = set()
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            seat = ep.current
            seats.add(seat)
            assert info["seat"] == seat
            assert np.array_equal(obs, ep.observation(seat))
            assert np.array_equal(info["action_mask"], ep.mask(seat))
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            assert sorted(np.flatnonzero(info["action_mask"])) == sorted(ep.legal())
            obs, _, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                assert not info["action_mask"].any()
                break
    assert seats == {0, 1, 2, 3}


def test_with_partners_the_agent_sees_only_its_own_seat():
    env = gym.make("regalia/Regicide-v0", players=3, partners="heuristic", seat=1).unwrapped
    for seed in range(4):
        for obs, _, info in _random_game(env, seed):
            assert info["seat"] == 1
        assert env.episode.over
    drawn = gym.make("regalia/Regicide-v0", players=4, partners="random").unwrapped
    assert {drawn.reset(seed=s)[1]["seat"] for s in range(20)} == {0, 1, 2, 3}


# ----------------------------------------------------------------------------- rewards, seeds


@pytest.mark.parametrize("kwargs", [{"players": 2}, {"players": 3, "partners": "heuristic"}])
def test_rewards_and_the_last_info(kwargs):
    defeated = 0
    for seed in range(5):
        win = _random_game(gym.make("regalia/Regicide-v0", reward="win", **kwargs), seed)
        enemies = _random_game(gym.make("regalia/Regicide-v0", reward="enemies", **kwargs),
                               seed)
        info = win[-1][2]
        assert info["won"] == enemies[-1][2]["won"]  # the same game
        assert set(info) >= {"action_mask", "seat", "won", "enemies_defeated", "medal"}
        assert all(set(i) == {"action_mask", "seat"} for _, _, i in win[:-1])
        assert sum(r for _, r, _ in win) == (1.0 if info["won"] else 0.0)
        assert sum(r for _, r, _ in enemies) == pytest.approx(info["enemies_defeated"] / 12)
        defeated += info["enemies_defeated"]
    assert defeated >= 3  # the shaped rewards were paid


@pytest.mark.parametrize("kwargs", [{"players": 3}, {"players": 2, "partners": "heuristic"},
                                    {"players": 2, "partners": "montecarlo",
                                     "partner_iterations": 3}])
def test_the_same_seed_replays_the_same_episode(kwargs):
    def trace(seed):
        env = gym.make("regalia/Regicide-v0", **kwargs)
        return [(o.tobytes(), r, i["seat"]) for o, r, i in _random_game(env, seed)]

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


def test_a_search_partner_has_a_fixed_effort_by_default():
    env = gym.make("regalia/Regicide-v0", partners="montecarlo").unwrapped
    assert env.partner.iterations == regalia.adapters.gymnasium.PARTNER_ITERATIONS
    timed = gym.make("regalia/Regicide-v0", partners="montecarlo", partner_budget=0.01)
    assert timed.unwrapped.partner.iterations is None


def test_bad_settings_are_refused():
    for kwargs, error, what in (
            ({"players": 1}, ValueError, "RegicideSolo-v0"),
            ({"players": 5}, ValueError, "2 to 4 players"),
            ({"reward": "medal"}, ValueError, "rules 1.14"),
            ({"reward": "score"}, ValueError, "win or enemies"),
            ({"seat": 1}, ValueError, "go with partners"),
            ({"partners": "heuristic", "seat": 2}, ValueError, "seat 0 to 1"),
            ({"partners": "heuristic", "partner_iterations": 5}, ValueError, "iterations"),
            ({"partners": "montecarlo", "partner_iterations": 0}, ValueError, "positive"),
            ({"partners": "nobody"}, KeyError, "unknown regicide bot"),
            ({"solo_yield": True}, InvalidPosition, "solo_yield")):
        with pytest.raises(error, match=what):
            gym.make("regalia/Regicide-v0", **kwargs)
