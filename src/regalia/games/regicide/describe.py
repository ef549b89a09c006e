"""Regicide events in words, for the terminal and the browser log.

``describe(event)`` takes an event as a seat sees it (``Event.seen_by``, or an item of a
view's ``log``) and returns one English sentence. Cards are written for people (``10♦``).
Seats are "Player N" unless ``describe(event, seat_names)`` is given another ``seat_names(seat)``; a
seat named ``YOU`` ("You") gets the verbs that go with it ("You play 5♠", "you draw 2").
"""

from __future__ import annotations

from typing import Any, Callable

from regalia.core.words import count
from regalia.games.regicide.cards import parse_card, pretty

POWER_NAMES = {"H": "Hearts", "D": "Diamonds", "C": "Clubs", "S": "Spades"}
IDLE = {"discard_empty": "Hearts: the discard pile is empty, nothing to heal.",  # rules 1.6
        "tavern_empty": "Diamonds: the Tavern is empty, nobody draws."}


def cards_words(texts: list[str]) -> str:
    """``["5C", "X"]`` -> ``"5♣ Jester"``."""
    return " ".join(pretty(parse_card(t)) for t in texts)


def seat_name(seat: int | None) -> str:
    """Seats are 0-based in formats, shown 1-based to people."""
    return "Nobody" if seat is None else f"Player {seat + 1}"


YOU = "You"
"""The seat name that is the reader: its verbs agree with it ("You play", not "You plays")."""


def inside(who: str) -> str:
    """A seat's name inside a sentence: "you" for ``YOU``."""
    return "you" if who == YOU else who


def verb(who: str, third: str, plain: str) -> str:
    """``third`` ("plays") after a seat's name, ``plain`` ("play") after ``YOU``."""
    return plain if who == YOU else third


def describe(e: dict[str, Any], seat_names: Callable[[int | None], str] = seat_name) -> str:
    """One sentence for an event dict (keys ``kind``, ``seat`` and the event's data);
    ``seat_names(seat)`` names the seats (default ``seat_name``: "Player N")."""
    k = e["kind"]
    who = seat_names(e.get("seat"))
    if k == "setup":
        game = "Solo game" if e["players"] == 1 else f"New game for {e['players']} players"
        first = seat_names(e["first"])
        return (f"{game}: {inside(first)} {verb(first, 'starts', 'start')} against "
                f"{cards_words([e['enemy']])}.")
    if k == "play":
        text = f"{who} {verb(who, 'plays', 'play')} {cards_words(e['cards'])} (value {e['value']})"
        powers = [POWER_NAMES[p] for p in e["powers"]]
        if powers:
            text += ", " + " and ".join(powers) + " active"
        if e["blocked"]:
            text += ", " + " and ".join(POWER_NAMES[p] for p in e["blocked"]) + " blocked by immunity"
        return text + f": {e['damage']} damage." + "".join(" " + IDLE[why] for why in e.get("idle", ()))
    if k == "jester":
        return f"{who} {verb(who, 'plays', 'play')} the Jester: the enemy's immunity is cancelled; no attack this turn."
    if k == "heal":
        goes = "goes" if e["count"] == 1 else "go"
        return (f"Hearts: {count(e['count'], 'card')} from the discard pile {goes} under the "
                "Tavern.")
    if k == "refresh":
        n = sum(e["counts"].values())
        text = (f"{who} {verb(who, 'flips', 'flip')} a Jester: "
                f"{verb(who, 'discards', 'discard')} {count(len(e['discarded']), 'card')} and "
                f"{verb(who, 'draws', 'draw')} {n} ({count(e['jesters'], 'Jester')} left).")
    elif k == "draw":
        text = "Diamonds: " + ", ".join(
            f"{inside(seat_names(int(seat)))} {verb(seat_names(int(seat)), 'draws', 'draw')} {n}"
            for seat, n in sorted(e["counts"].items(), key=lambda kv: int(kv[0]))) + "."
    if k in ("draw", "refresh"):
        if e.get("cards"):
            text += f" Drawn: {cards_words(e['cards'])}."  # as the browser says it; a replay shows it to all
        for seat, cards in (e.get("known") or {}).items():
            text += f" {seat_names(int(seat))} took {cards_words(cards)} from the top of the Tavern."
        return text
    if k == "defeat":
        how = ("exactly: it goes face down on top of the Tavern" if e["exact"]
               else "and goes to the discard pile")
        return f"{cards_words([e['enemy']])} is defeated {how}."
    if k == "enemy":
        return f"The next enemy is {cards_words([e['enemy']])}."
    if k == "yield":
        return f"{who} {verb(who, 'yields', 'yield')}."
    if k == "shielded":
        return (f"The shield absorbs the whole attack: {inside(who)} "
                f"{verb(who, 'discards', 'discard')} nothing.")
    if k == "discard":
        return (f"{who} {verb(who, 'discards', 'discard')} {cards_words(e['cards'])} (total {e['total']}) to absorb "
                f"an attack of {e['attack']}.")
    if k == "choose":
        return f"{who} {verb(who, 'chooses', 'choose')} {inside(seat_names(e['next']))} to go next."
    if k == "prefer":
        return f"{who} {'would like to go next' if e['wish'] == 'yes' else 'would rather not go next'}."
    if k == "won":
        medal = f" {e['medal'].capitalize()} medal!" if e.get("medal") else ""
        return f"Victory: the last King falls!{medal}"
    if k == "lost":
        if e["reason"] == "attack":
            return f"Defeat: {inside(who)} cannot absorb an attack of {e['attack']}."
        return f"Defeat: {inside(who)} can neither play a card nor yield."
    return f"{k} {e}"
