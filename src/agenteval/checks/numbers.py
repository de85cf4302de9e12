"""Numbers no run can use: NaN, Infinity and out-of-range literals, and counts past sane bounds.

JSON has no NaN or Infinity, but Python's and pydantic's readers accept the
literals, and ``1e400`` reads as infinity: a NaN threshold fails every case, an
infinite tolerance accepts everything.  Every non-finite number of an input
file is a configuration error at its location.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agenteval.errors import Problem
from agenteval.inputs import locations

# An upper bound for a count that multiplies the work of a run (judge calls, memory); the
# judge's numSamples bound lives with the judge checks (evaluators/checks/judge_config.py).
MAX_NUM_RUNS = 1000


# Only these literals read as a non-finite float: NaN, Infinity, or an exponent of 3+
# digits.  A match inside a string only costs the walk, which decides.
_BIG_EXPONENT = re.compile(r"[0-9][eE]\+?0*[1-9][0-9]{2,}")
# The text's bytes reduced to the shape of an exponent: digits -> "0", "e"/"E" -> "e",
# "+" kept, anything else (UTF-8 continuation bytes too) -> " ".
_EXPONENT_SHAPE = bytes(
    ord("0") if 48 <= i <= 57 else ord("e") if i in (69, 101) else i if i == 43 else 32
    for i in range(256)
)


def _may_hold_non_finite(text: str) -> bool:
    """Whether ``text`` holds a literal that may read as a non-finite float.

    Substring searches and one simple pattern: a tenth of the walk on large files.  The
    pattern scans character by character (~12 µs on a 1.3 KB case of
    bench/adk_side_by_side.py); a digit-"e"-three-digits shape found first in the
    translated bytes (C loops, ~4 µs) rules out nearly every text before it runs.
    """
    if "NaN" in text or "Infinity" in text:
        return True
    shape = text.encode("utf-8", "surrogatepass").translate(_EXPONENT_SHAPE)
    if b"0e000" not in shape and b"0e+000" not in shape:
        return False
    return _BIG_EXPONENT.search(text) is not None


def non_finite_numbers(
    data: Any, file: str, text: str | None = None, base: Sequence[int | str] = ()
) -> list[Problem]:
    """Every NaN or infinite number in a parsed JSON document, with its location.

    With the document's ``text``, a document whose text holds none of the literals
    that can read as non-finite is not walked at all (the common case).  ``base``:
    where ``data`` sits in its file (one case of an eval set read case by case).
    """
    if text is not None and not _may_hold_non_finite(text):
        return []
    problems: list[Problem] = []
    parts: list[int | str] = list(base)

    def walk(value: Any) -> None:
        if isinstance(value, float):
            if not math.isfinite(value):
                problems.append(
                    Problem(
                        file,
                        locations.render(parts) or "$",
                        f"{value!r} is not a finite number",
                        "NaN, Infinity and numbers beyond ±1.8e308 cannot be compared",
                    )
                )
        elif isinstance(value, Mapping):
            for key, item in value.items():
                parts.append(key)
                walk(item)
                parts.pop()
        elif isinstance(value, list):
            for index, item in enumerate(value):
                parts.append(index)
                walk(item)
                parts.pop()

    walk(data)
    return problems


def num_runs_problem(num_runs: int) -> Problem | None:
    """``--num-runs`` past :data:`MAX_NUM_RUNS` (below 1 is refused by the option itself)."""
    if num_runs <= MAX_NUM_RUNS:
        return None
    return Problem("--num-runs", "", f"must be at most {MAX_NUM_RUNS}, got {num_runs}")
