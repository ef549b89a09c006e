"""What the partners' plays say about their hands (``regalia.bots.regicide.partners``): the
public position of each partner decision replayed from a seat's log (rules 1.4-1.11, 1.15),
the likelihood of those decisions in sampled positions, and the search bot that resamples
its positions by it."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from regalia.bots import make_bot
from regalia.bots.regicide import partners as R
from regalia.bots.regicide import policy as P
from regalia.bots.regicide.belief import Knowledge
from regalia.bots.regicide.montecarlo import PARTNER_TAU, MonteCarloBot
from regalia.fast import regicide as F
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A

# The fields of a position that the partner's decision depended on, besides its hand.
PUBLIC = (F.PLAYERS, F.CUR, F.PHASE, F.ENEMY, F.DAMAGE, F.CANCELLED, F.SPADES, F.YIELDED,
          F.NTAV, F.NDISC, F.KNOWN)


def _game(players: int, seed: int):
    """A heuristic game: ``(states, views)``, where ``states[t]`` is the true position
    before the event at log index ``t`` that a decision logged first (the others None),
    and ``views`` the seats' views before each of their decisions."""
    rng = random.Random(seed)
    bots = [make_bot("regicide", "heuristic") for _ in range(players)]
    s = G.new_game({"players": players}, rng)
    states: dict[int, object] = {}
    views = []
    while not G.is_terminal(s):
        seat = s.current
        if s.phase == "choose":
            for q in range(players):
                w = bots[q].wish(G.view(s, q), rng) if q != seat else None
                if w and s.preferences[q] != w:
                    s, _ = G.apply(s, A.prefer(q, w == "yes"), rng)
        view = G.view(s, seat)
        views.append(view)
        states[len(view["log"])] = s
        a = bots[seat].act(view, G.legal_actions(s), rng)
        s, _ = G.apply(s, a, rng)
    return states, views, s


def _hand_then(now: int, since: int) -> int:
    """A partner's hand before a decision, from its true hand now and the cards the seat's
    log shows it played since. The two Jesters of four players look alike, so the log may
    name the one the partner still holds: the hand then held both."""
    then = now | since
    if now & since & F.JESTER_BITS:
        then |= F.JESTER_BITS
    return then


@pytest.mark.parametrize("players", [2, 3, 4])
def test_partner_decisions_replay_the_public_position(players):
    """Rules 1.4-1.11 and 1.15: for every partner decision a seat's view keeps, the replayed
    position is the true one before it (enemy, damage, shield, immunity, piles, yields,
    hand sizes), and the partner's hand then is its true hand now plus the cards shown since;
    a decision followed by a draw of that partner is left out (its hand then is unknown)."""
    kept = left_out = 0
    for seed in range(6):
        states, views, _ = _game(players, 100 * players + seed)
        for view in views[::2]:
            k = Knowledge.from_view(view)
            assert k.consistent
            obs = R.observations(k)
            truth_now = F.encode(states[len(view["log"])])
            partner_moves = [t for t in states if t < len(view["log"])
                             and view["log"][t]["seat"] != view["seat"]]
            left_out += len(partner_moves) - len(obs)
            for i in range(len(obs)):
                t, q = int(obs.times[i]), int(obs.seats[i])
                assert view["log"][t]["seat"] == q != view["seat"]
                true_then = F.encode(states[t])
                for f in PUBLIC:
                    assert obs.positions[i][f] == true_then[f], (f, t)
                then = _hand_then(truth_now[F.HANDS + q], obs.since[i])
                assert then & ~F.JESTER_BITS == true_then[F.HANDS + q] & ~F.JESTER_BITS
                assert F.popcount(then & F.JESTER_BITS) \
                    == F.popcount(true_then[F.HANDS + q] & F.JESTER_BITS)
                for r in range(players):
                    if r != q:
                        assert F.popcount(obs.positions[i][F.HANDS + r]) \
                            == F.popcount(true_then[F.HANDS + r])
                st = obs.positions[i].copy()
                st[F.HANDS + q] = then
                assert any(R.alike(int(obs.actions[i]), a) for a in F.legal_list(st))
                kept += 1
    assert kept > 100 and left_out > 10


def test_alike_tells_plays_apart_but_for_the_jesters_identity():
    j52, j53 = F.A_PLAY | 1 << 52, F.A_PLAY | 1 << 53
    assert R.alike(j52, j53) and R.alike(j53, j53)
    assert not R.alike(j52, F.A_PLAY | 1 << 52 | 1 << 53)
    assert not R.alike(j52, F.A_DISCARD | 1 << 53)
    assert not R.alike(F.A_DISCARD | 1 << 53 | 1, F.A_DISCARD | 1 << 52 | 2)
    assert R.alike(F.A_DISCARD | 1 << 53 | 1, F.A_DISCARD | 1 << 52 | 1)
    assert not R.alike(F.A_PLAY | 1, F.A_PLAY | 2)


def test_no_partner_decisions_in_solo():
    _, views, _ = _game(1, 5)
    k = Knowledge.from_view(views[-1])
    assert len(R.observations(k)) == 0
    rng = random.Random(2)
    plain = k.sample_arrays(rng, 8)
    assert (MonteCarloBot()._sampler(k, random.Random(2), False)(8) == plain).all()


def _softmax_log_likelihood(st, action, w, tau, eps):
    acts = np.empty(F.MAX_ACTIONS, np.int64)
    scores = np.empty(F.MAX_ACTIONS)
    n = P.scored_actions(st, w, acts, scores)
    e = [math.exp((scores[j] - scores[:n].max()) / tau) for j in range(n)]
    mine = sum(x for j, x in enumerate(e) if R.alike(acts[j], action))
    return math.log((1 - eps) * mine / sum(e) + eps / n)


def test_log_likelihood_is_the_softmax_of_the_policy_mixed_with_a_uniform_choice():
    """Each decision counts ``log((1 - eps) softmax(score / tau) + eps / n)``, summed over
    the decisions; a hand that could not have made the decision counts ``log(eps / n)``."""
    states, views, _ = _game(4, 7)
    view = next(v for v in views[::-1]
                if len(R.observations(Knowledge.from_view(v))) >= 3)
    k = Knowledge.from_view(view)
    obs = R.observations(k)
    worlds = k.sample_arrays(random.Random(1), 5)
    w = P.weights_for(4)
    out = np.empty(5)
    R.log_likelihoods(worlds, obs.positions, obs.seats, obs.actions, obs.since, w, 3.0, 0.2,
                      out)
    for i in range(5):
        want = 0.0
        for j in range(len(obs)):
            st = obs.positions[j].copy()
            q = obs.seats[j]
            st[F.HANDS + q] = worlds[i, F.HANDS + q] | obs.since[j]
            want += _softmax_log_likelihood(st, obs.actions[j], w, 3.0, 0.2)
        assert out[i] == pytest.approx(want)
    # A partner who played a card it does not hold: only the uniform part is left.
    j = 0
    bogus = obs.positions[j:j + 1].copy()
    one = np.zeros(1)
    R.log_likelihoods(worlds[:1], bogus, obs.seats[j:j + 1], np.array([F.A_PLAY | 1 << 60]),
                      obs.since[j:j + 1], w, 3.0, 0.2, one)
    st = bogus[0].copy()
    st[F.HANDS + obs.seats[j]] = worlds[0, F.HANDS + obs.seats[j]] | obs.since[j]
    assert one[0] == pytest.approx(math.log(0.2 / len(F.legal_list(st))))


def test_resampled_positions_explain_the_partners_decisions_better():
    """With ``partner_tau`` the bot's positions come from a four-times larger pool in
    proportion to the likelihood of the partners' decisions: on average they explain those
    decisions better than plain samples of the same knowledge."""
    _, views, _ = _game(4, 11)
    w = P.weights_for(4)
    gain = []
    for view in views[4::3]:
        k = Knowledge.from_view(view)
        obs = R.observations(k)
        if not len(obs):
            continue
        rng = random.Random(3)
        plain = k.sample_arrays(rng, 64, wishes=True)
        bot = MonteCarloBot(partner_tau=PARTNER_TAU)
        weighted = bot._sampler(k, random.Random(3), True)(64)
        default = MonteCarloBot()._sampler(k, random.Random(3), True)(64)
        assert (default == weighted).all()  # PARTNER_TAU by default with partners
        ll = {}
        for name, worlds in (("plain", plain), ("weighted", weighted)):
            out = np.empty(len(worlds))
            R.log_likelihoods(worlds, obs.positions, obs.seats, obs.actions, obs.since, w,
                              3.0, 0.2, out)
            ll[name] = out.mean()
        gain.append(ll["weighted"] - ll["plain"])
    assert len(gain) >= 5
    assert np.mean(gain) > 0.3 and sum(g > 0 for g in gain) >= 0.8 * len(gain)
