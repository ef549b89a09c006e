"""The Le Roy des Ribauds batch simulator against the environments' encoding (differential
test), and its API.

Slot ``i`` of ``RibaudsBatch(seed=s)`` and an ``Episode`` reset with ``s + i`` deal the same
game (both draw from the fast generator, the reference engine through ``FastRandom``); the
same action ids must then give, at every step and across automatic resets, the same seat to
act, observation, mask, position (each seat's knowledge included), reward, winner and done
flags (rules 2.2-2.7 through both engines).
"""

from __future__ import annotations

import numpy as np
import pytest

from regalia.adapters.batch import RibaudsBatch, sample_legal
from regalia.adapters.encoding import RIBAUDS_ACTIONS, RIBAUDS_OBS
from regalia.adapters.episode import RIBAUDS_CODEC, Episode
from regalia.adapters.pettingzoo import ribauds_env
from regalia.games.ribauds import RIBAUDS


def _lockstep(options: dict, steps: int, n: int = 6, seed: int = 0,
              max_steps: int = 1000) -> tuple[int, int]:
    """Steps a batch and ``n`` episodes with the same random legal ids; returns the games
    finished and truncated."""
    sim = RibaudsBatch(n, seed, max_steps=max_steps, **options)
    obs, masks = sim.reset()
    eps = [Episode(RIBAUDS_CODEC, {"players": 2, **options}, max_steps) for _ in range(n)]
    for i, ep in enumerate(eps):
        ep.reset(seed + i)
    rng = RibaudsBatch.new_rng(seed + 99)
    ended = cut = 0
    for t in range(steps):
        for i, ep in enumerate(eps):
            seat = ep.current
            assert seat == sim.seats[i], (t, i)
            assert sim.position(i) == ep.state, (t, i, RIBAUDS.to_json(ep.state))
            assert np.array_equal(ep.observation(seat), obs[i]), (t, i, RIBAUDS.to_json(ep.state))
            assert np.array_equal(ep.mask(seat), masks[i]), (t, i, RIBAUDS.to_json(ep.state))
        actions = sample_legal(masks, rng)
        obs, masks, rewards, terminated, truncated = sim.step(actions)
        for i, ep in enumerate(eps):
            actor = ep.current
            ep.step(int(actions[i]))
            assert ep.over == bool(terminated[i] or truncated[i]), (t, i)
            assert bool(truncated[i]) == ep.truncated
            if ep.over:
                assert rewards[i] == ep.rewards()[actor]
                winner = ep.outcome()["winner"]
                assert sim.winners[i] == (-1 if winner is None else winner)
                ended += 1
                cut += ep.truncated
                ep.reset()  # continues the slot's stream, as the batch does
            else:
                assert rewards[i] == 0.0 and sim.winners[i] == -1
    return ended, cut


@pytest.mark.parametrize("options,seed", [({}, 0), ({"replaced_card": "discard"}, 20),
                                          ({"first_player": 1}, 40)])
def test_batch_matches_the_environments_step_for_step(options, seed):
    ended, _ = _lockstep(options, 500, seed=seed)  # 3,000 steps per option set
    assert ended >= 30  # automatic resets were compared too


def test_batch_truncates_like_the_environments():
    ended, cut = _lockstep({}, 120, max_steps=8, seed=3)
    assert cut >= 20 and ended >= cut


def test_rewards_are_the_acting_seats_and_every_game_has_a_winner():
    sim = RibaudsBatch(64, seed=7)
    _, masks = sim.reset()
    rng = RibaudsBatch.new_rng(8)
    results = {1.0: 0, -1.0: 0}
    for _ in range(400):
        actor = sim.seats.copy()
        actions = sample_legal(masks, rng)
        _, masks, rewards, terminated, truncated = sim.step(actions)
        assert not truncated.any()
        done = np.flatnonzero(terminated)
        assert np.array_equal(np.flatnonzero(rewards), done)
        for i in done:
            assert sim.winners[i] in (0, 1)
            assert rewards[i] == (1.0 if sim.winners[i] == actor[i] else -1.0)
            results[float(rewards[i])] += 1
    # a loss on one's own action: the Marriage of the seat whose turn it starts (2.3 step 1)
    assert results[1.0] > 100 and results[-1.0] >= 1


def test_outputs_have_the_encoding_shapes_and_are_read_only():
    sim = RibaudsBatch(8, seed=1)
    obs, masks = sim.reset()
    assert obs.shape == (8, RIBAUDS_OBS) and obs.dtype == np.float32
    assert masks.shape == (8, RIBAUDS_ACTIONS) and masks.dtype == np.int8
    assert masks.sum(axis=1).min() >= 1 and 0.0 <= obs.min() and obs.max() <= 1.0
    assert (obs[:, 51] == 1.0).all()  # the row is the seat to act's
    for name in ("obs", "masks", "rewards", "terminated", "truncated", "seats", "winners"):
        with pytest.raises(ValueError):
            getattr(sim, name)[0] = 0


def test_an_illegal_action_is_refused_and_changes_nothing():
    sim = RibaudsBatch(3, seed=2)
    obs, masks = sim.reset()
    before = [sim.position(i) for i in range(3)]
    obs_before = obs.copy()
    actions = sample_legal(masks, RibaudsBatch.new_rng(0))
    bad = int(np.flatnonzero(masks[2] == 0)[0])
    actions[2] = bad
    with pytest.raises(ValueError, match=f"game 2: action id {bad} is not legal"):
        sim.step(actions)
    assert [sim.position(i) for i in range(3)] == before
    assert np.array_equal(sim.obs, obs_before)
    for wrong in (np.zeros(2, np.int64), np.zeros(3, np.float64)):
        with pytest.raises(ValueError, match="3 integer action ids"):
            sim.step(wrong)
    with pytest.raises(IndexError):
        sim.position(3)


def test_bad_arguments_are_refused():
    for kwargs, what in (({"n": 0}, "n must"), ({"n": 2, "replaced_card": "deck"}, "3.L2"),
                         ({"n": 2, "first_player": 2}, "first_player"),
                         ({"n": 2, "max_steps": 0}, "max_steps"), ({"n": 2, "seed": 1.5}, "seed")):
        with pytest.raises(ValueError, match=what):
            RibaudsBatch(**kwargs)
    with pytest.raises(RuntimeError, match="reset"):
        RibaudsBatch(2).step(np.zeros(2, np.int64))


def test_same_seed_same_games_and_reset_continues_the_streams():
    a, b = RibaudsBatch(16, seed=5), RibaudsBatch(16, seed=5)
    first = a.reset()[0].copy()
    assert np.array_equal(first, b.reset()[0])
    ra, rb = RibaudsBatch.new_rng(1), RibaudsBatch.new_rng(1)
    for _ in range(200):  # the same ids: the same games, automatic resets included
        oa, ma, wa, ta, _ = a.step(sample_legal(a.masks, ra))
        ob, mb, wb, tb, _ = b.step(sample_legal(b.masks, rb))
        assert np.array_equal(oa, ob) and np.array_equal(ma, mb)
        assert np.array_equal(wa, wb) and np.array_equal(ta, tb)
    again = a.reset()[0]  # each slot deals its next game
    assert not np.array_equal(first, again)
    assert np.array_equal(first, a.reset(seed=5)[0])


def test_a_slot_deals_the_game_of_the_environment_seeded_alike():
    sim = RibaudsBatch(4, seed=30)
    sim.reset()
    env = ribauds_env()
    for i in range(4):
        env.reset(seed=30 + i)
        assert env.unwrapped.episode.state == sim.position(i)
        seat = int(sim.seats[i])
        assert np.array_equal(env.observe(f"player_{seat}")["observation"], sim.obs[i])
