"""Le Roy des Ribauds rules: setup, legal actions and their effects (rules 2.2 to 2.6).

Everything here is a function of a ``State`` (see ``state``); ``apply`` copies the state
before changing it, so the caller's state never changes, refused action or not.

Turn flow (rules 2.3): phase ``act`` (Reveal or Replace); a card that resolves its effect
(2.4) may open a decision phase of the same seat: ``knight_swap`` then ``knight_flip``,
``king`` (then ``king_discard`` after ``draw``), ``assassin``. The Reine resolves at once
with the random generator. After every atomic change of the Court the Coronation and the
Murder are checked for the active player (2.3 step 3, 3.L8); the Marriage only when a turn
starts (2.3 step 1). When the turn ends, the opponent's turn starts in phase ``act``.

Events (``regalia.core.game.Event``; public ``data`` / per-seat ``private``; cards as
letters, slots 0-3), as logged in ``State.log``:

* ``redeal`` (seat or None): ``case`` ``"cancel"``/``"single"``, ``seat``; ``deal``:
  ``hand_sizes``, ``deck``, ``bottom_reines`` / private ``hand``; ``start`` (first seat);
* ``reveal`` and ``king_reveal``: ``slot``, ``card``;
* ``replace``: ``slot``, ``up``, ``card`` (``None`` face down), ``taken`` (``None``
  unless it was face up) or, with ``replaced_card="discard"``, ``discarded`` / private to
  the actor ``card`` and ``taken``, to the opponent ``taken`` when it knew that card;
* ``swap``: ``slots``; ``flip``: ``slot``, ``up``, ``card``;
* ``draw`` (seat drawing): ``count``, ``for`` (``king``, ``reine``, ``replace``), ``known``
  (public bottom Reines drawn) / private ``cards``; ``reshuffle``: ``count``;
* ``discard``: ``cards``; ``peek``: ``slots`` / private ``cards``;
* ``inspect`` (the Reine): ``target``, ``count``, ``discarded`` / private ``cards`` to both
  seats (the target learns which of its cards were seen);
* ``win``: ``conspiracy``.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from regalia.core.errors import IllegalAction, InvalidPosition, Reason
from regalia.core.game import Event
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.cards import ASSASSIN, KING, KNIGHT, LETTERS, NAMES, QUEEN, cards_of
from regalia.games.ribauds.inferred import full_deck, replaced_card_to_hand
from regalia.games.ribauds.knowledge import hand_gains, hand_inspected, hand_loses
from regalia.games.ribauds.state import (
    ACT,
    ASSASSIN_PEEK,
    CORONATION,
    KING_CHOICE,
    KING_DISCARD,
    KNIGHT_FLIP,
    KNIGHT_SWAP,
    MARRIAGE,
    MURDER,
    UNKNOWN,
    WON,
    Options,
    State,
)

HAND_SIZE = 3  # rules 2.2 step 3
COURT_SIZE = 4  # rules 2.1

# --------------------------------------------------------------------------- conspiracies


def coronation(court, up: int) -> bool:
    """At least 3 face-up Rois anywhere in the Court (rules 2.5, 3.L15).

    ``court``: 4 card ids; ``up``: face-up bit mask (bit ``i`` for slot ``i``).
    """
    c0, c1, c2, c3 = court
    return ((up & 1 and c0 == KING) + (up & 2 and c1 == KING) + (up & 4 and c2 == KING)
            + (up & 8 and c3 == KING)) >= 3


def murder(court, up: int) -> bool:
    """A face-up card directly between two face-up Assassins, slots 0-2 or 1-3, no wrap
    (rules 2.5, 3.L16). Arguments as for ``coronation``."""
    c0, c1, c2, c3 = court
    return ((up & 7 == 7 and c0 == ASSASSIN and c2 == ASSASSIN)
            or (up & 14 == 14 and c1 == ASSASSIN and c3 == ASSASSIN))


def court_conspiracy(court, up: int) -> str | None:
    """``"coronation"`` or ``"murder"`` if the Court shows one (both cannot hold at once:
    the Murder's 2 Assassins leave room for 2 Rois only)."""
    if coronation(court, up):
        return CORONATION
    if murder(court, up):
        return MURDER
    return None


def marriage(hand) -> bool:
    """A hand (count vector) of 3 Reines (rules 2.5)."""
    return hand[QUEEN] >= 3


# --------------------------------------------------------------------------- setup


class Deal(NamedTuple):
    """The result of the Reine check (rules 2.2 step 4).

    ``hands``: per seat a list of card ids; ``undealt``: the future draw pile, **top
    first**; ``redeals``: the public record, one dict per re-deal (``{"case": "cancel"}``
    or ``{"case": "single", "seat": s}``), oldest first; ``bottom_reines``: how many bottom
    cards of ``undealt`` are publicly known to be Reines (3.L17).
    """

    hands: list[list[int]]
    undealt: list[int]
    redeals: list[dict[str, Any]]
    bottom_reines: int


def resolve_reine_check(hands: list[list[int]], undealt: list[int],
                        rng: random.Random) -> Deal:
    """Apply the Reine check of rules 2.2 step 4 until neither case applies.

    ``hands``: the two dealt hands (lists of card ids); ``undealt``: the undealt cards, top
    first. Cancel case (one hand of 3 Reines, or 2 Reines in each hand): both hands go back
    to the undealt cards, which are shuffled with ``rng``, and 3 new cards are dealt to each
    seat from the top (seat 0 first); the Court is not touched (3.L6). Single case (one hand
    of exactly 2 Reines): those 2 Reines go to the bottom of the undealt cards and that seat
    draws the top 2 (3.L5, 3.L7). The inputs are not changed.

    Raises ``ValueError`` for cards with which the check cannot settle (never with the
    16-card deal: fewer than 2 undealt cards for a single case, or 1,000 cancels in a row).
    """
    hands = [list(h) for h in hands]
    undealt = list(undealt)
    redeals: list[dict[str, Any]] = []
    bottom = 0
    for _ in range(1000):
        q = [h.count(QUEEN) for h in hands]
        if 3 in q or q == [2, 2]:
            pool = undealt + hands[0] + hands[1]
            rng.shuffle(pool)
            hands = [pool[:HAND_SIZE], pool[HAND_SIZE:2 * HAND_SIZE]]
            undealt = pool[2 * HAND_SIZE:]
            bottom = 0
            redeals.append({"case": "cancel"})
            continue
        if 2 in q:
            if len(undealt) < 2:
                raise ValueError("the single re-deal needs at least 2 undealt cards")
            seat = q.index(2)
            hands[seat] = [c for c in hands[seat] if c != QUEEN]
            undealt += [QUEEN, QUEEN]
            bottom += 2
            hands[seat] += undealt[:2]
            undealt = undealt[2:]
            bottom = min(bottom, len(undealt))
            redeals.append({"case": "single", "seat": seat})
            continue
        return Deal(hands, undealt, redeals, bottom)
    raise ValueError("the Reine check does not settle with these cards")


def new_game(config: dict[str, Any] | None, rng: random.Random) -> State:
    """Deal a new game (rules 2.2).

    ``config``: ``{"players": 2}`` (optional) plus rule options (``replaced_card``,
    ``first_player``). Shuffles the 16 cards, deals 4 face down into the Court (slot 0
    first) and 3 to each seat, applies the Reine check, forms the draw pile from the 6 left
    and picks the first player (option ``first_player``, else at random). Raises
    ``InvalidPosition`` naming a bad key or value.
    """
    config = dict(config or {})
    players = config.pop("players", 2)
    if type(players) is not int or players != 2:
        raise InvalidPosition(f"players: Le Roy des Ribauds is for exactly 2 players, "
                              f"not {players!r}")
    options = Options.from_dict(config)
    cards = full_deck()
    rng.shuffle(cards)
    court = cards[:COURT_SIZE]
    deal = resolve_reine_check([cards[4:7], cards[7:10]], cards[10:], rng)
    s = State.__new__(State)
    s.court = court
    s.up = 0
    s.hands = [[0, 0, 0, 0], [0, 0, 0, 0]]
    for seat, h in enumerate(deal.hands):
        for c in h:
            s.hands[seat][c] += 1
    s.deck = deal.undealt[::-1]
    s.discard = []
    s.winner = None
    s.conspiracy = None
    s.options = options
    s.know = [[UNKNOWN] * 4, [UNKNOWN] * 4]
    s.seen = [[0, 0, 0, 0], [0, 0, 0, 0]]
    s.bottom_reines = deal.bottom_reines
    s.redeals = tuple(deal.redeals)
    s.log = None
    first = options.first_player if options.first_player is not None else rng.randrange(2)
    events: list[Event] = []
    for r in deal.redeals:
        _log(s, events, Event("redeal", r.get("seat"), dict(r)))
    _log(s, events, Event("deal", None, {"hand_sizes": [3, 3], "deck": len(s.deck),
                                         "bottom_reines": s.bottom_reines},
                          {q: {"hand": [LETTERS[c] for c in cards_of(s.hands[q])]}
                           for q in (0, 1)}))
    _log(s, events, Event("start", first, {}))
    _start_turn(s, first, events)
    return s


# --------------------------------------------------------------------------- legal actions
#
# Legality depends on little: the phase, the face-up mask and, in phases act and
# king_discard, the hand of the seat to act. The legal sets are tabulated once, so that
# ``legal_actions`` and ``apply`` share one source of truth and stay fast.


def _slots(mask: int) -> list[int]:
    return [i for i in range(4) if mask >> i & 1]


def _act_legal(up: int, types: int) -> tuple[int, ...]:
    """Phase act (rules 2.3): reveal any face-down slot (3.L4); replace any slot (3.L3)
    with any card type held (bit mask ``types``), face up or down."""
    out = [A.reveal(i) for i in _slots(15 & ~up)]
    out += [A.replace(i, c, u) for i in range(4) for c in _slots(types) for u in (False, True)]
    return tuple(sorted(out))


def _king_legal(up: int) -> tuple[int, ...]:
    """Phase king (rules 2.4, 3.L13): option (a) on any face-down slot, or option (b)."""
    return tuple([A.reveal(i) for i in _slots(15 & ~up)] + [A.DRAW_CODE])


def _peek_legal(up: int) -> tuple[int, ...]:
    """Phase assassin (rules 2.4, 3.L14): exactly min(2, face-down count) face-down slots."""
    down = _slots(15 & ~up)
    if len(down) <= 2:
        return (A.peek(down),) if down else ()
    return tuple(A.peek((a, b)) for ai, a in enumerate(down) for b in down[ai + 1:])


def _discard_legal(hand: tuple[int, ...]) -> tuple[int, ...]:
    """Phase king_discard (rules 2.4): any 2 cards of the hand (count vector)."""
    return tuple(A.discard(c1, c2) for c1 in range(4) for c2 in range(c1, 4)
                 if hand[c1] and hand[c2] >= (2 if c1 == c2 else 1))


class _Legal(NamedTuple):
    """A legal set: the codes ascending (``codes``) and as a set (``lookup``)."""

    codes: tuple[int, ...]
    lookup: frozenset[int]


def _entry(codes: tuple[int, ...]) -> _Legal:
    return _Legal(codes, frozenset(codes))


_ACT = [_entry(_act_legal(key & 15, key >> 4)) for key in range(256)]  # key: up | types << 4
_KING = [_entry(_king_legal(up)) for up in range(16)]
_PEEK = [_entry(_peek_legal(up)) for up in range(16)]
_SWAPS = _entry(tuple(A.swap(i, j) for i in range(4) for j in range(i + 1, 4)))
_FLIPS = _entry(tuple(A.flip(i) for i in range(4)))
_NONE = _entry(())
_DISCARD: dict[tuple[int, ...], _Legal] = {}


def _legal(s: State) -> _Legal:
    """The legal set of ``s`` (a shared table entry)."""
    phase = s.phase
    if phase == ACT:
        h = s.hands[s.current]
        return _ACT[s.up | (h[0] > 0) << 4 | (h[1] > 0) << 5 | (h[2] > 0) << 6
                    | (h[3] > 0) << 7]
    if phase == KNIGHT_SWAP:
        return _SWAPS
    if phase == KNIGHT_FLIP:
        return _FLIPS
    if phase == KING_CHOICE:
        return _KING[s.up]
    if phase == ASSASSIN_PEEK:
        return _PEEK[s.up]
    if phase == KING_DISCARD:
        hand = tuple(s.hands[s.current])
        out = _DISCARD.get(hand)
        if out is None:
            out = _DISCARD[hand] = _entry(_discard_legal(hand))
        return out
    return _NONE


def legal_actions(s: State) -> list[int]:
    """Legal action codes of the seat to act, ascending, each once (rules 2.3, 2.4);
    ``[]`` once the game is won."""
    return list(_legal(s).codes)


def _problem(s: State, kind: int, arg: int) -> Reason | None:
    """Why the valid action ``kind``/``arg`` is not legal in ``s``, or ``None`` if it is."""
    phase = s.phase
    p = s.current
    if kind == A.REVEAL:
        if phase not in (ACT, KING_CHOICE):
            return Reason(f"reveal is the Reveal action of phase act (rules 2.3) or the Roi's "
                          f"option (a) in phase king (rules 2.4); the phase is {phase}", "not_now")
        if s.up >> arg & 1:
            return Reason(f"slot {arg} is face up; only a face-down Court card can be revealed "
                          f"(rules {'2.3, 3.L4' if phase == ACT else '2.4, 3.L13'})",
                          "slot_face_up", slot=arg)
        return None
    if kind == A.REPLACE:
        if phase != ACT:
            return Reason(f"Replace is the action of phase act (rules 2.3); the phase is {phase}",
                          "not_now")
        card = arg >> 1 & 3
        if not s.hands[p][card]:
            held = " ".join(LETTERS[c] for c in cards_of(s.hands[p])) or "nothing"
            return Reason(f"seat {p} holds no {LETTERS[card]} ({NAMES[card]}); the hand is "
                          f"{held} (rules 2.3)", "not_held", cards=[LETTERS[card]])
        return None
    if kind == A.SWAP:
        if phase != KNIGHT_SWAP:
            return Reason(f"swap is the first step of the Chevalier's effect, phase knight_swap "
                          f"(rules 2.4); the phase is {phase}", "not_now")
        return None
    if kind == A.FLIP:
        if phase != KNIGHT_FLIP:
            return Reason(f"flip is the second step of the Chevalier's effect, phase knight_flip "
                          f"(rules 2.4); the phase is {phase}", "not_now")
        return None
    if kind == A.DRAW:
        if phase != KING_CHOICE:
            return Reason(f"draw is the Roi's option (b), phase king (rules 2.4); the phase is "
                          f"{phase}", "not_now")
        return None
    if kind == A.DISCARD:
        if phase != KING_DISCARD:
            return Reason(f"discard ends the Roi's option (b), phase king_discard (rules 2.4); "
                          f"the phase is {phase}", "not_now")
        c1, c2 = arg >> 2, arg & 3
        need = [0, 0, 0, 0]
        need[c1] += 1
        need[c2] += 1
        hand = s.hands[p]
        for c in range(4):
            if need[c] > hand[c]:
                held = " ".join(LETTERS[x] for x in cards_of(hand)) or "nothing"
                has = "no" if not hand[c] else "only one"
                return Reason(f"seat {p} holds {has} {LETTERS[c]} ({NAMES[c]}); the hand is "
                              f"{held} (rules 2.4)", "not_held", cards=[LETTERS[c]] * need[c])
        return None
    if kind == A.PEEK:
        if phase != ASSASSIN_PEEK:
            return Reason(f"peek is the Assassin's effect, phase assassin (rules 2.4); the phase "
                          f"is {phase}", "not_now")
        down = _slots(15 & ~s.up)
        slots = _slots(arg)
        bad = [i for i in slots if s.up >> i & 1]
        if bad:
            return Reason(f"slot {bad[0]} is face up; the Assassin looks at face-down cards "
                          "(rules 2.4)", "slot_face_up", slot=bad[0])
        need = min(2, len(down))
        if len(slots) != need:
            return Reason(f"the Assassin looks at {need} face-down card{'s' if need > 1 else ''} "
                          "(2, or all if fewer are face down; rules 2.4, 3.L14)", "peek_count",
                          n=need)
        return None
    return Reason("not an action", "illegal")  # pragma: no cover - excluded by is_action


def describe_allowed(s: State) -> str:
    """A short sentence of what the seat to act may do now."""
    if s.phase == WON:
        return (f"the game is over (seat {s.winner} won by the {s.conspiracy}, rules 2.5): "
                "no action is allowed")
    texts = [A.TEXT[a] for a in legal_actions(s)]
    if not texts:
        return f"seat {s.current} has no legal action"
    return f"seat {s.current} may: {', '.join(texts)}"  # type: ignore[arg-type]


def problem(s: State, action: int) -> str | None:
    """Why ``action`` is refused in ``s`` (with the rule section), or ``None`` if legal."""
    if not A.is_action(action):
        return f"{action!r} is not a Le Roy des Ribauds action code"
    if s.phase == WON:
        return f"the game is over (seat {s.winner} won by the {s.conspiracy}, rules 2.5)"
    if action in _legal(s).lookup:
        return None
    return _problem(s, action >> 5, action & 31) or "it is not legal now"


# --------------------------------------------------------------------------- apply


def apply(s: State, action: int, rng: random.Random) -> tuple[State, list[Event]]:
    """The state after ``action`` and the events it caused (rules 2.3 to 2.6).

    Raises ``IllegalAction`` naming the action, why it is refused (with the rule section)
    and what is allowed; ``s`` is never changed.
    """
    if type(action) is not int or action not in _legal(s).lookup:
        raise _refusal(s, action)
    t = s.copy()
    events: list[Event] = []
    _HANDLERS[action >> 5](t, action & 31, rng, events)
    return t, events


def _refusal(s: State, action: Any) -> IllegalAction:
    """The ``IllegalAction`` for an action refused in ``s``: what, why, what is allowed."""
    if not A.is_action(action):
        return IllegalAction(f"action code {action!r} is not a Le Roy des Ribauds action; "
                             f"{describe_allowed(s)}")
    text = A.TEXT[action]
    if s.phase == WON:
        return IllegalAction(f"{text} is refused: {describe_allowed(s)}", "game_over")
    why = _problem(s, action >> 5, action & 31) or Reason("it is not legal now", "illegal")
    return IllegalAction(f"{text} is refused: {why}; {describe_allowed(s)}", why.code, why.params)


def _log(t: State, events: list[Event], ev: Event) -> None:
    events.append(ev)
    t.log = (ev, t.log)


def _start_turn(t: State, seat: int, events: list[Event]) -> None:
    """Seat ``seat`` starts a turn: the Marriage check (rules 2.3 step 1, 2.5)."""
    t.current = seat
    t.phase = ACT
    if t.hands[seat][QUEEN] >= 3:
        _win(t, MARRIAGE, events)


def _end_turn(t: State, events: list[Event]) -> None:
    """The turn passes to the opponent (rules 2.3 step 4)."""
    _start_turn(t, 1 - t.current, events)


def _win(t: State, conspiracy: str, events: list[Event]) -> None:
    t.phase = WON
    t.winner = t.current
    t.conspiracy = conspiracy
    _log(t, events, Event("win", t.current, {"conspiracy": conspiracy}))


def _court_changed(t: State, events: list[Event]) -> bool:
    """Win check after an atomic Court change (rules 2.3 step 3, 3.L8); True if won.

    Both Court conspiracies need face-up cards and only grow with the set of face-up cards,
    and no position in play shows one (it would have been won), so a change that turns no
    card face up (a face-down placement, a flip face down) cannot complete one: the rules
    skip the check there.
    """
    c = court_conspiracy(t.court, t.up)
    if c is None:
        return False
    _win(t, c, events)
    return True


def _draw(t: State, seat: int, rng: random.Random, events: list[Event]) -> tuple[int, bool] | None:
    """``seat`` draws the top card (rules 2.6): reshuffle the discard pile if the draw pile
    is empty; skip (return ``None``) if both are empty (3.L12).

    Returns ``(card, public)``: ``public`` when the card was one of the bottom Reines made
    public by the setup re-deal (3.L17); the opponent's knowledge is updated accordingly.
    """
    deck = t.deck
    if not deck:
        if not t.discard:
            return None
        deck = t.discard
        t.discard = []
        rng.shuffle(deck)
        t.deck = deck
        t.bottom_reines = 0
        _log(t, events, Event("reshuffle", None, {"count": len(deck)}))
    public = len(deck) <= t.bottom_reines
    c = deck.pop()
    if public:
        t.bottom_reines = len(deck)
    t.hands[seat][c] += 1
    hand_gains(t, seat, c, public)
    return c, public


def _draw_many(t: State, seat: int, n: int, rng: random.Random, events: list[Event],
               why: str) -> None:
    """``seat`` draws ``n`` cards one at a time (2.6 between draws) and one ``draw`` event
    is logged: public ``count``, ``for`` (``"king"``, ``"reine"``, ``"replace"``) and
    ``known`` (publicly known Reines drawn); the cards are private to ``seat``."""
    drawn = []
    known = []
    for _ in range(n):
        got = _draw(t, seat, rng, events)
        if got is None:
            break
        drawn.append(LETTERS[got[0]])
        if got[1]:
            known.append(LETTERS[got[0]])
    data: dict[str, Any] = {"count": len(drawn), "for": why}
    if known:
        data["known"] = known
    _log(t, events, Event("draw", seat, data, {seat: {"cards": drawn}}))


def _reveal(t: State, slot: int, rng: random.Random, events: list[Event]) -> None:
    """Reveal (rules 2.3), or the Roi's option (a) in phase king (rules 2.4)."""
    card = t.court[slot]
    t.up |= 1 << slot
    t.know[0][slot] = card
    t.know[1][slot] = card
    by_king = t.phase == KING_CHOICE
    _log(t, events, Event("king_reveal" if by_king else "reveal", t.current,
                          {"slot": slot, "card": LETTERS[card]}))
    if _court_changed(t, events):
        return
    if by_king:
        _end_turn(t, events)
    else:
        _resolve(t, card, rng, events)


def _replace(t: State, arg: int, rng: random.Random, events: list[Event]) -> None:
    """Replace (rules 2.3, 3.L2, 3.L3): a hand card goes into a slot face up or down; the old
    card goes to the hand (option ``replaced_card="hand"``) or face up to the discard pile,
    followed by a draw (``"discard"``). Then the win check, then the effect if face up."""
    slot, card, face_up = arg >> 3, arg >> 1 & 3, bool(arg & 1)
    p = t.current
    o = 1 - p
    old = t.court[slot]
    old_up = bool(t.up >> slot & 1)
    opp_knew = t.know[o][slot] >= 0
    t.hands[p][card] -= 1
    hand_loses(t, p, card, face_up)
    t.court[slot] = card
    t.up = t.up | (1 << slot) if face_up else t.up & ~(1 << slot)
    t.know[p][slot] = card
    t.know[o][slot] = card if face_up else UNKNOWN
    data: dict[str, Any] = {"slot": slot, "up": face_up,
                            "card": LETTERS[card] if face_up else None}
    if replaced_card_to_hand(t.options.replaced_card):
        t.hands[p][old] += 1
        hand_gains(t, p, old, old_up or opp_knew)
        data["taken"] = LETTERS[old] if old_up else None
        private = {p: {"card": LETTERS[card], "taken": LETTERS[old]}}
        if opp_knew and not old_up:
            private[o] = {"taken": LETTERS[old]}
        _log(t, events, Event("replace", p, data, private))
    else:
        t.discard.append(old)
        data["discarded"] = LETTERS[old]
        _log(t, events, Event("replace", p, data, {p: {"card": LETTERS[card]}}))
        _draw_many(t, p, 1, rng, events, "replace")
    if face_up:
        if not _court_changed(t, events):
            _resolve(t, card, rng, events)
    else:  # a face-down placement shows nothing new: no conspiracy can appear (see above)
        _end_turn(t, events)


def _resolve(t: State, card: int, rng: random.Random, events: list[Event]) -> None:
    """Resolve the effect of ``card``, just turned or placed face up (rules 2.4)."""
    if card == KING:
        t.phase = KING_CHOICE
    elif card == KNIGHT:
        t.phase = KNIGHT_SWAP
    elif card == ASSASSIN:
        if t.up == 15:
            _log(t, events, Event("peek", t.current, {"slots": []}))
            _end_turn(t, events)
        else:
            t.phase = ASSASSIN_PEEK
    else:
        _reine(t, rng, events)
        _end_turn(t, events)


def _reine(t: State, rng: random.Random, events: list[Event]) -> None:
    """The Reine (rules 2.4, 3.L10, 3.L18): 2 random cards of the opponent's hand are seen by
    the active player; the Reines among them are discarded face up; the opponent draws as
    many (reshuffling lazily, so the discarded Reines may come back, 2.6)."""
    p = t.current
    o = 1 - p
    cards = cards_of(t.hands[o])
    picked = rng.sample(cards, min(2, len(cards)))
    picked.sort()
    hand_inspected(t, p, picked)
    reines = [c for c in picked if c == QUEEN]
    for c in reines:
        t.hands[o][c] -= 1
        t.discard.append(c)
        hand_loses(t, o, c, True)
    seen = [LETTERS[c] for c in picked]
    _log(t, events, Event("inspect", p, {"target": o, "count": len(picked),
                                         "discarded": [LETTERS[c] for c in reines]},
                          {p: {"cards": seen}, o: {"cards": seen}}))
    if reines:
        _draw_many(t, o, len(reines), rng, events, "reine")


def _swap(t: State, arg: int, rng: random.Random, events: list[Event]) -> None:
    """The Chevalier's exchange (rules 2.4, 3.L9): orientation and knowledge follow the
    cards; then the win check; then phase ``knight_flip``."""
    i, j = arg >> 2, arg & 3
    c, u = t.court, t.up
    c[i], c[j] = c[j], c[i]
    if (u >> i ^ u >> j) & 1:  # different orientations: exchange the two bits
        t.up = u ^ (1 << i | 1 << j)
    for k in t.know:
        k[i], k[j] = k[j], k[i]
    _log(t, events, Event("swap", t.current, {"slots": [i, j]}))
    if not _court_changed(t, events):
        t.phase = KNIGHT_FLIP


def _flip(t: State, slot: int, rng: random.Random, events: list[Event]) -> None:
    """The Chevalier's flip (rules 2.4, 3.L9): any one card, either way, no effect. A card
    hidden by it stays known to both seats (they saw it face up, rules 2.7)."""
    card = t.court[slot]
    t.up ^= 1 << slot
    now_up = bool(t.up >> slot & 1)
    t.know[0][slot] = card
    t.know[1][slot] = card
    _log(t, events, Event("flip", t.current, {"slot": slot, "up": now_up,
                                              "card": LETTERS[card]}))
    if not (now_up and _court_changed(t, events)):  # hiding a card cannot complete one
        _end_turn(t, events)


def _king_draw(t: State, arg: int, rng: random.Random, events: list[Event]) -> None:
    """The Roi's option (b), first part (rules 2.4): draw 2, one at a time."""
    _draw_many(t, t.current, 2, rng, events, "king")
    t.phase = KING_DISCARD


def _king_discard(t: State, arg: int, rng: random.Random, events: list[Event]) -> None:
    """The Roi's option (b), second part (rules 2.4): discard 2 cards face up."""
    p = t.current
    for c in (arg >> 2, arg & 3):
        t.hands[p][c] -= 1
        t.discard.append(c)
        hand_loses(t, p, c, True)
    _log(t, events, Event("discard", p, {"cards": [LETTERS[arg >> 2], LETTERS[arg & 3]]}))
    _end_turn(t, events)


def _peek(t: State, mask: int, rng: random.Random, events: list[Event]) -> None:
    """The Assassin (rules 2.4, 3.L14): the active player looks at the chosen face-down
    cards; the opponent learns only which slots."""
    p = t.current
    slots = [i for i in range(4) if mask >> i & 1]
    for i in slots:
        t.know[p][i] = t.court[i]
    _log(t, events, Event("peek", p, {"slots": slots},
                          {p: {"cards": [LETTERS[t.court[i]] for i in slots]}}))
    _end_turn(t, events)


_HANDLERS = (
    _reveal,
    _replace,
    _swap,
    _flip,
    _king_draw,
    _king_discard,
    _peek,
)
