"""Numbers no run can use: NaN, Infinity and out-of-range literals, and counts past sane bounds.

JSON has no NaN or Infinity, but Python's and pydantic's readers accept the
literals, and ``1e400`` reads as infinity: a NaN threshold fails every case, an
infinite tolerance accepts everything.  Every non-finite number of an input
file is a configuration error at its location.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agenteval import locations
from agenteval.errors import Problem

# Upper bounds for counts that multiply the work of a run (judge calls, memory).
MAX_NUM_RUNS = 1000
MAX_NUM_SAMPLES = 100


def non_finite_numbers(data: Any, file: str, path: str = "") -> list[Problem]:
    """Every NaN or infinite number in a parsed JSON document, with its location."""
    problems: list[Problem] = []
    stack: list[tuple[Any, str]] = [(data, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            problems.append(
                Problem(
                    file,
                    where or "$",
                    f"{value!r} is not a finite number",
                    "NaN, Infinity and numbers beyond ±1.8e308 cannot be compared",
                )
            )
        elif isinstance(value, Mapping):
            stack.extend((v, locations.join(where, k)) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return problems


def num_runs_problem(num_runs: int) -> Problem | None:
    """``--num-runs`` past :data:`MAX_NUM_RUNS` (below 1 is refused by the option itself)."""
    if num_runs <= MAX_NUM_RUNS:
        return None
    return Problem("--num-runs", "", f"must be at most {MAX_NUM_RUNS}, got {num_runs}")
