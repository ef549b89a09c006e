"""Why a suggested Regicide move is good, in one reason a page can translate.

``hint_reason(view, action)`` reads the acting seat's view (``regicide.view.view``: its own
hand and the public table, never a hidden card) and one of its legal action codes, and
returns the most telling fact of that move as ``{"key": KIND, **params}``: an exact kill
that puts the enemy on top of the Tavern deck, a shield that stops the whole attack, a suit
power the enemy's immunity blocks, the cards a Step 4 discard keeps... ``REASONS`` lists
every kind with its parameters; a page writes the reason in its own language from the key
(the browser's texts ``hints.why.KIND``).

Which fact, when several hold. A play: the Jester; a defeat (the game won, an exact kill,
an overkill); Spades that bring the attack to 0; a play whose every power the enemy blocks;
a play that leaves in hand a card of the enemy's suit worth as much (its power would be
lost); then the first power that acts, in the order Clubs, Spades (while some attack is
left), Diamonds, Hearts (while a card moves); else the damage. A Step 4 discard: the whole
hand when every card is needed; cards of the enemy's suit only; a suit kept whole (not the
enemy's, the one worth most); exactly the attack; else the total and the cards kept.

Parameters, by name: ``enemy`` a card in notation (``"KH"``); ``suit`` a suit letter
(``C``, ``D``, ``H``, ``S``) and ``suits`` a list of them; ``who`` a seat (0-based);
``attack``, ``total``, ``damage``, ``left``, ``shield`` and ``n`` numbers (``n`` a count,
for the texts' singular and plural).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import SUIT, SUIT_LETTERS, TEXT, VALUE, cards_of, parse_card
from regalia.games.regicide.state import MAX_HAND

# Every reason kind and its parameters (rules sections in parentheses).
REASONS: dict[str, tuple[str, ...]] = {
    # playing the Jester (1.10)
    "jester": ("enemy", "suit"),          # it cancels the immunity, no attack, you choose
    "jester_again": ("enemy",),           # immunity already cancelled: no attack, you choose
    # a play that defeats the enemy (1.7)
    "won": ("enemy",),                    # the last King falls: the game is won
    "exact_kill": ("enemy",),             # exactly its health: on top of the Tavern deck
    "kill": ("enemy", "damage"),          # no attack, you play again
    # a play that does not (1.6, 1.8, 1.9)
    "shield_all": ("attack",),            # Spades bring the attack to 0: nothing to discard
    "blocked_anyway": ("suit", "damage"),  # a card whose power this enemy blocks anyway
    "avoid_immune": ("suit", "suits"),    # not the card of the enemy's suit worth as much
    "double": ("damage", "enemy", "left"),  # Clubs double the damage
    "shield": ("shield", "attack"),       # Spades shield part of the attack
    "draw": ("n",),                       # Diamonds draw n cards
    "heal": ("n",),                       # Hearts put n cards back into the Tavern deck
    "damage": ("damage", "enemy", "left"),  # only the value counts
    # Step 4 (1.8)
    "discard_all": ("attack", "total"),   # only the whole hand absorbs the attack
    "discard_blocked": ("suit", "attack"),  # cards whose power this enemy blocks
    "discard_keep": ("suit", "attack"),   # every card of a suit is kept
    "discard_exact": ("attack",),         # exactly the attack: nothing more is lost
    "discard": ("attack", "total", "n"),  # n cards are kept
    # the solo Jester (1.14)
    "refresh_survive": ("attack", "total"),  # the hand cannot absorb the attack
    "refresh_empty": (),                  # nothing left to play
    "refresh": ("n",),                    # n cards discarded for a new hand
    # yielding (1.11)
    "yield_shielded": ("shield",),        # the shield stops the whole attack
    "yield": ("attack",),                 # no card played, the hand absorbs the attack
    # choosing who goes next after a Jester (1.10)
    "choose_wish": ("who",),              # that player said they would like to go next
    "choose_hand": ("who", "n"),          # that player holds the most cards
    "choose": ("who",),
}

_DISCARD_PREFERENCE = "CSDH"  # which kept suit to name first when several are kept alike


def _suits(cards: list[int]) -> set[str]:
    return {SUIT_LETTERS[SUIT[c]] for c in cards if SUIT[c] >= 0}


def _hand(view: dict[str, Any]) -> list[int]:
    if "hand" not in view:
        raise ValueError("a hint's reason needs the acting seat's view (with its hand), "
                         "not a spectator's")
    return [parse_card(t) for t in view["hand"]]


def hint_reason(view: dict[str, Any], action: int) -> dict[str, Any]:
    """The reason for ``action`` (an action code, legal for the seat to act) from that seat's
    ``view`` (``REGICIDE.view(state, seat)``): ``{"key": KIND, **params}`` with a kind of
    ``REASONS`` and its parameters (see the module doc). Only the view is read, so two
    positions with the same view give the same reason. Raises ``ValueError`` for a view
    without a hand (a spectator's) or an action code of no known kind."""
    hand = _hand(view)
    kind = A.kind(action)
    cards = cards_of(A.arg(action)) if kind in (A.PLAY, A.DISCARD) else []
    if kind == A.PLAY:
        return _play(view, hand, cards)
    if kind == A.DISCARD:
        return _discard(view, hand, cards)
    if kind == A.JESTER_REFRESH:
        total = sum(VALUE[c] for c in hand)
        if view["phase"] == "suffer" and total < view["attack_to_absorb"]:
            return {"key": "refresh_survive", "attack": view["attack_to_absorb"], "total": total}
        if not hand:
            return {"key": "refresh_empty"}
        return {"key": "refresh", "n": len(hand)}
    if kind == A.YIELD:
        if view["attack_after_shield"] == 0:
            return {"key": "yield_shielded", "shield": view["shield"]}
        return {"key": "yield", "attack": view["attack_after_shield"]}
    if kind == A.CHOOSE:
        who = A.arg(action)
        if view["preferences"][who] == "yes":
            return {"key": "choose_wish", "who": who}
        sizes = view["hand_sizes"]
        if sizes[who] > 0 and sizes[who] == max(sizes) and sizes.count(sizes[who]) == 1:
            return {"key": "choose_hand", "who": who, "n": sizes[who]}
        return {"key": "choose", "who": who}
    raise ValueError(f"no reason for the action code {action}: hints are plays, discards, "
                     "the Jester, yields and choices of who goes next")


def _play(view: dict[str, Any], hand: list[int], cards: list[int]) -> dict[str, Any]:
    """A Step 1 play (rules 1.5-1.9)."""
    enemy = view["enemy"]
    immune = view["enemy_suit"] if view["immune"] else None
    if any(SUIT[c] < 0 for c in cards):  # the Jester, always alone
        if immune:
            return {"key": "jester", "enemy": enemy, "suit": immune}
        return {"key": "jester_again", "enemy": enemy}
    value = sum(VALUE[c] for c in cards)
    suits = _suits(cards)
    active = suits - {immune}
    damage = 2 * value if "C" in active else value
    dealt = view["damage"] + damage
    if dealt >= view["health"]:  # rules 1.7
        if view["castle"] == 0:
            return {"key": "won", "enemy": enemy}
        if dealt == view["health"]:
            return {"key": "exact_kill", "enemy": enemy}
        return {"key": "kill", "enemy": enemy, "damage": damage}
    left = view["health"] - dealt
    shield = view["shield"] + (value if "S" in active else 0)
    attack = view["attack"]
    if "S" in active and view["attack_after_shield"] > 0 and shield >= attack:
        return {"key": "shield_all", "attack": attack}
    if not active:
        return {"key": "blocked_anyway", "suit": immune, "damage": damage}
    tempting = [VALUE[c] for c in _rest(hand, cards) if SUIT[c] >= 0
                and SUIT_LETTERS[SUIT[c]] == immune]
    if tempting and immune not in suits and max(tempting) >= value:
        # a card of the enemy's suit worth as much was at hand: its power would be lost
        return {"key": "avoid_immune", "suit": immune, "suits": sorted(active, key="CSDH".index)}
    if "C" in active:
        return {"key": "double", "damage": damage, "enemy": enemy, "left": left}
    if "S" in active and view["attack_after_shield"] > 0:  # (else it shields nothing more)
        return {"key": "shield", "shield": shield, "attack": attack}
    healed = min(value, view["discard"]) if "H" in active else 0
    if "D" in active:
        players = view["players"]
        sizes = list(view["hand_sizes"])
        sizes[view["seat"]] -= len(cards)
        room = sum(max(0, MAX_HAND[players] - n) for n in sizes)
        drawn = min(value, view["tavern"] + healed, room)  # Hearts first (rules 1.6)
        if drawn:
            return {"key": "draw", "n": drawn}
    if healed:
        return {"key": "heal", "n": healed}
    return {"key": "damage", "damage": damage, "enemy": enemy, "left": left}


def _rest(hand: list[int], cards: list[int]) -> list[int]:
    """``hand`` without ``cards`` (the two Jesters are one card: counted by text)."""
    gone = Counter(TEXT[c] for c in cards)
    out = []
    for c in hand:
        if gone[TEXT[c]]:
            gone[TEXT[c]] -= 1
        else:
            out.append(c)
    return out


def _discard(view: dict[str, Any], hand: list[int], cards: list[int]) -> dict[str, Any]:
    """A Step 4 discard (rules 1.8): which cards go, which are kept."""
    attack = view["attack_to_absorb"]
    total = sum(VALUE[c] for c in cards)
    kept = _rest(hand, cards)
    if not kept and total - min(VALUE[c] for c in cards) < attack:  # every card is needed
        return {"key": "discard_all", "attack": attack, "total": total}
    immune = view["enemy_suit"] if view["immune"] else None
    gone = _suits(cards)
    if immune and gone == {immune} and all(SUIT[c] >= 0 for c in cards):
        return {"key": "discard_blocked", "suit": immune, "attack": attack}
    whole = [s for s in _suits(kept) - gone if s != immune]
    if whole:
        worth = {s: sum(VALUE[c] for c in kept if SUIT_LETTERS[SUIT[c]] == s) for s in whole}
        best = min(whole, key=lambda s: (-worth[s], _DISCARD_PREFERENCE.index(s)))
        return {"key": "discard_keep", "suit": best, "attack": attack}
    if total == attack:
        return {"key": "discard_exact", "attack": attack}
    return {"key": "discard", "attack": attack, "total": total, "n": len(kept)}
