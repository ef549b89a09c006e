"""Helpers for the Regicide rule tests (rules/regicide.md, formats.md 1.2-1.3 and 4).

* ``pos(...)``: a position dict with sensible defaults; ``state(...)``: the same read by
  ``REGICIDE.from_json``.
* ``act(state, *texts, seed=0)``: apply action texts with one ``random.Random(seed)``.
* ``run_case(case)``: the case-file runner of formats.md section 4.

Kept in a uniquely named module (not ``helpers``) so that it cannot clash with another
game's test helpers under pytest's default import mode.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any


from regalia.core.errors import IllegalAction
from regalia.games.regicide import REGICIDE
from regalia.games.regicide.cards import TEXT, VALUE, parse_card

G = REGICIDE

ROYAL_ORDER = [r + s for r in "JQK" for s in "SHDC"]


# --------------------------------------------------------------------------- cards

def canon(card: str) -> str:
    """Canonical text of a card text (``"10d"`` -> ``"TD"``, ``"x"`` -> ``"X"``)."""
    return TEXT[parse_card(card)]


def value(card: str) -> int:
    """Value of a card text (rules 1.2)."""
    return VALUE[parse_card(card)]


def total(cards) -> int:
    return sum(value(c) for c in cards)


def ms(cards) -> Counter:
    """Multiset of canonical card texts."""
    return Counter(canon(c) for c in cards)


# --------------------------------------------------------------------------- positions

def default_castle(enemy: str | None, used: set[str]) -> list[str]:
    """Royals of the enemy's rank and above not used elsewhere, top first (J, Q, K)."""
    if enemy is None:
        return []
    rank = "JQK".index(canon(enemy)[0])
    return [c for c in ROYAL_ORDER if "JQK".index(c[0]) >= rank and c not in used]


def pos(players: int = 2, enemy: str | None = "JH", hands=None, tavern=None, discard=None,
        castle=None, table=None, **overrides) -> dict[str, Any]:
    """A complete position dict (formats.md 1.2) with defaults.

    ``hands`` defaults to empty hands; ``castle`` to the rest of the royals of the enemy's
    rank and above that appear nowhere else, J then Q then K.
    """
    hands = [list(h) for h in (hands if hands is not None else [[] for _ in range(players)])]
    tavern = list(tavern or [])
    discard = list(discard or [])
    table = [list(p) for p in (table or [])]
    if castle is None:
        used = set()
        for c in tavern + discard + [c for h in hands for c in h] + [c for p in table for c in p]:
            try:
                used.add(canon(c))
            except (ValueError, AttributeError):
                pass  # a deliberately bad card text: from_json will say so
        if enemy is not None:
            used.add(canon(enemy))
        castle = default_castle(enemy, used)
    obj = {
        "game": "regicide",
        "players": players,
        "current": 0,
        "phase": "play",
        "enemy": enemy,
        "damage": 0,
        "immunity_cancelled": False,
        "table": table,
        "castle": list(castle),
        "tavern": tavern,
        "discard": discard,
        "hands": hands,
        "yielded": [False] * players,
        "jesters": 2 if players == 1 else 0,
        "preferences": [None] * players,
        "options": {},
    }
    for k, v in overrides.items():
        obj[k] = v
    return obj


def state(*args, **kwargs):
    """``REGICIDE.from_json(pos(...))``."""
    return G.from_json(pos(*args, **kwargs))


def js(s) -> dict[str, Any]:
    return G.to_json(s)


def act(s, *texts: str, seed: int = 0, rng: random.Random | None = None):
    """Apply action texts in order with one ``random.Random(seed)``; return the final state."""
    rng = rng or random.Random(seed)
    for t in texts:
        s, _ = G.apply(s, G.action_from_text(s, t), rng)
    return s


def act_json(s, *texts: str, seed: int = 0) -> dict[str, Any]:
    """Apply action texts and return the resulting position JSON."""
    return js(act(s, *texts, seed=seed))


def refused(s, text: str) -> bool:
    """Whether ``text`` is refused with ``IllegalAction`` and ``s`` is left unchanged."""
    before = copy.deepcopy(js(s))
    try:
        G.apply(s, G.action_from_text(s, text), random.Random(0))
    except IllegalAction:
        assert js(s) == before, f"refused {text!r} changed the position"
        return True
    return False


def legal(s) -> set[str]:
    """Canonical texts of every legal action (side actions included)."""
    return {canon_action(s, t) for t in G.all_legal_texts(s)}


def is_legal(s, text: str) -> bool:
    return canon_action(s, text) in legal(s)


def hand(position: dict, seat: int) -> Counter:
    return ms(position["hands"][seat])


def shield_of(position: dict) -> int:
    """Spade shield by the formula of rules 1.9, from a position."""
    enemy = position["enemy"]
    p = sum(total(play) for play in position["table"]
            if any(c.upper() != "X" and canon(c)[1] == "S" for c in play))
    if enemy is not None and canon(enemy)[1] == "S" and not position["immunity_cancelled"]:
        return 0
    return p


ATTACK = {"J": 10, "Q": 15, "K": 20}
HEALTH = {"J": 20, "Q": 30, "K": 40}


# --------------------------------------------------------------------------- actions

def _manual_canon(text: str) -> str:
    words = text.split()
    if not words:
        return text
    verb = words[0].lower()
    if verb in ("play", "discard"):
        try:
            cards = sorted(words[1:], key=parse_card)
            return " ".join([verb] + [canon(c) for c in cards])
        except ValueError:
            return text
    return " ".join([verb] + [w.lower() for w in words[1:]])


def canon_action(s, text: str) -> str:
    """Canonical text of an action: through the engine's reader and writer when it can read
    it, else by sorting the cards in canonical order."""
    try:
        return G.action_to_text(s, G.action_from_text(s, text))
    except Exception:
        return _manual_canon(text)


# --------------------------------------------------------------------------- case runner

PILES = ("castle", "tavern", "discard")


def shared_dir() -> Path:
    env = os.environ.get("REGALIA_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared"


def case_files() -> list[Path]:
    """Every Regicide case: shared ``cases/regicide/*.json`` and ``tests/regicide/cases``."""
    out = sorted((shared_dir() / "cases" / "regicide").glob("*.json"))
    out += sorted((Path(__file__).resolve().parent / "cases").glob("*.json"))
    return out


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _check_spec(actual: list[str], spec: Any, where: str, ordered: bool) -> None:
    """Compare a pile or hand with an expected list or a count/contains/top spec."""
    if isinstance(spec, dict):
        unknown = set(spec) - {"count", "contains", "top"}
        assert not unknown, f"{where}: unknown expectation keys {sorted(unknown)}"
        if "count" in spec:
            assert len(actual) == spec["count"], (
                f"{where}: {len(actual)} cards, expected {spec['count']}: {actual}")
        if "contains" in spec:
            missing = ms(spec["contains"]) - ms(actual)
            assert not missing, f"{where}: lacks {sorted(missing.elements())}; holds {actual}"
        if "top" in spec:
            top = [canon(c) for c in spec["top"]]
            assert [canon(c) for c in actual[:len(top)]] == top, (
                f"{where}: top is {actual[:len(top)]}, expected {top}")
        return
    assert isinstance(spec, list), f"{where}: expected a list or a spec, got {spec!r}"
    if ordered:
        assert [canon(c) for c in actual] == [canon(c) for c in spec], (
            f"{where}: {actual} != expected {spec}")
    else:
        assert ms(actual) == ms(spec), f"{where}: {sorted(actual)} != expected {sorted(spec)}"


def check_position(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Check the fields of ``expected`` against the position ``actual`` (formats.md 4)."""
    for key, exp in expected.items():
        assert key in actual, f"unknown position field {key!r} in expectation"
        got = actual[key]
        if key in PILES:
            _check_spec(got, exp, key, ordered=True)
        elif key == "hands":
            assert isinstance(exp, list) and len(exp) == len(got), (
                f"hands: expected {len(exp)} hands, position has {len(got)}")
            for i, (g, e) in enumerate(zip(got, exp)):
                _check_spec(g, e, f"hands[{i}]", ordered=False)
        elif key == "table":
            assert len(got) == len(exp), f"table: {got} != expected {exp}"
            for i, (g, e) in enumerate(zip(got, exp)):
                assert ms(g) == ms(e), f"table[{i}]: {g} != expected {e}"
        elif key == "enemy":
            assert got == (canon(exp) if exp is not None else None), f"enemy: {got} != {exp}"
        elif key == "options":
            assert got == exp, f"options: {got} != {exp}"
        else:
            assert got == exp, f"{key}: {got!r} != expected {exp!r}"


def run_case(case: dict[str, Any]) -> None:
    """Run one case (formats.md section 4); raises ``AssertionError`` when it fails.

    An optional ``seed`` key (default 0) seeds the one ``random.Random`` used for all actions.
    """
    s = G.from_json(case["position"])
    expect = case.get("expect", {})
    actions = list(case.get("actions", []))
    rng = random.Random(case.get("seed", 0))
    error = expect.get("error", False)
    if error:
        assert actions, "expect.error needs at least one action"
    for i, text in enumerate(actions):
        last = i == len(actions) - 1
        if error and last:
            before = copy.deepcopy(G.to_json(s))
            try:
                a = G.action_from_text(s, text)
                G.apply(s, a, rng)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"action {text!r} was accepted, the case expects it refused")
            assert G.to_json(s) == before, f"refused {text!r} changed the position"
        else:
            try:
                s, _ = G.apply(s, G.action_from_text(s, text), rng)
            except IllegalAction as e:
                raise AssertionError(f"action {i} {text!r} refused: {e}") from None
    actual = G.to_json(s)
    if "position" in expect:
        check_position(actual, expect["position"])
    if "legal_includes" in expect or "legal_excludes" in expect:
        have = legal(s)
        for t in expect.get("legal_includes", []):
            assert canon_action(s, t) in have, f"{t!r} should be legal; legal: {sorted(have)}"
        for t in expect.get("legal_excludes", []):
            assert canon_action(s, t) not in have, f"{t!r} should not be legal"
