"""The Le Roy des Ribauds terminal screen (rules 2.7: face-down cards only if known)."""

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
from regalia.games.ribauds import actions as A
from regalia.games.ribauds.describe import (CONSPIRACIES, YOU, describe, name, names, seat_name,
                                            verb)

__all__ = ["HELP", "cards_text", "rules_now", "complete", "describe", "label", "menu", "refusal", "render",
           "result", "seat_name"]

HELP = ("Type the number of a move, or the move as the menu writes it (e.g. 'reveal C2', "
        "'replace C3 with your Roi face up', 'swap C1 and C4', 'look at C1 and C2', "
        "'discard Reine and Assassin'); shorter forms work too ('replace C3 Roi up', "
        "'swap 1 4'). Court cards are C1 to C4, as on the screen; a number after a move "
        "counts the same way ('reveal 2' reveals C2). (Only the command-line tools' "
        "notation numbers the slots 0 to 3.) 'log' shows the whole log, 'concede' resigns (your "
        "opponent wins), 'quit' leaves the game unfinished.")

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
        t.append(" (you remember)", style="dim")  # "face down" is on the line below
    return t


def cards_text(letters: list[str]) -> Text:
    """Cards (a hand) as coloured names: ``["K", "A"]`` -> ``"Roi, Assassin"``."""
    out = Text()
    for i, c in enumerate(letters):
        if i:
            out.append(", ")
        out.append(name(c), style=STYLE[c])
    return out or Text("(none)", style="dim")


def render(view: dict[str, Any], bots: Collection[int] = (),
           seat_names: Callable[[int | None], str] = seat_name) -> Panel:
    """The Court and the hand as ``view['seat']`` sees them, the seats named by
    ``seat_names``; the seats in ``bots`` marked as bots (unless their names say it)."""
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
        who = seat_names(s)
        if s == view["seat"] and who != YOU:
            who += " (you)"
        elif s in bots and not who.startswith("Bot"):
            who += " (bot)"
        rows.append(Text(f"{who}: {count(view['hand_sizes'][s], 'card')}{mark}"))
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
        rows.extend(indented(describe(e, seat_names), style="dim") for e in log)
    return Panel(Group(*rows), title="Le Roy des Ribauds — the Court", width=FRAME_WIDTH)


def label(text: str, seat_names: Callable[[int | None], str] = seat_name) -> str:
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


_SLOT_VERBS = ("reveal", "replace", "swap", "flip", "peek")


def complete(text: str, view: dict[str, Any],
             seat_names: Callable[[int | None], str] = seat_name) -> str | None:
    """Typed text as the screen and the menu write it, in notation (formats.md 2.3): slots
    C1-C4, card names and the menu's own words (``replace C3 with your Roi face up`` and
    ``replace C3 Roi up`` are ``replace 2 K up``; ``look at C1 and C2`` is ``peek 0 1``;
    ``draw 2 cards, then discard 2`` is ``draw``). A bare slot number after a verb counts
    from 1 like the screen (``reveal 2`` is ``reveal 1``, i.e. C2); ``0`` or ``5`` there is
    refused (``RegaliaError``). ``None`` when the text does not start with a move's verb."""
    words: list[str] = []
    for w in text.replace(",", " ").split():
        low = w.lower()
        if low in _FILLER:
            continue
        verb = words[0].lower() if words else ""
        if len(low) == 2 and low[0] == "c" and low[1] in "1234":
            words.append(str(int(low[1]) - 1))
        elif low.isdigit() and verb in _SLOT_VERBS and (verb != "replace" or len(words) == 1):
            if low not in ("1", "2", "3", "4"):
                raise RegaliaError(f"there is no Court card {low}: the Court is C1 to C4 as "
                                   "on the screen (or 1 to 4 after the move's word, as in "
                                   "'reveal 2')")
            words.append(str(int(low) - 1))
        else:
            words.append(_WORDS.get(low, w))
    if not words or words[0].lower() not in A.VERBS:
        return None
    if words[0].lower() == "draw":
        return "draw"
    return " ".join(words)


def result(view: dict[str, Any], seat_names: Callable[[int | None], str] = seat_name) -> Text:
    """The end-of-game announcement: the winner (named by ``seat_names``) and the
    conspiracy."""
    if view["winner"] is None:
        return Text("The game is not finished.")
    lost = view["seat"] is not None and view["seat"] != view["winner"]
    who = seat_names(view["winner"])
    you = (" — you lose." if lost else "" if who == YOU
           else " — you win!" if view["seat"] == view["winner"] else "")
    return Text(f"{who} {verb(who, 'wins', 'win')} by "
                f"{CONSPIRACIES.get(view['conspiracy'], view['conspiracy'])}{you}",
                style="bold red" if lost else "bold green")


SHORT_LIST = 12
"""Above this many legal moves a refusal names the kinds of move and a few examples."""

_WHEN = {
    "reveal": "you can reveal a Court card only as your turn's action or as the Roi's "
              "option (a) (rules 2.3, 2.4)",
    "replace": "you can replace a Court card only as your turn's action (rules 2.3)",
    "swap": "you can swap two Court cards only as the first step of a Chevalier's effect "
            "(rules 2.4)",
    "flip": "you can flip a Court card only as the second step of a Chevalier's effect "
            "(rules 2.4)",
    "draw": "you can draw 2 cards only as the Roi's option (b) (rules 2.4)",
    "discard": "you can discard 2 cards only after drawing 2 with the Roi's option (b) "
               "(rules 2.4)",
    "peek": "you can look at Court cards only as the Assassin's effect (rules 2.4)",
}
_NOW = {
    "act": "now it is your turn to act: reveal or replace a Court card",
    "knight_swap": "now the Chevalier's effect asks you to swap two Court cards",
    "knight_flip": "now the Chevalier's effect asks you to flip one Court card",
    "king": "now the Roi's effect asks you to reveal a face-down card or to draw 2 cards",
    "king_discard": "now the Roi's effect asks you to discard 2 cards",
    "assassin": "now the Assassin's effect lets you look at face-down Court cards",
}


def refusal(message: str, seat_names: Callable[[int | None], str] = seat_name) -> str:
    """An engine refusal for people, written as the screen writes things: "Refused: why",
    the typed text not echoed, players numbered from 1, slots C1-C4, cards by name, the
    game's phases in words, moves as the menu writes them (``slot 0 is face up; seat 0 may:
    reveal 1`` -> ``C1 is face up; Player 1 may: reveal C2``; players named by
    ``seat_names``: ``you may: reveal C2``), and more than
    ``SHORT_LIST`` moves shortened to their kinds and a few examples (all are on the menu)."""
    why = message.split(" is refused: ", 1)[-1]
    why = re.sub(r"^'[^']*': ", "", why)
    why, may, allowed = why.partition(" may: ")
    why = re.sub(r"^(\w+) [^;]*; the phase is (\w+)", _not_now, why)
    why = re.sub(r"\bseat \d holds (no|only one) ([KQNA]) \(\w+\)",
                 lambda m: f"you hold {m[1]} {name(m[2])}", why)
    why = re.sub(r"\bthe hand is ([KQNA](?: [KQNA])*|nothing)\b",
                 lambda m: "your hand is " + (names(m[1].split()) if m[1] != "nothing"
                                              else "empty"), why)
    why = why.replace("write K (Roi), Q (Reine), N (Chevalier) or A (Assassin)",
                      "write Roi, Reine, Chevalier or Assassin")
    if may:
        why += may + _allowed(allowed.split(", "))
    why = re.sub(r"'([^']+)'", lambda m: f"'{_as_menu(m.group(1))}'", why)
    why = re.sub(r"\bslot (\d)\b", lambda m: f"C{int(m.group(1)) + 1}", why)
    why = why.replace("slots are 0 to 3", "slots are C1 to C4")
    why = re.sub(r"\bseat (\d)\b( has| won)?", lambda m: _seat_words(seat_names(int(m[1])), m[2]),
                 why)
    return "Refused: " + why


def _seat_words(who: str, said: str | None) -> str:
    """A seat's name and the verb after it in a refusal: ``you have``, ``Player 1 has``."""
    plain = {" has": " have", " won": " won"}
    return ("you" if who == YOU else who) + (verb(who, said, plain[said]) if said else "")


def _not_now(m: re.Match[str]) -> str:
    """A move of another phase in the game's words (``swap is the first step of ...; the
    phase is act`` -> ``you can swap two Court cards only ...; now it is your turn ...``)."""
    if m[1].lower() not in _WHEN or m[2] not in _NOW:
        return m[0]
    return f"{_WHEN[m[1].lower()]}; {_NOW[m[2]]}"


def _allowed(texts: list[str]) -> str:
    """The legal moves of a refusal as the menu writes them; beyond ``SHORT_LIST``, their
    kinds and the first few (``reveal, replace (28 moves, all on the menu); e.g. ...``)."""
    labels = [label(t) for t in texts]
    if len(labels) <= SHORT_LIST:
        return ", ".join(labels)
    kinds = list(dict.fromkeys("look at" if t.startswith("peek") else t.split()[0]
                               for t in texts))
    return (f"{', '.join(kinds)} ({len(labels)} moves, all on the menu); "
            f"e.g. {', '.join(labels[:6])}, ...")


def _as_menu(text: str) -> str:
    """A quoted example of notation in a message, as the menu writes it; other text as is."""
    try:
        return label(A.to_text(A.from_text(text)))
    except (RegaliaError, ValueError):
        return text
