"""Regicide rules: setup, legal actions and their effects (rules 1.3 to 1.14).

Everything here is a function of a ``State`` (see ``state``); ``apply`` copies the state
before changing it, so the caller's state never changes, refused action or not.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from functools import lru_cache
from collections.abc import Sequence
from itertools import accumulate, combinations
from operator import itemgetter
from typing import Any

from regalia.core.errors import IllegalAction, InvalidPosition
from regalia.core.game import Event
from regalia.core.rng import shuffle
from regalia.games.regicide import actions as A
from regalia.games.regicide.cards import (
    ATTACK,
    CLUBS,
    DIAMONDS,
    HEALTH,
    HEARTS,
    JACK,
    JESTER_MASK,
    JESTERS,
    KING,
    QUEEN,
    RANK,
    SPADES,
    SUIT,
    SUIT_LETTERS,
    TEXT,
    VALUE,
    bits_of,
    cards_of,
    mask_of,
    mask_texts,
    mask_value,
    values_of,
)
from regalia.games.regicide.state import (
    CHOOSE,
    JESTERS_IN_TAVERN,
    LOST,
    MAX_HAND,
    OVER,
    PLAY,
    SUFFER,
    WON,
    Options,
    State,
)

_DEFAULT_OPTIONS = Options()
MEDALS = {2: "gold", 1: "silver", 0: "bronze"}  # rules 1.14: by Jesters left unflipped


# --------------------------------------------------------------------------- derived values

def enemy_attack(s: State) -> int:
    """Printed attack of the current enemy (rules 1.2); 0 when there is none."""
    return ATTACK[RANK[s.enemy]] if s.enemy is not None else 0


def enemy_health(s: State) -> int:
    """Health of the current enemy (rules 1.2); 0 when there is none."""
    return HEALTH[RANK[s.enemy]] if s.enemy is not None else 0


def blocked(s: State, suit: int) -> bool:
    """Whether the enemy is immune to ``suit``'s power now (rules 1.6, 1.9)."""
    return s.enemy is not None and SUIT[s.enemy] == suit and not s.cancelled


def shield(s: State) -> int:
    """Spade shield against the current enemy (rules 1.9 shield formula)."""
    if s.enemy is None or (SUIT[s.enemy] == SPADES and not s.cancelled):
        return 0
    return s.spades


# Attack of each card as an enemy (rules 1.2); 0 for a card that is not a royal.
_ATTACK_OF = tuple(ATTACK.get(RANK[c], 0) for c in range(54))
_HEALTH_OF = tuple(HEALTH.get(RANK[c], 0) for c in range(54))


def effective_attack(s: State) -> int:
    """Attack to absorb in Step 4: max(0, attack - shield) (rules 1.8)."""
    enemy = s.enemy
    if enemy is None:
        return 0
    if SUIT[enemy] == SPADES and not s.cancelled:
        return _ATTACK_OF[enemy]
    d = _ATTACK_OF[enemy] - s.spades
    return d if d > 0 else 0


def can_yield(s: State, seat: int) -> bool:
    """Whether ``seat`` may yield now (rules 1.11, option ``solo_yield``)."""
    if s.players == 1:
        return s.options.solo_yield
    y = s.yielded
    return y.count(True) - y[seat] < s.players - 1  # not every other seat yielded


def medal(s: State) -> str | None:
    """Solo medal of a won game: ``"gold"``, ``"silver"`` or ``"bronze"`` (rules 1.14)."""
    if s.phase != WON or s.players != 1:
        return None
    return MEDALS[s.jesters]


def enemies_defeated(s: State) -> int:
    """How many of the 12 enemies are defeated (0-12)."""
    return 12 - len(s.castle) - (1 if s.enemy is not None else 0)


# --------------------------------------------------------------------------- legal actions

def _set_plays(r: int, nibble: int) -> list[int]:
    """Play codes of the legal sets (2+ cards, total <= 10) among the rank-``r`` cards whose
    suits are the bits of ``nibble`` (rules 1.5)."""
    cards = [(r - 1) * 4 + x for x in range(4) if nibble >> x & 1]
    return [A.PLAY | sum(1 << c for c in combo) for size in range(2, len(cards) + 1)
            if r * size <= 10 for combo in combinations(cards, size)]


# Play codes by byte of the hand: the single cards of each byte, and the sets of each byte's
# number cards (ranks 2 to 5: bits 4 to 19, in bytes 0 to 2), in rank order.
_SINGLE_PLAYS = tuple(tuple(tuple(A.PLAY | bit for bit in bits_of(b << 8 * k)) for b in range(256))
                      for k in range(7))
_SET_PLAYS = (tuple(tuple(_set_plays(2, b >> 4)) for b in range(256)),
              tuple(tuple(_set_plays(3, b & 15) + _set_plays(4, b >> 4)) for b in range(256)),
              tuple(tuple(_set_plays(5, b & 15)) for b in range(256)))


def play_codes(hand: int) -> list[int]:
    """Action codes of every legal Step 1 play from ``hand`` (rules 1.5), each once, in the
    order of ``play_options``."""
    s0, s1, s2, s3, s4, s5, s6 = _SINGLE_PLAYS
    b0, b1, b2, b3, b4, b5, b6 = hand.to_bytes(7, "little")  # bits 8k to 8k+7 in byte k
    out = [*s0[b0], *s1[b1], *s2[b2], *s3[b3], *s4[b4], *s5[b5], *s6[b6]]
    jesters = b6 >> 4  # bits 52 and 53
    if jesters == 3:
        out.pop()  # two Jesters: "play X" once
    aces = b0 & 0xF
    if aces:  # Animal Companion pairs: each Ace with every later non-Jester card
        partners = out[:-1] if jesters else out[:]
        for i in range(aces.bit_count()):
            ace = partners[i]
            out += [ace | c for c in partners[i + 1:]]
    t0, t1, t2 = _SET_PLAYS
    out += [*t0[b0], *t1[b1], *t2[b2]]
    return out


def play_options(hand: int) -> tuple[int, ...]:
    """Card masks of every legal Step 1 play from ``hand`` (rules 1.5), each once.

    Singles (one Jester stands for both), Animal Companion pairs (an Ace plus one other
    non-Jester card, Ace + Ace included) and sets of equal number cards totalling 10 or less.
    """
    return tuple(code ^ A.PLAY for code in play_codes(hand))


def play_problem(mask: int) -> str | None:
    """Why ``mask`` is not a legal play shape (rules 1.5), or ``None`` if it is."""
    cards = cards_of(mask)
    n = len(cards)
    if n == 1:
        return None
    if any(c >= 52 for c in cards):
        return "a Jester is always played alone (rules 1.5)"
    if n == 2 and (RANK[cards[0]] == 1 or RANK[cards[1]] == 1):
        return None
    if any(RANK[c] == 1 for c in cards):
        return "an Animal Companion pairs with exactly one other card and never joins a set (rules 1.5)"
    ranks = {RANK[c] for c in cards}
    if len(ranks) > 1:
        return "cards played together must be of the same number, or an Ace with one card (rules 1.5)"
    r = ranks.pop()
    if r > 10:
        return "royals never form a set (rules 1.5)"
    if r * n > 10:
        return f"a set of equal cards must total 10 or less, this one totals {r * n} (rules 1.5)"
    return None


def _subset_sums(values: tuple[int, ...]) -> list[tuple[int, int]]:
    """``(total value, position mask)`` of every subset of ``values``; the subset at index
    ``i`` holds the positions of the bits of ``i``."""
    out = [(0, 0)]
    for i, v in enumerate(values):
        bit = 1 << i
        out += [(x + v, m | bit) for x, m in out]
    return out


# The total value of all 54 cards: no set of cards totals more.
_ALL_VALUE = mask_value((1 << 54) - 1)


@lru_cache(maxsize=1 << 10)
def _low_half(values: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(masks, fill)`` for the low half of a hand whose cards have ``values``: the position
    masks of its subsets sorted by value then mask, highest first, and
    ``fill[_ALL_VALUE + 1 - t]``, how many of them (the first ones) total at least ``t``, for
    every ``t`` from ``_ALL_VALUE + 1`` down to ``-_ALL_VALUE``: a high-half subset totalling
    ``x`` combines with the ``fill[_ALL_VALUE + 1 - attack + x]`` first ones."""
    subsets = _subset_sums(values)
    subsets.sort(reverse=True)
    totals = sorted(x for x, _ in subsets)
    n = len(totals)
    top = totals[-1]
    fill = [0] * (_ALL_VALUE + 1 - top)  # t > top: none
    fill += [n - bisect_left(totals, t) for t in range(top, 0, -1)]
    fill += [n] * (_ALL_VALUE + 1)  # t <= 0: every subset
    return tuple(m for _, m in subsets), tuple(fill)


@lru_cache(maxsize=1 << 12)
def _high_half(values: tuple[int, ...]) -> tuple[Any, int]:
    """``(read, top)`` for the high half of a hand whose cards have ``values``: ``top``, the
    total of all its cards, and ``read(table)``, the tuple ``table[x]`` for the total ``x`` of
    every subset in counting order (the subset at index ``i`` holds the positions of the bits
    of ``i``)."""
    totals = [x for x, _ in _subset_sums(values)]
    if len(totals) == 1:  # no card: only the empty subset
        return (lambda table: (table[0],)), 0
    return itemgetter(*totals), totals[-1]


def discard_options(hand: int, attack: int, minimal: bool = False, tag: int = 0) -> list[int]:
    """Card masks of every legal Step 4 discard (rules 1.8, 3.R10), each or-ed with ``tag``.

    Every non-empty set of hand cards whose total value is at least ``attack`` (``attack``
    >= 1); with ``minimal`` only those in which every card is needed. Sets that differ only
    in which of two Jesters they hold are listed once.
    """
    out = list(DiscardOptions(hand, attack, tag))
    if minimal:
        out = [m for m in out if _all_needed(m & ~tag, attack)]
    if (hand >> 52 & 3) == 3:
        out = [m for m in out if (m >> 52 & 3) != 2]
    return out


# The positions of the bits of each byte of a position mask.
_POSITIONS = tuple(tuple(i for i in range(8) if m >> i & 1) for m in range(256))


def _positions_mask(bits: list[int], positions: int) -> int:
    """The union of the one-card masks ``bits[i]`` for the bits ``i`` of ``positions``."""
    m = 0
    if positions < 256:  # up to 8 cards: every hand in play
        for i in _POSITIONS[positions]:
            m |= bits[i]
        return m
    for i in range(positions.bit_length()):
        if positions >> i & 1:
            m |= bits[i]
    return m


class DiscardOptions(Sequence):
    """The discards of ``hand`` totalling at least ``attack``, as a lazy sequence.

    Like python-chess's legal move generator, it computes its length and its items on demand:
    a Step 4 hand of 8 cards has up to 255 legal discards, and a random player needs only one.
    The cards are split in two halves by position (canonical order). The subsets of the low
    half are sorted by value, so each subset of the high half, taken in counting order,
    combines with a prefix of them: the ``counts[j]`` first for the high subset ``j``, read
    in a table of the low half by the value it lacks; ``ends[j]``, the sum of the counts up
    to ``j``, finds an item's high subset by bisection. The halves' subsets depend only on their
    cards' values, so they are computed once per values (``_low_half``, ``_high_half``).
    Items are ``mask | tag``, then the ``extra`` codes. Does not handle option
    ``minimal_discard`` or two Jesters in one hand (``discard_options`` does).
    """

    __slots__ = ("_hand", "_attack", "_tag", "_extra", "_half", "_low", "_ends", "_total")

    def __init__(self, hand: int, attack: int, tag: int = 0, extra: tuple[int, ...] = ()):
        values = values_of(hand)
        half = len(values) >> 1
        self._low, fill = _low_half(values[:half])
        read, top = _high_half(values[half:])
        # the attack clamped to 0.._ALL_VALUE + 1 keeps every index in range and changes no
        # count (no set totals more than _ALL_VALUE)
        a = attack if attack > 0 else 0
        start = _ALL_VALUE + 1 - a if a <= _ALL_VALUE else 0
        self._ends = ends = list(accumulate(read(fill[start:start + top + 1])))
        self._total = ends[-1]
        self._half = half
        self._extra = extra
        self._hand, self._attack, self._tag = hand, attack, tag

    def __len__(self) -> int:
        return self._total + len(self._extra)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += len(self)
        total = self._total
        if 0 <= i < total:
            ends = self._ends
            j = bisect_right(ends, i)  # the item's high subset
            if j:
                i -= ends[j - 1]
            return self._tag | _positions_mask(bits_of(self._hand), j << self._half | self._low[i])
        if not self._total <= i < len(self):
            raise IndexError(i)
        return self._extra[i - self._total]

    def __iter__(self):
        bits = bits_of(self._hand)
        tag = self._tag
        low = [tag | _positions_mask(bits, m) for m in self._low]
        half = self._half
        done = 0
        for j, end in enumerate(self._ends):
            if end > done:
                high = _positions_mask(bits, j << half)
                for lm in low[:end - done]:
                    yield high | lm
                done = end
        yield from self._extra

    def __contains__(self, action) -> bool:
        if action in self._extra:
            return True
        if not isinstance(action, int) or action & ~A.ARG_MASK != self._tag:
            return False
        m = action & A.ARG_MASK
        return m != 0 and not m & ~self._hand and mask_value(m) >= self._attack

    def __add__(self, other):
        return list(self) + list(other)

    def __radd__(self, other):
        return list(other) + list(self)

    def __eq__(self, other):
        return list(self) == list(other)


def _all_needed(mask: int, attack: int) -> bool:
    """Option ``minimal_discard``: leaving out the smallest card would fall short (3.R10)."""
    return mask_value(mask) - min(VALUE[c] for c in cards_of(mask)) < attack


def legal_actions(s: State) -> Sequence[int]:
    """Legal action codes of the seat to act (rules 1.5, 1.8, 1.10, 1.11, 1.14).

    A list, except in Step 4 where it is usually a lazy ``DiscardOptions`` sequence (it
    supports ``len``, indexing, iteration, ``in`` and ``+``).

    Side actions of other seats (``prefer``) are in ``side_actions``.
    """
    phase = s.phase
    p = s.current
    if phase == PLAY:
        out = play_codes(s.hands[p])
        if can_yield(s, p):
            out.append(A.YIELD)
        if s.jesters:
            out.append(A.JESTER_REFRESH)
        return out
    if phase == SUFFER:
        hand = s.hands[p]
        d = effective_attack(s)
        extra = (A.JESTER_REFRESH,) if s.jesters else ()
        if s.options.minimal_discard or hand & JESTER_MASK == JESTER_MASK:  # two Jesters
            return discard_options(hand, d, s.options.minimal_discard, A.DISCARD) + list(extra)
        out = DiscardOptions(hand, d, A.DISCARD, extra)
        return out if out._total else list(extra)  # no discard: a plain list
    if phase == CHOOSE:
        return [A.CHOOSE | k for k in range(s.players)
                if k != p or s.options.jester_choose_self]
    return []


def side_actions(s: State) -> list[int]:
    """``prefer`` actions other seats may take during the Jester window (rules 1.10).

    A seat other than the Jester's player may set its public wish to ``yes`` or ``no``;
    setting the wish it already shows is not an action.
    """
    if s.phase != CHOOSE:
        return []
    out = []
    for q in range(s.players):
        if q == s.current:
            continue
        for yes in (True, False):
            if s.preferences[q] != ("yes" if yes else "no"):
                out.append(A.prefer(q, yes))
    return out


# --------------------------------------------------------------------------- setup

_JACKS, _QUEENS, _KINGS = ([c for c in range(52) if RANK[c] == r] for r in (JACK, QUEEN, KING))
# The Tavern deck before the shuffle, by player count (rules 1.3).
_TAVERN = {n: [c for c in range(52) if RANK[c] <= 10] + list(JESTERS[:JESTERS_IN_TAVERN[n]])
           for n in range(1, 5)}

def new_game(config: dict[str, Any], rng: random.Random) -> State:
    """Deal a new game (rules 1.3).

    ``config``: ``{"players": 1-4}`` plus any rule option (rules page, "Rule options").
    Raises ``InvalidPosition`` naming a bad key or value.
    """
    config = dict(config or {})
    players = config.pop("players", 1)
    if type(players) is not int or not 1 <= players <= 4:
        raise InvalidPosition("players: Regicide is for 1 to 4 players")
    options = Options.from_dict(config, players) if config else _DEFAULT_OPTIONS
    s = State.__new__(State)
    s.players = players
    jacks, queens, kings = list(_JACKS), list(_QUEENS), list(_KINGS)
    for group in (jacks, queens, kings):
        shuffle(group, rng)
    s.castle = kings + queens + jacks  # top last: the Jacks are on top
    s.enemy = s.castle.pop()
    s.tavern = tavern = _TAVERN[players][:]
    shuffle(tavern, rng)
    # Deal one card at a time around the table from the top: the card drawn i-th goes to
    # seat i % players.
    dealt = players * MAX_HAND[players]
    top = tavern[-1:-dealt - 1:-1]  # the dealt cards, top first
    del tavern[len(tavern) - dealt:]
    s.hands = [mask_of(top[p::players]) for p in range(players)]
    s.discard = []
    s.table = []
    s.spades = 0
    s.damage = 0
    s.cancelled = False
    s.known_top = 0
    s.yielded = [False] * players
    s.jesters = 2 if players == 1 else 0
    s.preferences = [None] * players
    s.options = options
    s.log = None
    first = options.first_player if options.first_player is not None else rng.randrange(players)
    s.current = first
    s.phase = PLAY
    s.log = (_new_tuple(Event, ("setup", None, {"players": players, "first": first,
                                                 "enemy": TEXT[s.enemy]}, None)), None)
    return s


# --------------------------------------------------------------------------- apply

# Where the game is, in the rules' words, for a refusal of an action of another step:
# "cards are played in Step 1, not in Step 4" (rules 1.4 to 1.10).
_NOT_NOW = {PLAY: "not in Step 1", SUFFER: "not in Step 4",
            CHOOSE: "not during the Jester's choice of who goes next",
            WON: "and the game is over", LOST: "and the game is over"}


def _refuse(s: State, action_text: str, why: str) -> IllegalAction:
    allowed = describe_allowed(s)
    return IllegalAction(f"{action_text} is refused: {why}; {allowed}")


def describe_allowed(s: State) -> str:
    """A short sentence of what the seat to act may do now."""
    if s.phase in OVER:
        return f"the game is over ({s.phase}): no action is allowed"
    legal = legal_actions(s)
    texts = [A.to_text(a) for a in legal]
    who = f"seat {s.current}"
    if len(texts) > 12:
        verbs = sorted({t.split()[0] for t in texts})
        if s.phase == SUFFER:
            verbs = [f"discard (cards totalling at least {effective_attack(s)})"
                     if v == "discard" else v for v in verbs]
            # the examples: any other action (the solo Jester), then the cheapest discards
            # (least value, then fewest cards), as the terminal's menu lists them
            texts = [A.to_text(a) for a in sorted(legal, key=discard_cost)]
        return f"{who} may: {', '.join(verbs)}; e.g. {', '.join(texts[:6])}"
    if not texts:
        return f"{who} has no legal action"
    return f"{who} may: {', '.join(texts)}"


def discard_cost(action: int) -> tuple[int, int]:
    """``(value, cards)`` of a Step 4 discard action (rules 1.8), ``(-1, 0)`` for any other
    action: sorting by it puts the other actions first, then the cheapest discards."""
    if A.kind(action) != A.DISCARD:
        return (-1, 0)
    mask = action & A.ARG_MASK
    return (mask_value(mask), mask.bit_count())


def apply(s: State, action: int, rng: random.Random) -> tuple[State, list[Event]]:
    """The state after ``action`` and the events it caused (rules 1.4 to 1.14).

    Raises ``IllegalAction`` (saying why and what is allowed) and leaves ``s`` unchanged.
    """
    kind = action >> A.KIND_SHIFT
    arg = action & A.ARG_MASK
    phase = s.phase
    if phase in OVER:
        raise IllegalAction(f"{_safe_text(action)} is refused: the game is over ({phase})",
                            "game_over")
    p = s.current
    events: list[Event] = []
    if kind == _PLAY_KIND:
        hand = s.hands[p]
        facts = _PLAY_FACTS.get(arg)  # None: not a legal combination (rules 1.5)
        if phase != PLAY or facts is None or hand & arg != arg:
            raise _refuse_play(s, action, hand)
        t = s.successor()
        _play(t, p, arg, facts, rng, events)
    elif kind == _DISCARD_KIND:
        hand = s.hands[p]
        d = effective_attack(s)
        total = mask_value(arg)
        if (phase != SUFFER or not arg or hand & arg != arg or total < d
                or s.options.minimal_discard and not _all_needed(arg, d)):
            raise _refuse_discard(s, action, hand, d, total)
        t = s.successor()
        t.hands[p] = hand ^ arg
        cards = cards_of(arg)
        t.discard = t.discard + cards
        _log(t, events, "discard", p, {"cards": [TEXT[c] for c in cards], "total": total,
                                       "attack": d})
        _next_turn(t, (p + 1) % t.players, events)
    elif kind == _YIELD_KIND:
        if phase != PLAY:
            raise _refuse(s, "yield",
                          f"yielding happens in Step 1, {_NOT_NOW[phase]}").coded("not_now")
        if not can_yield(s, p):
            why = ("no yielding in solo (rules 1.11, 3.R3)" if s.players == 1 else
                   "every other player yielded on their most recent turn (rules 1.11)")
            raise _refuse(s, "yield", why).coded(
                "no_yield_solo" if s.players == 1 else "no_yield_all_yielded")
        t = s.successor()
        t.yielded = t.yielded[:]
        t.yielded[p] = True
        _log(t, events, "yield", p, {})
        _step4(t, p, events)
    elif kind == _REFRESH_KIND:
        if s.players != 1 and s.jesters == 0:
            raise _refuse(s, "jester", "the Jester refresh is a solo power (rules 1.14)").coded(
                "jester_solo_only")
        if s.jesters == 0:
            raise _refuse(s, "jester", "both Jesters are already flipped (rules 1.14)").coded(
                "no_jesters_left")
        if phase not in (PLAY, SUFFER):
            raise _refuse(s, "jester",
                          "the refresh is used at the start of Step 1 or Step 4").coded("not_now")
        t = s.successor()
        _refresh(t, p, events)
    elif kind == _CHOOSE_KIND:
        if phase != CHOOSE:
            raise _refuse(s, A.to_text(action), "the next player is chosen only after a "
                          "Jester is played (rules 1.10)").coded("not_now")
        if arg >= s.players:
            raise _refuse(s, A.to_text(action), f"there is no seat {arg}").coded("no_seat",
                                                                                 seat=arg)
        if arg == p and not s.options.jester_choose_self:
            raise _refuse(s, A.to_text(action), "with option jester_choose_self off the "
                          "Jester's player must name another player (rules 3.R6)").coded(
                              "choose_self")
        t = s.successor()
        _log(t, events, "choose", p, {"next": arg})
        _next_turn(t, arg, events)
    elif kind == _PREFER_KIND:
        seat, yes = arg >> 1, arg & 1
        text = A.to_text(action)
        if phase != CHOOSE:
            raise IllegalAction(f"{text} is refused: wishes to go next are only allowed "
                                "between a Jester and the chosen player's turn (rules 1.10)",
                                "wish_not_now")
        if seat >= s.players:
            raise IllegalAction(f"{text} is refused: there is no seat {seat}; the seats are 0 "
                                f"to {s.players - 1}", "no_seat", {"seat": seat})
        if seat == p:
            raise IllegalAction(f"{text} is refused: only seats other than the Jester's "
                                f"player {p} state a wish (rules 1.10)", "wish_wrong_seat")
        wish = "yes" if yes else "no"
        if s.preferences[seat] == wish:
            raise IllegalAction(f"{text} is refused: seat {seat} already shows {wish!r}",
                                "wish_already", {"wish": wish})
        t = s.successor()
        t.preferences = t.preferences[:]
        t.preferences[seat] = wish
        _log(t, events, "prefer", seat, {"wish": wish})
    else:
        raise IllegalAction(f"action code {action} is not a Regicide action")
    return t, events


# The kind of an action as a small number (``action >> KIND_SHIFT``), cheaper to compare
# than its kind bits.
_PLAY_KIND, _DISCARD_KIND, _YIELD_KIND, _REFRESH_KIND, _CHOOSE_KIND, _PREFER_KIND = (
    code >> A.KIND_SHIFT
    for code in (A.PLAY, A.DISCARD, A.YIELD, A.JESTER_REFRESH, A.CHOOSE, A.PREFER))


def _refuse_play(s: State, action: int, hand: int) -> IllegalAction:
    """Why the ``play`` ``action`` is refused (rules 1.5), checked in this order: not Step 1,
    cards not held, not a legal combination."""
    arg = action & A.ARG_MASK
    if s.phase != PLAY:
        return _refuse(s, A.to_text(action),
                       f"cards are played in Step 1, {_NOT_NOW[s.phase]}").coded("not_now")
    if arg == 0 or arg & ~hand:
        return _refuse(s, A.to_text(action), f"seat {s.current} does not hold "
                       + " ".join(mask_texts(arg & ~hand) or ["any card named"])).coded(
                           "not_held", cards=mask_texts(arg & ~hand))
    return _refuse(s, A.to_text(action), play_problem(arg)).coded("play_shape")


def _refuse_discard(s: State, action: int, hand: int, d: int, total: int) -> IllegalAction:
    """Why the ``discard`` ``action`` is refused (rules 1.8, 3.R10), checked in this order: not
    Step 4, cards not held, too little, a card not needed (option ``minimal_discard``)."""
    arg = action & A.ARG_MASK
    if s.phase != SUFFER:
        return _refuse(s, A.to_text(action), f"discarding to absorb the attack happens in "
                       f"Step 4, {_NOT_NOW[s.phase]}").coded("not_now")
    if arg == 0 or arg & ~hand:
        return _refuse(s, A.to_text(action), f"seat {s.current} does not hold "
                       + " ".join(mask_texts(arg & ~hand) or ["any card named"])).coded(
                           "not_held", cards=mask_texts(arg & ~hand))
    if total < d:
        return _refuse(s, A.to_text(action), f"the discarded cards total {total}, "
                       f"less than the attack of {d} (rules 1.8)").coded(
                           "discard_short", total=total, attack=d)
    return _refuse(s, A.to_text(action), "with option minimal_discard every discarded card "
                   "must be needed (rules 3.R10)").coded("discard_minimal")


_new_tuple = tuple.__new__


def _safe_text(action: int) -> str:
    try:
        return A.to_text(action)
    except ValueError:
        return f"action code {action}"


def _log(t: State, events: list[Event], kind: str, seat: int | None, data: dict[str, Any],
         private: dict[int, dict[str, Any]] | None = None) -> None:
    """Record ``Event(kind, seat, data, private)`` in ``events`` and in ``t``'s log."""
    ev = _new_tuple(Event, (kind, seat, data, private))  # Event(...) without its Python frame
    events.append(ev)
    t.log = (ev, t.log)


def _take(t: State, n: int) -> tuple[list[int], Sequence[int]]:
    """Remove the ``n`` top Tavern cards: ``(cards in drawing order, those that were public)``
    (the public cards are the top ``known_top``)."""
    tavern = t.tavern
    drawn = tavern[-1:-n - 1:-1]  # the n top cards, top first
    t.tavern = tavern[:len(tavern) - n]
    known = t.known_top if t.known_top < n else n
    if not known:
        return drawn, ()
    t.known_top -= known
    return drawn, drawn[:known]


def _drawing_seats(t: State, p: int, v: int) -> list[int]:
    """The seat that draws each card of a Diamond power of ``v`` played by seat ``p``
    (rules 1.6): one card at a time from ``p`` around the table, skipping full hands, until
    ``v`` cards are drawn, every hand is full or the Tavern is empty."""
    if t.players == 1:
        n = MAX_HAND[1] - t.hands[p].bit_count()  # room in the hand
        if n > v:
            n = v
        return [p] * (n if n < len(t.tavern) else len(t.tavern))
    n_players = t.players
    full = MAX_HAND[n_players]
    room = [full - h.bit_count() for h in t.hands]
    seats = []
    left = min(v, len(t.tavern))
    seat = p
    skipped = 0
    while left and skipped < n_players:
        if room[seat] > 0:
            seats.append(seat)
            room[seat] -= 1
            left -= 1
            skipped = 0
        else:
            skipped += 1
        seat = (seat + 1) % n_players
    return seats


def _draw_event(t: State, events: list[Event], kind: str, by_seat: dict[int, list[int]],
                known: list[int], extra: dict[str, Any] | None = None) -> None:
    counts = {}
    private = {}
    for q, cs in by_seat.items():
        counts[q] = len(cs)
        if cs:
            private[q] = {"cards": [TEXT[c] for c in cs]}
    data: dict[str, Any] = {"counts": counts, **extra} if extra else {"counts": counts}
    if known:
        data["known"] = {q: [TEXT[c] for c in cs if c in known] for q, cs in by_seat.items()
                         if any(c in known for c in cs)}
    _log(t, events, kind, None if kind == "draw" else t.current, data, private or None)


_CLUB, _DIAMOND, _HEART, _SPADE = 1 << CLUBS, 1 << DIAMONDS, 1 << HEARTS, 1 << SPADES
_BIT = tuple(1 << c for c in range(54))  # the mask of each card
_NO_WISHES = {n: [None] * n for n in range(1, 5)}  # preferences without a wish (never changed)
_SUIT_BIT = tuple(1 << SUIT[c] for c in range(52))
# Suit powers of a suit bit set, as letters in resolution order (Hearts before Diamonds).
_SUIT_TEXT = tuple("".join(SUIT_LETTERS[x] for x in (HEARTS, DIAMONDS, CLUBS, SPADES)
                           if bits >> x & 1) for bits in range(16))


PlayFacts = tuple[tuple[int, ...], tuple[str, ...], int, int]


def _play_facts(mask: int) -> PlayFacts:
    """``(cards, card texts, value, suit bits)`` of a play (rules 1.5, 1.6)."""
    cards = cards_of(mask)
    suits = 0
    for c in cards:
        suits |= 1 << SUIT[c] if c < 52 else 0
    return tuple(cards), tuple(TEXT[c] for c in cards), sum(VALUE[c] for c in cards), suits


# The facts of every legal play (rules 1.5: each single card, both Jesters included, each
# Animal Companion pair and each set), read once per play instead of computed; a mask
# missing here is not a legal play (``play_problem`` says why).
_PLAY_FACTS = {m: _play_facts(m) for m in play_options((1 << 54) - 1) + (1 << 53,)}


def _play(t: State, p: int, mask: int, facts: PlayFacts, rng: random.Random,
          events: list[Event]) -> None:
    """Steps 1-3 of a card play (rules 1.5-1.7); ``facts``: ``_PLAY_FACTS[mask]``."""
    t.hands[p] ^= mask  # the seat holds the cards (apply checked)
    t.table = [*t.table, mask]
    if t.yielded[p]:  # a play ends the seat's yield
        t.yielded = t.yielded[:]
        t.yielded[p] = False
    _, texts, v, suits = facts
    played = list(texts)
    if not suits:  # a Jester, the one card without a suit (rules 1.10): cancel immunity,
        # skip Steps 3 and 4
        t.cancelled = True
        t.phase = CHOOSE
        t.preferences = [None] * t.players
        _log(t, events, "jester", p, {"cards": played})
        return
    immune = 0 if t.cancelled else suits & _SUIT_BIT[t.enemy]
    powers = suits & ~immune
    damage = v * 2 if powers & _CLUB else v
    said = {"cards": played, "value": v, "damage": damage, "powers": _SUIT_TEXT[powers],
            "blocked": _SUIT_TEXT[immune]}
    _log(t, events, "play", p, said)
    if powers & _HEART:  # Hearts before Diamonds (rules 1.6)
        if t.discard:
            pile = t.discard[:]
            n = v if v < len(pile) else len(pile)
            shuffle(pile, rng)  # the whole pile is shuffled, then n cards are taken
            cut = len(pile) - n
            t.discard = pile[:cut]
            t.tavern = pile[cut:] + t.tavern  # bottom of the Tavern
            _log(t, events, "heal", p, {"count": n})
        else:  # nothing to heal: the play's event says why nothing happens
            said["idle"] = ["discard_empty"]
    if powers & _DIAMOND:
        if not t.tavern:  # nothing to draw
            said.setdefault("idle", []).append("tavern_empty")
        elif seats := _drawing_seats(t, p, v):
            drawn, known = _take(t, len(seats))
            hands = t.hands
            if t.players == 1:
                by_seat = {p: drawn}
            else:
                by_seat = {}
                for seat, c in zip(seats, drawn):
                    by_seat.setdefault(seat, []).append(c)
            for seat, cs in by_seat.items():
                for c in cs:
                    hands[seat] |= _BIT[c]
            _draw_event(t, events, "draw", by_seat, known)
    if suits & _SPADE:
        t.spades += v  # counts now unless blocked; a Jester may unblock it later (rules 1.9)
    t.damage += damage
    health = _HEALTH_OF[t.enemy]
    if t.damage >= health:
        _defeat(t, p, t.damage == health, events)
    else:
        _step4(t, p, events)


def _defeat(t: State, p: int, exact: bool, events: list[Event]) -> None:
    """The enemy is defeated (rules 1.7 step 2)."""
    enemy = t.enemy
    discard = t.discard[:]
    if exact:
        t.tavern = [*t.tavern, enemy]
        t.known_top += 1
    else:
        discard.append(enemy)
    for play in t.table:
        facts = _PLAY_FACTS.get(play)  # None only for a play set down by a position file
        discard.extend(facts[0] if facts else cards_of(play))
    t.discard = discard
    t.table = []
    t.spades = 0
    t.cancelled = False
    t.damage = 0
    _log(t, events, "defeat", p, {"enemy": TEXT[enemy], "exact": exact})
    if not t.castle:
        t.enemy = None
        t.phase = WON
        _log(t, events, "won", None, {"medal": medal(t)})
        return
    t.enemy = t.castle[-1]
    t.castle = t.castle[:-1]
    _log(t, events, "enemy", None, {"enemy": TEXT[t.enemy]})
    _next_turn(t, p, events)


def _step4(t: State, p: int, events: list[Event]) -> None:
    """Step 4 (rules 1.8): skip when the attack is 0, lose when the hand is too weak."""
    d = effective_attack(t)
    if d == 0:
        _log(t, events, "shielded", p, {})
        _next_turn(t, (p + 1) % t.players, events)
        return
    t.phase = SUFFER
    if not t.jesters:
        _check_suffer(t, p, d, events)


def _check_suffer(t: State, p: int, d: int, events: list[Event]) -> None:
    """Seat ``p`` loses when its hand cannot absorb ``d`` and no Jester is left (rules 1.8)."""
    if mask_value(t.hands[p]) < d and not t.jesters:
        t.phase = LOST
        _log(t, events, "lost", p, {"reason": "attack", "attack": d})


def _next_turn(t: State, p: int, events: list[Event]) -> None:
    """Seat ``p`` starts a turn at Step 1 (rules 1.4, 1.13 loss at Step 1)."""
    t.current = p
    t.phase = PLAY
    if t.preferences != _NO_WISHES[t.players]:  # wishes are cleared; a list without any is kept
        t.preferences = [None] * t.players
    if not t.hands[p]:
        _check_start(t, p, events)


def _check_start(t: State, p: int, events: list[Event]) -> None:
    """Seat ``p`` at Step 1 loses with no card, no yield and no Jester left (rules 1.13)."""
    if not t.hands[p] and not can_yield(t, p) and not t.jesters:
        t.phase = LOST
        _log(t, events, "lost", p, {"reason": "stuck"})


def _refresh(t: State, p: int, events: list[Event]) -> None:
    """Solo Jester refresh (rules 1.14): discard the hand, draw up to 8."""
    t.jesters -= 1
    old = cards_of(t.hands[p])
    t.discard = t.discard + old
    n = MAX_HAND[t.players]
    drawn, known = _take(t, n if n < len(t.tavern) else len(t.tavern))
    hand = 0
    for c in drawn:
        hand |= _BIT[c]
    t.hands[p] = hand
    _draw_event(t, events, "refresh", {p: drawn}, known,
                {"discarded": [TEXT[c] for c in old], "jesters": t.jesters})
    if t.phase == SUFFER:
        _check_suffer(t, p, effective_attack(t), events)
    else:
        _check_start(t, p, events)
