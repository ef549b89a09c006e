"""Le Roy des Ribauds position JSON, read (formats.md 2.2); ``state.to_json`` writes it.

``from_json`` refuses unknown fields, missing required fields (every field but ``options``,
which defaults to ``{}`` as Regicide's does), more than 4 cards of a type (3.L1) and
impossible values, with an ``InvalidPosition`` naming the field. Cards that play no part
may be left out of the piles (a test position need not hold all 16). A hand holds 3 cards
(5 for the Roi's player in phase ``king_discard``; rules 2.3 step 2, 2.4, 2.8), fewer only
where piles of fewer than 2 cards made a Roi's draw fall short (``_hand_problem``): a hand
of another size can leave the player to act with no legal action, at once or after legal
moves, while with these sizes no position read gets stuck and every position reached from
one is read back. As a last check, a position not won in which the player to act has no
legal action is refused (rules 2.3 step 2: passing is not allowed).
A state read from a position knows only what is public: face-up Court cards are known to
both seats, face-down ones to neither; no seat knows any card of the other's hand; no
bottom card of the draw pile is known; the log is empty.

A position in phase ``act`` is the start of ``current``'s turn: reading one whose
``current`` holds 3 Reines applies the Marriage (rules 2.3 step 1), so the state read is
won. A position not won whose Court already shows the Coronation or the Murder is refused:
the player who completed it would have won at once (rules 2.3 step 3).
"""

from __future__ import annotations

from typing import Any

from regalia.core.errors import InvalidPosition
from regalia.core.positions import check_fields
from regalia.core.game import Event
from regalia.games.ribauds.cards import (
    ASSASSIN,
    KING,
    KNIGHT,
    LETTERS,
    NAMES,
    CardError,
    parse_card,
)
from regalia.games.ribauds.inferred import COPIES
from regalia.games.ribauds.rules import court_conspiracy, legal_actions, marriage
from regalia.games.ribauds.state import (
    ACT,
    ASSASSIN_PEEK,
    CONSPIRACIES,
    KING_CHOICE,
    KING_DISCARD,
    KNIGHT_FLIP,
    KNIGHT_SWAP,
    MARRIAGE,
    PHASES,
    UNKNOWN,
    WON,
    Options,
    State,
)

FIELDS = ("game", "current", "phase", "court", "hands", "deck", "discard", "winner",
          "conspiracy", "options")
REQUIRED = ("game", "current", "phase", "court", "hands", "deck", "discard", "winner",
            "conspiracy")

# The face-up card a decision phase needs in the Court (rules 2.4): the card whose effect
# is being resolved stays face up until the effect ends (a Knight swap keeps orientation).
_PHASE_CARD = {KNIGHT_SWAP: KNIGHT, KNIGHT_FLIP: KNIGHT, KING_CHOICE: KING,
               KING_DISCARD: KING, ASSASSIN_PEEK: ASSASSIN}


class _CardCounter:
    """Reads cards, refusing a fifth card of a type (formats.md, rules 3.L1)."""

    def __init__(self) -> None:
        self.count = [0, 0, 0, 0]

    def card(self, text: Any, field: str) -> int:
        if not isinstance(text, str):
            raise InvalidPosition(f"{field}: {text!r} is not a card text")
        try:
            c = parse_card(text)
        except CardError as e:
            raise InvalidPosition(f"{field}: {e}") from None
        self.count[c] += 1
        if self.count[c] > COPIES[c]:
            raise InvalidPosition(f"{field}: one {LETTERS[c]} ({NAMES[c]}) too many; the game "
                                  f"has {COPIES[c]} of each type (rules 2.1, 3.L1)")
        return c

    def cards(self, value: Any, field: str) -> list[int]:
        if not isinstance(value, list):
            raise InvalidPosition(f"{field}: must be a list of cards (K, Q, N, A)")
        return [self.card(v, field) for v in value]


def _hand_problem(n: int, roi_discarding: bool, short_ok: bool) -> str | None:
    """Why a hand of ``n`` cards cannot be read, or ``None``. ``roi_discarding``: the hand
    of the Roi's player in phase ``king_discard``; ``short_ok``: a hand of 1 or 2 cards can
    be played on (the piles hold at least 2 cards, or the phase is ``king_discard`` or
    ``won``).

    Rules 2.3 step 2 and 2.8: in a game a hand holds 3 cards between turns and while an
    effect resolves (Replace swaps one card for one, the Reine's discards are drawn back);
    the Roi's player holds 5 for a moment (2.4: draw 2, then discard 2). A position may leave
    out cards of the piles (formats.md), and from piles of fewer than 2 cards a Roi's draw
    falls short (3.L12): the Roi's player then discards from 3 or 4 cards and keeps 1 or 2,
    which the reader must read back. Other hands are what gets a hand-made position stuck: a
    player holding no card with the whole Court face up cannot act (2.3), a Roi's player
    holding fewer than 2 cards after drawing cannot discard (2.4). With these sizes no
    position read gets stuck, and every position reached from one is read back: a short hand
    outside ``king_discard`` comes with at least 2 cards in the piles (the discards), so its
    Roi's draw leaves at least 3 cards to discard from.
    """
    if roi_discarding:
        if not 3 <= n <= 5:
            return (f"the Roi's player holds 5 cards in phase king_discard (3 plus the 2 "
                    f"drawn; rules 2.4, 2.8), 3 or 4 when the piles held fewer than 2 "
                    f"(3.L12), not {n}")
    elif n != 3 and not (short_ok and 1 <= n <= 2):
        return (f"{n} card{'s' if n != 1 else ''}; a hand holds 3 cards (rules 2.2 step 3, "
                "2.3 step 2, 2.8), 1 or 2 only when the draw and discard piles hold at least "
                "2 cards between them (3.L12), 5 only for the Roi's player in phase "
                "king_discard (rules 2.4)")
    return None


def from_json(obj: Any) -> State:
    """State of a position object; raises ``InvalidPosition`` naming the field at fault."""
    check_fields(obj, "ribauds", FIELDS, REQUIRED)
    current = obj["current"]
    if type(current) is not int or current not in (0, 1):
        raise InvalidPosition(f"current: must be the seat 0 or 1, not {current!r}")
    phase = obj["phase"]
    if phase not in PHASES:
        raise InvalidPosition(f"phase: {phase!r}; the phases are {', '.join(PHASES)}")
    options = Options.from_dict(obj.get("options", {}))
    reader = _CardCounter()

    court_obj = obj["court"]
    if not isinstance(court_obj, list) or len(court_obj) != 4:
        raise InvalidPosition("court: must be a list of 4 slots such as 'K+' (face up) or "
                              "'Q-' (face down)")
    court: list[int] = []
    up = 0
    for i, slot in enumerate(court_obj):
        field = f"court[{i}]"
        if not isinstance(slot, str) or len(slot.strip()) != 2 or slot.strip()[1] not in "+-":
            raise InvalidPosition(f"{field}: {slot!r}; write a card letter then + (face up) "
                                  "or - (face down), e.g. 'K+'")
        court.append(reader.card(slot.strip()[0], field))
        if slot.strip()[1] == "+":
            up |= 1 << i

    hands_obj = obj["hands"]
    if not isinstance(hands_obj, list) or len(hands_obj) != 2:
        raise InvalidPosition("hands: must be a list of 2 hands")
    hands: list[list[int]] = []
    for seat, h in enumerate(hands_obj):
        cards = reader.cards(h, f"hands[{seat}]")
        counts = [0, 0, 0, 0]
        for c in cards:
            counts[c] += 1
        hands.append(counts)
    deck = reader.cards(obj["deck"], "deck")
    discard = reader.cards(obj["discard"], "discard")
    short_ok = len(deck) + len(discard) >= 2 or phase in (KING_DISCARD, WON)
    for seat, counts in enumerate(hands):
        problem = _hand_problem(sum(counts), phase == KING_DISCARD and seat == current,
                                short_ok)
        if problem is not None:
            raise InvalidPosition(f"hands[{seat}]: {problem}")

    winner = obj["winner"]
    conspiracy = obj["conspiracy"]
    if winner is not None and (type(winner) is not int or winner not in (0, 1)):
        raise InvalidPosition(f"winner: must be 0, 1 or null, not {winner!r}")
    if conspiracy is not None and conspiracy not in CONSPIRACIES:
        raise InvalidPosition(f"conspiracy: {conspiracy!r}; must be null or one of "
                              f"{', '.join(CONSPIRACIES)}")
    if phase == WON:
        if winner is None or conspiracy is None:
            raise InvalidPosition(f"{'winner' if winner is None else 'conspiracy'}: a won "
                                  "position names the winner and the conspiracy")
        if current != winner:
            raise InvalidPosition(f"current: {current}, but in a won position current is the "
                                  f"winner ({winner})")
        if conspiracy == MARRIAGE:
            if not marriage(hands[winner]):
                raise InvalidPosition(f"conspiracy: marriage, but hands[{winner}] does not "
                                      "hold 3 Reines (rules 2.5)")
        elif court_conspiracy(court, up) != conspiracy:
            raise InvalidPosition(f"conspiracy: {conspiracy}, but the Court does not show it "
                                  "(rules 2.5)")
    else:
        if winner is not None:
            raise InvalidPosition(f"winner: must be null in phase {phase} (only won "
                                  "positions have a winner)")
        if conspiracy is not None:
            raise InvalidPosition(f"conspiracy: must be null in phase {phase}")
        shown = court_conspiracy(court, up)
        if shown is not None:
            raise InvalidPosition(f"court: shows the {shown}, which the player who completed "
                                  "it would have won at once (rules 2.3 step 3); write the "
                                  "position as won")
        need = _PHASE_CARD.get(phase)
        if need is not None and not any(up >> i & 1 and c == need for i, c in enumerate(court)):
            raise InvalidPosition(f"phase: {phase} resolves a face-up {NAMES[need]}, but the "
                                  "Court shows none (rules 2.4)")
        if phase == ASSASSIN_PEEK and up == 15:
            raise InvalidPosition("phase: assassin needs a face-down Court card to look at "
                                  "(rules 2.4)")

    s = State.__new__(State)
    s.current = current
    s.phase = phase
    s.court = court
    s.up = up
    s.hands = hands
    s.deck = deck[::-1]
    s.discard = discard[::-1]
    s.winner = winner
    s.conspiracy = conspiracy
    s.options = options
    s.know = [[c if up >> i & 1 else UNKNOWN for i, c in enumerate(court)] for _ in range(2)]
    s.seen = [[0, 0, 0, 0], [0, 0, 0, 0]]
    s.bottom_reines = 0
    s.redeals = ()
    s.log = None
    if phase == ACT and marriage(hands[current]):  # rules 2.3 step 1 at the turn's start
        s.phase = WON
        s.winner = current
        s.conspiracy = MARRIAGE
        s.log = (Event("win", current, {"conspiracy": MARRIAGE}), None)
    if s.phase != WON and not legal_actions(s):
        # Rules 2.3 step 2: passing is not allowed, so a game not over always has an action
        # for the player to act. The checks above already refuse every such position; this
        # one keeps the reader from ever handing out a stuck game.
        raise InvalidPosition(f"phase: the player to act (seat {current}) has no legal "
                              f"action in phase {phase}, and passing is not allowed "
                              "(rules 2.3 step 2)")
    return s


__all__ = ["from_json", "to_json"]
