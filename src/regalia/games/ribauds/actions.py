"""Le Roy des Ribauds action codes and their text (formats.md 2.3).

An action is an ``int`` below ``N_CODES`` (224): ``kind << 5 | arg``.

=========  ====  =========================================  ==========================
kind       code  arg (5 bits)                               text
=========  ====  =========================================  ==========================
REVEAL     0     slot (0-3)                                 ``reveal SLOT``
REPLACE    1     slot << 3 | card << 1 | up (1 face up)     ``replace SLOT CARD up|down``
SWAP       2     i << 2 | j, with i < j                     ``swap I J``
FLIP       3     slot                                       ``flip SLOT``
DRAW       4     0                                          ``draw``
DISCARD    5     c1 << 2 | c2, card ids with c1 <= c2       ``discard C1 C2``
PEEK       6     bit mask of the slots looked at (1 or 2)   ``peek SLOT...``
=========  ====  =========================================  ==========================

Readers accept the slots of ``swap`` and ``peek`` and the cards of ``discard`` in any
order; writers emit them ascending (cards in canonical order K Q N A). Not every code below
``N_CODES`` is an action: ``VALID[code]`` says which are.
"""

from __future__ import annotations

from regalia.core.errors import IllegalAction
from regalia.games.ribauds.cards import LETTERS, CardError, parse_card

REVEAL, REPLACE, SWAP, FLIP, DRAW, DISCARD, PEEK = range(7)
VERBS = ("reveal", "replace", "swap", "flip", "draw", "discard", "peek")
N_CODES = 7 << 5
SHIFT = 5
ARG = 31


def reveal(slot: int) -> int:
    """Code of ``reveal SLOT``."""
    return REVEAL << 5 | slot


def replace(slot: int, card: int, up: bool) -> int:
    """Code of ``replace SLOT CARD up|down``."""
    return REPLACE << 5 | slot << 3 | card << 1 | (1 if up else 0)


def swap(i: int, j: int) -> int:
    """Code of ``swap I J`` (any order; ``i != j``)."""
    if i > j:
        i, j = j, i
    return SWAP << 5 | i << 2 | j


def flip(slot: int) -> int:
    """Code of ``flip SLOT``."""
    return FLIP << 5 | slot


DRAW_CODE = DRAW << 5


def discard(c1: int, c2: int) -> int:
    """Code of ``discard C1 C2`` (any order)."""
    if c1 > c2:
        c1, c2 = c2, c1
    return DISCARD << 5 | c1 << 2 | c2


def peek(slots) -> int:
    """Code of ``peek SLOT...`` (1 or 2 distinct slots)."""
    m = 0
    for s in slots:
        m |= 1 << s
    return PEEK << 5 | m


def _build() -> tuple[list[bool], list[str | None]]:
    valid = [False] * N_CODES
    text: list[str | None] = [None] * N_CODES
    for s in range(4):
        text[reveal(s)] = f"reveal {s}"
        text[flip(s)] = f"flip {s}"
        for c in range(4):
            for up in (True, False):
                text[replace(s, c, up)] = f"replace {s} {LETTERS[c]} {'up' if up else 'down'}"
    for i in range(4):
        for j in range(i + 1, 4):
            text[swap(i, j)] = f"swap {i} {j}"
    text[DRAW_CODE] = "draw"
    for c1 in range(4):
        for c2 in range(c1, 4):
            text[discard(c1, c2)] = f"discard {LETTERS[c1]} {LETTERS[c2]}"
    for m in range(1, 16):
        slots = [s for s in range(4) if m >> s & 1]
        if len(slots) <= 2:
            text[peek(slots)] = "peek " + " ".join(map(str, slots))
    for code, t in enumerate(text):
        valid[code] = t is not None
    return valid, text


VALID, TEXT = _build()


def is_action(action: object) -> bool:
    """Whether ``action`` is the code of some Le Roy des Ribauds action."""
    return type(action) is int and 0 <= action < N_CODES and VALID[action]


def to_text(action: int) -> str:
    """Canonical text of an action code: ``"replace 2 Q up"``, ``"peek 1 3"``.

    Raises ``ValueError`` for a code that is no action.
    """
    if not is_action(action):
        raise ValueError(f"not a Le Roy des Ribauds action code: {action!r}")
    return TEXT[action]  # type: ignore[return-value]


FORMS = ("reveal SLOT, replace SLOT CARD up|down, swap SLOT SLOT, flip SLOT, draw, "
         "discard CARD CARD, peek SLOT...")


def _slot(word: str, text: str) -> int:
    if word not in ("0", "1", "2", "3"):
        raise IllegalAction(f"{text!r}: {word!r} is not a Court slot; slots are 0 to 3")
    return int(word)


def from_text(text: str) -> int:
    """Action code of ``text`` (verbs, cards and up/down case-insensitive).

    Raises ``IllegalAction`` naming what is unreadable and the accepted forms. Legality in a
    position is checked by ``rules.apply``, not here.
    """
    if not isinstance(text, str):
        raise IllegalAction(f"{text!r}: an action is a text; the forms are {FORMS}")
    words = text.split()
    if not words:
        raise IllegalAction(f"empty action: the forms are {FORMS}")
    verb = words[0].lower()
    rest = words[1:]
    if verb in ("reveal", "flip"):
        if len(rest) != 1:
            raise IllegalAction(f"{text!r}: write {verb} SLOT, e.g. '{verb} 1'")
        s = _slot(rest[0], text)
        return reveal(s) if verb == "reveal" else flip(s)
    if verb == "replace":
        if len(rest) != 3:
            raise IllegalAction(f"{text!r}: write replace SLOT CARD up|down, e.g. 'replace 2 Q up'")
        s = _slot(rest[0], text)
        try:
            c = parse_card(rest[1])
        except CardError as e:
            raise IllegalAction(f"{text!r}: {e}") from None
        way = rest[2].lower()
        if way not in ("up", "down"):
            raise IllegalAction(f"{text!r}: the last word is up (face up) or down (face down)")
        return replace(s, c, way == "up")
    if verb == "swap":
        if len(rest) != 2:
            raise IllegalAction(f"{text!r}: write swap SLOT SLOT, e.g. 'swap 0 3'")
        i, j = _slot(rest[0], text), _slot(rest[1], text)
        if i == j:
            raise IllegalAction(f"{text!r}: the Chevalier exchanges two different slots "
                                "(rules 2.4)")
        return swap(i, j)
    if verb == "draw":
        if rest:
            raise IllegalAction(f"{text!r}: draw takes no argument")
        return DRAW_CODE
    if verb == "discard":
        if len(rest) != 2:
            raise IllegalAction(f"{text!r}: the Roi's option (b) discards exactly 2 cards "
                                "(rules 2.4): write discard CARD CARD, e.g. 'discard Q A'")
        try:
            c1, c2 = parse_card(rest[0]), parse_card(rest[1])
        except CardError as e:
            raise IllegalAction(f"{text!r}: {e}") from None
        return discard(c1, c2)
    if verb == "peek":
        if not 1 <= len(rest) <= 2:
            raise IllegalAction(f"{text!r}: the Assassin looks at 1 or 2 face-down slots "
                                "(rules 2.4): write peek SLOT or peek SLOT SLOT")
        slots = [_slot(w, text) for w in rest]
        if len(set(slots)) != len(slots):
            raise IllegalAction(f"{text!r}: a slot is named twice")
        return peek(slots)
    raise IllegalAction(f"{text!r}: unknown action {verb!r}; the forms are {FORMS}")
