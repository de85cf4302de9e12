"""Non-finite numbers and count bounds."""

from __future__ import annotations

import pydantic_core

from agenteval.checks.numbers import MAX_NUM_RUNS, non_finite_numbers, num_runs_problem


def test_every_non_finite_number_is_located_in_document_order() -> None:
    data = pydantic_core.from_json(
        '[{"threshold": NaN, "c": {"t": [1, Infinity, -Infinity]}}, {"x": 1e400, "ok": 1e308}]'
    )
    found = [(p.path, p.message) for p in non_finite_numbers(data, "m.json")]
    assert found == [
        ("[0].threshold", "nan is not a finite number"),
        ("[0].c.t[1]", "inf is not a finite number"),
        ("[0].c.t[2]", "-inf is not a finite number"),
        ("[1].x", "inf is not a finite number"),
    ]


def test_a_bare_non_finite_document_is_located_at_the_root() -> None:
    (problem,) = non_finite_numbers(float("nan"), "x.json")
    assert problem.path == "$"


def test_num_runs_bound() -> None:
    assert num_runs_problem(MAX_NUM_RUNS) is None
    problem = num_runs_problem(MAX_NUM_RUNS + 1)
    assert problem is not None
    assert str(problem) == f"--num-runs: must be at most {MAX_NUM_RUNS}, got {MAX_NUM_RUNS + 1}"
