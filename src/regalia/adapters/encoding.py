"""Fixed action ids, observation vectors and legal-action masks for learning (numpy only).

Everything here is computed from what a seat may know: its view (``Game.view(state,
seat)``) and, for the seat to act, its legal action codes. Every research interface shares
it: the environments of ``regalia.adapters.pettingzoo`` and ``regalia.adapters.gymnasium``,
the batch simulator ``regalia.adapters.batch`` (the same vectors in compiled code; a
differential test keeps them equal) and the OpenSpiel games of ``regalia.adapters.openspiel``
(their observation tensors, the start of their information-state tensors, and the action ids
of ``python_ribauds``; see "OpenSpiel" below for what differs there). The view's ``log`` is
not encoded: an observation describes the present position as the seat sees it, not the
history.

Regicide (rules/regicide.md), ``REGICIDE_ACTIONS`` = 516 ids:

* ``0..254``: play the hand slots of ``subset - 1`` (bit ``i`` of ``subset``: the ``i``-th
  card of the seat's hand in canonical order, rank then suit C D H S, Jesters last; a hand
  holds at most 8 cards, rules 1.3);
* ``255..509``: discard a subset of slots in Step 4 (same numbering, plus 255);
* ``510``: yield; ``511``: the solo Jester refresh (rules 1.14);
* ``512..515``: after a Jester, choose the seat ``k`` places after oneself (``512`` is
  oneself, rules 1.10).

The Jester window's public wishes (``prefer``, rules 1.10) are not decisions of the seat to
act and have no id. ``REGICIDE_OBS`` = 408 float32 values in [0, 1]; seats are counted from
the observing seat (index 0 = oneself), cards by id (``(rank - 1) * 4 + suit``, 52 = Jester).
``REGICIDE_LAYOUT`` lists the parts below as ``(name, shape)`` in order (the names of the
OpenSpiel observer's pieces):

====================  ==============  ======  ================================================
slice                 name            size    content
====================  ==============  ======  ================================================
``R_HAND``            hand            53      own hand, one per card (the Jester entry:
                                              Jesters held / 2)
``R_SLOTS``           slots           8 x 18  per hand slot: rank one-hot (A..K, Jester),
                                              suit one-hot
``R_ENEMY``           enemy           12      current enemy: ``(rank - 11) * 4 + suit``
``R_STATS``           stats           6       attack / 20, health / 40, damage / 40,
                                              min(shield, 40) / 40, attack to absorb in Step
                                              4 / 20, immunity active
``R_PHASE``           phase           5       play, suffer, choose, won, lost
``R_PLAYERS``         players         4       player count one-hot
``R_CURRENT``         current         4       seat to act (relative)
``R_HAND_SIZES``      hand_sizes      4       hand sizes / 8 (relative)
``R_YIELDED``         yielded         4       last turn was a yield (relative)
``R_CAN_YIELD``       can_yield       2       the seat to act may yield; solo refreshes left
                                              / 2
``R_CASTLE``          castle          4       Castle size / 11; Jacks, Queens, Kings left / 4
``R_PILES``           piles           2       Tavern size / 54, discard size / 54
``R_DISCARD_TOP``     discard_top     53      top card of the discard pile
``R_KNOWN``           known           54      publicly known top Tavern cards / 12, the top
                                              one (one-hot)
``R_TABLE``           table           53      cards on the table (Jester entry: count / 2)
``R_OPTIONS``         options         3       solo_yield, jester_choose_self,
                                              minimal_discard
``R_DEFEATED``        defeated        1       enemies defeated / 12
====================  ==============  ======  ================================================

Le Roy des Ribauds (rules/ribauds.md), ``RIBAUDS_ACTIONS`` = 67 ids: the valid action
codes (``regalia.games.ribauds.actions``) in increasing order (``ribauds_action_id``,
``ribauds_code``). ``RIBAUDS_OBS`` = 53 float32 values in [0, 1], the opponent second
(``RIBAUDS_LAYOUT``): ``court`` (4 x 6: per Court slot the card one-hot K Q N A when this
seat knows it, face up, known by the opponent); ``hand`` (own hand counts by type / 4);
``hand_sizes`` (own, opponent's, / 5); ``opponent_hand_known`` (counts known in the
opponent's hand / 4); ``hand_known_by_opponent`` (counts of own hand known by the opponent
/ 4); ``deck`` (draw pile / 16, known bottom Reines / 4); ``discard`` (discard counts / 4);
``phase`` (one-hot, 7: act, knight_swap, knight_flip, king, king_discard, assassin, won);
``to_act`` (this seat to act); ``options`` (option ``replaced_card`` is ``"discard"``).

Both observation functions also encode a spectator's view (``seat`` None) when given the
seat to count from (``seat=``): the parts a spectator does not see (the hand, its slots,
what each seat knows of the other's hand) are zero. OpenSpiel's public observer uses it.

OpenSpiel (``python_regicide``, ``python_ribauds``; every tensor value in [0, 1]):

* Observation tensor: Ribauds, exactly ``ribauds_observation`` of the seat's view (53).
  Regicide, ``regicide_observation`` of the seat's view (408) followed by ``picked`` (8):
  the hand slots already picked for the Step 4 discard being chosen (below), all zero
  otherwise; 416 values.
* Information-state tensor: the observation tensor followed by a summary of the seat's
  event log (the view's ``log``), each entry capped and scaled into [0, 1]. Regicide (523 =
  416 + 107): ``played`` (53, per card id, 52 = both Jesters: times seen played or discarded,
  ``min(n, 4) / 4``), ``drawn`` (53, per card: times this seat drew it, ``min(n, 4) / 4``),
  ``heals`` (1, Hearts heals so far, ``min(n, 12) / 12``). Ribauds (62 = 53 + 9):
  ``inspected`` (4, per type K Q N A: cards this seat saw in Reine inspections, either way,
  ``min(n, 8) / 8``), ``peeked`` (4, Court cards it saw by Assassin, ``min(n, 8) / 8``),
  ``decisions`` (1, decisions so far / the game's ``max_game_length``: the draw clock).
  With ``private_info=NONE`` (the public observer) the view is a spectator's, counted from
  the seat asked for.
* Ribauds action ids: the 67 ids above, in every interface.
* Regicide action ids differ: OpenSpiel's 344 ids (``regalia.adapters.openspiel.
  regicide_actions``) name the cards of a play (``0..283``, one id per play shape of rules
  1.5, the same cards in every position), then yield (284), the solo refresh (285), choose
  a seat (``286 + seat``, absolute), and a Step 4 discard is a sequence of decisions: one
  ``pick`` per card (``290 + card id``, 52 for a Jester) in ascending card order, then
  ``discard picked`` (343). Why: a Step 4 discard may be any of up to 255 subsets of the
  hand at one decision; tree searches (OpenSpiel's MCTS, ISMCTS, MCCFR) expand or sample
  every legal action of a node, and picking card by card leaves at most 10 legal ids per
  decision (up to 8 cards, ``discard picked``, the solo refresh before the first pick),
  each discard reached by exactly one sequence. ``to_encoding_id(view, actions)``
  and ``from_encoding_id(view, action_id)`` in that module map one move (one OpenSpiel id,
  or a discard's picks and ``discard picked``) to this module's id and back.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from regalia.games.regicide import actions as RA
from regalia.games.regicide.cards import RANK, SUIT, parse_card
from regalia.games.ribauds import actions as BA
from regalia.games.ribauds.cards import parse_card as parse_ribauds_card
from regalia.games.ribauds.state import PHASES as RIBAUDS_PHASES

# ----------------------------------------------------------------------------- Regicide ids
MAX_SLOTS = 8
PLAY_IDS = 0
DISCARD_IDS = 255
YIELD_ID = 510
REFRESH_ID = 511
CHOOSE_IDS = 512
REGICIDE_ACTIONS = 516

# ----------------------------------------------------------------------------- Regicide layout
CARD_KINDS = 53  # 52 cards and the Jester
SLOT_SIZE = 18
R_HAND = 0
R_SLOTS = R_HAND + CARD_KINDS
R_ENEMY = R_SLOTS + MAX_SLOTS * SLOT_SIZE
R_STATS = R_ENEMY + 12
R_PHASE = R_STATS + 6
R_PLAYERS = R_PHASE + 5
R_CURRENT = R_PLAYERS + 4
R_HAND_SIZES = R_CURRENT + 4
R_YIELDED = R_HAND_SIZES + 4
R_CAN_YIELD = R_YIELDED + 4
R_CASTLE = R_CAN_YIELD + 2
R_PILES = R_CASTLE + 4
R_DISCARD_TOP = R_PILES + 2
R_KNOWN = R_DISCARD_TOP + CARD_KINDS
R_TABLE = R_KNOWN + 1 + CARD_KINDS
R_OPTIONS = R_TABLE + CARD_KINDS
R_DEFEATED = R_OPTIONS + 3
REGICIDE_OBS = R_DEFEATED + 1
REGICIDE_LAYOUT: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("hand", (CARD_KINDS,)), ("slots", (MAX_SLOTS, SLOT_SIZE)), ("enemy", (12,)),
    ("stats", (6,)), ("phase", (5,)), ("players", (4,)), ("current", (4,)),
    ("hand_sizes", (4,)), ("yielded", (4,)), ("can_yield", (2,)), ("castle", (4,)),
    ("piles", (2,)), ("discard_top", (CARD_KINDS,)), ("known", (1 + CARD_KINDS,)),
    ("table", (CARD_KINDS,)), ("options", (3,)), ("defeated", (1,)))

REGICIDE_PHASES = ("play", "suffer", "choose", "won", "lost")  # the fast path's order too


def _kind(text: str) -> int:
    """Card kind of a card text: its id, or 52 for a Jester."""
    return min(parse_card(text), 52)


def _seat_of(view: dict[str, Any], seat: int | None) -> int:
    """The seat a view is encoded for: its own, or ``seat`` for a spectator's view."""
    if view["seat"] is None:
        if seat is None:
            raise ValueError("a spectator's view has no hand to encode; give a seat's view, "
                             "or the seat to count from (seat=)")
        return seat
    if seat is not None and seat != view["seat"]:
        raise ValueError(f"seat={seat} for the view of seat {view['seat']}: a seat's view "
                         "is encoded for that seat only")
    return view["seat"]


def regicide_observation(view: dict[str, Any], seat: int | None = None) -> np.ndarray:
    """The ``(REGICIDE_OBS,)`` float32 vector, values in [0, 1], of a Regicide view of a
    seat (see module doc).

    ``seat``: for a spectator's view (``view["seat"]`` None), the seat to count seats from;
    the hand and its slots are then zero. Raises ``ValueError`` for a spectator's view
    without ``seat``, or a seat's view with another ``seat``.
    """
    seat = _seat_of(view, seat)
    o = np.zeros(REGICIDE_OBS, np.float32)
    players = view["players"]
    hand = [_kind(t) for t in view.get("hand") or ()]
    for i, k in enumerate(hand):
        o[R_HAND + k] += 0.5 if k == 52 else 1.0
        base = R_SLOTS + SLOT_SIZE * i
        if k == 52:
            o[base + 13] = 1.0
        else:
            o[base + RANK[k] - 1] = 1.0
            o[base + 14 + SUIT[k]] = 1.0
    if view["enemy"] is not None:
        e = parse_card(view["enemy"])
        o[R_ENEMY + (RANK[e] - 11) * 4 + SUIT[e]] = 1.0
    o[R_STATS] = view["attack"] / 20
    o[R_STATS + 1] = view["health"] / 40
    o[R_STATS + 2] = view["damage"] / 40
    o[R_STATS + 3] = min(view["shield"], 40) / 40
    o[R_STATS + 4] = view["attack_to_absorb"] / 20
    o[R_STATS + 5] = view["immune"]
    o[R_PHASE + REGICIDE_PHASES.index(view["phase"])] = 1.0
    o[R_PLAYERS + players - 1] = 1.0
    o[R_CURRENT + (view["current"] - seat) % players] = 1.0
    for q in range(players):
        r = (q - seat) % players
        o[R_HAND_SIZES + r] = view["hand_sizes"][q] / 8
        o[R_YIELDED + r] = view["yielded"][q]
    o[R_CAN_YIELD] = view["can_yield"]
    o[R_CAN_YIELD + 1] = view["jesters"] / 2
    o[R_CASTLE] = view["castle"] / 11
    for i, r in enumerate("JQK"):
        o[R_CASTLE + 1 + i] = view["castle_ranks"][r] / 4
    o[R_PILES] = view["tavern"] / 54
    o[R_PILES + 1] = view["discard"] / 54
    if view["discard_top"] is not None:
        o[R_DISCARD_TOP + _kind(view["discard_top"])] = 1.0
    known = view["tavern_top"]
    if known:
        o[R_KNOWN] = min(len(known), 12) / 12
        o[R_KNOWN + 1 + _kind(known[0])] = 1.0
    for play in view["table"]:
        for t in play:
            k = _kind(t)
            o[R_TABLE + k] += 0.5 if k == 52 else 1.0
    opts = view["options"]
    o[R_OPTIONS] = opts.get("solo_yield", False)
    o[R_OPTIONS + 1] = opts.get("jester_choose_self", True)
    o[R_OPTIONS + 2] = opts.get("minimal_discard", False)
    o[R_DEFEATED] = view["enemies_defeated"] / 12
    return o


@lru_cache(maxsize=4096)
def _slot_of(hand: tuple[str, ...]) -> dict[int, int]:
    """Card id -> hand slot for a hand in canonical order (its texts). Two Jesters: id 52
    in the first X slot, 53 in the second; one Jester: either id in its slot."""
    plain = [parse_card(t) for t in hand if t != "X"]
    out = {c: i for i, c in enumerate(plain)}
    jesters = len(hand) - len(plain)
    if jesters:
        out[52] = len(plain)
        out[53] = len(plain) + jesters - 1
    return out


def _slot_subset(view: dict[str, Any], mask: int) -> int:
    """Hand-slot subset of a card mask of the seat's hand (see module doc)."""
    slot = _slot_of(tuple(view["hand"]))
    subset = 0
    while mask:
        low = mask & -mask
        mask ^= low
        c = low.bit_length() - 1
        if c not in slot:
            raise ValueError(f"card {c} is not in the hand {view['hand']}")
        subset |= 1 << slot[c]
    return subset


def regicide_action_id(view: dict[str, Any], code: int) -> int:
    """Action id (see module doc) of the Regicide action ``code`` of the seat of ``view``.

    Raises ``ValueError`` for a ``prefer`` code (not a decision of the seat to act) or a
    code of no known kind; ``ValueError`` too when a played card is not in the hand.
    """
    kind, arg = RA.kind(code), RA.arg(code)
    if kind in (RA.PLAY, RA.DISCARD):
        base = PLAY_IDS if kind == RA.PLAY else DISCARD_IDS
        return base + _slot_subset(view, arg) - 1
    if kind == RA.YIELD:
        return YIELD_ID
    if kind == RA.JESTER_REFRESH:
        return REFRESH_ID
    if kind == RA.CHOOSE:
        return CHOOSE_IDS + (arg - view["seat"]) % view["players"]
    raise ValueError(f"action code {code} ({RA.to_text(code)}) has no action id: only "
                     "play, discard, yield, jester and choose do")


def legal_ids(view: dict[str, Any], legal: Iterable[int], action_id) -> dict[int, int]:
    """``{action id: action code}`` of the seat's legal action codes (``action_id`` is
    ``regicide_action_id`` or ``ribauds_action_id``)."""
    return {action_id(view, code): code for code in legal}


def mask_of(ids: Iterable[int], n: int) -> np.ndarray:
    """The ``(n,)`` int8 legal-action mask with 1 at each id of ``ids``."""
    m = np.zeros(n, np.int8)
    for i in ids:
        m[i] = 1
    return m


# ----------------------------------------------------------------------------- Ribauds
RIBAUDS_CODES = tuple(c for c in range(BA.N_CODES) if BA.VALID[c])
RIBAUDS_ACTIONS = len(RIBAUDS_CODES)
_RIBAUDS_ID = {c: i for i, c in enumerate(RIBAUDS_CODES)}
RIBAUDS_LAYOUT: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("court", (4, 6)), ("hand", (4,)), ("hand_sizes", (2,)), ("opponent_hand_known", (4,)),
    ("hand_known_by_opponent", (4,)), ("deck", (2,)), ("discard", (4,)),
    ("phase", (len(RIBAUDS_PHASES),)), ("to_act", (1,)), ("options", (1,)))
RIBAUDS_OBS = 53


def ribauds_action_id(view: dict[str, Any], code: int) -> int:
    """Action id of a Le Roy des Ribauds action code (its rank among the valid codes).

    Raises ``ValueError`` for a code that is no action.
    """
    try:
        return _RIBAUDS_ID[code]
    except (KeyError, TypeError):
        raise ValueError(f"{code!r} is not a Le Roy des Ribauds action code") from None


def ribauds_code(action_id: int) -> int:
    """The action code of a Le Roy des Ribauds action id (0 to ``RIBAUDS_ACTIONS - 1``)."""
    return RIBAUDS_CODES[action_id]


def _counts(letters) -> list[int]:
    out = [0, 0, 0, 0]
    for t in letters:
        out[parse_ribauds_card(t)] += 1
    return out


def ribauds_observation(view: dict[str, Any], seat: int | None = None) -> np.ndarray:
    """The ``(RIBAUDS_OBS,)`` float32 vector, values in [0, 1], of a Le Roy des Ribauds view
    of a seat (see module doc).

    ``seat``: for a spectator's view, the seat to count from (its hand and what each seat
    knows of the other's hand are then zero). Raises ``ValueError`` for a spectator's view
    without ``seat``, or a seat's view with another ``seat``.
    """
    seat = _seat_of(view, seat)
    o = np.zeros(RIBAUDS_OBS, np.float32)
    for i, slot in enumerate(view["court"]):
        if slot["card"] is not None:
            o[6 * i + parse_ribauds_card(slot["card"])] = 1.0
        o[6 * i + 4] = slot["face_up"]
        o[6 * i + 5] = slot["known_by"][1 - seat]
    o[24:28] = np.array(_counts(view["hand"] or ()), np.float32) / 4
    o[28] = view["hand_sizes"][seat] / 5
    o[29] = view["hand_sizes"][1 - seat] / 5
    o[30:34] = np.array(_counts(view["opponent_hand_known"] or ()), np.float32) / 4
    o[34:38] = np.array(_counts(view["hand_known_by_opponent"] or ()), np.float32) / 4
    o[38] = view["deck"] / 16
    o[39] = view["deck_bottom_reines"] / 4
    o[40:44] = np.array(_counts(view["discard"]), np.float32) / 4
    o[44 + RIBAUDS_PHASES.index(view["phase"])] = 1.0
    o[51] = view["current"] == seat
    o[52] = view["options"].get("replaced_card", "hand") == "discard"
    return o
