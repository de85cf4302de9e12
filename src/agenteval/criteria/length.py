"""Length bounds on a text, counted in Unicode code points (formats.md §3.4)."""

from __future__ import annotations

from agenteval.criteria.verdict import MATCH, Verdict, check_text_criterion, mismatch
from agenteval.schema.metric import LengthCriterion


def length_config_error(criterion: LengthCriterion) -> str | None:
    """Why the bounds cannot be applied (none set, negative, min > max), or None."""
    low, high = criterion.min, criterion.max
    if low is None and high is None:
        return "length criterion must configure min or max"
    if low is not None and low < 0:
        return "min length must be non-negative"
    if high is not None and high < 0:
        return "max length must be non-negative"
    if low is not None and high is not None and low > high:
        return "min length must be less than or equal to max length"
    return None


def _range(criterion: LengthCriterion) -> str:
    low = 0 if criterion.min is None else criterion.min
    if criterion.max is None:
        return f"[{low}, +inf)"
    return f"[{low}, {criterion.max}]"


def check_length(criterion: LengthCriterion | None, text: str) -> Verdict:
    """Whether the number of code points of ``text`` lies within the inclusive bounds."""
    return check_text_criterion("length", criterion, text, _check_length, _recorded_inputs)


def _recorded_inputs(criterion: LengthCriterion, text: str) -> dict[str, object]:
    return {
        "length": len(text),
        "min": criterion.min,
        "max": criterion.max,
        "range": _range(criterion),
        "ignore": criterion.ignore,
    }


def _check_length(criterion: LengthCriterion, text: str) -> Verdict:
    problem = length_config_error(criterion)
    if problem is not None:
        return mismatch(problem)
    size = len(text)
    if criterion.min is not None and size < criterion.min:
        return mismatch(
            f"actual length {size} is less than min {criterion.min}, "
            f"expected range {_range(criterion)}"
        )
    if criterion.max is not None and size > criterion.max:
        return mismatch(
            f"actual length {size} is greater than max {criterion.max}, "
            f"expected range {_range(criterion)}"
        )
    return MATCH
