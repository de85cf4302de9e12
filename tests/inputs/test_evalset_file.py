"""File-local rules of an eval set: evalId present and unique, evalMode known."""

from __future__ import annotations

from agenteval.inputs.evalset_file import case_rules


def test_empty_duplicate_ids_and_unknown_mode_are_located() -> None:
    problems = case_rules(
        "x.evalset.json",
        [(0, "a", "", True), (1, " ", "", True), (2, "a", "trace", True), (3, "b", "live", True)],
    )
    assert [str(p) for p in problems] == [
        "x.evalset.json: evalCases[1].evalId: evalId is empty (every case needs an id)",
        "x.evalset.json: evalCases[2].evalId: duplicate evalId 'a' (first used at evalCases[0])",
        "x.evalset.json: evalCases[3].evalMode: unknown evalMode 'live' "
        '(use "trace" or leave it empty)',
    ]


def test_valid_cases_give_no_problem() -> None:
    assert case_rules("x.evalset.json", [(0, "a", "", True), (1, "b", "trace", True)]) == []
