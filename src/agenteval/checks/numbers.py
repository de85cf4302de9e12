"""Counts past sane bounds: ``--num-runs``.

(Non-finite numbers in a file are found while reading it: ``inputs/finite_numbers.py``.)
"""

from __future__ import annotations

from agenteval.errors import Problem

# An upper bound for a count that multiplies the work of a run (judge calls, memory); the
# judge's numSamples bound lives with the judge checks (evaluators/checks/judge_config.py).
MAX_NUM_RUNS = 1000


def num_runs_problem(num_runs: int) -> Problem | None:
    """``--num-runs`` past :data:`MAX_NUM_RUNS` (below 1 is refused by the option itself)."""
    if num_runs <= MAX_NUM_RUNS:
        return None
    return Problem("--num-runs", "", f"must be at most {MAX_NUM_RUNS}, got {num_runs}")


__all__ = ["MAX_NUM_RUNS", "num_runs_problem"]
