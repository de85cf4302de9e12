"""Evaluation status values and their combination rule (formats.md §6.5).

Tested in tests/results/test_aggregation.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, cast

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema


class EvalStatus(StrEnum):
    """Status of a turn, metric, case or run; JSON strings."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    UNKNOWN = "unknown"
    # A case with a metric that could not be evaluated (judge unreachable, budget, ...).
    # In-memory and in reports only: result files keep trpc-agent-go's three values.
    INCOMPLETE = "incomplete"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Pydantic's enum schema, reading a status by its text in Python mode too.

        Strict Python mode takes only members, yet parsed JSON holds the texts that
        JSON mode reads; lax, a str is read by its text in both modes, so results
        validate from parsed JSON (``result_validation.py``) as from JSON text.
        """
        schema = handler(source)
        cast(dict[str, Any], schema)["strict"] = False
        return schema


# Module constants: reading a member through the enum class costs a metaclass lookup, and
# these functions (and aggregation's loops) run for every turn, metric and case of a run.
PASSED = EvalStatus.PASSED
FAILED = EvalStatus.FAILED
NOT_EVALUATED = EvalStatus.NOT_EVALUATED
INCOMPLETE = EvalStatus.INCOMPLETE


def summarize(statuses: Iterable[EvalStatus]) -> EvalStatus:
    """Any failed → failed; else any passed → passed; else not_evaluated."""
    seen_passed = False
    for status in statuses:
        if status is FAILED:
            return FAILED
        if status is PASSED:
            seen_passed = True
        elif status is not NOT_EVALUATED:
            raise ValueError(f"unexpected status {status.value!r} in aggregation")
    return PASSED if seen_passed else NOT_EVALUATED


def status_for(score: float, threshold: float, *, upper_bound: bool = False) -> EvalStatus:
    """The pass rule used everywhere: ``score >= threshold``; for an upper bound (a count
    metric) passed unless a positive threshold is exceeded."""
    if upper_bound:
        return PASSED if threshold <= 0 or score <= threshold else FAILED
    return PASSED if score >= threshold else FAILED


# Metrics whose score is a count (ADK's names): informational with no positive
# threshold, else the threshold is an upper bound (evaluators/usage_counts.py).
UPPER_BOUND_METRICS = frozenset({"tool_call_count", "inference_call_count", "token_usage"})


# The extra key of a count metric's overall result when the metric is named apart from its
# evaluator (``evaluatorName``): the result then says itself that its threshold is an upper
# bound, so an average of it is compared the same way (Go readers ignore the key).
UPPER_BOUND_KEY = "upperBound"


def is_upper_bound(name: str, extra: Mapping[str, Any] | None = None) -> bool:
    """Whether metric ``name``'s threshold is an upper bound: a count metric by its own name,
    or a result whose extra keys (``extra``) say so (:data:`UPPER_BOUND_KEY`)."""
    return name in UPPER_BOUND_METRICS or (extra is not None and extra.get(UPPER_BOUND_KEY) is True)


def metric_status(name: str, score: float, threshold: float) -> EvalStatus:
    """``status_for``, except for the count metrics: passed unless a positive threshold
    is exceeded."""
    return status_for(score, threshold, upper_bound=name in UPPER_BOUND_METRICS)


def passes(score: float, threshold: float, *, upper_bound: bool = False) -> bool:
    """Whether ``score`` passes ``threshold`` (:func:`status_for`'s rule)."""
    return status_for(score, threshold, upper_bound=upper_bound) is PASSED
