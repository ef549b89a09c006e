"""Every rule scenario R-01 .. R-54 of rules/regicide.md section 4.1, plus the Rule options.

Each test asserts what its scenario states; P1 is seat 0, P2 seat 1, etc. Piles in the
position JSON are top card first.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from regalia.core.errors import IllegalAction, InvalidPosition
from regalia.games.regicide import REGICIDE as G
from regalia.games.regicide import actions as A
from regalia.games.regicide import rules as R
from regalia.games.regicide.cards import mask_of, parse_card

from regicide_helpers import (
    ATTACK,
    HEALTH,
    act,
    canon,
    hand,
    is_legal,
    js,
    legal,
    ms,
    pos,
    refused,
    shield_of,
    state,
    total,
    value,
)

ALL_NUMBERS = [r + s for r in "A23456789T" for s in "CDHS"]


def filler(n, exclude=()):
    """``n`` number cards (2-10, no Aces) not in ``exclude``, for piles that only need a size."""
    ex = {canon(c) for c in exclude}
    cards = [r + s for r in "23456789T" for s in "CDHS" if r + s not in ex]
    assert len(cards) >= n
    return cards[:n]


def discards(s) -> set[frozenset]:
    """Legal Step 4 discards as sets of card texts."""
    out = set()
    for t in G.all_legal_texts(s):
        w = t.split()
        if w[0] == "discard":
            out.add(frozenset(canon(c) for c in w[1:]))
    return out


def subsets_at_least(cards, d):
    return {frozenset(c) for k in range(1, len(cards) + 1) for c in combinations(cards, k)
            if total(c) >= d}


def attack_to_absorb(p):
    """Step 4 attack D of a position, by rules 1.8 / 1.9."""
    return max(0, ATTACK[p["enemy"][0]] - shield_of(p))


# =========================================================================== setup (1.3)

@pytest.mark.parametrize("players,max_hand,tavern_after,jesters_in_deck",
                         [(1, 8, 32, 0), (2, 7, 26, 0), (3, 6, 23, 1), (4, 5, 22, 2)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_R01_setup_sizes(players, max_hand, tavern_after, jesters_in_deck, seed):
    s = G.new_game({"players": players}, random.Random(seed))
    p = js(s)
    assert p["players"] == players
    assert [len(h) for h in p["hands"]] == [max_hand] * players
    assert len(p["tavern"]) == tavern_after
    dealt = p["tavern"] + [c for h in p["hands"] for c in h]
    assert len(dealt) == 40 + jesters_in_deck  # Tavern before dealing
    assert Counter(dealt)["X"] == jesters_in_deck
    assert ms([c for c in dealt if c != "X"]) == ms(ALL_NUMBERS)  # 36 numbers + 4 Aces
    assert p["jesters"] == (2 if players == 1 else 0)  # solo: 2 set aside as refresh tokens
    assert p["discard"] == [] and p["table"] == []
    assert p["phase"] == "play" and p["damage"] == 0 and p["immunity_cancelled"] is False
    assert 0 <= p["current"] < players
    # Castle: 12 royals; the face-up top card (the enemy) is a Jack, then 11 face down:
    # 3 Jacks, 4 Queens, 4 Kings in that order from the top.
    assert p["enemy"][0] == "J"
    assert len(p["castle"]) == 11
    assert [c[0] for c in p["castle"]] == list("JJJQQQQKKKK")
    assert ms(p["castle"] + [p["enemy"]]) == ms([r + s for r in "JQK" for s in "CDHS"])


def test_R01_castle_suit_order_is_shuffled():
    seen = {tuple(js(G.new_game({"players": 2}, random.Random(seed)))["castle"])
            for seed in range(20)}
    assert len(seen) > 1


def _kill_current_enemy(s):
    """Bring the enemy to 1 below its health and finish it with any card (helper)."""
    p = js(s)
    assert p["phase"] == "play"
    p["damage"] = HEALTH[p["enemy"][0]] - 1
    seat = p["current"]
    if not p["hands"][seat]:
        source = p["tavern"] or p["discard"]
        p["hands"][seat].append(source.pop(0))
    s = G.from_json(p)
    return act(s, "play " + js(s)["hands"][seat][0])


def test_R02_castle_order():
    s = G.new_game({"players": 2, "first_player": 0}, random.Random(5))
    ranks = [js(s)["enemy"][0]]
    for _ in range(12):
        s = _kill_current_enemy(s)
        p = js(s)
        if p["phase"] == "won":
            break
        ranks.append(p["enemy"][0])
    assert ranks == list("JJJJQQQQKKKK")
    assert js(s)["phase"] == "won"


def test_R02_fourth_jack_then_queen_then_king():
    s = state(2, "JC", hands=[["TH", "2C"], ["3C"]], damage=15, castle=["QH", "QS", "KH"])
    after = js(act(s, "play TH"))
    assert after["enemy"] == "QH" and after["damage"] == 0
    s = state(2, "QC", hands=[["TH", "9H", "2C"], ["3C"]], damage=25, castle=["KH", "KS"])
    after = js(act(s, "play TH"))
    assert after["enemy"] == "KH" and after["damage"] == 0


# =========================================================================== turns (1.5-1.8)

def test_R03_basic_attack_and_step4():
    s = state(2, "JH", hands=[["6C", "9D", "2S", "AC"], ["3H", "4H"]], tavern=["7D", "8D"])
    s = act(s, "play 6C")
    p = js(s)
    assert p["damage"] == 12  # Clubs active: 2 x 6
    assert p["phase"] == "suffer" and p["current"] == 0
    assert R.effective_attack(s) == 10
    legal_sets = discards(s)
    for want in ({"9D", "AC"}, {"9D", "2S"}, {"9D", "2S", "AC"}):
        assert frozenset(want) in legal_sets
    assert legal_sets == subsets_at_least(["9D", "2S", "AC"], 10)
    assert is_legal(s, "discard 2S AC 9D")  # any order of the cards
    p = js(act(s, "discard 2S AC 9D"))
    assert p["current"] == 1 and p["phase"] == "play"
    assert p["hands"][0] == []
    assert ms(p["discard"]) == ms(["9D", "2S", "AC"])


def test_R04_clubs_immunity():
    s = state(2, "JC", hands=[["8C", "9H"], ["3H"]])
    assert js(act(s, "play 8C"))["damage"] == 8


def test_R05_cumulative_shield():
    s = state(3, "QH", hands=[["2C"], ["2D"], ["6S", "4C", "AC", "9D"]],
              table=[["4S"], ["3D"]], damage=7, current=2)
    s = act(s, "play 6S")
    p = js(s)
    assert shield_of(p) == 10 and R.shield(s) == 10
    assert p["damage"] == 13
    assert p["phase"] == "suffer" and p["current"] == 2
    assert R.effective_attack(s) == 5
    assert discards(s) == subsets_at_least(["4C", "AC", "9D"], 5)
    assert is_legal(s, "discard 4C AC") and not is_legal(s, "discard 4C")
    assert refused(s, "discard 4C")


def test_R06_spades_immunity():
    s = state(2, "KS", hands=[["9S", "KD", "TC", "9C", "AH"], ["2C"]])
    s = act(s, "play 9S")
    p = js(s)
    assert p["damage"] == 9
    assert R.shield(s) == 0 and shield_of(p) == 0
    assert R.effective_attack(s) == 20
    assert is_legal(s, "discard KD") and is_legal(s, "discard TC 9C AH")
    assert not is_legal(s, "discard TC 9C")
    assert refused(s, "discard TC 9C")


def test_R07_shield_covers_attack_yield_with_empty_hand():
    s = state(2, "JD", hands=[[], ["3C"]], table=[["7S"], ["5S"]], damage=12, tavern=["2H"])
    assert is_legal(s, "yield")
    p = js(act(s, "yield"))
    assert p["phase"] == "play" and p["current"] == 1  # Step 4 skipped, P2's turn
    assert p["discard"] == [] and p["hands"] == [[], ["3C"]]
    assert G.outcome(G.from_json(p)) is None


def test_R08_hearts_heal():
    discard = filler(10)
    tavern = ["AC", "AD", "AH", "AS", "JC"]
    seen = set()
    for seed in range(12):
        s = state(2, "JS", hands=[["6H", "9H", "8H"], ["9S"]], discard=discard, tavern=tavern)
        p = js(act(s, "play 6H", seed=seed))
        assert len(p["tavern"]) == 11
        assert p["tavern"][:5] == tavern  # the old Tavern stays on top
        healed = p["tavern"][5:]  # the bottom 6
        assert not (ms(healed) - ms(discard))  # they came from the discard pile
        assert len(p["discard"]) == 4
        assert ms(p["discard"]) + ms(healed) == ms(discard)
        assert p["damage"] == 6
        assert p["phase"] == "suffer"
        assert attack_to_absorb(p) == 10
        seen.add(frozenset(healed))
    assert len(seen) > 1  # taken at random


def test_R09_hearts_with_small_discard():
    discard = ["2S", "3S", "4S"]
    s = state(2, "JC", hands=[["7H", "9H", "8H"], ["2C"]], discard=discard, tavern=["5D"])
    p = js(act(s, "play 7H"))
    assert p["discard"] == []
    assert p["tavern"][0] == "5D" and ms(p["tavern"][1:]) == ms(discard)
    assert p["damage"] == 7


def test_R10_hearts_immunity():
    discard = filler(10)
    s = state(2, "JH", hands=[["7H", "AS"], ["AC"]], discard=discard, tavern=["AD"])
    p = js(act(s, "play 7H"))
    assert p["discard"] == discard
    assert p["tavern"] == ["AD"]
    assert p["damage"] == 7


def test_R11_diamonds_round_robin_3p():
    tavern = ["2D", "2S", "3D", "3S", "4D", "4S", "5C", "5S", "6D", "6S"]
    s = state(3, "QC", hands=[["5D", "2C", "3C", "4C"], ["2H", "3H", "4H", "5H", "6H", "7H"],
                              ["6C", "7C", "8C", "9C"]], tavern=tavern)
    p = js(act(s, "play 5D"))
    # P1, (P2 skipped), P3, P1, (P2), P3, P1
    assert hand(p, 0) == ms(["2C", "3C", "4C", "2D", "3D", "4D"])
    assert hand(p, 1) == ms(["2H", "3H", "4H", "5H", "6H", "7H"])
    assert hand(p, 2) == ms(["6C", "7C", "8C", "9C", "2S", "3S"])
    assert p["tavern"] == tavern[5:]
    assert p["damage"] == 5


def test_R12_diamonds_tavern_runs_out():
    s = state(2, "JS", hands=[["8D", "TC", "9C", "7C"], ["2H", "3H", "4H", "5H", "6H"]],
              tavern=["2C", "3C"])
    p = js(act(s, "play 8D"))
    assert hand(p, 0) == ms(["TC", "9C", "7C", "2C"])
    assert hand(p, 1) == ms(["2H", "3H", "4H", "5H", "6H", "3C"])
    assert p["tavern"] == []
    assert p["damage"] == 8
    assert p["phase"] == "suffer"  # no penalty for drawing fewer than 8


def test_R13_diamonds_all_hands_full():
    p1 = ["9D", "AC", "AD", "AH", "AS", "2C", "2D"]
    p2 = ["3C", "3D", "3H", "3S", "4C", "4D", "4H"]
    tavern = ["TS", "TH", "9S", "9H", "9C", "8S"]
    s = state(2, "JH", hands=[p1, p2], tavern=tavern)
    p = js(act(s, "play 9D"))
    assert len(p["hands"][0]) == 7 and hand(p, 0) == ms(p1[1:] + ["TS"])
    assert hand(p, 1) == ms(p2)
    assert p["tavern"] == tavern[1:]
    assert p["damage"] == 9


def test_R14_diamonds_immunity():
    tavern = ["2C", "3C", "4C"]
    s = state(2, "JD", hands=[["9D", "5H"], ["2H"]], tavern=tavern)
    p = js(act(s, "play 9D"))
    assert p["tavern"] == tavern
    assert hand(p, 0) == ms(["5H"]) and hand(p, 1) == ms(["2H"])
    assert p["damage"] == 9


def test_R15_animal_companion_pair():
    tavern = filler(20, exclude=["2H", "3H", "4H", "5H", "6H"])
    s = state(2, "JS", hands=[["8D", "AC", "2H", "3H"], ["4H", "5H", "6H"]], tavern=tavern)
    s = act(s, "play 8D AC")
    p = js(s)
    # v = 9: 9 cards drawn round-robin starting with P1
    assert hand(p, 0) == ms(["2H", "3H"] + tavern[0:9:2])
    assert hand(p, 1) == ms(["4H", "5H", "6H"] + tavern[1:9:2])
    assert p["tavern"] == tavern[9:]
    assert p["damage"] == 18  # Clubs double the whole play
    assert p["phase"] == "suffer" and R.effective_attack(s) == 10
    assert [ms(x) for x in p["table"]] == [ms(["8D", "AC"])]


def test_R16_ace_with_same_suit():
    s = state(2, "JH", hands=[["8C", "AC", "2D"], ["3D"]])
    assert js(act(s, "play AC 8C"))["damage"] == 18  # v 9, Clubs once


def test_R17_ace_ace_hearts_then_diamonds():
    discard = ["6D", "7D", "8D", "9D", "TD"]
    p2 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    s = state(2, "QS", hands=[["AH", "AD", "2C", "3C", "4C", "5C"], p2], tavern=[],
              discard=discard)
    p = js(act(s, "play AH AD"))
    assert p["tavern"] == []  # 2 healed, then drawn by P1
    assert len(p["discard"]) == 3
    drawn = hand(p, 0) - ms(["2C", "3C", "4C", "5C"])
    assert sum(drawn.values()) == 2 and len(p["hands"][0]) == 6
    assert not (drawn - ms(discard))
    assert ms(p["discard"]) + drawn == ms(discard)
    assert hand(p, 1) == ms(p2)
    assert p["damage"] == 2


def test_R18_hearts_before_diamonds_combo():
    discard = ["2D", "2H", "3D", "3H", "4D", "4H", "5C", "6D"]
    p2 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    s = state(2, "KC", hands=[["5H", "5D", "2C", "3C", "4C", "6C"], p2], tavern=[],
              discard=discard)
    p = js(act(s, "play 5H 5D"))
    assert p["discard"] == []
    assert len(p["tavern"]) == 5  # 8 healed, 3 drawn
    assert len(p["hands"][0]) == 7
    drawn = hand(p, 0) - ms(["2C", "3C", "4C", "6C"])
    assert ms(p["tavern"]) + drawn == ms(discard)
    assert hand(p, 1) == ms(p2)
    assert p["damage"] == 10


def test_R19_triple_combo():
    tavern = filler(20, exclude=["3D", "3S", "3C", "2H", "4H", "5H", "6H"])
    s = state(2, "JH", hands=[["3D", "3S", "3C", "2H"], ["4H", "5H", "6H"]], tavern=tavern)
    s = act(s, "play 3C 3D 3S")
    p = js(s)
    assert len(p["tavern"]) == 11  # drew 9
    assert len(p["hands"][0]) == 6 and len(p["hands"][1]) == 7
    assert R.shield(s) == 9 and shield_of(p) == 9
    assert p["damage"] == 18
    assert R.effective_attack(s) == 1


R20_HAND = ["6H", "6D", "4H", "4D", "4S", "5D", "AC", "3H", "3D", "X", "JH", "JD"]
R20_ILLEGAL = [["6H", "6D"], ["4H", "4D", "4S"], ["4H", "5D"], ["AC", "3H", "3D"],
               ["X", "AC"], ["X", "5D"], ["JH", "JD"]]
R20_LEGAL = [["3H", "3D"], ["4H", "4D"], ["AC", "JH"], ["AC"], ["X"]]


def test_R20_illegal_plays_play_options():
    """The pure play generator over the full 12-card hand of the scenario."""
    hand_mask = mask_of(parse_card(c) for c in R20_HAND)
    opts = set()
    for m in R.play_options(hand_mask):
        opts.add(frozenset(A.to_text(A.PLAY | m).split()[1:]))
    for bad in R20_ILLEGAL:
        assert frozenset(bad) not in opts, bad
        assert R.play_problem(mask_of(parse_card(c) for c in bad)) is not None, bad
    for good in R20_LEGAL:
        assert frozenset(good) in opts, good
        assert R.play_problem(mask_of(parse_card(c) for c in good)) is None, good


@pytest.mark.parametrize("cards", R20_ILLEGAL, ids=["+".join(c) for c in R20_ILLEGAL])
def test_R20_illegal_plays_refused(cards):
    others = [c for c in R20_HAND if c not in cards][: 6 - len(cards)]
    s = state(3, "KC", hands=[cards + others, ["2C"], ["2S"]], tavern=["9C"])
    text = "play " + " ".join(cards)
    assert not is_legal(s, text)
    assert refused(s, text)
    assert refused(s, "play " + " ".join(reversed(cards)))


@pytest.mark.parametrize("cards,v", [(["3H", "3D"], 6), (["4H", "4D"], 8), (["AC", "JH"], 11),
                                     (["AC"], 1), (["X"], 0)],
                         ids=["3H+3D", "4H+4D", "AC+JH", "AC", "X"])
def test_R20_legal_plays_accepted(cards, v):
    # Enemy QC: Clubs blocked, so the damage equals the attack value v.
    others = [c for c in R20_HAND if c not in cards and c not in ("X",)][: 6 - len(cards)]
    s = state(3, "QC", hands=[cards + others, ["2C"], ["2S"]], tavern=["9C"])
    text = "play " + " ".join(cards)
    assert is_legal(s, text)
    p = js(act(s, text))
    assert ms(p["table"][-1]) == ms(cards)
    assert p["damage"] == v
    if cards == ["X"]:
        assert p["phase"] == "choose"


def test_R21_combo_against_immune_suit():
    tavern = filler(20, exclude=["4C", "4D", "2H", "3H", "5H", "6H", "7H"])
    s = state(2, "JC", hands=[["4C", "4D", "2H", "3H"], ["5H", "6H", "7H"]], tavern=tavern)
    p = js(act(s, "play 4C 4D"))
    assert len(p["tavern"]) == 12  # drew 8
    assert len(p["hands"][0]) == 6 and len(p["hands"][1]) == 7
    assert p["damage"] == 8  # Clubs blocked


def _r22():
    return state(2, "JS", hands=[["3C", "9H", "4C"], ["4D"]], table=[["8D"], ["6H"]], damage=14,
                 tavern=["2D", "2H"], castle=["JH", "JD", "JC", "QS", "QH", "QD", "QC",
                                               "KS", "KH", "KD", "KC"])


def test_R22_exact_kill():
    s = _r22()
    p = js(act(s, "play 3C"))
    assert p["tavern"] == ["JS", "2D", "2H"]  # face down on top of the Tavern
    assert ms(p["discard"]) == ms(["8D", "6H", "3C"])
    assert p["table"] == []
    assert p["enemy"] == "JH" and p["damage"] == 0 and p["immunity_cancelled"] is False
    assert p["castle"] == ["JD", "JC", "QS", "QH", "QD", "QC", "KS", "KH", "KD", "KC"]
    assert p["current"] == 0 and p["phase"] == "play"  # P1 skips Step 4, new turn
    assert hand(p, 0) == ms(["9H", "4C"])  # nothing discarded
    assert hand(p, 1) == ms(["4D"])  # P2 does not act


def test_R23_overkill():
    s = _r22()
    p = js(act(s, "play 4C"))
    assert p["tavern"] == ["2D", "2H"]
    # JS face up to the discard pile first, then the table cards on top of it (3.R18).
    assert p["discard"][-1] == "JS"
    assert ms(p["discard"]) == ms(["JS", "8D", "6H", "4C"])
    assert p["enemy"] == "JH" and p["damage"] == 0
    assert p["current"] == 0 and p["phase"] == "play"
    assert hand(p, 0) == ms(["3C", "9H"])


def test_R24_exact_kill_with_immune_clubs():
    s = state(2, "JC", hands=[["8C", "2D"], ["3S"]], table=[["4D"], ["8H"]], damage=12,
              tavern=["5H"], castle=["JS", "QS", "KS"])
    p = js(act(s, "play 8C"))
    assert p["tavern"] == ["JC", "5H"]
    assert p["enemy"] == "JS" and p["damage"] == 0


def test_R25_exact_kill_royal_drawn_later():
    s = state(2, "JS", hands=[["3C", "4D", "9H", "2C", "5C", "6C"], ["8H"]],
              table=[["8D"], ["6H"]], damage=14, tavern=["2D", "2H"],
              castle=["JH", "JD", "JC", "QS", "QH", "QD", "QC", "KS", "KH", "KD", "KC"])
    s = act(s, "play 3C")
    p = js(s)
    assert p["enemy"] == "JH" and p["tavern"][0] == "JS"
    s = act(s, "play 4D")  # P1 now holds 4 cards and draws first
    p = js(s)
    assert "JS" in p["hands"][0]
    assert hand(p, 0) == ms(["9H", "2C", "5C", "6C", "JS", "2H"])
    assert hand(p, 1) == ms(["8H", "2D"])
    assert p["phase"] == "suffer" and R.effective_attack(s) == 10
    assert is_legal(s, "discard JS")  # worth 10
    # Its Spades power works: played against a non-Spade enemy it shields 10.
    s2 = state(2, "QH", hands=[["JS", "2C"], ["3C"]])
    s2 = act(s2, "play JS")
    assert R.shield(s2) == 10


def test_R26_recruited_royal():
    s = state(2, "QH", hands=[["JS", "5C", "2D"], ["3C"]])
    s = act(s, "play JS")
    p = js(s)
    assert R.shield(s) == 10 and shield_of(p) == 10
    assert p["damage"] == 10
    assert R.effective_attack(s) == 5
    # Separately: a King in hand absorbs 20.
    s = state(2, "KC", hands=[["KD", "2C"], ["3C"]])
    s = act(s, "yield")
    assert R.effective_attack(s) == 20
    assert is_legal(s, "discard KD")
    p = js(act(s, "discard KD"))
    assert p["phase"] == "play" and p["current"] == 1


def test_R27_royal_plus_ace():
    discard = filler(20, exclude=["2S", "3S"])
    s = state(2, "KD", hands=[["QH", "AC", "2S"], ["3S"]], discard=discard, tavern=["AS"])
    p = js(act(s, "play QH AC"))
    assert len(p["tavern"]) == 17 and p["tavern"][0] == "AS"  # healed 16
    assert len(p["discard"]) == 4
    assert p["damage"] == 32


def test_R28_loss_by_damage():
    s = state(2, "KS", hands=[["TH", "5C", "4D", "2H"], ["3C"]])
    s = act(s, "play 2H")
    p = js(s)
    assert hand(p, 0) == ms(["TH", "5C", "4D"])
    assert p["phase"] == "lost"
    assert G.is_terminal(s) and G.outcome(s)["result"] == "lost"
    assert G.legal_actions(s) == []
    assert G.returns(s) == [0.0, 0.0]


def test_R29_jester_worth_zero_when_absorbing():
    s = state(3, "JH", hands=[["X", "2C"], ["3C"], ["3D"]], table=[["7S"]], damage=7)
    s = act(s, "yield")
    assert R.effective_attack(s) == 3
    assert js(s)["phase"] == "lost"


def test_R30_jester_vs_clubs_not_retroactive():
    s = state(3, "JC", hands=[["5C", "2D"], ["X", "4H"], ["3H"]], table=[["6C"]], damage=6,
              current=1)
    s = act(s, "play X")
    p = js(s)
    assert p["damage"] == 6  # no damage
    assert p["phase"] == "choose" and p["current"] == 1  # no Step 4
    assert p["immunity_cancelled"] is True
    assert hand(p, 1) == ms(["4H"])
    s = act(s, "choose 0")
    p = js(s)
    assert p["current"] == 0 and p["phase"] == "play"
    p = js(act(s, "play 5C"))
    assert p["damage"] == 16  # 5C doubled; the earlier 6C still counts 6


def test_R31_jester_vs_spades_retroactive():
    s = state(3, "QS", hands=[["2C", "9C"], ["X", "5C"], ["3D", "8H", "9D"]],
              table=[["7S"], ["4H"]], damage=11, current=1,
              tavern=["2D", "2H", "2S", "3C"])
    assert R.shield(s) == 0
    s = act(s, "play X", "choose 2")
    assert R.shield(s) == 7
    s = act(s, "play 3D")
    p = js(s)
    assert p["damage"] == 14
    assert p["tavern"] == ["3C"]  # drew 3: P3, P1, P2
    assert hand(p, 2) == ms(["8H", "9D", "2D"])
    assert p["phase"] == "suffer" and p["current"] == 2
    assert R.effective_attack(s) == 8
    assert discards(s) == subsets_at_least(["8H", "9D", "2D"], 8)


def test_R32_jester_vs_hearts_no_retroactive_heal():
    discard = filler(8, exclude=["7H", "5H"])
    s = state(3, "JH", hands=[["X", "9C"], ["5H", "9D"], ["9S"]], table=[["7H"]], damage=7,
              discard=discard, tavern=["AS"])
    s = act(s, "play X", "choose 1")
    p = js(s)
    assert p["discard"] == discard and p["tavern"] == ["AS"]  # no heal for the 7H
    p = js(act(s, "play 5H"))
    assert len(p["discard"]) == 3 and len(p["tavern"]) == 6  # heals 5
    assert p["tavern"][0] == "AS"


def test_R33_jester_choose_self():
    s = state(4, "JH", hands=[["2C"], ["2D"], ["X", "4C"], ["2S"]],
              yielded=[True, True, True, False], current=2)
    s = act(s, "play X")
    assert js(s)["yielded"][2] is False  # the Jester turn is a non-yield turn
    assert is_legal(s, "choose 2")
    p = js(act(s, "choose 2"))
    assert p["current"] == 2 and p["phase"] == "play"
    assert p["yielded"] == [True, True, False, False]
    assert hand(p, 2) == ms(["4C"])


def test_R34_jester_communication_window():
    s = state(3, "JH", hands=[["X", "2C"], ["3C"], ["4C"]])
    assert refused(s, "prefer 1 yes")  # not before the Jester
    s = act(s, "play X")
    assert refused(s, "prefer 0 yes")  # the Jester's player states no wish
    assert is_legal(s, "prefer 1 yes") and is_legal(s, "prefer 2 no")
    s = act(s, "prefer 1 yes", "prefer 2 no")
    assert js(s)["preferences"] == [None, "yes", "no"]
    for seat in (None, 0, 1, 2):
        assert G.view(s, seat)["preferences"] == [None, "yes", "no"]
    assert js(s)["phase"] == "choose" and js(s)["current"] == 0
    s = act(s, "choose 2")  # P1 chooses P3 anyway
    p = js(s)
    assert p["current"] == 2 and p["phase"] == "play"
    assert p["preferences"] == [None, None, None]
    assert refused(s, "prefer 1 yes")  # not after the chosen turn started
    assert refused(s, "prefer 0 no")


def test_R35_redundant_jester():
    # The page says 3 players, but a 3-player game has one Jester (rules 1.3): the second
    # Jester needs 4 players.
    s = state(4, "JD", hands=[["X", "4C"], ["2C"], ["2S"], ["2D"]], table=[["X"], ["3H"]], damage=3,
              immunity_cancelled=True, tavern=["9C"])
    s = act(s, "play X")
    p = js(s)
    assert p["damage"] == 3 and p["phase"] == "choose" and p["current"] == 0
    assert hand(p, 0) == ms(["4C"]) and p["discard"] == []
    assert {"choose 0", "choose 1", "choose 2", "choose 3"} <= legal(s)
    p = js(act(s, "choose 1"))
    assert p["current"] == 1 and p["phase"] == "play"


def test_R36_cancellation_ends_with_enemy():
    s = state(3, "JC", hands=[["TH", "5C"], ["2D"], ["2S"]], table=[["X"], ["6D"]], damage=15,
              immunity_cancelled=True, castle=["QC", "KC"])
    s = act(s, "play TH")
    p = js(s)
    assert p["enemy"] == "QC" and p["immunity_cancelled"] is False
    assert ms(p["discard"]) == ms(["JC", "X", "6D", "TH"])  # Jesters go to the discard too
    assert p["current"] == 0 and p["phase"] == "play"
    assert js(act(s, "play 5C"))["damage"] == 5  # Clubs blocked again


def test_R37_shield_resets_per_enemy():
    s = state(2, "QH", hands=[["5H", "2C", "KD", "9S"], ["3C"]], table=[["TS"]], damage=25,
              castle=["KS"])
    assert R.shield(s) == 10
    s = act(s, "play 5H")
    p = js(s)
    assert p["enemy"] == "KS" and p["table"] == []
    assert R.shield(s) == 0
    s = act(s, "play 2C")
    assert R.effective_attack(s) == 20  # shield 0
    assert not is_legal(s, "discard 9S")
    # New Spades against KS are blocked as well.
    s = state(2, "KS", hands=[["9S", "KD", "TC"], ["3C"]])
    s = act(s, "play 9S")
    assert R.effective_attack(s) == 20


def _r38(p2_hand):
    return state(2, "JD", hands=[["9H", "2C"], p2_hand], table=[["3C"]], damage=3,
                 tavern=["2D", "2H", "2S"])


def test_R38_yield_restriction_2p():
    s = act(_r38(["3S", "4S"]), "yield")
    assert R.effective_attack(s) == 10  # full attack
    s = act(s, "discard 9H 2C")
    p = js(s)
    assert p["current"] == 1 and p["yielded"] == [True, False]
    assert "yield" not in legal(s)
    assert refused(s, "yield")
    # With an empty hand P2 can neither play nor yield: the players lose.
    s = act(_r38([]), "yield", "discard 9H 2C")
    assert js(s)["phase"] == "lost"
    assert G.outcome(s)["result"] == "lost"


def _shielded_3p(**kw):
    # Enemy JH behind a shield of 10: a yield costs nothing (Step 4 skipped).
    return state(3, "JH", hands=[["2C", "3C"], ["2D", "3D"], ["2S", "3S"]], table=[["TS"]],
                 damage=10, **kw)


def test_R39_yield_restriction_3p():
    s = act(_shielded_3p(), "yield", "yield")
    assert js(s)["current"] == 2
    assert "yield" not in legal(s) and refused(s, "yield")
    s = act(_shielded_3p(), "yield", "play 2D", "yield")
    p = js(s)
    assert p["current"] == 0 and p["yielded"] == [True, False, True]
    assert "yield" in legal(s)


def test_R40_yield_history_survives_kill():
    s = state(2, "JH", hands=[["TC", "3C"], ["2D"]], damage=15, yielded=[False, True],
              castle=["JS", "QS"])
    s = act(s, "play TC")
    p = js(s)
    assert p["enemy"] == "JS" and p["current"] == 0 and p["phase"] == "play"
    assert p["yielded"] == [False, True]
    assert "yield" not in legal(s) and refused(s, "yield")


def test_R41_yield_at_game_start():
    s = G.new_game({"players": 2, "first_player": 0}, random.Random(3))
    assert js(s)["current"] == 0
    assert "yield" in legal(s)
    s = act(s, "yield")
    d = R.effective_attack(s)
    assert d == 10
    cards = js(s)["hands"][0]
    chosen = next(set(c) for k in range(1, 8) for c in combinations(cards, k) if total(c) >= d)
    s = act(s, "discard " + " ".join(chosen))
    assert js(s)["current"] == 1
    assert "yield" not in legal(s) and refused(s, "yield")


# =========================================================================== solo (1.14)

def _solo_empty_hand_after_kill(jesters, tavern):
    # Overkill with the last card: the new turn starts with an empty hand.
    return act(state(1, "JH", hands=[["6C"]], damage=15, tavern=tavern, jesters=jesters,
                     castle=["JS", "QS"]), "play 6C")


def test_R42_solo_no_yield_empty_hand():
    s = _solo_empty_hand_after_kill(0, [])
    p = js(s)
    assert p["enemy"] == "JS" and p["hands"] == [[]]
    assert p["phase"] == "lost" and G.outcome(s)["result"] == "lost"
    # With a Jester left: may flip at the start of Step 1, draw 8, then must play.
    tavern = filler(12)
    s = _solo_empty_hand_after_kill(1, tavern)
    p = js(s)
    assert p["phase"] == "play" and p["hands"] == [[]]
    assert legal(s) == {"jester"}
    s = act(s, "jester")
    p = js(s)
    assert hand(p, 0) == ms(tavern[:8]) and p["jesters"] == 0
    assert "yield" not in legal(s) and "jester" not in legal(s)
    assert legal(s) and all(t.startswith("play ") for t in legal(s))
    # Fewer than 8 in the Tavern: draw the whole Tavern.
    s = act(_solo_empty_hand_after_kill(1, ["2C", "3C", "4C"]), "jester")
    p = js(s)
    assert hand(p, 0) == ms(["2C", "3C", "4C"]) and p["tavern"] == []
    assert p["phase"] == "play"


def test_R43_solo_refresh_at_step1():
    tavern = filler(20, exclude=["2C", "3S"])
    s = state(1, "JH", hands=[["2C", "3S"]], tavern=tavern, jesters=2)
    assert "jester" in legal(s)
    p = js(act(s, "jester"))
    assert ms(p["discard"]) == ms(["2C", "3S"])
    assert hand(p, 0) == ms(tavern[:8])
    assert p["tavern"] == tavern[8:] and len(p["tavern"]) == 12
    assert p["jesters"] == 1 and p["phase"] == "play"


def test_R44_solo_refresh_vs_diamonds_enemy():
    tavern = filler(20, exclude=["5D", "2C"])
    tavern = ["5D"] + [c for c in tavern if c != "5D"][:19]
    s = state(1, "KD", hands=[["2C"]], tavern=tavern, jesters=2)
    s = act(s, "jester")
    p = js(s)
    assert len(p["hands"][0]) == 8 and p["immunity_cancelled"] is False
    before = len(p["tavern"])
    p = js(act(s, "play 5D"))
    assert len(p["tavern"]) == before  # immune: no draw
    assert len(p["hands"][0]) == 7


def test_R45_solo_refresh_at_step4():
    tavern = ["TH", "9S", "8D", "7C", "6H", "5S", "4D", "3C", "2H", "2S"]
    s = state(1, "QC", hands=[["4H", "2D", "3S", "5C"]], tavern=tavern, jesters=2)
    s = act(s, "play 4H")
    p = js(s)
    assert p["damage"] == 4
    assert hand(p, 0) == ms(["2D", "3S", "5C"])
    assert p["phase"] == "suffer" and R.effective_attack(s) == 15  # not lost: may flip
    assert "jester" in legal(s)
    s = act(s, "jester")
    p = js(s)
    assert ms(p["discard"]) == ms(["2D", "3S", "5C"])
    assert hand(p, 0) == ms(tavern[:8]) and p["tavern"] == ["2H", "2S"]
    assert p["phase"] == "suffer" and p["jesters"] == 1
    s = act(s, "discard 5S TH")
    p = js(s)
    assert p["phase"] == "play" and p["current"] == 0
    assert hand(p, 0) == ms(["9S", "8D", "7C", "6H", "4D", "3C"])


def test_R46_solo_refresh_short_tavern():
    s = state(1, "JH", hands=[["2C", "3C", "4C", "5C", "6C"]], tavern=["7D", "8D", "9D"],
              jesters=2)
    p = js(act(s, "jester"))
    assert len(p["discard"]) == 5
    assert hand(p, 0) == ms(["7D", "8D", "9D"]) and p["tavern"] == []


def _r47():
    tavern = (["2C", "2D", "3C", "3D", "4C", "4D", "5S", "6S"]
              + ["TC", "TD", "TS", "9C", "9D", "9S", "8C", "8D"] + ["7C", "7D"])
    return state(1, "KH", hands=[["AS"]], damage=30, castle=[], tavern=tavern, jesters=2)


def test_R47_solo_two_refreshes_in_one_turn():
    s = act(_r47(), "jester")  # start of Step 1
    assert js(s)["jesters"] == 1
    s = act(s, "play 2C")  # 4 damage (Clubs): 34
    p = js(s)
    assert p["damage"] == 34 and p["phase"] == "suffer"
    assert "jester" in legal(s)
    s = act(s, "jester")  # start of Step 4
    p = js(s)
    assert p["jesters"] == 0
    assert hand(p, 0) == ms(["TC", "TD", "TS", "9C", "9D", "9S", "8C", "8D"])
    assert "jester" not in legal(s)
    s = act(s, "discard TC TD", "play TS")
    assert js(s)["phase"] == "won"
    assert G.outcome(s)["medal"] == "bronze" and R.medal(s) == "bronze"


@pytest.mark.parametrize("left,medal", [(2, "gold"), (1, "silver"), (0, "bronze")])
def test_R48_solo_victory_grades(left, medal):
    s = state(1, "KH", hands=[["TS", "2C"]], damage=30, castle=[], tavern=["3C"], jesters=left)
    s = act(s, "play TS")
    assert js(s)["phase"] == "won"
    assert G.outcome(s)["result"] == "won"
    assert G.outcome(s)["medal"] == medal and R.medal(s) == medal


def test_R49_solo_diamonds_limit():
    tavern = filler(10, exclude=["5D", "2C", "3C", "4C", "6C", "7C", "8C"])
    s = state(1, "JC", hands=[["5D", "2C", "3C", "4C", "6C", "7C", "8C"]], tavern=tavern)
    p = js(act(s, "play 5D"))
    assert len(p["hands"][0]) == 8
    assert p["tavern"] == tavern[2:]
    assert p["damage"] == 5


def _r50(**options):
    return state(2, "JH", hands=[["TH", "6C", "2S"], ["4D"]], table=[["5S"]], damage=5,
                 phase="suffer", tavern=["2C"], options=options)


def test_R50_step4_discard_legality():
    s = _r50()
    assert R.effective_attack(s) == 5
    expected = {frozenset(x) for x in (["TH"], ["6C"], ["2S", "6C"], ["2S", "TH"], ["TH", "6C"],
                                        ["2S", "6C", "TH"])}
    assert discards(s) == expected
    assert refused(s, "discard 2S")
    with pytest.raises(IllegalAction):
        G.action_from_text(s, "discard")  # the empty set is not an action
    s = _r50(minimal_discard=True)
    got = discards(s)
    assert frozenset(["TH", "6C"]) not in got and frozenset(["2S", "6C", "TH"]) not in got
    assert frozenset(["TH"]) in got and frozenset(["6C"]) in got
    assert refused(s, "discard TH 6C") and refused(s, "discard 2S 6C TH")


def test_R51_hearts_cannot_take_table_cards():
    s = state(2, "JS", hands=[["4H", "9C"], ["2C"]], table=[["6D"], ["5H"]], damage=11,
              tavern=["3C"])
    p = js(act(s, "play 4H"))
    assert p["discard"] == [] and p["tavern"] == ["3C"]
    assert [ms(x) for x in p["table"]] == [ms(["6D"]), ms(["5H"]), ms(["4H"])]
    assert p["damage"] == 15


def test_R52_win():
    s = state(2, "KH", hands=[["TS", "2C"], ["3D"]], damage=30, castle=[], tavern=["4C"])
    s = act(s, "play TS")
    p = js(s)
    assert p["phase"] == "won" and p["enemy"] is None
    assert G.is_terminal(s) and G.legal_actions(s) == []
    assert G.outcome(s)["result"] == "won" and G.outcome(s)["enemies_defeated"] == 12
    assert G.returns(s) == [1.0, 1.0]
    assert hand(p, 0) == ms(["2C"])  # no Step 4
    assert refused(s, "play 2C")


def test_R53_jester_vs_diamonds_cancellation():
    tavern = filler(10, exclude=["6D", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "2H",
                                 "3H", "4H"])
    s = state(3, "JD", hands=[["2C", "3C", "4C", "5C", "6C"], ["X", "7C", "8C", "9C", "2H"],
                              ["6D", "3H"]], current=1, tavern=tavern)
    s = act(s, "play X", "choose 2", "play 6D")
    p = js(s)
    # Diamonds no longer blocked: 6 drawn in the order P3, P1, P2, P3, (P1 full), P2, P3.
    assert hand(p, 2) == ms(["3H", tavern[0], tavern[3], tavern[5]])
    assert hand(p, 0) == ms(["2C", "3C", "4C", "5C", "6C", tavern[1]])
    assert hand(p, 1) == ms(["7C", "8C", "9C", "2H", tavern[2], tavern[4]])
    assert p["tavern"] == tavern[6:]
    assert p["damage"] == 6


def test_R54_loss_cannot_play_or_yield():
    s = _shielded_3p(yielded=[False, True, False], current=2)
    p = js(s)
    p["hands"][0] = []
    s = G.from_json(p)
    s = act(s, "yield")  # P3 may yield (P1 did not); then P1: P2 and P3 yielded, empty hand
    p = js(s)
    assert p["current"] == 0 and p["phase"] == "lost"
    assert G.outcome(s)["result"] == "lost"


DEAD_ENDS = {
    "play-empty-hand-no-yield": dict(players=3, enemy="JH", hands=[[], ["2C"], ["2D"]],
                                     yielded=[False, True, True]),
    "suffer-hand-too-weak": dict(players=2, enemy="KS", hands=[["TH", "5C", "4D"], ["2C"]],
                                 phase="suffer"),
    "solo-empty-hand-no-jester": dict(players=1, enemy="JH", hands=[[]], jesters=0),
}


@pytest.mark.parametrize("name", list(DEAD_ENDS))
def test_R54_position_read_in_lost_situation_is_not_a_dead_end(name):
    """A position whose player to act can neither play nor yield (or cannot absorb the
    attack) is a loss (rules 1.13, 1.8.3): reading it must give either a refusal or a
    finished game, never a game in progress without any legal action."""
    kw = dict(DEAD_ENDS[name])
    p = pos(kw.pop("players"), kw.pop("enemy"), hands=kw.pop("hands"), **kw)
    try:
        s = G.from_json(p)
    except InvalidPosition:
        return
    assert G.is_terminal(s) or list(G.legal_actions(s)), "in progress, no legal action"


# =========================================================================== hidden info (1.15)

def test_view_hides_other_hands_and_discard_contents():
    s = state(3, "JH", hands=[["2C", "3C"], ["4D"], ["5S", "6S"]], discard=["7H", "8H"],
              tavern=["9C"])
    v = G.view(s, 1)
    assert v["hand"] == ["4D"]
    assert v["hand_sizes"] == [2, 1, 2]
    assert v["discard"] == 2 and v["discard_top"] == "7H"
    text = repr(v)
    for hidden in ("2C", "3C", "5S", "6S", "8H", "9C"):
        assert hidden not in text
    assert "hand" not in G.view(s, None)


def test_view_hides_cards_drawn_by_others():
    """Rules 1.15: hands are secret; a Diamonds draw shows others only how many were drawn."""
    s = state(2, "JH", hands=[["5D", "2C"], ["3C"]], tavern=["9S", "8S", "7S", "6S", "4S"])
    s = act(s, "play 5D")
    p = js(s)
    for seat in (0, 1):
        other = p["hands"][1 - seat]
        text = repr(G.view(s, seat))
        for card in other:
            assert card not in text, (seat, card)
    spectator = repr(G.view(s, None))
    for card in ["9S", "8S", "7S", "6S", "4S"]:
        assert card not in spectator


# =========================================================================== options

def test_option_solo_yield():
    s = state(1, "JH", hands=[["2C", "TD"]], table=[["TS"]], damage=10, tavern=["3C"])
    assert "yield" not in legal(s) and refused(s, "yield")
    s = state(1, "JH", hands=[["2C", "TD"]], table=[["TS"]], damage=10, tavern=["3C"],
              options={"solo_yield": True})
    assert "yield" in legal(s)
    s = act(s, "yield")  # shield 10: Step 4 skipped, the solo player's next turn
    p = js(s)
    assert p["phase"] == "play" and p["current"] == 0 and p["yielded"] == [True]
    g = G.new_game({"players": 1, "solo_yield": True}, random.Random(1))
    assert js(g)["options"] == {"solo_yield": True} and "yield" in legal(g)


def test_option_solo_yield_is_refused_beyond_solo():
    """The option changes only the solo rule (rules 1.11, 3.R3): asking for it at 2-4 players
    is a mistake that gets a clear refusal, not a game in which it silently does nothing."""
    for players in (2, 3, 4):
        with pytest.raises(InvalidPosition, match="options.solo_yield: .*1-player games only"):
            G.new_game({"players": players, "solo_yield": True}, random.Random(1))
    with pytest.raises(InvalidPosition, match="options.solo_yield"):
        state(2, "JH", hands=[["2C"], ["3C"]], tavern=["4C"], options={"solo_yield": True})
    # the default stated explicitly is no mistake
    g = G.new_game({"players": 2, "solo_yield": False}, random.Random(1))
    assert js(g)["options"] == {}


def test_option_jester_choose_self():
    base = dict(table=[["X"]], immunity_cancelled=True, phase="choose", tavern=["9C"])
    hands = [["4C"], ["2C"], ["2S"]]
    s = state(3, "JH", hands=hands, **base)
    assert {"choose 0", "choose 1", "choose 2"} <= legal(s)
    s = state(3, "JH", hands=hands, options={"jester_choose_self": False}, **base)
    assert "choose 0" not in legal(s) and refused(s, "choose 0")
    assert {"choose 1", "choose 2"} <= legal(s)
    assert js(act(s, "choose 1"))["current"] == 1


def test_option_minimal_discard():
    """Only sets in which every card is needed: total minus its smallest card < D."""
    hand_cards = ["TH", "6C", "2S", "AD"]
    s = state(2, "JH", hands=[hand_cards, ["4D"]], table=[["5S"]], damage=5, phase="suffer",
              tavern=["2C"], options={"minimal_discard": True})
    d = R.effective_attack(s)
    assert d == 5
    expected = {frozenset(c) for k in range(1, 5) for c in combinations(hand_cards, k)
                if total(c) >= d and total(c) - min(value(x) for x in c) < d}
    assert discards(s) == expected
    for c in subsets_at_least(hand_cards, d) - expected:
        assert refused(s, "discard " + " ".join(c))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_option_first_player(players):
    for seat in range(players):
        for seed in range(3):
            s = G.new_game({"players": players, "first_player": seat}, random.Random(seed))
            assert js(s)["current"] == seat
    # Default: random from the game's seed.
    firsts = {js(G.new_game({"players": players}, random.Random(seed)))["current"]
              for seed in range(40)}
    assert firsts == set(range(players))
    with pytest.raises(InvalidPosition, match="first_player"):
        G.new_game({"players": players, "first_player": players}, random.Random(0))


def test_option_first_player_refusal_gives_the_seats_allowed():
    """Seats count from 0 in the options (the terminal shows Player 1, 2...): a bad
    ``first_player`` is told the range for the player count."""
    for players, bad in ((3, 3), (4, -1), (2, "1")):
        with pytest.raises(InvalidPosition) as e:
            G.new_game({"players": players, "first_player": bad}, random.Random(0))
        assert str(e.value) == (f"options.first_player: must be a seat number from 0 to "
                                f"{players - 1} or null")
    with pytest.raises(InvalidPosition) as e:
        G.new_game({"players": 1, "first_player": 1}, random.Random(0))
    assert str(e.value) == "options.first_player: must be 0 (the only seat) or null"
