"""Features of each legal action, for policies that score actions one by one (numpy only).

A policy over fixed action ids must learn every id apart (in Regicide most ids are subsets
of hand slots, each seen rarely). An action scorer instead rates each legal action from a
short vector describing what the action does from the seat's position; one small network
(``regalia.adapters.policy.save_action_scorer``, ``act:PATH``) rates them all. Everything
here is computed from what the seat may know: its view (``Game.view(state, seat)``) and its
legal action codes.

``regicide_features(view, legal) -> (len(legal), REGICIDE_FEATURES)`` float32 in [0, 1], one
row per legal action code in the order given (rules/regicide.md): the position (phase,
enemy rank and suit, immunity, health left, attack after the shield, hand size and value,
Tavern and discard sizes, solo refreshes left, Castle and known Tavern top), then what the
action does: its kind (single card, Animal Companion pair, combo, Jester, yield, discard,
solo refresh, choose), cards and value, suits in it and the suit powers that work (the
enemy's own suit is blocked, rules 1.9), damage (Clubs double) against the health left, a
kill and whether it is exact (the enemy goes on top of the Tavern, rules 1.7), the shield
it adds, the cards Diamonds draw and Hearts heal, the attack of Step 4 after it against the
hand's value afterwards (survival, rules 1.8), the hand afterwards (size, value, suits,
Aces, best damage of one card next turn), and for a kill the next enemy's attack against
that hand. ``REGICIDE_FEATURE_NAMES`` names the columns.

``ribauds_features(view, legal, rng) -> (len(legal), RIBAUDS_FEATURES)`` float32 in [0, 1]
(rules/ribauds.md): the position (phase, own hand by type, what the seat knows of the
opponent's hand, Court slots face up and known, face-up Rois and Assassins, piles), the
action (kind, slot, card placed and face up or down, card taken when known, a Reine, Roi or
Assassin placed face up), and a look-ahead in ``samples`` positions drawn from the seat's
knowledge (``regalia.bots.ribauds.belief.determinize``; the hidden cards are never read):
how often the action wins at once, lets the opponent win at once or holds a sure win for it
when the turn passes (``regalia.bots.ribauds.play``), ends the turn with the opponent holding
three Reines (the Marriage, rules 2.5), the Reines held by each seat afterwards, the Court
cards each seat knows afterwards, the face-up Rois and Assassins afterwards, and whether a
sure win as the seat knows it exists. ``RIBAUDS_FEATURE_NAMES`` names the columns.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

import numpy as np

from regalia.games.regicide import actions as RA
from regalia.games.regicide.cards import (
    ATTACK,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    QUEEN,
    RANK,
    SPADES,
    SUIT,
    SUIT_LETTERS,
    VALUE,
    cards_of,
)

# ----------------------------------------------------------------------------- Regicide

REGICIDE_FEATURE_NAMES: tuple[str, ...] = (
    # the position (the same for every action of a decision)
    "phase_play", "phase_suffer", "phase_choose",
    "enemy_jack", "enemy_queen", "enemy_king",
    "enemy_clubs", "enemy_diamonds", "enemy_hearts", "enemy_spades", "immune",
    "health_left", "attack_after_shield", "hand_size", "hand_value", "tavern", "discard",
    "refreshes_left", "castle", "royal_on_tavern_top", "players_solo",
    # the action
    "kind_single", "kind_companion", "kind_combo", "kind_jester", "kind_yield",
    "kind_discard", "kind_refresh", "kind_choose",
    "cards", "value",
    "has_clubs", "has_diamonds", "has_hearts", "has_spades",
    "clubs_work", "diamonds_work", "hearts_work", "spades_work",
    "damage", "kills", "exact_kill", "overkill", "health_left_after",
    "shield_added", "draws", "heals",
    "attack_after", "survives", "margin", "short_by",
    "hand_size_after", "hand_value_after", "aces_kept", "royals_kept",
    "clubs_kept", "diamonds_kept", "hearts_kept", "spades_kept",
    "best_damage_next", "best_kills_next",
    "discard_excess", "next_attack", "next_margin",
)
REGICIDE_FEATURES = len(REGICIDE_FEATURE_NAMES)
_MAX_HAND = {1: 8, 2: 7, 3: 6, 4: 5}


def _clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def _hand_cards(view: dict[str, Any]) -> int:
    """The seat's hand as a card mask (two ``X``: both Jester ids)."""
    from regalia.games.regicide.cards import parse_card

    m = 0
    jester = 52
    for text in view.get("hand") or []:
        c = parse_card(text)
        if c == 52:
            c, jester = jester, jester + 1
        m |= 1 << c
    return m


def _mask_value(cards: Sequence[int]) -> int:
    return sum(VALUE[c] for c in cards)


def regicide_features(view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """Features of each legal Regicide action code (see the module doc): float32 array of
    shape ``(len(legal), REGICIDE_FEATURES)``, every value in [0, 1]. Raises ``ValueError``
    for a view without a hand (a spectator's)."""
    if view.get("hand") is None:
        raise ValueError("regicide_features needs a seat's view (a spectator has no hand)")
    hand = _hand_cards(view)
    hand_cards = cards_of(hand)
    hand_value = _mask_value(hand_cards)
    players = view["players"]
    max_hand = _MAX_HAND[players]
    enemy_suit = SUIT_LETTERS.index(view["enemy_suit"]) if view["enemy_suit"] else -1
    blocked = enemy_suit if view["immune"] else -1
    rank = RANK[_card(view["enemy"])] if view["enemy"] else 0
    health_left = view["health"] - view["damage"]
    attack = view["attack"]
    shield = view["shield"]
    after_shield = view["attack_after_shield"]
    phase = view["phase"]
    tavern, discard = view["tavern"], view["discard"]
    ranks = view["castle_ranks"]
    next_rank = JACK if ranks["J"] else QUEEN if ranks["Q"] else KING if ranks["K"] else 0
    top = view["tavern_top"]
    base = [
        phase == "play", phase == "suffer", phase == "choose",
        rank == JACK, rank == QUEEN, rank == KING,
        enemy_suit == CLUBS, enemy_suit == DIAMONDS, enemy_suit == HEARTS, enemy_suit == SPADES,
        bool(view["immune"]),
        health_left / 40, after_shield / 20, len(hand_cards) / 8, hand_value / 80,
        tavern / 40, discard / 54, view["jesters"] / 2 if players == 1 else 0.0,
        view["castle"] / 11, bool(top) and top[0][0] in "JQK", players == 1,
    ]
    rows = np.zeros((len(legal), REGICIDE_FEATURES), np.float32)
    for i, a in enumerate(legal):
        rows[i] = base + _regicide_action(
            a, hand, hand_cards, hand_value, blocked, health_left, attack, shield,
            after_shield, view, max_hand, tavern, discard, next_rank, players)
    np.clip(rows, 0.0, 1.0, out=rows)
    return rows


def _card(text: str) -> int:
    from regalia.games.regicide.cards import parse_card

    return parse_card(text)


def _best_damage(cards: Sequence[int], blocked: int) -> int:
    """The most damage one card of ``cards`` deals (Clubs double unless blocked)."""
    best = 0
    for c in cards:
        if c >= 52:
            continue
        v = VALUE[c] * (2 if SUIT[c] == CLUBS and blocked != CLUBS else 1)
        best = max(best, v)
    return best


def _regicide_action(a: int, hand: int, hand_cards, hand_value: int, blocked: int,
                     health_left: int, attack: int, shield: int, after_shield: int,
                     view: dict[str, Any], max_hand: int, tavern: int, discard: int,
                     next_rank: int, players: int) -> list[float]:
    k = RA.kind(a)
    arg = RA.arg(a)
    kinds = [0.0] * 8
    cards: list[int] = []
    suits: set[int] = set()
    work: set[int] = set()
    v = damage = 0
    kills = exact = 0.0
    overkill = 0
    shield_added = draws = heals = 0
    attack_after = after_shield
    kept = hand_cards
    discard_excess = 0.0
    next_attack = 0
    if k == RA.PLAY:
        cards = cards_of(arg)
        if cards[0] >= 52:
            kinds[3] = 1.0
        elif len(cards) == 1:
            kinds[0] = 1.0
        elif any(RANK[c] == 1 for c in cards):
            kinds[1] = 1.0
        else:
            kinds[2] = 1.0
        kept = cards_of(hand & ~arg)
        v = _mask_value(cards)
        suits = {SUIT[c] for c in cards if c < 52}
        work = suits - {blocked}
        if kinds[3]:
            attack_after = 0  # a Jester skips Steps 3 and 4
        else:
            damage = 2 * v if CLUBS in work else v
            if damage >= health_left:
                kills = 1.0
                exact = float(damage == health_left)
                overkill = damage - health_left
                attack_after = 0
                next_attack = ATTACK.get(next_rank, 0)
            else:
                if SPADES in work:
                    shield_added = v
                attack_after = max(0, attack - shield - shield_added)
            if DIAMONDS in work:
                room = max_hand - len(kept)
                if players > 1:
                    room += sum(max_hand - n for q, n in enumerate(view["hand_sizes"])
                                if q != view["seat"])
                draws = min(v, tavern, room)
            if HEARTS in work:
                heals = min(v, discard)
    elif k == RA.YIELD:
        kinds[4] = 1.0
    elif k == RA.DISCARD:
        kinds[5] = 1.0
        cards = cards_of(arg)
        v = _mask_value(cards)
        kept = cards_of(hand & ~arg)
        suits = {SUIT[c] for c in cards if c < 52}
        discard_excess = (v - view["attack_to_absorb"]) / 20
        attack_after = 0
    elif k == RA.JESTER_REFRESH:
        kinds[6] = 1.0
        kept = []
    elif k == RA.CHOOSE:
        kinds[7] = 1.0
    kept_value = _mask_value(kept)
    own_draws = draws if players == 1 else min(draws, max_hand - len(kept))
    if k == RA.JESTER_REFRESH:
        # the whole hand is discarded, then up to a full hand drawn (rules 1.14)
        own_draws = min(max_hand, tavern)
    expected_after = kept_value + 5 * own_draws  # an unknown card is worth about 5
    margin = expected_after - attack_after
    best_next = _best_damage(kept, -1 if kills else blocked)
    left_after = health_left - damage if not kills else 0
    next_margin = expected_after - next_attack if kills else 0
    return kinds + [
        len(cards) / 8, v / 20,
        CLUBS in suits, DIAMONDS in suits, HEARTS in suits, SPADES in suits,
        CLUBS in work, DIAMONDS in work, HEARTS in work, SPADES in work,
        damage / 40, kills, exact, overkill / 20, left_after / 40,
        shield_added / 20, own_draws / 8, heals / 20,
        attack_after / 20, float(margin >= 0), _clip((margin + 20) / 60),
        _clip(-margin / 20),
        len(kept) / 8, kept_value / 80,
        sum(1 for c in kept if RANK[c] == 1) / 4,
        sum(1 for c in kept if c < 52 and RANK[c] >= JACK) / 4,
        *(sum(1 for c in kept if c < 52 and SUIT[c] == s) / 8 for s in range(4)),
        best_next / 40, float(best_next >= (left_after if not kills else 2 * next_attack)),
        _clip(discard_excess), next_attack / 20, _clip((next_margin + 20) / 60),
    ]


# ----------------------------------------------------------------------------- Ribauds

RIBAUDS_SAMPLES = 16
RIBAUDS_FEATURE_NAMES: tuple[str, ...] = (
    # the position
    "phase_act", "phase_knight_swap", "phase_knight_flip", "phase_king", "phase_king_discard",
    "phase_assassin",
    "hand_roi", "hand_reine", "hand_chevalier", "hand_assassin",
    "opponent_roi", "opponent_reine", "opponent_chevalier", "opponent_assassin",
    "seen_roi", "seen_reine", "seen_chevalier", "seen_assassin",
    "up_0", "up_1", "up_2", "up_3", "known_0", "known_1", "known_2", "known_3",
    "opponent_knows_0", "opponent_knows_1", "opponent_knows_2", "opponent_knows_3",
    "up_roi", "up_reine", "up_chevalier", "up_assassin",
    "deck", "discard_roi", "discard_reine", "discard_chevalier", "discard_assassin",
    # the action
    "kind_reveal", "kind_replace", "kind_swap", "kind_flip", "kind_draw", "kind_discard",
    "kind_peek",
    "slot_0", "slot_1", "slot_2", "slot_3",
    "placed_roi", "placed_reine", "placed_chevalier", "placed_assassin", "placed_up",
    "target_roi", "target_reine", "target_chevalier", "target_assassin", "target_unknown",
    "target_up",
    "discards_roi", "discards_reine", "discards_chevalier", "discards_assassin",
    "peeks_unknown",
    # the look-ahead in sampled positions
    "sure_win", "wins", "hands_over", "marriage_threat", "turn_goes_on",
    "reines_after", "opponent_reines_after", "known_after", "opponent_known_after",
    "up_rois_after", "up_assassins_after",
)
RIBAUDS_FEATURES = len(RIBAUDS_FEATURE_NAMES)


def _ribauds_counts(texts) -> list[int]:
    from regalia.games.ribauds.cards import parse_card as parse

    out = [0, 0, 0, 0]
    for t in texts or []:
        out[parse(t)] += 1
    return out


def ribauds_sure_win(view: dict[str, Any], legal: Sequence[int],
                     rng: random.Random) -> int | None:
    """The first legal action that surely wins this turn as the seat knows (through the
    effect it resolves too: ``regalia.bots.ribauds.play.sure_win``), or ``None``."""
    from regalia.bots.ribauds.belief import determinize
    from regalia.bots.ribauds.play import sure_win

    probe = determinize(view, rng)
    for a in legal:
        if sure_win(probe, a):
            return a
    return None


def ribauds_features(view: dict[str, Any], legal: Sequence[int], rng: random.Random,
                     samples: int = RIBAUDS_SAMPLES) -> np.ndarray:
    """Features of each legal Ribauds action code (see the module doc): float32 array of
    shape ``(len(legal), RIBAUDS_FEATURES)``, every value in [0, 1]; the look-ahead plays
    each action in ``samples`` positions drawn with ``rng`` from the seat's knowledge.
    Raises ``ValueError`` for a view without a hand (a spectator's) or ``samples`` < 1."""
    from regalia.bots.ribauds.belief import determinize
    from regalia.bots.ribauds.play import _threats, sure_win
    from regalia.games.ribauds import RIBAUDS as G
    from regalia.games.ribauds import actions as BA
    from regalia.games.ribauds.cards import ASSASSIN, KING, QUEEN, parse_card as parse
    from regalia.games.ribauds.state import PHASES, UNKNOWN, WON

    if view.get("hand") is None:
        raise ValueError("ribauds_features needs a seat's view (a spectator has no hand)")
    if samples < 1:
        raise ValueError(f"samples {samples}: give 1 or more")
    me = view["seat"]
    hand = _ribauds_counts(view["hand"])
    court = view["court"]
    known = [parse(c["card"]) if c["known"] else -1 for c in court]
    up = [bool(c["face_up"]) for c in court]
    up_types = [0, 0, 0, 0]
    for i in range(4):
        if up[i]:
            up_types[known[i]] += 1
    base = ([view["phase"] == ph for ph in PHASES[:6]]
            + [n / 3 for n in hand]
            + [n / 3 for n in _ribauds_counts(view["opponent_hand_known"])]
            + [n / 3 for n in _ribauds_counts(view["hand_known_by_opponent"])]
            + up + [k >= 0 for k in known] + [c["known_by"][1 - me] for c in court]
            + [n / 4 for n in up_types]
            + [view["deck"] / 16] + [n / 4 for n in _ribauds_counts(view["discard"])])
    worlds = [determinize(view, rng) for _ in range(samples)]
    rows = np.zeros((len(legal), RIBAUDS_FEATURES), np.float32)
    for r, a in enumerate(legal):
        kind, arg = a >> BA.SHIFT, a & BA.ARG
        kinds = [0.0] * 7
        kinds[kind] = 1.0
        slots = [0.0] * 4
        placed = [0.0] * 5
        target = [0.0] * 6
        discards = [0.0] * 4
        peeks_unknown = 0.0
        t_slot = None
        if kind in (BA.REVEAL, BA.FLIP):
            t_slot = arg
        elif kind == BA.REPLACE:
            t_slot = arg >> 3
            placed[arg >> 1 & 3] = 1.0
            placed[4] = float(arg & 1)
        elif kind == BA.SWAP:
            slots[arg >> 2] = slots[arg & 3] = 1.0
        elif kind == BA.DISCARD:
            discards[arg >> 2] += 0.5
            discards[arg & 3] += 0.5
        elif kind == BA.PEEK:
            picked = [i for i in range(4) if arg >> i & 1]
            for i in picked:
                slots[i] = 1.0
            peeks_unknown = sum(known[i] < 0 for i in picked) / 2
        if t_slot is not None:
            slots[t_slot] = 1.0
            if known[t_slot] >= 0:
                target[known[t_slot]] = 1.0
            else:
                target[4] = 1.0
            target[5] = float(up[t_slot])
        wins = handed = marriage = goes_on = 0
        reines = opp_reines = know_me = know_opp = kings = assassins = 0.0
        for w in worlds:
            t, _ = G.apply(w, a, rng)
            if t.phase == WON:
                if t.winner == me:
                    wins += 1
                else:
                    handed += 1
                continue
            if t.current == me:
                goes_on += 1
            else:
                if _threats(t):
                    handed += 1
                if t.hands[1 - me][QUEEN] >= 3:
                    marriage += 1
            reines += t.hands[me][QUEEN]
            opp_reines += t.hands[1 - me][QUEEN]
            know_me += sum(k != UNKNOWN for k in t.know[me])
            know_opp += sum(k != UNKNOWN for k in t.know[1 - me])
            kings += sum(1 for i in range(4) if t.up >> i & 1 and t.court[i] == KING)
            assassins += sum(1 for i in range(4) if t.up >> i & 1 and t.court[i] == ASSASSIN)
        n = len(worlds)
        rows[r] = base + kinds + slots + placed + target + discards + [peeks_unknown] + [
            float(sure_win(worlds[0], a)), wins / n, handed / n, marriage / n, goes_on / n,
            reines / (3 * n), opp_reines / (3 * n), know_me / (4 * n), know_opp / (4 * n),
            kings / (4 * n), assassins / (4 * n)]
    np.clip(rows, 0.0, 1.0, out=rows)
    return rows
