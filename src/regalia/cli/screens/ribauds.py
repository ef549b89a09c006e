"""The Le Roy des Ribauds terminal screen (rules 2.7: face-down cards only if known)."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from regalia.cli.screens import FRAME_WIDTH, indented
from regalia.core.errors import RegaliaError
from regalia.core.words import count
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.describe import CONSPIRACIES, describe, name, seat_name

__all__ = ["HELP", "cards_text", "rules_now", "complete", "describe", "label", "menu", "refusal", "render",
           "result", "seat_name"]

HELP = ("Type the number of a move, or the move as the menu writes it (e.g. 'reveal C2', "
        "'replace C3 with your Roi face up', 'swap C1 and C4', 'look at C1 and C2', "
        "'discard Reine and Assassin'); shorter forms work too ('replace C3 Roi up'), and so "
        "does the notation of the formats, where slots are 0 to 3 ('replace 2 K up'). "
        "'log' shows the whole log, 'quit' leaves the game.")

STYLE = {"K": "bold yellow", "Q": "bold magenta", "N": "bold cyan", "A": "bold red"}
PHASE_HELP = {
    "act": "Reveal a face-down Court card, or Replace a Court card with one from your hand.",
    "knight_swap": "Chevalier: swap two Court cards (they keep their side).",
    "knight_flip": "Chevalier: flip one Court card (no effect resolves).",
    "king": "Roi: reveal a face-down card (no effect), or draw 2 then discard 2.",
    "king_discard": "Roi: discard 2 cards from your hand.",
    "assassin": "Assassin: look at face-down Court cards.",
}


def rules_now(view: dict[str, Any]) -> str:
    """The rules of the decision at hand, in a few sentences (rules 2.3 to 2.5)."""
    now = PHASE_HELP.get(view["phase"], "")
    if not now:
        return ""
    return (now + " A card's effect resolves only when Reveal or a face-up Replace turns it "
            "face up: Chevalier swaps two Court cards, then flips one; Reine looks at 2 random "
            "cards of the opponent's hand and discards the Reines among them; Roi reveals a "
            "face-down card, or draws 2 then discards 2; Assassin looks at 2 face-down cards. "
            "You win if, during your turn, 3 Rois lie face up (Coronation) or a face-up card "
            "lies between two face-up Assassins (Murder), or if you hold 3 Reines at the start "
            "of your turn (Marriage). A conspiracy wins for whoever's turn it is when it "
            "comes true, whoever's cards complete it.")


def _card(letter: str | None, face_up: bool, known: bool) -> Text:
    if letter is None:
        return Text("[ ? ]", style="dim")
    t = Text(name(letter), style=STYLE.get(letter, ""))
    if not face_up:
        t.stylize("italic")
        t.append(" (face down, you remember)", style="dim")
    return t


def cards_text(letters: list[str]) -> Text:
    """Cards (a hand) as coloured names: ``["K", "A"]`` -> ``"Roi, Assassin"``."""
    out = Text()
    for i, c in enumerate(letters):
        if i:
            out.append(", ")
        out.append(name(c), style=STYLE[c])
    return out or Text("(none)", style="dim")


def render(view: dict[str, Any]) -> Panel:
    """The Court and the hand as ``view['seat']`` sees them."""
    rows: list[Any] = []
    court = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
    for i in range(4):
        court.add_column(f"C{i + 1}")
    court.add_row(*[_card(c["card"], c["face_up"], c["known"]) for c in view["court"]])
    court.add_row(*[Text("face up" if c["face_up"] else "face down", style="dim")
                    for c in view["court"]])
    rows.append(court)
    rows.append(Text(f"Draw pile {view['deck']}   Discard pile {len(view['discard'])}"
                     + (f" (top: {name(view['discard'][0])})" if view["discard"] else "")))
    for s in range(2):
        mark = "  to act" if s == view["current"] and view["phase"] != "won" else ""
        you = " (you)" if s == view["seat"] else ""
        rows.append(Text(f"{seat_name(s)}{you}: {count(view['hand_sizes'][s], 'card')}{mark}"))
    if view.get("hand") is not None:
        hand = Text("Your hand: ", style="bold")
        hand.append_text(cards_text(view["hand"]))
        rows.append(hand)
        if view.get("opponent_hand_known"):
            rows.append(Text("You know the opponent holds: "
                             + ", ".join(name(c) for c in view["opponent_hand_known"]), style="dim"))
    if view["phase"] in PHASE_HELP:
        rows.append(Text(PHASE_HELP[view["phase"]], style="bold yellow"))
    log = view["log"][-8:]
    if log:
        rows.append(Text("Last moves:", style="dim"))
        rows.extend(indented(describe(e), style="dim") for e in log)
    return Panel(Group(*rows), title="Le Roy des Ribauds — the Court", width=FRAME_WIDTH)


def label(text: str) -> str:
    """An action text for people: ``"replace 2 Q up"`` -> ``"replace C3 with Reine face up"``."""
    w = text.split()
    if not w:
        return text
    if w[0] == "reveal":
        return f"reveal C{int(w[1]) + 1}"
    if w[0] == "replace":
        return f"replace C{int(w[1]) + 1} with your {name(w[2])} face {w[3]}"
    if w[0] == "swap":
        return f"swap C{int(w[1]) + 1} and C{int(w[2]) + 1}"
    if w[0] == "flip":
        return f"flip C{int(w[1]) + 1}"
    if w[0] == "draw":
        return "draw 2 cards, then discard 2"
    if w[0] == "discard":
        return "discard " + " and ".join(name(x) for x in w[1:])
    if w[0] == "peek":
        return "look at " + " and ".join(f"C{int(x) + 1}" for x in w[1:])
    return text


def menu(view: dict[str, Any], legal: list[int]) -> list[int]:
    """Every legal action is numbered (never more than a few dozen)."""
    return legal


_WORDS = {"roi": "K", "king": "K", "reine": "Q", "queen": "Q", "chevalier": "N",
          "knight": "N", "assassin": "A", "rogue": "A", "look": "peek"}
_FILLER = {"and", "with", "your", "face", "at", "the", "in", "into", "then"}


def complete(text: str, view: dict[str, Any]) -> str:
    """Typed text in notation (formats.md 2.3), also as the screen and the menu write it:
    slots C1-C4, card names and the menu's own words (``replace C3 with your Roi face up``
    and ``replace C3 Roi up`` are ``replace 2 K up``; ``look at C1 and C2`` is ``peek 0 1``;
    ``draw 2 cards, then discard 2`` is ``draw``)."""
    words = []
    for w in text.replace(",", " ").split():
        low = w.lower()
        if low in _FILLER:
            continue
        if len(low) == 2 and low[0] == "c" and low[1] in "1234":
            words.append(str(int(low[1]) - 1))
        else:
            words.append(_WORDS.get(low, w))
    if words and words[0].lower() == "draw":
        return "draw"
    return " ".join(words)


def result(view: dict[str, Any]) -> Text:
    """The end-of-game announcement: the winner and the conspiracy."""
    if view["winner"] is None:
        return Text("The game is not finished.")
    you = " — you win!" if view["seat"] == view["winner"] else ""
    return Text(f"{seat_name(view['winner'])} wins with "
                f"{CONSPIRACIES.get(view['conspiracy'], view['conspiracy'])}{you}",
                style="bold green")


def refusal(message: str) -> str:
    """An engine refusal for people, written as the screen writes things: "Refused: why",
    the typed text not echoed, players numbered from 1, slots C1-C4, moves as the menu
    writes them (``slot 0 is face up; seat 0 may: reveal 1`` -> ``C1 is face up; Player 1
    may: reveal C2``)."""
    why = message.split(" is refused: ", 1)[-1]
    why = re.sub(r"^'[^']*': ", "", why)
    why, may, allowed = why.partition(" may: ")
    if may:
        why += may + ", ".join(label(t) for t in allowed.split(", "))
    why = re.sub(r"'([^']+)'", lambda m: f"'{_as_menu(m.group(1))}'", why)
    why = re.sub(r"\bslot (\d)\b", lambda m: f"C{int(m.group(1)) + 1}", why)
    why = why.replace("slots are 0 to 3", "slots are C1 to C4")
    why = re.sub(r"\bseat (\d)\b", lambda m: f"Player {int(m.group(1)) + 1}", why)
    return "Refused: " + why


def _as_menu(text: str) -> str:
    """A quoted example of notation in a message, as the menu writes it; other text as is."""
    try:
        return label(A.to_text(A.from_text(text)))
    except (RegaliaError, ValueError):
        return text
