"""The Regicide terminal screen (rules 1.15: only the seat's own view is drawn)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, Callable

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from regalia.cli.screens import FRAME_WIDTH, indented
from regalia.core.errors import RegaliaError
from regalia.core.words import count
from regalia.games.regicide.cards import (SUIT_LETTERS, SUIT_SYMBOLS, VALUE, CardError,
                                          parse_card, pretty)
from regalia.games.regicide.describe import YOU, describe, inside, seat_name
from regalia.games.regicide.describe import verb as agreeing
from regalia.games.regicide.rules import discard_cost

__all__ = ["HELP", "cards_text", "rules_now", "complete", "describe", "label", "menu", "refusal", "render",
           "result", "seat_name"]

SUIT_STYLE = {"H": "bold red", "D": "bold red", "C": "bold", "S": "bold"}
SUIT_NAME = {"H": "Hearts", "D": "Diamonds", "C": "Clubs", "S": "Spades"}
MENU_LIMIT = 14
HELP = ("Type the number of a move, or the move itself in notation (e.g. 'play 5C 5D', "
        "'discard 9D', 'yield' where yielding is allowed); cards alone are played or "
        "discarded. 'log' shows the whole log, 'quit' leaves the game.")


def rules_now(view: dict[str, Any]) -> str:
    """The rules of the decision at hand, in a few sentences (rules 1.5 to 1.10), with the
    numbers of ``view`` (the seat to act's view)."""
    solo = view["players"] == 1
    jester = (f" Solo: 'jester' flips one of your Jesters ({view['jesters']} left): discard "
              "your hand and draw 8 cards." if solo and view["jesters"] else "")
    if view["phase"] == "play":
        suit = SUIT_NAME.get(view["enemy_suit"] or "", "")
        left = view["health"] - view["damage"]
        return ("Step 1: play one card; or an Ace with one other card (not a Jester); or 2 to 4 "
                "cards of one number totalling 10 or less" + ("" if solo else "; or a Jester alone")
                + (". You may also yield (play nothing)." if view["can_yield"]
                   else ". You may not yield now.")
                + " Each suit of the play gives its power once, at the play's whole value: "
                "Hearts heal that many cards from the discard pile into the Tavern, Diamonds "
                "draw that many (players in turn), Clubs double the damage, Spades add a shield. "
                + (f"This enemy blocks {suit}. " if view["immune"] else
                   "A Jester cancelled this enemy's immunity. ")
                + f"{left} more damage defeats it (exactly {left}: it goes on top of the Tavern "
                "and can be drawn), and you play again; otherwise it attacks (Step 4)." + jester)
    if view["phase"] == "suffer":
        need = view["attack_to_absorb"]
        return (f"Step 4: the enemy attacks for {need} (attack {view['attack']} less shield "
                f"{view['shield']}). Discard cards whose values total at least {need}: A=1, "
                "2 to 10 as numbered, J=10, Q=15, K=20, Jester 0."
                + (" Every card you discard must be needed (option minimal_discard)."
                   if view["options"].get("minimal_discard") else "") + jester)
    if view["phase"] == "choose":
        return ("Your Jester cancelled the enemy's immunity: choose who takes the next turn "
                "(the others may have said whether they want it).")
    return ""


def card_text(text: str) -> Text:
    """A card as coloured text (red Hearts and Diamonds, magenta Jester)."""
    if text == "X":
        return Text("Jester", style="bold magenta")
    return Text(pretty(parse_card(text)), style=SUIT_STYLE[text[-1]])


def cards_text(texts: list[str]) -> Text:
    """Cards as coloured text: ``["5C", "X"]`` -> ``"5♣  Jester"``."""
    out = Text()
    for i, t in enumerate(texts):
        if i:
            out.append("  ")
        out.append_text(card_text(t))
    return out or Text("(none)", style="dim")


class Facts:
    """``head`` then the ``parts`` three spaces apart, a line wrapped between two parts,
    never inside one (its next line starts under the first part), at the width the frame
    has when drawn (narrower than ``FRAME_WIDTH`` on a narrower terminal)."""

    def __init__(self, head: Text, parts: list[Text]) -> None:
        self.head = head
        self.parts = parts

    def __rich_console__(self, console: Any, options: Any) -> Any:
        width = options.max_width
        line = self.head.copy()
        indent = line.cell_len
        for part in self.parts:
            if line.cell_len + 3 + part.cell_len > width and line.plain.strip():
                yield line
                line = Text(" " * indent)
            line.append("   ")
            line.append_text(part)
        yield line


def render(view: dict[str, Any], bots: Collection[int] = (),
           seat_names: Callable[[int | None], str] = seat_name) -> Panel:
    """The table as ``view['seat']`` sees it, the seats named by ``seat_names``; the seats in
    ``bots`` marked as bots (unless their names say it)."""
    rows: list[Any] = []
    if view["enemy"]:
        attack = f"attack {view['attack']}"
        if view["attack_after_shield"] < view["attack"]:
            attack += f" ({view['attack_after_shield']} after the shield)"
        if view["immune"]:
            status = Text(f"immune to {SUIT_NAME[view['enemy_suit']]}", style="yellow")
        else:
            status = Text("immunity cancelled by a Jester", style="green")
        parts = [Text(attack), Text(f"health {view['health']}"),
                 Text(f"damage {view['damage']}/{view['health']}"),
                 Text(f"shield {view['shield']}"), status]
        head = Text("Enemy ")
        head.append_text(card_text(view["enemy"]))
        rows.append(Facts(head, parts))
    plays = [cards_text(p) for p in view["table"]]
    table_line = Text("Table: ")
    for i, p in enumerate(plays):
        if i:
            table_line.append(" | ")
        table_line.append_text(p)
    if not plays:
        table_line.append("(no cards played against this enemy)", style="dim")
    rows.append(table_line)
    cr = view["castle_ranks"]
    top = view["discard_top"]
    piles = Text(f"Castle {view['castle']} (J {cr['J']}, Q {cr['Q']}, K {cr['K']})   "
                 f"Tavern {view['tavern']}   Discard {view['discard']}")
    if top:
        piles.append(" (top ")
        piles.append_text(card_text(top))
        piles.append(")")
    if view["tavern_top"]:
        piles.append("   known on top of the Tavern: ")
        piles.append_text(cards_text(view["tavern_top"]))
    rows.append(piles)
    seats = Table.grid(padding=(0, 2))
    for s in range(view["players"]):
        marks = []
        if s == view["current"] and view["phase"] in ("play", "suffer", "choose"):
            marks.append("to act")
        if view["yielded"][s]:
            marks.append("yielded last turn")
        if view["preferences"][s]:
            marks.append("wants to go next" if view["preferences"][s] == "yes"
                         else "would rather not go next")
        name = seat_names(s)
        if s == view["seat"] and name != YOU:
            name += " (you)"
        elif s in bots and not name.startswith("Bot"):
            name += " (bot)"
        seats.add_row(Text(name), count(view["hand_sizes"][s], "card"), ", ".join(marks))
    rows.append(seats)
    if view["players"] == 1:
        rows.append(Text(f"Jesters (refreshes) left: {view['jesters']}"))
    if view.get("hand") is not None:
        hand = Text("Your hand: ", style="bold")
        hand.append_text(cards_text(view["hand"]))
        hand.append(f"   (total {sum(VALUE[parse_card(t)] for t in view['hand'])})")
        rows.append(hand)
    if view["phase"] == "suffer":
        rows.append(Text(f"Step 4: discard cards totalling at least {view['attack_to_absorb']}.",
                         style="bold yellow"))
    elif view["phase"] == "choose":
        rows.append(Text("A Jester was played: its player chooses who goes next.",
                         style="bold yellow"))
    log = view["log"][-8:]
    if log:
        rows.append(Text("Last moves:", style="dim"))
        rows.extend(indented(describe(e, seat_names), style="dim") for e in log)
    title = f"Regicide — {view['enemies_defeated']} of 12 enemies defeated"
    return Panel(Group(*rows), title=title, width=FRAME_WIDTH)


def label(text: str, seat_names: Callable[[int | None], str] = seat_name) -> str:
    """An action text for people: ``"play 5C 5D"`` -> ``"play 5♣ 5♦"``; ``"choose 1"`` ->
    ``"choose Player 2 to go next"``, or with other ``seat_names`` the number as typed and
    the name: ``"choose 2 to go next: Bot (heuristic)"``."""
    words = text.split()
    if words and words[0] in ("play", "discard"):
        return words[0] + " " + " ".join(pretty(parse_card(w)) for w in words[1:])
    if words and words[0] == "choose":
        seat = int(words[1])
        who = seat_names(seat)
        if who == seat_name(seat):
            return f"choose {who} to go next"
        return f"choose {seat + 1} to go next: {inside(who)}"
    if words and words[0] == "jester":
        return "jester (flip a Jester: discard your hand, draw up to 8)"
    return text


def menu(view: dict[str, Any], legal: list[int]) -> list[int]:
    """The actions to number: all, except in Step 4 (up to 255 discards), where the
    ``MENU_LIMIT`` cheapest discards come first (the rest can be typed) and the solo Jester
    last: a habit of typing 1 must not spend a Jester."""
    if view["phase"] != "suffer":
        return legal
    discards = sorted((a for a in legal if discard_cost(a)[0] >= 0), key=discard_cost)
    return discards[:MENU_LIMIT] + [a for a in legal if discard_cost(a)[0] < 0]


# Cards typed as the screen writes them: suit symbols (outlined ones too) for the letters.
_SUIT_LETTER = str.maketrans(SUIT_SYMBOLS + "♧♢♡♤", SUIT_LETTERS * 2)


def complete(text: str, view: dict[str, Any],
             seat_names: Callable[[int | None], str] = seat_name) -> str | None:
    """Typed text as action notation: cards as the screen writes them (``3♣``, ``Jester``)
    or in notation (``3C``, ``X``); cards alone mean ``play`` in Step 1 and ``discard`` in
    Step 4; ``choose N`` names Player N, counted from 1 as on the screen (a refusal names
    the players by ``seat_names``). ``None`` when the
    text starts with no verb and is not cards alone (``blah blah``). Raises
    ``RegaliaError`` for a ``choose`` or ``prefer`` that cannot be typed here."""
    words = [w if w.lower() != "jester" else "X" for w in text.translate(_SUIT_LETTER).split()]
    first = words[0].lower()
    if first == "choose":
        return _choose(words[1:], view["players"], seat_names)
    if first == "prefer":
        raise RegaliaError("wishes to go next are asked of each player after a Jester is "
                           "played: answer y or n then")
    if first in ("play", "discard", "yield"):
        return " ".join(words)
    if text.strip().lower() == "jester" and view["players"] == 1:
        return "jester"  # the solo refresh, as the menu writes it (else the card, below)
    try:
        for word in words:
            parse_card(word)
    except CardError:
        return None
    verb = "discard" if view["phase"] == "suffer" else "play"
    return f"{verb} {' '.join(words)}"


def _choose(words: list[str], players: int,
            seat_names: Callable[[int | None], str] = seat_name) -> str:
    """``choose`` with a player's number from 1 (``["2"]``, ``["player", "2"]``) as
    notation (``choose 1``)."""
    number = words[-1] if words and (len(words) == 1 or words[0].lower() == "player") else ""
    named = seat_names(1) != seat_name(1) or seat_names(0) != seat_name(0)
    which = ("; " + ", ".join(f"{s + 1} is {inside(seat_names(s))}" for s in range(players))
             if named else "")
    if not number.isdigit():
        raise RegaliaError(f"write choose and a player's number from 1 to {players}, e.g. "
                           f"'choose 2' for {inside(seat_names(1))}, or pick it from the "
                           f"menu{which}")
    if not 1 <= int(number) <= players:
        raise RegaliaError(f"there is no Player {number}: the players are 1 to {players}{which}")
    return f"choose {int(number) - 1}"


def result(view: dict[str, Any], seat_names: Callable[[int | None], str] = seat_name) -> Text:
    """The end-of-game announcement."""
    if view["phase"] == "won":
        medal = view.get("medal")
        extra = f" — {medal.capitalize()} medal!" if medal else ""
        return Text(f"Victory: all 12 enemies defeated{extra}", style="bold green")
    return Text(f"Defeat: {view['enemies_defeated']} of 12 enemies defeated.", style="bold red")


# A card in notation inside an engine message (5C, TD, 10D; X, the Jester, as a card played
# or held: the notation's own help names X as a letter).
NOTATION = re.compile(r"\b(?:10|[2-9TAJQK])[CDHS]\b|(?<=play )X\b|(?<=hold )X\b")


def refusal(message: str, seat_names: Callable[[int | None], str] = seat_name) -> str:
    """An engine refusal for people: "Refused: why", players named by ``seat_names``
    (default: numbered from 1) and cards written as on screen (``seat 0 does not hold KS``
    -> ``Player 1 does not hold K♠``, or ``you do not hold K♠``)."""
    why = message.split(" is refused: ", 1)[-1]
    why = re.sub(r"\bseat (\d)\b( does| has| already shows)?",
                 lambda m: _seat_words(seat_names(int(m[1])), m[2]), why)
    return "Refused: " + NOTATION.sub(lambda m: pretty(parse_card(m[0])), why)


_PLAIN = {" does": " do", " has": " have", " already shows": " already show"}


def _seat_words(who: str, said: str | None) -> str:
    """A seat's name and the verb after it in a refusal: ``you do``, ``Player 1 does``."""
    return inside(who) + (agreeing(who, said, _PLAIN[said]) if said else "")
