"""The batch simulator against the environments' encoding (differential test), and its API.

Slot ``i`` of ``RegicideBatch(seed=s)`` and an ``Episode`` reset with ``s + i`` deal the same
game (the reference engine draws from ``FastRandom``); the same action ids must then give,
at every step and across automatic resets, the same seat to act, observation, mask, reward
and done flags (rules 1.3-1.14 through both engines).
"""

from __future__ import annotations

import numpy as np
import pytest

from regalia.adapters.encoding import REGICIDE_ACTIONS, REGICIDE_OBS
from regalia.adapters.episode import REGICIDE_CODEC, Episode
from regalia.games.regicide.state import to_json
from regalia.adapters.batch import RegicideBatch, sample_legal


def _lockstep(players: int, options: dict, steps: int, n: int = 5, seed: int = 0,
              max_steps: int = 1000) -> tuple[int, int]:
    """Steps a batch and ``n`` episodes with the same random legal ids; returns the games
    finished and truncated."""
    sim = RegicideBatch(n, players, seed, max_steps=max_steps, **options)
    obs, masks = sim.reset()
    eps = [Episode(REGICIDE_CODEC, {"players": players, **options}, max_steps)
           for _ in range(n)]
    for i, ep in enumerate(eps):
        ep.reset(seed + i)
    rng = RegicideBatch.new_rng(seed + 99)
    ended = cut = 0
    for t in range(steps):
        for i, ep in enumerate(eps):
            seat = ep.current
            assert seat == sim.seats[i], (t, i)
            assert np.array_equal(ep.observation(seat), obs[i]), (t, i, to_json(ep.state))
            assert np.array_equal(ep.mask(seat), masks[i]), (t, i, to_json(ep.state))
        actions = sample_legal(masks, rng)
        obs, masks, rewards, terminated, truncated = sim.step(actions)
        for i, ep in enumerate(eps):
            ep.step(int(actions[i]))
            assert ep.over == bool(terminated[i] or truncated[i]), (t, i)
            assert bool(truncated[i]) == ep.truncated
            if ep.over:
                assert rewards[i] == ep.rewards()[0]
                ended += 1
                cut += ep.truncated
                ep.reset()
            else:
                assert rewards[i] == 0.0
                assert to_json(sim.position(i)) == {**to_json(ep.state),
                                                   "preferences": [None] * players}
    return ended, cut


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_batch_matches_the_environments_step_for_step(players):
    ended, _ = _lockstep(players, {}, 250, seed=10 * players)
    assert ended >= 20  # automatic resets were compared too


@pytest.mark.parametrize("players,options", [
    (2, {"minimal_discard": True}),
    (3, {"jester_choose_self": False, "first_player": 1}),
    (4, {"minimal_discard": True, "jester_choose_self": False}),
])
def test_batch_matches_the_environments_with_rule_options(players, options):
    ended, _ = _lockstep(players, options, 150, seed=7)
    assert ended >= 10


def test_batch_truncates_like_the_environments():
    """Solo with ``solo_yield``: games can last long; both cut them at ``max_steps``."""
    ended, cut = _lockstep(1, {"solo_yield": True}, 200, max_steps=12, seed=3)
    assert cut >= 5 and ended >= cut


def test_outputs_have_the_encoding_shapes_and_are_read_only():
    sim = RegicideBatch(8, 2, seed=1)
    obs, masks = sim.reset()
    assert obs.shape == (8, REGICIDE_OBS) and obs.dtype == np.float32
    assert masks.shape == (8, REGICIDE_ACTIONS) and masks.dtype == np.int8
    assert masks.sum(axis=1).min() >= 1 and 0.0 <= obs.min() and obs.max() <= 1.0
    with pytest.raises(ValueError):
        obs[0, 0] = 1.0


def test_an_illegal_action_is_refused_and_changes_nothing():
    sim = RegicideBatch(3, 2, seed=2)
    obs, masks = sim.reset()
    before = [to_json(sim.position(i)) for i in range(3)]
    obs_before = obs.copy()
    actions = sample_legal(masks, RegicideBatch.new_rng(0))
    bad = int(np.flatnonzero(masks[1] == 0)[0])
    actions[1] = bad
    with pytest.raises(ValueError, match=f"game 1: action id {bad} is not legal"):
        sim.step(actions)
    assert [to_json(sim.position(i)) for i in range(3)] == before
    assert np.array_equal(sim.obs, obs_before)
    with pytest.raises(ValueError, match="3 integer action ids"):
        sim.step(np.zeros(2, np.int64))


def test_bad_arguments_are_refused():
    for kwargs, what in (({"n": 0}, "n must"), ({"n": 2, "players": 5}, "players must"),
                         ({"n": 2, "first_player": 2}, "first_player"),
                         ({"n": 2, "solo_yield": 1}, "solo_yield")):
        with pytest.raises(ValueError, match=what):
            RegicideBatch(**kwargs)
    with pytest.raises(RuntimeError, match="reset"):
        RegicideBatch(2).step(np.zeros(2, np.int64))


def test_same_seed_same_games_and_reset_continues_the_streams():
    a, b = RegicideBatch(4, 3, seed=5), RegicideBatch(4, 3, seed=5)
    oa, _ = a.reset()
    first = oa.copy()
    ob, _ = b.reset()
    assert np.array_equal(first, ob)
    again, _ = a.reset()  # each slot deals its next game
    assert not np.array_equal(first, again)
    reseeded, _ = a.reset(seed=5)
    assert np.array_equal(first, reseeded)


def test_sample_legal_draws_only_legal_ids_and_all_of_them():
    masks = np.zeros((2, 10), np.int8)
    masks[0, [2, 5, 7]] = 1
    rng = RegicideBatch.new_rng(4)
    seen = {int(sample_legal(masks, rng)[0]) for _ in range(200)}
    assert seen == {2, 5, 7}
    assert sample_legal(masks, rng)[1] == -1
