"""Helpers for the Le Roy des Ribauds tests: position building, playing action texts,
card counting, and the generic case-file runner (formats.md section 4)."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

from regalia.core.errors import IllegalAction
from regalia.core.game import Event
from regalia.games import get_game
from regalia.games.ribauds import RIBAUDS
from regalia.games.ribauds.cards import LETTERS
from regalia.games.ribauds.state import State

G = RIBAUDS


def position(court: str, hands: tuple[str, str], deck: str = "", discard: str = "",
             current: int = 0, phase: str = "act", options: dict | None = None,
             winner: int | None = None, conspiracy: str | None = None) -> dict[str, Any]:
    """A position dict from compact text: ``court="A- K- Q- N+"``, ``hands=("KNA", "QQK")``,
    piles as letter strings, top first (``deck="ANK"``)."""
    return {
        "game": "ribauds",
        "current": current,
        "phase": phase,
        "court": court.split(),
        "hands": [list(hands[0]), list(hands[1])],
        "deck": list(deck),
        "discard": list(discard),
        "winner": winner,
        "conspiracy": conspiracy,
        "options": options or {},
    }


def state(*args, **kwargs) -> State:
    """``RIBAUDS.from_json(position(...))``."""
    return G.from_json(position(*args, **kwargs))


def play(s: State, *texts: str, rng: random.Random | None = None) -> tuple[State, list[Event]]:
    """Apply action texts in order; returns the final state and all the events."""
    rng = rng if rng is not None else random.Random(0)
    events: list[Event] = []
    for text in texts:
        s, evs = G.apply(s, G.action_from_text(s, text), rng)
        events.extend(evs)
    return s, events


def hand(s: State, seat: int) -> Counter:
    """The hand of ``seat`` as a Counter of letters."""
    return Counter({LETTERS[c]: n for c, n in enumerate(s.hands[seat]) if n})


def ms(letters: str) -> Counter:
    """A multiset of letters: ``ms("KQQ")``."""
    return Counter(letters)


def court_text(s: State) -> list[str]:
    """The Court as slot texts (``["A+", "K-", ...]``)."""
    return G.to_json(s)["court"]


def card_totals(s: State) -> list[int]:
    """Count of each card type over Court, hands, draw and discard piles."""
    tot = [0, 0, 0, 0]
    for c in s.court:
        tot[c] += 1
    for h in s.hands:
        for c in range(4):
            tot[c] += h[c]
    for c in s.deck:
        tot[c] += 1
    for c in s.discard:
        tot[c] += 1
    return tot


def events_of(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


# --------------------------------------------------------------------------- case files


def cases_dir() -> Path | None:
    """The shared ``cases/`` folder: ``<repo>/../shared/cases``, else ``$REGALIA_SHARED/cases``;
    ``None`` when neither exists."""
    default = Path(__file__).resolve().parents[2].parent / "shared" / "cases"
    if default.is_dir():
        return default
    env = os.environ.get("REGALIA_SHARED")
    if env and (Path(env) / "cases").is_dir():
        return Path(env) / "cases"
    return None


def case_files(game: str) -> list[Path]:
    """Every case file of ``game`` (``cases/<game>/*.json``), sorted; ``[]`` if none."""
    d = cases_dir()
    if d is None or not (d / game).is_dir():
        return []
    return sorted((d / game).glob("*.json"))


PILES = ("deck", "discard", "castle", "tavern")


def _multiset(value: Any) -> Counter:
    return Counter(value)


def _check_pile(field: str, want: Any, got: list) -> None:
    """A pile (or one hand): a list equal to ``got`` (a multiset when ``multiset``), or
    ``{"count": N}``, ``{"contains": [...]}``, ``{"top": [...], "count": N}``."""
    if isinstance(want, dict):
        unknown = set(want) - {"count", "contains", "top"}
        assert not unknown, f"{field}: unknown pile check {sorted(unknown)}"
        if "count" in want:
            assert len(got) == want["count"], \
                f"{field}: {len(got)} cards, expected {want['count']}: {got}"
        if "contains" in want:
            missing = _multiset(want["contains"]) - _multiset(got)
            assert not missing, f"{field}: lacks {dict(missing)}: {got}"
        if "top" in want:
            top = want["top"]
            assert got[:len(top)] == top, f"{field}: top {got[:len(top)]}, expected {top}"
        return
    assert got == want, f"{field}: {got}, expected {want}"


def check_position(want: dict[str, Any], got: dict[str, Any]) -> None:
    """Check the fields of ``want`` against the position ``got`` (formats.md section 4)."""
    for key, value in want.items():
        assert key in got, f"{key}: not a field of the position"
        actual = got[key]
        if key == "hands":
            assert len(value) == len(actual), f"hands: {len(actual)} hands, expected {len(value)}"
            for i, (w, a) in enumerate(zip(value, actual)):
                if isinstance(w, dict):
                    _check_pile(f"hands[{i}]", w, a)
                else:
                    assert _multiset(w) == _multiset(a), \
                        f"hands[{i}]: {a}, expected {w} (as multisets)"
        elif key == "table":
            assert len(value) == len(actual), f"table: {actual}, expected {value}"
            for w, a in zip(value, actual):
                assert _multiset(w) == _multiset(a), f"table: {actual}, expected {value}"
        elif key in PILES:
            _check_pile(key, value, actual)
        else:
            assert actual == value, f"{key}: {actual!r}, expected {value!r}"


def _canonical(game, s: Any, text: str) -> str:
    try:
        return game.action_to_text(s, game.action_from_text(s, text))
    except IllegalAction:
        return text


def run_case(case: dict[str, Any], seed: int = 0) -> None:
    """Run one case (formats.md section 4): read the position, apply the actions with
    ``random.Random(seed)``, check ``expect``. Raises ``AssertionError`` on a mismatch."""
    game = get_game(case["position"]["game"])
    rng = random.Random(seed)
    s = game.from_json(case["position"])
    expect = case.get("expect", {})
    actions = case.get("actions", [])
    for i, text in enumerate(actions):
        last = i == len(actions) - 1
        if last and expect.get("error"):
            before = json.dumps(game.to_json(s), sort_keys=True)
            snapshot = s.copy() if hasattr(s, "copy") else None
            try:
                game.apply_text(s, text, rng)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{case.get('id')}: {text!r} was accepted, expected refused")
            after = json.dumps(game.to_json(s), sort_keys=True)
            assert after == before, "refused action changed the position"
            if snapshot is not None:
                assert s == snapshot, "refused action changed the state"
        else:
            try:
                s, _ = game.apply_text(s, text, rng)
            except IllegalAction as e:
                raise AssertionError(
                    f"{case.get('id')}: action {i} {text!r} refused: {e}") from None
    if "position" in expect:
        check_position(expect["position"], game.to_json(s))
    legal = set(game.all_legal_texts(s))
    for text in expect.get("legal_includes", []):
        assert _canonical(game, s, text) in legal, f"{text!r} is not legal; legal: {sorted(legal)}"
    for text in expect.get("legal_excludes", []):
        assert _canonical(game, s, text) not in legal, f"{text!r} is legal, expected not"
