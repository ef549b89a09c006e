"""Every Regicide case file (formats.md section 4): the shared ``cases/regicide/`` directory
(``$REGALIA_SHARED/cases`` when set) and this directory's ``cases/``."""

from __future__ import annotations

import pytest

from regicide_helpers import case_files, load_case, run_case, shared_dir

FILES = case_files()


def test_shared_cases_found():
    assert (shared_dir() / "cases" / "regicide").is_dir(), (
        f"no shared cases at {shared_dir() / 'cases' / 'regicide'}: put the shared/ folder "
        "beside the checkout or set REGALIA_SHARED to it")
    assert FILES, "no Regicide case file found"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_case(path):
    run_case(load_case(path))


# The runner itself must not pass vacuously.

def _base_case():
    from regicide_helpers import pos

    return {"id": "meta", "position": pos(2, "JH", hands=[["5D", "TC"], ["2S"]],
                                          tavern=["3C", "4C", "6C"], discard=["7S"]),
            "actions": ["play 5D"], "expect": {}}


@pytest.mark.parametrize("expect", [
    {"error": True},
    {"position": {"damage": 4}},
    {"position": {"hands": [["TC", "3C", "4C"], ["2S"]]}},
    {"position": {"tavern": {"count": 2}}},
    {"position": {"discard": {"contains": ["5D"]}}},
    {"position": {"tavern": {"top": ["3C"], "count": 1}}},
    {"position": {"hands": [{"count": 2}, ["2S", "4C"]]}},
    {"legal_includes": ["yield"]},
    {"legal_excludes": ["discard TC"]},
])
def test_runner_rejects_wrong_expectations(expect):
    case = _base_case()
    case["expect"] = expect
    with pytest.raises(AssertionError):
        run_case(case)


def test_runner_accepts_right_expectations():
    case = _base_case()
    case["expect"] = {"position": {"damage": 5, "phase": "suffer",
                                   "hands": [["3C", "TC", "6C"], {"contains": ["4C"], "count": 2}],
                                   "tavern": {"count": 0}, "discard": ["7S"],
                                   "table": [["5d"]]},
                      "legal_includes": ["discard tc", "discard 6C 3C TC"],
                      "legal_excludes": ["discard 3C", "yield"]}
    run_case(case)
    case["actions"] = ["play 5D", "discard 3C"]
    case["expect"] = {"error": True, "position": {"phase": "suffer"}}
    run_case(case)
