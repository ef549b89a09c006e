"""What one seat may know of a Le Roy des Ribauds game (rules 2.7).

``view(state, seat)`` is the only way information leaves the engine toward a player. It
holds everything the seat knows, so a reconnecting client or a bot needs no memory of its
own; it never shows a face-down card the seat does not know, nor a card of the opponent's
hand the seat has not seen there.
"""

from __future__ import annotations

from typing import Any

from regalia.core.game import log_events
from regalia.games.ribauds.cards import LETTERS, cards_of
from regalia.games.ribauds.state import State


def view(s: State, seat: int | None, log: bool = True) -> dict[str, Any]:
    """JSON-able dict of what ``seat`` (0 or 1) may know; ``None`` is a spectator.

    Keys:

    * ``game`` (``"ribauds"``), ``players`` (2), ``seat``, ``current``, ``phase``,
      ``winner``, ``conspiracy``, ``options`` (the non-default rule options);
    * ``court``: 4 dicts, slot 0 first: ``card`` (letter, or ``None`` when this seat does
      not know it), ``face_up``, ``known`` (this seat knows the card), ``known_by`` (per
      seat, whether that seat knows the card: public, rules 2.7);
    * ``hand``: own cards in canonical order (``None`` for a spectator);
      ``hand_sizes``: per seat;
    * ``opponent_hand_known``: cards this seat knows are in the opponent's hand now (a
      sub-multiset of that hand; ``None`` for a spectator);
      ``hand_known_by_opponent``: the cards of this seat's hand that the opponent knows
      (``None`` for a spectator);
    * ``deck``: draw pile size; ``deck_bottom_reines``: how many bottom cards of the draw
      pile are publicly known Reines (3.L17); ``discard``: the discard pile, top first
      (public, rules 2.7);
    * ``redeals``: the public setup re-deals (rules 2.2 step 4, 3.L17);
    * ``log``: the events as this seat sees them, oldest first (left out with ``log=False``).
    """
    court = []
    for i in range(4):
        card = s.court[i]
        face_up = bool(s.up >> i & 1)
        known = face_up or (seat is not None and s.know[seat][i] >= 0)
        court.append({
            "card": LETTERS[card] if known else None,
            "face_up": face_up,
            "known": known,
            "known_by": [s.know[0][i] >= 0, s.know[1][i] >= 0],
        })
    out: dict[str, Any] = {
        "game": "ribauds",
        "players": 2,
        "seat": seat,
        "current": s.current,
        "phase": s.phase,
        "winner": s.winner,
        "conspiracy": s.conspiracy,
        "options": s.options.to_dict(),
        "court": court,
        "hand": None,
        "hand_sizes": [sum(s.hands[0]), sum(s.hands[1])],
        "opponent_hand_known": None,
        "hand_known_by_opponent": None,
        "deck": len(s.deck),
        "deck_bottom_reines": s.bottom_reines,
        "discard": [LETTERS[c] for c in reversed(s.discard)],
        "redeals": [dict(r) for r in s.redeals],
    }
    if log:
        out["log"] = [e.seen_by(seat) for e in log_events(s.log)]
    if seat is not None:
        out["hand"] = [LETTERS[c] for c in cards_of(s.hands[seat])]
        out["opponent_hand_known"] = [LETTERS[c] for c in cards_of(s.seen[seat])]
        out["hand_known_by_opponent"] = [LETTERS[c] for c in cards_of(s.seen[1 - seat])]
    return out
