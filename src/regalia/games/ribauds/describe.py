"""Le Roy des Ribauds events in words, for the terminal and the browser log.

``describe(event)`` takes an event as a seat sees it (``Event.seen_by`` or an item of a
view's ``log``) and returns one English sentence. Slots are shown from 1 (C1..C4). Seats are
"Player N" unless ``describe(event, seat_names)`` is given another ``seat_names(seat)``; a seat named
``YOU`` ("You") gets the words that go with it ("You reveal C2", "Your Chevalier swaps").
"""

from __future__ import annotations

from typing import Any, Callable

from regalia.core.words import count
from regalia.games.ribauds.cards import NAMES, parse_card

CONSPIRACIES = {"coronation": "the Coronation (three face-up Rois)",
                "marriage": "the Marriage (three Reines in hand)",
                "murder": "the Murder (a face-up card between two face-up Assassins)"}


def name(letter: str | None) -> str:
    """``"K"`` -> ``"Roi"``; ``None`` -> ``"a face-down card"``."""
    return "a face-down card" if letter is None else NAMES[parse_card(letter)]


def names(letters) -> str:
    return ", ".join(name(x) for x in letters) or "nothing"


def seat_name(seat: int | None) -> str:
    """Seats are 0-based in formats, shown 1-based to people."""
    return "Nobody" if seat is None else f"Player {seat + 1}"


YOU = "You"
"""The seat name that is the reader: its verbs agree with it ("You play", not "You plays")."""


def verb(who: str, third: str, plain: str) -> str:
    """``third`` ("reveals") after a seat's name, ``plain`` ("reveal") after ``YOU``."""
    return plain if who == YOU else third


def whose(who: str, inside: bool = False) -> str:
    """A seat's name as an owner: "Player 1's", "Your" (``inside`` a sentence: "your")."""
    if who == YOU:
        return "your" if inside else "Your"
    return f"{who}'s"


def slot_name(slot: int) -> str:
    return f"C{slot + 1}"


def describe(e: dict[str, Any], seat_names: Callable[[int | None], str] = seat_name) -> str:
    """One sentence for an event dict (keys ``kind``, ``seat`` and the event's data);
    ``seat_names(seat)`` names the seats (default ``seat_name``: "Player N")."""
    k = e["kind"]
    who = seat_names(e.get("seat"))
    if k == "redeal":
        if e.get("case") == "cancel":
            return "The deal is cancelled (too many Reines): both hands are dealt again."
        return f"{who} had two Reines: they go under the draw pile, two new cards are drawn."
    if k == "deal":
        text = "The Court gets 4 face-down cards; each player gets 3 cards."
        if e.get("hand"):
            text += f" Your hand: {names(e['hand'])}."
        return text
    if k == "start":
        return f"{who} {verb(who, 'plays', 'play')} first."
    if k == "reveal":
        return f"{who} {verb(who, 'reveals', 'reveal')} {slot_name(e['slot'])}: {name(e['card'])}."
    if k == "king_reveal":
        return f"{who} {verb(who, 'uses', 'use')} the Roi to turn {slot_name(e['slot'])} face up: {name(e['card'])} (no effect)."
    if k == "replace":
        placed = f"the {name(e['card'])}" if e.get("card") else "a card"
        how = "face up" if e.get("up") else "face down"
        text = f"{who} {verb(who, 'places', 'place')} {placed} {how} in {slot_name(e['slot'])}"
        if e.get("discarded"):
            text += f"; the {name(e['discarded'])} there is discarded"
        elif e.get("taken"):
            text += f" and {verb(who, 'takes', 'take')} the {name(e['taken'])} into hand"
        else:
            text += f" and {verb(who, 'takes', 'take')} the old card into hand"
        return text + "."
    if k == "swap":
        a, b = e["slots"]
        return f"{whose(who)} Chevalier swaps {slot_name(a)} and {slot_name(b)}."
    if k == "flip":
        side = "face up" if e.get("up") else "face down"
        card = f": {name(e['card'])}" if e.get("card") else ""
        return f"{who} {verb(who, 'flips', 'flip')} {slot_name(e['slot'])} {side}{card}."
    if k == "draw":
        text = f"{who} {verb(who, 'draws', 'draw')} {count(e['count'], 'card')}"
        if e.get("cards"):
            text += f": {names(e['cards'])}"
        return text + "."
    if k == "reshuffle":
        return f"The discard pile ({count(e['count'], 'card')}) is shuffled into a new draw pile."
    if k == "discard":
        return f"{who} {verb(who, 'discards', 'discard')} {names(e['cards'])}."
    if k == "peek":
        slots = ", ".join(slot_name(x) for x in e["slots"]) or "no card"
        text = f"{whose(who)} Assassin looks at {slots}"
        if e.get("cards"):
            text += f": {names(e['cards'])}"
        return text + "."
    if k == "inspect":
        text = (f"{whose(who)} Reine inspects {count(e['count'], 'card')} of "
                f"{whose(seat_names(e['target']), inside=True)} hand")
        if e.get("cards"):
            text += f" ({names(e['cards'])})"
        if e.get("discarded"):
            text += f"; {count(len(e['discarded']), 'Reine')} discarded"
        return text + "."
    if k == "win":
        return f"{who} {verb(who, 'wins', 'win')} by {CONSPIRACIES.get(e['conspiracy'], e['conspiracy'])}!"
    return f"{k} {e}"
