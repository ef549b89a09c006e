"""The rule test scenarios L-01 to L-31 of rules/ribauds.md section 4.2.

Slots are 0-based here (C1 is slot 0). "A" is seat 0 and "B" seat 1 unless said otherwise.
"""

from __future__ import annotations

import random

import pytest

from regalia.core.errors import IllegalAction
from regalia.games.ribauds import RIBAUDS as G
from regalia.games.ribauds import resolve_reine_check
from regalia.games.ribauds.cards import ASSASSIN as A_
from regalia.games.ribauds.cards import KING as K_
from regalia.games.ribauds.cards import KNIGHT as N_
from regalia.games.ribauds.cards import QUEEN as Q_
from regalia.games.ribauds.cards import parse_card
from regalia.games.ribauds.inferred import full_deck
from regalia.games.ribauds.rules import coronation, murder

from .helpers import card_totals, court_text, events_of, hand, ms, play, state

LET = {"K": K_, "Q": Q_, "N": N_, "A": A_}


def cards(letters: str) -> list[int]:
    return [parse_card(x) for x in letters]


def court_of(text: str) -> tuple[list[int], int]:
    """``"K+ N- K+ K+"`` -> (card ids, face-up mask)."""
    slots = text.split()
    return [LET[x[0]] for x in slots], sum(1 << i for i, x in enumerate(slots) if x[1] == "+")


def seeded_pick(make, actions, wanted: str, seeds=range(300)):
    """Play ``actions`` from ``make()`` with the first seed whose Reine inspection sees
    exactly the multiset ``wanted``; returns ``(state, events)``."""
    for seed in seeds:
        s, evs = play(make(), *actions, rng=random.Random(seed))
        inspect = events_of(evs, "inspect")
        if inspect and ms("".join(inspect[0].private[0]["cards"])) == ms(wanted):
            return s, evs
    raise AssertionError(f"no seed gives the pick {wanted}")


# --------------------------------------------------------------------------- setup


def test_L01_setup_counts():
    for seed in range(300):
        s = G.new_game({"players": 2}, random.Random(seed))
        assert court_text(s) == [x[0] + "-" for x in court_text(s)]  # all face down
        assert [sum(h) for h in s.hands] == [3, 3]
        assert len(s.deck) == 6 and s.discard == []
        assert card_totals(s) == [4, 4, 4, 4]
        # the Reine check left no case to apply (rules 2.2 step 4)
        q = [h[Q_] for h in s.hands]
        assert 3 not in q and q != [2, 2] and 2 not in q
        assert s.phase == "act" and s.winner is None
        # nobody knows a Court card yet; nobody has seen the other's hand
        assert s.know == [[-1] * 4, [-1] * 4] and s.seen == [[0] * 4, [0] * 4]


def test_L02_single_redeal():
    deal = resolve_reine_check([cards("QQK"), cards("NAK")], cards("KNAQNA"), random.Random(0))
    assert ms("".join("KQNA"[c] for c in deal.hands[0])) == ms("KKN")
    assert ms("".join("KQNA"[c] for c in deal.hands[1])) == ms("NAK")
    assert deal.undealt == cards("AQNAQQ")
    assert deal.redeals == [{"case": "single", "seat": 0}]
    assert deal.bottom_reines == 2  # public: the bottom 2 are Reines (3.L17)


def test_L02_single_redeal_in_a_new_game_is_public():
    for seed in range(3000):
        s = G.new_game({}, random.Random(seed))
        if s.redeals and s.redeals[-1]["case"] == "single" and len(s.redeals) == 1:
            break
    else:
        pytest.fail("no seed with a single re-deal")
    seat = s.redeals[0]["seat"]
    assert [c for c in s.deck[:2]] == [Q_, Q_]  # bottom of the draw pile (top is last)
    for viewer in (0, 1, None):
        v = G.view(s, viewer)
        assert v["redeals"] == [{"case": "single", "seat": seat}]
        assert v["deck_bottom_reines"] == 2
        assert any(e["kind"] == "redeal" and e["seat"] == seat for e in v["log"])


def test_L03_cancel_three_reines():
    hands = [cards("QQQ"), cards("KNA")]
    undealt = cards("KNAQKN")
    deal = resolve_reine_check(hands, undealt, random.Random(3))
    assert deal.redeals[0] == {"case": "cancel"}
    assert hands == [cards("QQQ"), cards("KNA")]  # inputs untouched
    # the 12 cards are only redistributed; 3 each; no case applies any more
    pool = sorted(deal.hands[0] + deal.hands[1] + deal.undealt)
    assert pool == sorted(hands[0] + hands[1] + undealt)
    assert [len(h) for h in deal.hands] == [3, 3] and len(deal.undealt) == 6
    q = [h.count(Q_) for h in deal.hands]
    assert 3 not in q and 2 not in q


def test_L03_cancel_leaves_the_court_untouched():
    for seed in range(3000):
        s = G.new_game({}, random.Random(seed))
        if any(r["case"] == "cancel" for r in s.redeals):
            break
    else:
        pytest.fail("no seed with a cancelled deal")
    rng = random.Random(seed)
    deck = full_deck()
    rng.shuffle(deck)
    assert s.court == deck[:4]
    assert card_totals(s) == [4, 4, 4, 4] and len(s.deck) == 6


def test_L04_cancel_two_reines_each():
    hands = [cards("QQN"), cards("QQA")]
    undealt = cards("KNAKNA")
    deal = resolve_reine_check(hands, undealt, random.Random(5))
    assert deal.redeals[0] == {"case": "cancel"}
    assert sorted(deal.hands[0] + deal.hands[1] + deal.undealt) == sorted(
        hands[0] + hands[1] + undealt)
    q = [h.count(Q_) for h in deal.hands]
    assert 3 not in q and 2 not in q


def test_L05_repeated_single_redeal():
    deal = resolve_reine_check([cards("QQK"), cards("NAK")], cards("QQNAKA"), random.Random(0))
    assert ms("".join("KQNA"[c] for c in deal.hands[0])) == ms("KNA")
    assert deal.undealt == cards("KAQQQQ")
    assert deal.redeals == [{"case": "single", "seat": 0}, {"case": "single", "seat": 0}]
    assert deal.bottom_reines == 4


# --------------------------------------------------------------------------- Marriage


def test_L06_marriage_at_turn_start():
    # B's turn; A already holds 3 Reines: when A's turn begins, A wins before acting.
    s = state("K- N- A- K-", ("QQQ", "KNA"), deck="QKN", current=1)
    assert s.phase == "act" and s.current == 1
    s2, evs = play(s, "replace 0 N down")
    assert s2.phase == "won" and s2.winner == 0 and s2.conspiracy == "marriage"
    assert G.legal_actions(s2) == [] and G.is_terminal(s2)
    assert G.returns(s2) == [1.0, 0.0]
    assert G.outcome(s2) == {"winner": 0, "conspiracy": "marriage"}
    assert events_of(evs, "win")[0].seat == 0


def test_L06_marriage_read_from_a_turn_start_position():
    # A position in phase act is the start of a turn: the Marriage applies at once.
    s = state("K- N- A- K-", ("QQQ", "KNA"), deck="QKN", current=0)
    assert s.phase == "won" and s.winner == 0 and s.conspiracy == "marriage"


def test_L07_marriage_not_checked_mid_turn():
    s = state("K- Q+ N- A-", ("QQN", "QKA"), deck="KNA")
    s, _ = play(s, "replace 1 N down")
    assert hand(s, 0) == ms("QQQ")
    assert s.phase == "act" and s.current == 1 and s.winner is None  # no win now
    s, evs = play(s, "replace 2 Q up")  # B's Reine: any 2 of A's cards are Reines
    (inspect,) = events_of(evs, "inspect")
    assert inspect.data["discarded"] == ["Q", "Q"]
    assert hand(s, 0) == ms("QKN")  # A drew K and N
    assert s.current == 0 and s.phase == "act" and s.winner is None  # 1 Reine: no Marriage
    assert s.discard[-2:] == [Q_, Q_]


# --------------------------------------------------------------------------- Reveal


def _l08():
    s = state("A- K- Q- N+", ("KNA", "QKA"), deck="NQ")
    return play(s, "reveal 0")


def test_L08_reveal_an_assassin():
    s, evs = _l08()
    assert court_text(s) == ["A+", "K-", "Q-", "N+"]
    assert s.winner is None and s.phase == "assassin"
    assert G.all_legal_texts(s) == ["peek 1 2"]  # both face-down slots
    s, evs = play(s, "peek 1 2")
    va, vb = G.view(s, 0), G.view(s, 1)
    assert [c["card"] for c in va["court"]] == ["A", "K", "Q", "N"]
    assert [c["card"] for c in vb["court"]] == ["A", None, None, "N"]
    assert [c["known_by"] for c in vb["court"]][1:3] == [[True, False], [True, False]]
    peek_b = [e for e in vb["log"] if e["kind"] == "peek"][-1]
    assert peek_b["slots"] == [1, 2] and "cards" not in peek_b
    peek_a = [e for e in va["log"] if e["kind"] == "peek"][-1]
    assert peek_a["cards"] == ["K", "Q"]
    assert s.current == 1 and s.phase == "act"


def test_L09_reveal_needs_a_face_down_card():
    s, _ = _l08()
    s, _ = play(s, "peek 1 2")  # the Court is now [+A, -K, -Q, +N]; B to act
    legal = G.all_legal_texts(s)
    assert "reveal 0" not in legal and "reveal 3" not in legal
    assert "reveal 1" in legal and "reveal 2" in legal
    for slot in (0, 3):
        before = s.copy()
        refused = rf"reveal {slot} is refused: slot {slot} is face up.*2\.3"
        with pytest.raises(IllegalAction, match=refused):
            G.apply(s, G.action_from_text(s, f"reveal {slot}"), random.Random(0))
        assert s == before


def test_L10_reveal_unavailable():
    s = state("K+ N+ Q+ A+", ("KNA", "QQA"), deck="NK")
    legal = G.all_legal_texts(s)
    assert legal and all(t.startswith("replace ") for t in legal)
    assert len(legal) == 4 * 3 * 2  # 4 slots x 3 card types held x up/down


# --------------------------------------------------------------------------- Replace


def test_L11_replace_face_down_swaps():
    s = state("K- Q- N- A-", ("KNA", "QKN"), deck="AQ", discard="A")
    s2, evs = play(s, "replace 1 A down")
    assert court_text(s2)[1] == "A-"
    assert hand(s2, 0) == ms("KNQ")
    assert s2.deck == s.deck and s2.discard == s.discard
    assert s2.phase == "act" and s2.current == 1  # no effect
    vb = G.view(s2, 1)
    assert vb["court"][1] == {"card": None, "face_up": False, "known": False,
                              "known_by": [True, False]}
    assert vb["opponent_hand_known"] == []  # B does not know the Reine A took
    assert G.view(s2, 0)["court"][1]["card"] == "A"  # the placer knows its card
    ev = [e for e in vb["log"] if e["kind"] == "replace"][-1]
    assert ev["card"] is None and ev["taken"] is None


def test_L12_replace_a_face_up_card():
    s = state("K+ Q- N- A-", ("KNA", "QKN"), deck="AQ")
    s, _ = play(s, "replace 0 N down")
    assert hand(s, 0) == ms("KKA")
    assert G.view(s, 1)["opponent_hand_known"] == ["K"]  # B saw that Roi
    assert G.view(s, 0)["hand_known_by_opponent"] == ["K"]


# --------------------------------------------------------------------------- Roi


def test_L13_roi_face_up_then_draw():
    s = state("N- A- Q- K-", ("KNA", "QAN"), deck="ANKQ", discard="")
    s, _ = play(s, "replace 2 K up")
    assert hand(s, 0) == ms("NAQ")
    assert s.phase == "king" and s.winner is None
    assert set(G.all_legal_texts(s)) == {"reveal 0", "reveal 1", "reveal 3", "draw"}
    s, evs = play(s, "draw")
    assert hand(s, 0) == ms("NAQAN") and s.phase == "king_discard"
    assert len(s.deck) == 2
    assert events_of(evs, "draw")[0].data["count"] == 2
    s, _ = play(s, "discard N A")
    assert hand(s, 0) == ms("AQN")
    assert G.to_json(s)["discard"] == ["A", "N"]  # top first
    assert len(s.deck) == 2 and s.current == 1 and s.phase == "act"


def test_L14_roi_reveal_gives_the_coronation():
    s = state("K+ K- N- A-", ("KNQ", "QAN"), deck="AQ")
    s, _ = play(s, "replace 3 K up")
    assert s.phase == "king" and s.winner is None  # 2 face-up Rois
    s, evs = play(s, "reveal 1")
    assert s.phase == "won" and s.winner == 0 and s.conspiracy == "coronation"
    assert court_text(s) == ["K+", "K+", "N-", "K+"]
    assert events_of(evs, "king_reveal") and events_of(evs, "win")


def test_L15_roi_reveal_without_trigger():
    s = state("A+ N- Q- K-", ("KNQ", "QAA"), deck="AK")
    s, _ = play(s, "replace 3 K up")
    assert hand(s, 0) == ms("KNQ")  # the old Roi came into the hand
    s, evs = play(s, "reveal 1")
    assert court_text(s) == ["A+", "N+", "Q-", "K+"]
    assert s.phase == "act" and s.current == 1  # no Knight effect; turn over
    assert not events_of(evs, "swap")


def test_L16_roi_reveal_unavailable():
    s = state("A+ N+ Q+ N+", ("KKQ", "QAA"), deck="AKQ")
    s, _ = play(s, "replace 3 K up")
    assert court_text(s) == ["A+", "N+", "Q+", "K+"]
    assert G.all_legal_texts(s) == ["draw"]
    s, _ = play(s, "draw")
    assert s.phase == "king_discard" and sum(s.hands[0]) == 5


# --------------------------------------------------------------------------- Chevalier


def test_L17_knight_swap_keeps_orientation_flip_does_not_trigger():
    s = state("K- A+ Q- N-", ("NKQ", "AAK"), deck="KN")
    s, _ = play(s, "replace 3 N up")
    assert court_text(s) == ["K-", "A+", "Q-", "N+"] and s.phase == "knight_swap"
    s, _ = play(s, "swap 0 1")
    assert court_text(s) == ["A+", "K-", "Q-", "N+"] and s.phase == "knight_flip"
    s, evs = play(s, "flip 2")
    assert court_text(s) == ["A+", "K-", "Q+", "N+"]
    assert not events_of(evs, "inspect")  # no Reine effect
    assert hand(s, 1) == ms("AAK")
    assert s.winner is None and s.current == 1 and s.phase == "act"


def test_L18_knight_creates_the_murder_mid_effect():
    s = state("A+ K+ Q- A+", ("NKQ", "QKN"), deck="KN")
    s, _ = play(s, "replace 2 N up")
    assert court_text(s) == ["A+", "K+", "N+", "A+"] and s.winner is None
    s, evs = play(s, "swap 2 3")
    assert court_text(s) == ["A+", "K+", "A+", "N+"]
    assert s.phase == "won" and s.winner == 0 and s.conspiracy == "murder"
    with pytest.raises(IllegalAction, match="game is over"):
        play(s, "flip 0")  # the flip is not performed


# --------------------------------------------------------------------------- Murder, Coronation


def test_L19_murder_needs_a_face_up_middle():
    court, up = court_of("A+ Q- A+ K-")
    assert not murder(court, up)
    s = state("A+ Q- A+ K-", ("NKN", "NKQ"), deck="AQK")
    s, evs = play(s, "reveal 1")
    assert s.phase == "won" and s.winner == 0 and s.conspiracy == "murder"
    assert not events_of(evs, "inspect") and hand(s, 1) == ms("NKQ")  # no Reine effect


def test_L20_murder_with_three_assassins():
    s = state("A+ A+ A- K-", ("NKQ", "NKQ"), deck="QN")
    s, _ = play(s, "reveal 2")
    assert s.phase == "won" and s.winner == 0 and s.conspiracy == "murder"


def test_L21_murder_needs_adjacency():
    court, up = court_of("A+ K+ Q+ A+")
    assert not murder(court, up) and not coronation(court, up)
    for current in (0, 1):
        s = state("A+ K+ Q+ A+", ("NKQ", "NKQ"), deck="QN", current=current)
        assert s.winner is None and G.legal_actions(s)


def test_L22_coronation_by_placement():
    s = state("K+ K+ N- A-", ("KQN", "QAN"), deck="AQ")
    s, evs = play(s, "replace 2 K up")
    assert s.phase == "won" and s.winner == 0 and s.conspiracy == "coronation"
    assert G.legal_actions(s) == []  # won before the Roi's effect (no phase king)


def test_L23_condition_created_on_the_opponents_turn():
    s = state("K+ K+ K- N-", ("QNA", "QAN"), deck="AQ", current=1)
    s, _ = play(s, "reveal 2")
    assert s.phase == "won" and s.winner == 1 and s.conspiracy == "coronation"
    assert G.returns(s) == [0.0, 1.0]


def test_L24_coronation_predicate():
    assert coronation(*court_of("K+ K+ K+ K+"))
    assert coronation(*court_of("K+ N- K+ K+"))
    assert not coronation(*court_of("K+ K+ K- N+"))
    assert not coronation(*court_of("K+ K+ A+ Q+"))


# --------------------------------------------------------------------------- Reine


def test_L25_reine_finds_one_reine():
    def make():
        return state("N- A- K- Q-", ("QNA", "QKA"), deck="NKA")
    s, evs = seeded_pick(make, ["replace 0 Q up"], "QK")
    assert hand(s, 0) == ms("NAN")  # the old C1 card (N) came to A's hand
    assert hand(s, 1) == ms("KAN")  # the Reine discarded, B drew the Chevalier
    assert G.to_json(s)["discard"] == ["Q"]
    (inspect,) = events_of(evs, "inspect")
    assert inspect.data["discarded"] == ["Q"]
    vb = G.view(s, 1)
    assert vb["hand_known_by_opponent"] == ["K"]  # B knows A saw the Roi
    assert [e for e in vb["log"] if e["kind"] == "inspect"][-1]["cards"] == ["K", "Q"]
    assert G.view(s, 0)["opponent_hand_known"] == ["K"]
    assert [e for e in G.view(s, 0)["log"] if e["kind"] == "draw"][-1].get("cards") is None


def test_L26_reine_finds_two():
    def make():
        return state("N- A- K- Q-", ("QNK", "QQA"), deck="NKA")
    s, evs = seeded_pick(make, ["replace 0 Q up"], "QQ")
    assert sum(s.hands[1]) == 3 and s.hands[1][Q_] == 0
    assert hand(s, 1) == ms("AKN")  # drew the top 2: N then K
    assert G.to_json(s)["discard"] == ["Q", "Q"]
    assert len(s.deck) == 1
    assert G.view(s, 0)["opponent_hand_known"] == []


def test_L27_reine_finds_none():
    def make():
        return state("N- A- K- Q-", ("QNA", "KNA"), deck="QKA")
    s, evs = seeded_pick(make, ["replace 0 Q up"], "KN")
    assert hand(s, 1) == ms("KNA") and s.discard == [] and len(s.deck) == 3
    assert events_of(evs, "inspect")[0].data["discarded"] == []
    assert G.view(s, 0)["opponent_hand_known"] == ["K", "N"]
    assert not events_of(evs, "draw")


# --------------------------------------------------------------------------- reshuffles


def test_L28_reshuffle_during_roi_draw():
    s = state("K+ N- A- Q-", ("KQA", "KQN"), deck="N", discard="QAKNA", phase="king")
    s, evs = play(s, "draw")
    assert sum(s.hands[0]) == 5 and s.hands[0][N_] >= 1
    assert len(s.deck) == 4 and s.discard == []
    assert events_of(evs, "reshuffle")[0].data["count"] == 5
    s, _ = play(s, G.all_legal_texts(s)[0])
    assert len(s.discard) == 2 and len(s.deck) == 4 and len(s.deck) + len(s.discard) == 6
    assert card_totals(s) == [4, 4, 4, 4]


def test_L29_reshuffle_during_reine_includes_the_discarded_reine():
    def make():
        return state("N- A- K- Q-", ("QQN", "QKA"), discard="KNANAK")
    for wanted in ("QK", "QA"):
        s, evs = seeded_pick(make, ["replace 0 Q up"], wanted)
        reshuffle = events_of(evs, "reshuffle")
        assert reshuffle and reshuffle[0].data["count"] == 7  # the Reine is included
        assert len(s.deck) == 6 and s.discard == []
        assert sum(s.hands[1]) == 3
        assert card_totals(s) == [4, 4, 4, 4]


def test_L30_knight_flip_may_hide_a_face_up_card():
    s = state("K+ K+ Q+ A-", ("NQA", "NNA"), deck="QA")
    s, _ = play(s, "replace 3 N up")
    assert court_text(s) == ["K+", "K+", "Q+", "N+"]
    s, _ = play(s, "swap 2 3")
    assert court_text(s) == ["K+", "K+", "N+", "Q+"]
    s, evs = play(s, "flip 0")
    assert court_text(s) == ["K-", "K+", "N+", "Q+"]
    assert s.winner is None and s.current == 1 and not events_of(evs, "inspect")
    for seat in (0, 1):  # both saw the Roi face up before the flip hid it (rules 2.7)
        assert G.view(s, seat)["court"][0] == {"card": "K", "face_up": False, "known": True,
                                              "known_by": [True, True]}
    assert G.view(s, None)["court"][0]["card"] is None  # a spectator sees only face-up cards


def test_L31_no_passing():
    s = state("K+ N+ Q+ A+", ("KNA", "QQA"), deck="NK")
    with pytest.raises(IllegalAction, match="unknown action 'pass'"):
        G.action_from_text(s, "pass")
    legal = G.all_legal_texts(s)
    assert legal and all(t.startswith("replace") for t in legal)
    # every action ends in a state where some seat still has to act or the game is won
    for a in G.legal_actions(s):
        t, _ = G.apply(s, a, random.Random(0))
        assert G.is_terminal(t) or G.legal_actions(t)


def test_reine_check_refuses_cards_with_which_it_cannot_settle():
    with pytest.raises(ValueError):
        resolve_reine_check([cards("QQK"), cards("NAK")], cards("Q"), random.Random(0))
    with pytest.raises(ValueError):
        resolve_reine_check([cards("QQQ"), cards("QKN")], [], random.Random(0))
