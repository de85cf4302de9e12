"""Count bounds."""

from __future__ import annotations

from agenteval.checks.numbers import MAX_NUM_RUNS, num_runs_problem


def test_num_runs_bound() -> None:
    assert num_runs_problem(MAX_NUM_RUNS) is None
    problem = num_runs_problem(MAX_NUM_RUNS + 1)
    assert problem is not None
    assert str(problem) == f"--num-runs: must be at most {MAX_NUM_RUNS}, got {MAX_NUM_RUNS + 1}"
