"""Le Roy des Ribauds events in words, for the terminal and the browser log.

``describe(event)`` takes an event as a seat sees it (``Event.seen_by`` or an item of a
view's ``log``) and returns one English sentence. Slots are shown from 1 (C1..C4).
"""

from __future__ import annotations

from typing import Any

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


def slot_name(slot: int) -> str:
    return f"C{slot + 1}"


def describe(e: dict[str, Any]) -> str:
    """One sentence for an event dict (keys ``kind``, ``seat`` and the event's data)."""
    k = e["kind"]
    who = seat_name(e.get("seat"))
    if k == "redeal":
        if e.get("case") == "cancel":
            return "The deal is cancelled (too many Reines): both hands are dealt again."
        return f"{seat_name(e.get('seat'))} had two Reines: they go under the draw pile, two new cards are drawn."
    if k == "deal":
        text = "The Court gets 4 face-down cards; each player gets 3 cards."
        if e.get("hand"):
            text += f" Your hand: {names(e['hand'])}."
        return text
    if k == "start":
        return f"{who} plays first."
    if k == "reveal":
        return f"{who} reveals {slot_name(e['slot'])}: {name(e['card'])}."
    if k == "king_reveal":
        return f"{who} uses the Roi to turn {slot_name(e['slot'])} face up: {name(e['card'])} (no effect)."
    if k == "replace":
        placed = f"the {name(e['card'])}" if e.get("card") else "a card"
        how = "face up" if e.get("up") else "face down"
        text = f"{who} places {placed} {how} in {slot_name(e['slot'])}"
        if e.get("discarded"):
            text += f"; the {name(e['discarded'])} there is discarded"
        elif e.get("taken"):
            text += f" and takes the {name(e['taken'])} into hand"
        else:
            text += " and takes the old card into hand"
        return text + "."
    if k == "swap":
        a, b = e["slots"]
        return f"{who}'s Chevalier swaps {slot_name(a)} and {slot_name(b)}."
    if k == "flip":
        side = "face up" if e.get("up") else "face down"
        card = f": {name(e['card'])}" if e.get("card") else ""
        return f"{who} flips {slot_name(e['slot'])} {side}{card}."
    if k == "draw":
        text = f"{who} draws {count(e['count'], 'card')}"
        if e.get("cards"):
            text += f": {names(e['cards'])}"
        return text + "."
    if k == "reshuffle":
        return f"The discard pile ({count(e['count'], 'card')}) is shuffled into a new draw pile."
    if k == "discard":
        return f"{who} discards {names(e['cards'])}."
    if k == "peek":
        slots = ", ".join(slot_name(x) for x in e["slots"]) or "no card"
        text = f"{who}'s Assassin looks at {slots}"
        if e.get("cards"):
            text += f": {names(e['cards'])}"
        return text + "."
    if k == "inspect":
        text = f"{who}'s Reine inspects {count(e['count'], 'card')} of {seat_name(e['target'])}'s hand"
        if e.get("cards"):
            text += f" ({names(e['cards'])})"
        if e.get("discarded"):
            text += f"; {count(len(e['discarded']), 'Reine')} discarded"
        return text + "."
    if k == "win":
        return f"{who} wins by {CONSPIRACIES.get(e['conspiracy'], e['conspiracy'])}!"
    return f"{k} {e}"
