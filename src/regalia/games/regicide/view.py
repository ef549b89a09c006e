"""What one seat may know of a Regicide game (rules 1.15).

``view(state, seat)`` is the only way Regicide information leaves the engine toward a
player: its own hand, the sizes of the other hands, pile sizes, the discard pile's top card,
the table, the enemy and the public log (with that seat's private details). A spectator
(``seat=None``) gets no hand.
"""

from __future__ import annotations

from typing import Any

from regalia.core.game import log_events
from regalia.games.regicide.cards import JACK, KING, QUEEN, RANK, SUIT_LETTERS, SUIT, TEXT, cards_of
from regalia.games.regicide.rules import (
    can_yield,
    effective_attack,
    enemies_defeated,
    enemy_attack,
    enemy_health,
    medal,
    shield,
)
from regalia.games.regicide.state import State


def view(s: State, seat: int | None, log: bool = True) -> dict[str, Any]:
    """JSON-able dict of what ``seat`` may know (``None``: a spectator).

    Keys: ``game``, ``seat``, ``players``, ``current``, ``phase``, ``enemy`` (card text or
    ``None``), ``enemy_suit``, ``attack``, ``health``, ``damage``, ``shield``, ``immune``
    (the enemy's immunity is active), ``attack_after_shield`` (the attack the enemy would
    deal now, rules 1.8), ``attack_to_absorb`` (the same, in phase ``suffer`` only), ``table``
    (plays, oldest first), ``castle`` (size) and ``castle_ranks`` (Jacks/Queens/Kings left),
    ``tavern`` (size), ``tavern_top`` (publicly known top cards, top first), ``discard``
    (size), ``discard_top``, ``hand`` (own cards, absent for spectators), ``hand_sizes``,
    ``yielded``, ``can_yield``, ``jesters``, ``preferences``, ``options``, ``medal``,
    ``enemies_defeated``, ``log`` (events as that seat sees them, oldest first; left out
    with ``log=False``).
    """
    attack = effective_attack(s)
    out: dict[str, Any] = {
        "game": "regicide",
        "seat": seat,
        "players": s.players,
        "current": s.current,
        "phase": s.phase,
        "enemy": TEXT[s.enemy] if s.enemy is not None else None,
        "enemy_suit": SUIT_LETTERS[SUIT[s.enemy]] if s.enemy is not None else None,
        "attack": enemy_attack(s),
        "health": enemy_health(s),
        "damage": s.damage,
        "shield": shield(s),
        "immune": s.enemy is not None and not s.cancelled,
        "attack_after_shield": attack,
        "attack_to_absorb": attack if s.phase == "suffer" else 0,
        "table": [[TEXT[c] for c in cards_of(m)] for m in s.table],
        "castle": len(s.castle),
        "castle_ranks": {name: sum(1 for c in s.castle if RANK[c] == r)
                         for name, r in (("J", JACK), ("Q", QUEEN), ("K", KING))},
        "tavern": len(s.tavern),
        "tavern_top": [TEXT[c] for c in reversed(s.tavern[len(s.tavern) - s.known_top:])],
        "discard": len(s.discard),
        "discard_top": TEXT[s.discard[-1]] if s.discard else None,
        "hand_sizes": [h.bit_count() for h in s.hands],
        "yielded": list(s.yielded),
        "can_yield": can_yield(s, s.current),
        "jesters": s.jesters,
        "preferences": list(s.preferences),
        "options": s.options.to_dict(),
        "medal": medal(s),
        "enemies_defeated": enemies_defeated(s),
    }
    if log:
        out["log"] = [e.seen_by(seat) for e in log_events(s.log)]
    if seat is not None:
        out["hand"] = [TEXT[c] for c in cards_of(s.hands[seat])]
    return out
