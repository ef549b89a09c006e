"""A refused move reaches its seat with the engine's reason code and parameters, which the
page translates; every code the engines use has a text in the three languages."""

from __future__ import annotations

import json
import re
from pathlib import Path

from server_helpers import join, new_table

SRC = Path(__file__).resolve().parents[2] / "src" / "regalia"
STATIC = SRC / "server" / "static"
LANGS = ("en", "pt-BR", "es")


def test_a_refused_move_carries_the_engines_reason(client):
    d = new_table(client, "regicide", ["human"], seed=4)
    p = join(client, d, 0)
    card = p.state["view"]["hand"][0]
    p.act(f"discard {card}", ply=0)                 # Step 4's action during Step 1
    err = p.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "illegal"
    assert err["reason"] == {"code": "not_now", "params": {}}
    assert "refused" in err["message"]              # the English message is kept
    p.send({"type": "wish", "value": "yes"})
    err = p.recv_until(lambda m: m["type"] == "error")
    assert err["reason"]["code"] == "wish_not_now"


def test_a_server_refusal_has_no_engine_reason(client):
    d = new_table(client, "regicide", ["human"], seed=4)
    p = join(client, d, 0)
    p.act(p.state["legal"][0], ply=3)
    err = p.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "stale" and "reason" not in err


def engine_codes() -> set[str]:
    """Every reason code written in the engines' rules modules: ``IllegalAction(text,
    "code")``, ``Reason(text, "code")`` and ``.coded("code")`` (both branches of a
    conditional)."""
    codes = set()
    for path in (SRC / "games").glob("*/rules.py"):
        text = path.read_text()
        codes |= set(re.findall(r'(?:IllegalAction|Reason)\(f?"[^"]*"(?:\s*f?"[^"]*")*,\s*"(\w+)"',
                                text))
        for args in re.findall(r"\.coded\((.*?)\)", text, re.S):
            codes |= set(re.findall(r'"(\w+)"', args))
    return codes


def test_every_engine_reason_code_is_translated():
    codes = engine_codes()
    assert {"play_shape", "discard_short", "not_now", "slot_face_up", "peek_count",
            "no_yield_solo", "no_yield_all_yielded", "game_over"} <= codes
    for lang in LANGS:
        texts = json.loads((STATIC / "i18n" / f"{lang}.json").read_text())
        missing = sorted(c for c in codes
                         if f"why.{c}" not in texts and f"why.{c}_other" not in texts)
        assert not missing, (lang, missing)
