"""Regicide position JSON, read (formats.md 1.2); ``state.to_json`` writes it.

``from_json`` refuses unknown fields, missing required fields, cards that stand in two places
and impossible values with an ``InvalidPosition`` that names the field.
"""

from __future__ import annotations

from typing import Any

from regalia.core.errors import InvalidPosition
from regalia.core.positions import check_fields
from regalia.games.regicide.cards import (
    HEALTH,
    IS_ROYAL,
    JESTER_MASK,
    JESTERS,
    RANK,
    SPADES,
    SUIT,
    TEXT,
    VALUE,
    CardError,
    cards_of,
    parse_card,
)
from regalia.games.regicide.state import (
    CHOOSE,
    JESTERS_IN_TAVERN,
    MAX_HAND,
    PHASES,
    PLAY,
    SUFFER,
    WON,
    Options,
    State,
)

FIELDS = ("game", "players", "current", "phase", "enemy", "damage", "immunity_cancelled",
          "table", "castle", "tavern", "discard", "hands", "yielded", "jesters",
          "preferences", "options")
REQUIRED = ("game", "players", "current", "phase", "enemy", "damage", "castle", "tavern",
            "discard", "hands")


class _CardReader:
    """Reads card lists, refusing a card that stands in two places."""

    def __init__(self) -> None:
        self.where: dict[int, str] = {}
        self.jesters_used = 0

    def card(self, text: Any, field: str) -> int:
        if not isinstance(text, str):
            raise InvalidPosition(f"{field}: {text!r} is not a card text")
        try:
            c = parse_card(text)
        except CardError as e:
            raise InvalidPosition(f"{field}: {e}") from None
        if c in JESTERS:
            if self.jesters_used == 2:
                raise InvalidPosition(f"{field}: X appears more than twice (there are 2 Jesters)")
            c = JESTERS[self.jesters_used]
            self.jesters_used += 1
        elif c in self.where:
            raise InvalidPosition(f"{field}: {TEXT[c]} is already in {self.where[c]}")
        self.where[c] = field
        return c

    def cards(self, value: Any, field: str) -> list[int]:
        if not isinstance(value, list):
            raise InvalidPosition(f"{field}: must be a list of cards")
        return [self.card(v, field) for v in value]


def _int(obj: dict, key: str, lo: int, hi: int) -> int:
    v = obj[key]
    if type(v) is not int or not lo <= v <= hi:
        raise InvalidPosition(f"{key}: must be an integer from {lo} to {hi}, not {v!r}")
    return v


def from_json(obj: Any) -> State:
    """State of a position object; raises ``InvalidPosition`` naming the field at fault."""
    check_fields(obj, "regicide", FIELDS, REQUIRED)
    s = State.__new__(State)
    s.log = None
    players = s.players = _int(obj, "players", 1, 4)
    s.current = _int(obj, "current", 0, players - 1)
    if obj["phase"] not in PHASES:
        raise InvalidPosition(f"phase: {obj['phase']!r}; the phases are {', '.join(PHASES)}")
    s.phase = obj["phase"]
    s.options = Options.from_dict(obj.get("options", {}), players)
    reader = _CardReader()
    if obj["enemy"] is None:
        if s.phase != WON:
            raise InvalidPosition("enemy: null is only possible in phase won")
        s.enemy = None
    else:
        s.enemy = reader.card(obj["enemy"], "enemy")
        if not IS_ROYAL[s.enemy]:
            raise InvalidPosition(f"enemy: {TEXT[s.enemy]} is not a royal (J, Q or K)")
        if s.phase == WON:
            raise InvalidPosition("enemy: must be null once the game is won")
    damage = obj["damage"]
    health = HEALTH[RANK[s.enemy]] if s.enemy is not None else 1
    if type(damage) is not int or damage < 0 or (s.enemy is not None and damage >= health):
        raise InvalidPosition(f"damage: must be an integer from 0 to {health - 1}, not {damage!r}")
    s.damage = damage
    cancelled = obj.get("immunity_cancelled", False)
    if type(cancelled) is not bool:
        raise InvalidPosition("immunity_cancelled: must be true or false")
    s.cancelled = cancelled
    table = obj.get("table", [])
    if not isinstance(table, list):
        raise InvalidPosition("table: must be a list of plays (lists of cards)")
    s.table = []
    s.spades = 0
    for play in table:
        cards = reader.cards(play, "table")
        if not cards:
            raise InvalidPosition("table: a play holds at least one card")
        m = 0
        for c in cards:
            m |= 1 << c
        s.table.append(m)
        if any(SUIT[c] == SPADES for c in cards):
            s.spades += sum(VALUE[c] for c in cards)
    castle = reader.cards(obj["castle"], "castle")
    for c in castle:
        if not IS_ROYAL[c]:
            raise InvalidPosition(f"castle: {TEXT[c]} is not a royal (J, Q or K)")
    s.castle = castle[::-1]
    tavern = reader.cards(obj["tavern"], "tavern")
    s.tavern = tavern[::-1]
    # Which top Tavern cards are public (exact-kill royals, rules 1.15) is not part of a
    # position: a position read from JSON reveals none of them rather than risk a leak.
    s.known_top = 0
    s.discard = reader.cards(obj["discard"], "discard")[::-1]
    hands = obj["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise InvalidPosition(f"hands: must be a list of {players} hands")
    s.hands = []
    for i, h in enumerate(hands):
        cards = reader.cards(h, f"hands[{i}]")
        if len(cards) > MAX_HAND[players]:
            raise InvalidPosition(f"hands[{i}]: {len(cards)} cards, more than the maximum "
                                  f"hand size {MAX_HAND[players]} (rules 1.3)")
        m = 0
        for c in cards:
            m |= 1 << c
        s.hands.append(m)
    yielded = obj.get("yielded", [False] * players)
    if (not isinstance(yielded, list) or len(yielded) != players
            or any(type(y) is not bool for y in yielded)):
        raise InvalidPosition(f"yielded: must be a list of {players} booleans")
    s.yielded = list(yielded)
    default_jesters = 2 if players == 1 else 0
    jesters = obj.get("jesters", default_jesters)
    if type(jesters) is not int or not 0 <= jesters <= (2 if players == 1 else 0):
        raise InvalidPosition("jesters: 0 to 2 in solo, 0 otherwise")
    if players == 1 and reader.jesters_used + jesters > 2:
        raise InvalidPosition("jesters: more Jesters than the 2 of the deck")
    s.jesters = jesters
    prefs = obj.get("preferences", [None] * players)
    if (not isinstance(prefs, list) or len(prefs) != players
            or any(x not in (None, "yes", "no") for x in prefs)):
        raise InvalidPosition(f"preferences: must be a list of {players} values yes, no or null")
    if s.phase != CHOOSE and any(x is not None for x in prefs):
        raise InvalidPosition("preferences: wishes exist only in phase choose")
    if prefs[s.current] is not None:
        raise InvalidPosition("preferences: the Jester's player states no wish")
    s.preferences = list(prefs)
    from regalia.games.regicide.rules import can_yield, effective_attack, mask_value, play_problem

    if reader.jesters_used > JESTERS_IN_TAVERN[players]:
        raise InvalidPosition(f"hands: {reader.jesters_used} X in play, but a {players}-player "
                              f"game has {JESTERS_IN_TAVERN[players]} Jester(s) in the Tavern "
                              "deck (rules 1.3)")
    for play in s.table:
        why = play_problem(play)
        if why:
            raise InvalidPosition(f"table: {' '.join(TEXT[c] for c in cards_of(play))} is not a "
                                  f"legal play: {why}")
        if play & JESTER_MASK and not s.cancelled:
            raise InvalidPosition("immunity_cancelled: a Jester on the table has cancelled the "
                                  "enemy's immunity (rules 1.9), so it must be true")
    if s.cancelled and not any(play & JESTER_MASK for play in s.table):
        raise InvalidPosition("immunity_cancelled: only a Jester played against this enemy "
                              "cancels its immunity, and none is on the table (rules 1.10)")
    if players > 1 and all(s.yielded):
        raise InvalidPosition("yielded: not every player can have yielded on their most recent "
                              "turn (rules 1.11)")
    if players == 1 and s.yielded[0] and not s.options.solo_yield:
        raise InvalidPosition("yielded: no yielding in solo without option solo_yield (rules 1.11)")
    ranks = ([RANK[s.enemy]] if s.enemy is not None else []) + [RANK[c] for c in castle]
    if any(a > b for a, b in zip(ranks, ranks[1:])):
        raise InvalidPosition("castle: the Castle deck holds Jacks above Queens above Kings "
                              "(rules 1.3), and the enemy is of the top rank")
    if s.phase == WON and (s.damage or s.table):
        raise InvalidPosition("damage: a won game has no enemy, so no damage and no table")

    if s.phase == SUFFER:
        d = effective_attack(s)
        if d == 0:
            raise InvalidPosition("phase: suffer with an attack of 0 cannot happen (Step 4 is "
                                  "skipped, rules 1.8)")
        if mask_value(s.hands[s.current]) < d and not s.jesters:
            raise InvalidPosition(f"phase: seat {s.current} cannot absorb the attack of {d}, so "
                                  "the players have lost (rules 1.8): write phase lost")
    if (s.phase == PLAY and not s.hands[s.current] and not can_yield(s, s.current)
            and not s.jesters):
        raise InvalidPosition(f"phase: seat {s.current} can neither play nor yield, so the "
                              "players have lost (rules 1.13): write phase lost")
    if s.phase == WON and s.castle:
        raise InvalidPosition("castle: the game is won only when the Castle deck is empty "
                              "(rules 1.13)")
    if s.phase == CHOOSE and not (s.table and any(c in JESTERS for c in cards_of(s.table[-1]))):
        raise InvalidPosition("phase: choose follows a Jester play, but the last play on the "
                              "table is not a Jester")
    if s.phase in (PLAY, SUFFER, CHOOSE) and s.enemy is None:
        raise InvalidPosition("enemy: a game in progress has an enemy")
    return s
