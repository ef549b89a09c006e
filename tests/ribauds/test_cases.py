"""Every shared case file under ``cases/ribauds/`` (formats.md section 4), and the case
runner itself."""

from __future__ import annotations

import json

import pytest

from .helpers import case_files, cases_dir, position, run_case

FILES = case_files("ribauds")


def test_shared_cases_found():
    assert cases_dir() is not None, ("no shared cases folder: put the shared/ folder beside "
                                     "the checkout or set REGALIA_SHARED to it")
    assert FILES, "no case file under cases/ribauds"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_case(path):
    run_case(json.loads(path.read_text()))


# --------------------------------------------------------------------------- the runner


def _case(actions, expect):
    return {"id": "t", "rule": "-", "position": position("K- A+ Q- N-", ("NKQ", "AAK"),
                                                         deck="KN"),
            "actions": actions, "expect": expect}


def test_runner_checks_fields_multisets_and_pile_forms():
    run_case(_case(["replace 3 N up"], {"position": {
        "hands": [["Q", "K", "N"], {"count": 3}], "deck": {"top": ["K"], "count": 2},
        "discard": [], "phase": "knight_swap"},
        "legal_includes": ["swap 3 0"], "legal_excludes": ["flip 0", "draw"]}))
    run_case(_case([], {"position": {"deck": {"contains": ["N"]}}}))


@pytest.mark.parametrize("expect", [
    {"position": {"phase": "act"}},
    {"position": {"hands": [["Q", "K", "K"], ["A", "A", "K"]]}},
    {"position": {"deck": {"count": 3}}},
    {"position": {"deck": {"contains": ["A"]}}},
    {"position": {"deck": {"top": ["N"], "count": 2}}},
    {"legal_includes": ["draw"]},
    {"legal_excludes": ["swap 0 1"]},
])
def test_runner_reports_mismatches(expect):
    with pytest.raises(AssertionError):
        run_case(_case(["replace 3 N up"], expect))


def test_runner_error_cases():
    run_case(_case(["replace 3 N up", "flip 0"], {"error": True}))
    with pytest.raises(AssertionError, match="accepted"):
        run_case(_case(["replace 3 N up", "swap 0 1"], {"error": True}))
