"""Test plugin: the weighted case aggregator of the caseaggregation example (formats.md §6.6)."""

from __future__ import annotations

from collections.abc import Sequence

from agenteval.plugins import register_case_aggregator
from agenteval.schema import EvalCase, EvalMetric, EvalMetricResult, EvalStatus

CASE_THRESHOLD = 0.8


@register_case_aggregator("weighted")
def weighted(
    case: EvalCase, metrics: Sequence[EvalMetric], results: Sequence[EvalMetricResult]
) -> tuple[float, EvalStatus]:
    """Score = mean of metric scores weighted by ``extension.weight`` (default 1)."""
    total = weighted_sum = 0.0
    for metric, result in zip(metrics, results, strict=True):
        weight = 1.0
        if isinstance(metric.extension, dict):
            value = metric.extension.get("weight")
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                weight = float(value)
        total += weight
        weighted_sum += result.score * weight
    if total == 0:
        return 0.0, EvalStatus.NOT_EVALUATED
    score = weighted_sum / total
    return score, EvalStatus.PASSED if score >= CASE_THRESHOLD else EvalStatus.FAILED
