"""Evaluation status values and their combination rule (formats.md §6.5)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class EvalStatus(StrEnum):
    """Status of a turn, metric, case or run; JSON strings."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    UNKNOWN = "unknown"


def summarize(statuses: Iterable[EvalStatus]) -> EvalStatus:
    """Any failed → failed; else any passed → passed; else not_evaluated."""
    seen_passed = False
    for status in statuses:
        if status is EvalStatus.FAILED:
            return EvalStatus.FAILED
        if status is EvalStatus.PASSED:
            seen_passed = True
        elif status is not EvalStatus.NOT_EVALUATED:
            raise ValueError(f"unexpected status {status.value!r} in aggregation")
    return EvalStatus.PASSED if seen_passed else EvalStatus.NOT_EVALUATED


def status_for(score: float, threshold: float) -> EvalStatus:
    """The pass rule used everywhere: ``score >= threshold``."""
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED
