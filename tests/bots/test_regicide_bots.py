"""Regicide bots: legal choices only, decisions that depend on the view alone, and
determinization that samples hidden cards from what the seat knows (rules 1.15)."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from regalia.bots import bot_names, make_bot
from regalia.bots.regicide.belief import Knowledge, _conserved, determinize
from regalia.bots.regicide.ismcts import ISMCTSBot
from regalia.bots.regicide.wishes import wish_rule
from regalia.bots.regicide.montecarlo import POLICY_LEAN, MonteCarloBot, policy_candidates
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import mask_texts
from regalia.games.regicide.state import to_json
from regalia.fast import regicide as F
from regalia.bots.regicide import policy as P

BOTS = ("random", "simple", "heuristic", "montecarlo", "ismcts", "montecarlo-medal",
        "ismcts-medal", "montecarlo-choices")
SEARCH = ("montecarlo", "ismcts", "montecarlo-medal", "ismcts-medal", "montecarlo-choices")


def _bot(name: str):
    bot = make_bot("regicide", name)
    if isinstance(bot, (MonteCarloBot, ISMCTSBot)):
        bot.iterations = 6
    return bot


def _play(players: int, bots, seed: int, on_decision=None, max_steps: int = 400):
    """Play one game with ``bots`` by seat, the Jester-window wishes included."""
    rng = random.Random(seed)
    brng = [random.Random(seed * 7 + q) for q in range(players)]
    s = G.new_game({"players": players}, rng)
    for _ in range(max_steps):
        if G.is_terminal(s):
            break
        seat = s.current
        if s.phase == "choose":
            for q in range(players):
                if q != seat:
                    w = bots[q].wish(G.view(s, q), brng[q])
                    assert w in ("yes", "no", None)
                    if w and s.preferences[q] != w:
                        s, _ = G.apply(s, A.prefer(q, w == "yes"), rng)
        view = G.view(s, seat)
        legal = G.legal_actions(s)
        a = bots[seat].act(view, legal, brng[seat], 0.01)
        assert a in legal, (to_json(s), a)
        if on_decision:
            on_decision(s, seat, a)
        s, _ = G.apply(s, a, rng)
    return s


def test_bot_names_list_every_regicide_bot():
    assert set(BOTS) <= set(bot_names("regicide"))


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bots_only_choose_legal_actions(name, players):
    for seed in range(1 if name in SEARCH else 4):
        s = _play(players, [_bot(name) for _ in range(players)], 1000 * players + seed)
        assert G.is_terminal(s) or name in SEARCH


def _hidden_swap(s, seat: int, rng: random.Random):
    """A copy of ``s`` in which cards hidden from ``seat`` moved: the unknown part of the
    Tavern is shuffled and one partner card trades places with a Tavern card."""
    t = s.copy()
    known = t.known_top
    body = t.tavern[:len(t.tavern) - known]
    rng.shuffle(body)
    t.tavern[:len(body)] = body
    partners = [q for q in range(t.players) if q != seat and t.hands[q]]
    if partners and body:
        q = partners[0]
        card = min(c for c in range(54) if t.hands[q] >> c & 1)
        other = t.tavern[0]
        if (card >= 52) == (other >= 52):
            t.hands[q] = t.hands[q] & ~(1 << card) | (1 << other)
            t.tavern[0] = card
    return t


def _positions(players: int, seed: int, count: int):
    """Positions of a heuristic game (every few decisions)."""
    out = []
    bots = [make_bot("regicide", "heuristic") for _ in range(players)]

    def keep(s, seat, a):
        if len(out) < count and not G.is_terminal(s) and s.phase != "choose":
            out.append(s)

    _play(players, bots, seed, keep)
    return out[::3]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_decisions_depend_only_on_the_view(players):
    rng = random.Random(players)
    positions = _positions(players, 50 + players, 30)
    assert positions
    for s in positions:
        seat = s.current
        t = _hidden_swap(s, seat, rng)
        assert to_json(t) != to_json(s) or players == 1 and not s.tavern
        v1, v2 = G.view(s, seat), G.view(t, seat)
        assert v1 == v2, "the swap must stay hidden from the seat"
        legal = G.legal_actions(s)
        for name in ("heuristic", "montecarlo", "ismcts", "simple", "random",
                     "montecarlo-choices"):
            a1 = _bot(name).act(v1, legal, random.Random(11), 0.01)
            a2 = _bot(name).act(v2, G.legal_actions(t), random.Random(11), 0.01)
            assert a1 == a2, name
        # Resampled by the partners' decisions (their likelihood reads the view's log only).
        a1, a2 = (MonteCarloBot(iterations=6, partner_tau=3.0, policy_lean=0.05).act(
            v, G.legal_actions(x), random.Random(11)) for v, x in ((v1, s), (v2, t)))
        assert a1 == a2
        d1 = determinize(v1, random.Random(5))
        d2 = determinize(v2, random.Random(5))
        assert to_json(d1) == to_json(d2)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_determinization_agrees_with_the_view(players):
    """Every sample is a full position whose view, for the seat, is the seat's view."""
    positions = _positions(players, 70 + players, 45)
    rng = random.Random(3)
    for s in positions:
        for seat in range(players):
            v = G.view(s, seat)
            k = Knowledge.from_view(v)
            assert k.consistent, k.problem
            for _ in range(3):
                d = k.sample(rng)
                assert _conserved(d)
                dv = G.view(d, seat)
                assert {x: y for x, y in dv.items() if x != "log"} == \
                       {x: y for x, y in v.items() if x != "log"}
                assert mask_texts(d.hands[seat]) == mask_texts(s.hands[seat])  # X ids may differ
            for arr in k.sample_arrays(rng, 3):  # the compiled draw, read back
                d = F.decode(arr)
                d.log = s.log
                assert _conserved(d)
                dv = G.view(d, seat)
                assert {x: y for x, y in dv.items() if x != "log"} == \
                       {x: y for x, y in v.items() if x != "log"}
            assert k.simple_samples == 0


def test_determinization_varies_the_hidden_cards():
    s = G.new_game({"players": 2}, random.Random(4))
    v = G.view(s, 0)
    samples = {tuple(determinize(v, random.Random(i)).tavern) for i in range(20)}
    assert len(samples) == 20
    for i in range(20):
        d = determinize(v, random.Random(i))
        assert d.hands[0] == s.hands[0]
        assert d.hands[1].bit_count() == 7
        assert sorted(d.castle[-3:]) == sorted(c for c in s.castle if c >= 40 and c < 44)


def test_solo_heal_segments_stay_at_the_bottom_of_the_tavern():
    """After a Hearts heal the healed cards lie under the cards never seen (rules 1.6)."""
    rng = random.Random(21)
    bots = [make_bot("regicide", "heuristic")]
    checked = 0
    for seed in range(40):
        found = []

        def keep(s, seat, a):
            if s.discard and len(s.tavern) > 5 and any(
                    e.kind == "heal" for e in __import__("regalia.core.game",
                                                         fromlist=["log_events"]).log_events(s.log)):
                found.append(s)

        _play(1, bots, seed, keep)
        for s in found[:2]:
            v = G.view(s, 0)
            k = Knowledge.from_view(v)
            assert k.consistent
            segs = [x for kind, x in k.tavern if kind == "s"]
            assert segs == sorted(segs, reverse=True)
            d = k.sample(rng)
            seen = k.seen
            for (kind, x), c in zip(k.tavern, d.tavern):
                if kind == "s" and x == 0:
                    assert c not in seen
                elif kind == "s":
                    assert c in seen
            checked += 1
        if checked >= 6:
            break
    assert checked >= 3


def test_wish_rule_matches_the_compiled_rule():
    for players in (3, 4):
        for s in _positions(players, 90 + players, 40):
            st = F.encode(s)
            v = G.view(s, s.current)
            for q in range(players):
                expect = "yes" if P.wish_yes(st, q) == 1 else "no"
                assert wish_rule(s.hands[q], v) == expect


@pytest.mark.parametrize("cls", [MonteCarloBot, ISMCTSBot])
def test_search_bots_respect_a_time_budget(cls):
    s = G.new_game({"players": 1}, random.Random(2))
    bot = cls(budget=0.05)
    v = G.view(s, 0)
    bot.act(v, G.legal_actions(s), random.Random(1))  # load the compiled code
    import time

    t = time.perf_counter()
    a = bot.act(v, G.legal_actions(s), random.Random(1))
    assert time.perf_counter() - t < 0.5
    done = bot.last_worlds if cls is MonteCarloBot else bot.last_iterations
    assert a in G.legal_actions(s) and done >= 1


@pytest.mark.parametrize("cls", [MonteCarloBot, ISMCTSBot])
def test_search_bots_with_iterations_are_deterministic(cls):
    s = G.new_game({"players": 2}, random.Random(6))
    v = G.view(s, s.current)
    legal = G.legal_actions(s)
    a = cls(iterations=16).act(v, legal, random.Random(3))
    b = cls(iterations=16).act(v, legal, random.Random(3))
    assert a == b


def test_pruning_drops_only_candidates_behind_by_more_than_prune_sigma_errors():
    """``MonteCarloBot._prune``: a candidate whose paired difference to the leader exceeds
    ``sigma`` standard errors is dropped; one within them stays, as does the leader."""
    n = 100
    sums = np.array([60.0, 50.0, 57.0])  # means 0.60, 0.50, 0.57
    # paired differences to the leader: mean 0.10 and 0.03, both with standard deviation 0.1
    sq = np.zeros((3, 3))
    sq[0, 1] = sq[1, 0] = n * (0.1**2 + 0.10**2)
    sq[0, 2] = sq[2, 0] = n * (0.1**2 + 0.03**2)
    for sigma, expect in ((3.0, [True, False, True]), (2.0, [True, False, False]),
                          (11.0, [True, True, True])):
        alive = np.ones(3, bool)
        MonteCarloBot._prune(sums, sq, alive, n, sigma)
        assert alive.tolist() == expect, sigma


def test_policy_lean_keeps_the_policys_first_candidate_unless_another_is_better_by_more(
        monkeypatch):
    """``policy_lean``: after the pruning, the policy's first candidate wins unless another's
    mean rollout value is higher by more than the lean."""

    def fixed(worlds, actions, n, seeds, w, out, medal=0.0):
        out[:, :n] = 0.5
        # The policy's second candidate looks 0.03 better, too noisy to prune the first.
        out[:, 1] = 0.53 + 0.4 * (-1) ** np.arange(len(out))

    monkeypatch.setattr(P, "evaluate_actions", fixed)
    s = next(s for s in _positions(4, 3, 60) if len(G.legal_actions(s)) > 2)
    view, legal = G.view(s, s.current), G.legal_actions(s)
    picks = {lean: MonteCarloBot(iterations=32, policy_lean=lean).act(view, legal,
                                                                       random.Random(1))
             for lean in (0.0, 0.02, 0.05)}
    first = picks[0.05]
    assert picks[0.0] == picks[0.02] != first
    assert first == int(policy_candidates(F.encode(s), legal, P.weights_for(4), 10)[0])
    # By default the lean is POLICY_LEAN with partners, none in solo.
    assert POLICY_LEAN > 0.03
    assert MonteCarloBot(iterations=32).act(view, legal, random.Random(1)) == first
    solo = next(s for s in _positions(1, 3, 60) if len(G.legal_actions(s)) > 2)
    view, legal = G.view(solo, 0), G.legal_actions(solo)
    plain = MonteCarloBot(iterations=32, policy_lean=0.0).act(view, legal, random.Random(1))
    assert MonteCarloBot(iterations=32).act(view, legal, random.Random(1)) == plain


def test_sampling_stops_once_one_candidate_is_left(monkeypatch):
    """With a fixed number of positions, no rollout is spent once pruning has left one
    candidate: every batch evaluates two or more, and settled decisions sample fewer
    positions than ``iterations``."""
    calls = []
    evaluate = P.evaluate_actions

    def spy(worlds, actions, n, seeds, w, out, medal=0.0):
        calls.append(n)
        evaluate(worlds, actions, n, seeds, w, out, medal)

    monkeypatch.setattr(P, "evaluate_actions", spy)
    bot = MonteCarloBot(iterations=256)
    done = []
    for i, s in enumerate(_positions(4, 3, 60)):
        legal = G.legal_actions(s)
        before = len(calls)
        assert bot.act(G.view(s, s.current), legal, random.Random(i)) in legal
        if len(calls) > before:
            done.append(bot.last_worlds)
    assert calls and min(calls) >= 2
    assert max(done) == 256 and min(done) < 256


def test_a_choice_is_decided_once_the_lean_leader_is_ahead_of_every_other_by_sigma_errors():
    """``MonteCarloBot._decided``: the candidate chosen with the lean counted must lead each
    other alive candidate by more than ``sigma`` standard errors of their paired
    difference."""
    n = 100
    sums = np.array([50.0, 52.0, 40.0])  # means 0.50, 0.52, 0.40; candidate 0 gets the lean
    sq = np.zeros((3, 3))
    sq[0, 1] = sq[1, 0] = n * (0.05**2 + 0.02**2)  # paired difference: sd 0.05, se 0.005
    sq[0, 2] = sq[2, 0] = n * (0.1**2 + 0.10**2)
    sq[1, 2] = sq[2, 1] = n * (0.1**2 + 0.12**2)
    alive = np.ones(3, bool)
    # Lean 0.05: 0.55 against 0.52 is 6 standard errors, against 0.40 is 15.
    assert MonteCarloBot._decided(sums, sq, alive, n, 2.0, 0.05)
    assert not MonteCarloBot._decided(sums, sq, alive, n, 7.0, 0.05)
    # Lean 0.03: 0.53 against 0.52 is 2 standard errors, not more.
    assert not MonteCarloBot._decided(sums, sq, alive, n, 2.0, 0.03)
    # No lean: candidate 1 leads 0 by 4 standard errors and 2 by 12.
    assert MonteCarloBot._decided(sums, sq, alive, n, 2.0, 0.0)
    assert not MonteCarloBot._decided(sums, sq, alive, n, 5.0, 0.0)
    # A pruned candidate does not count.
    assert MonteCarloBot._decided(sums, sq, np.array([True, False, True]), n, 7.0, 0.05)
    # With a time budget, a settled choice ends the search once half the budget is spent:
    # 0.50 and 0.51, a paired difference of 1 standard error (0.01) that the pruning keeps,
    # decided by the lean (0.55 against 0.51).
    sums, sq = np.array([50.0, 51.0]), np.zeros((2, 2))
    sq[0, 1] = sq[1, 0] = n * (0.1**2 + 0.01**2)
    bot, now = MonteCarloBot(budget=10.0, settle_at=0.5), time.perf_counter()
    for start, settle_at, over in ((now, 0.5, False), (now - 5.0, 0.5, True),
                                   (now - 5.0, None, False), (now - 5.0, 0.6, False)):
        alive = np.ones(2, bool)
        bot.settle_at = settle_at
        assert bot._settled(sums, sq, alive, n, start, 10.0, 4) is over
        assert alive.all()
    assert not bot._settled(sums, sq, np.ones(2, bool), n, now - 5.0, 10.0, 1)  # no lean
    # Not before min_worlds positions (8 here, a paired difference of sd 0.01, decided else).
    few_sums, few_sq = np.array([4.0, 4.08]), np.zeros((2, 2))
    few_sq[0, 1] = few_sq[1, 0] = 8 * (0.01**2 + 0.01**2)
    assert MonteCarloBot._decided(few_sums, few_sq, np.ones(2, bool), 8, 2.0, 0.05)
    bot.settle_at = 0.5
    assert not bot._settled(few_sums, few_sq, np.ones(2, bool), 8, now - 5.0, 10.0, 4)
    # A budget of 0 ends the search after one batch.
    for settle_at in (0.5, None):
        bot.settle_at = settle_at
        assert bot._settled(sums, sq, np.ones(2, bool), n, now, 0.0, 4)


def test_a_settled_search_stops_once_half_its_effort_is_spent():
    """``settle_at=0.5``: with partners, a decision stops between half of ``iterations``
    and ``iterations`` once the choice is settled, in some positions before
    ``iterations``; in solo (no lean) the pruning alone already stops a settled search, so
    the decisions and the positions sampled are those without it (the default)."""
    bot, plain = MonteCarloBot(iterations=256, settle_at=0.5), MonteCarloBot(iterations=256)
    fewer = 0
    for i, s in enumerate(_positions(4, 3, 60)):
        view, legal = G.view(s, s.current), G.legal_actions(s)
        assert bot.act(view, legal, random.Random(i)) in legal
        plain.act(view, legal, random.Random(i))
        # The same draws up to the stop: it stops at plain's count or earlier, not before 128.
        assert bot.last_worlds == plain.last_worlds or 128 <= bot.last_worlds < plain.last_worlds
        fewer += bot.last_worlds < plain.last_worlds
    assert fewer >= 3
    for i, s in enumerate(_positions(1, 3, 60)):
        view, legal = G.view(s, 0), G.legal_actions(s)
        assert bot.act(view, legal, random.Random(i)) == plain.act(view, legal, random.Random(i))
        assert bot.last_worlds == plain.last_worlds


def test_rollouts_use_the_bots_noise_and_the_policy_plays_out_with_it(monkeypatch):
    """The rollouts' weights carry the bot's ``rollout_noise`` (none by default), and a
    policy with noise plays other games than the deterministic one from the same deals."""
    seen = []
    evaluate = P.evaluate_actions

    def spy(worlds, actions, n, seeds, w, out, medal=0.0):
        seen.append(float(w[P.W_NOISE]))
        evaluate(worlds, actions, n, seeds, w, out, medal)

    monkeypatch.setattr(P, "evaluate_actions", spy)
    for bot, noise in ((MonteCarloBot(iterations=32), 0.0),
                       (MonteCarloBot(iterations=32, rollout_noise=2.0), 2.0)):
        seen.clear()
        for i, s in enumerate(_positions(4, 5, 20)):
            bot.act(G.view(s, s.current), G.legal_actions(s), random.Random(i))
        assert seen and set(seen) == {noise}
    w = P.weights_for(4)
    noisy = w.copy()
    noisy[P.W_NOISE] = 2.0
    differ = 0
    for seed in range(20):
        plain = P.policy_games(4, 1, F.new_rng(seed), w)
        jittered = P.policy_games(4, 1, F.new_rng(seed), noisy)
        differ += plain[1] != jittered[1]
    assert differ > 0


def test_heuristic_chooses_a_willing_partner_after_a_jester():
    s = G.new_game({"players": 3, "first_player": 0}, random.Random(1))
    s = s.copy()
    s.hands[0] |= 1 << 52
    s.tavern.remove(52) if 52 in s.tavern else None
    s, _ = G.apply(s, A.PLAY | 1 << 52, random.Random(0))
    s, _ = G.apply(s, A.prefer(2, True), random.Random(0))
    s, _ = G.apply(s, A.prefer(1, False), random.Random(0))
    a = make_bot("regicide", "heuristic").act(G.view(s, 0), G.legal_actions(s), random.Random(0))
    assert a in (A.CHOOSE | 2, A.CHOOSE | 0)
    assert a != A.CHOOSE | 1


def test_policy_scores_every_legal_action():
    s = G.new_game({"players": 1}, random.Random(12))
    st = F.encode(s)
    acts = np.empty(F.MAX_ACTIONS, np.int64)
    scores = np.empty(F.MAX_ACTIONS)
    n = P.scored_actions(st, P.weights_for(1), acts, scores)
    assert sorted(int(a) for a in acts[:n]) == sorted(G.legal_actions(s))
    assert np.all(np.isfinite(scores[:n]))


def _read_without_log(seed: int, most: int = 60):
    """A position of a heuristic game of ``1 + seed % 4`` players after 5 to ``most``
    actions, written to JSON and read back (so without its log); ``None`` once over."""
    rng = random.Random(seed)
    s = G.new_game({"players": 1 + seed % 4}, rng)
    bot = make_bot("regicide", "heuristic")
    for _ in range(rng.randrange(5, most)):
        if G.is_terminal(s):
            return None
        s, _ = G.apply(s, bot.act(G.view(s, s.current), G.legal_actions(s), rng), rng)
    return None if G.is_terminal(s) else G.from_json(G.to_json(s))


def test_determinization_without_a_log_places_every_card_once():
    """Positions read from JSON at every stage of 1-4 player games: the log's absence is
    noticed (cards on the table, defeated royals unaccounted for), and every sample, the
    reference draw's and the compiled one's, places each card once and agrees with the
    view, the table's look-alike Jesters included."""
    crude = 0
    # 1916: a solo position whose counts fit by chance (five defeated royals healed into
    # the Tavern, five numbered cards on the table), so only the cards say it.
    for seed in [*range(300), 1916]:
        s = _read_without_log(seed)
        if s is None:
            continue
        v = G.view(s, s.current)
        k = Knowledge.from_view(v)
        crude += not k.consistent
        for d in [k.sample(random.Random(1))] + [F.decode(a) for a in
                                                 k.sample_arrays(random.Random(2), 2)]:
            d.log = None
            assert _conserved(d), seed
            dv = G.view(d, s.current)
            assert all(dv[x] == v[x] for x in v if x not in ("log", "preferences")), seed
    assert crude > 100


def test_the_search_bots_play_a_position_without_a_log():
    """A position read from JSON has no log: the search bots still play a legal action."""
    rng = random.Random(5)
    done = 0
    for seed in range(24):
        s = _read_without_log(seed, 40)
        if s is None:
            continue
        for name in ("montecarlo", "ismcts"):
            assert _bot(name).act(G.view(s, s.current), G.legal_actions(s), rng) \
                in G.legal_actions(s)
        done += 1
    assert done >= 10


def _tree_nodes(node):
    yield node
    for child in node.children.values():
        yield from _tree_nodes(child)


@pytest.mark.parametrize("players", [1, 3])
def test_ismcts_grows_a_tree_of_the_seats_information_sets(players):
    """Every iteration passes through the root; deeper nodes are the seat's later
    decisions, reached through the seat's own actions; an action is available at least as
    often as it is visited (ISUCT)."""
    s = G.new_game({"players": players}, random.Random(40 + players))
    bot = ISMCTSBot(iterations=200)
    seat = s.current
    bot.act(G.view(s, seat), G.legal_actions(s), random.Random(2))
    root = bot.last_root
    assert sum(root.visits) == 200
    assert root.children, "the tree must grow below the root"
    nodes = list(_tree_nodes(root))
    assert len(nodes) > 1
    for node in nodes:
        for v, av in zip(node.visits, node.avail):
            assert av >= v
        for (a, _), child in node.children.items():
            assert a in node.actions and sum(child.visits) <= node.visits[node.actions.index(a)]


def test_medal_values_rank_gold_silver_bronze_above_any_loss():
    """1.14: a solo win with no Jester spent is Gold, one Silver, two Bronze."""
    s = G.new_game({"players": 1}, random.Random(1))
    st = F.encode(s)
    st[F.PHASE] = F.PH_WON
    won = []
    for left in (2, 1, 0):
        st[F.JESTERS] = left
        won.append(P.outcome_value(st, 0.03))
        assert P.outcome_value(st, 0.0) == 1.0
    assert won[0] > won[1] > won[2] > 0.9
    st[F.PHASE] = F.PH_LOST
    assert P.outcome_value(st, 0.03) < 0.9
