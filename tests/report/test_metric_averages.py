"""MetricAverages: running per-metric averages equal aggregation.metric_summaries."""

from __future__ import annotations

import pytest

from agenteval.report.metric_averages import MetricAverages
from agenteval.results.aggregation import metric_summaries
from agenteval.schema.status import EvalStatus
from sample_results import generated_result


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_running_averages_equal_metric_summaries(seed: int) -> None:
    result = generated_result(cases=40, num_runs=3, seed=seed)
    metrics = [m for case in result.case_results() for m in case.overall_eval_metric_results or []]
    averages = MetricAverages()
    for m in metrics:
        averages.add(m.metric_name, m.eval_status, m.score, m.threshold)
    summaries = averages.summaries()
    assert summaries == metric_summaries(metrics)
    assert {s.eval_status for s in summaries} >= {EvalStatus.PASSED}
    assert all(s.status_counts and s.status_counts.not_evaluated for s in summaries)


def test_first_failing_reason_and_not_evaluated_only() -> None:
    averages = MetricAverages()
    averages.add("m", EvalStatus.NOT_EVALUATED, 0.0, 0.9, "judge down")
    averages.add("m", EvalStatus.PASSED, 1.0, 0.5, "fine")
    averages.add("m", EvalStatus.FAILED, 0.2, 0.5, "")
    averages.add("m", EvalStatus.FAILED, 0.3, 0.5, "too short")
    averages.add("m", EvalStatus.FAILED, 0.1, 0.5, "later")
    averages.add("only_n", EvalStatus.NOT_EVALUATED, 0.0, 1.0)
    (name, m), (other, n) = averages.sorted()
    assert (name, m.threshold, m.evaluated, m.reason) == ("m", 0.9, 4, "too short")
    assert m.mean == pytest.approx(0.4)
    assert m.status is EvalStatus.FAILED  # 0.4 < the first threshold seen, 0.9
    assert (other, n.status, n.mean, n.not_evaluated) == ("only_n", EvalStatus.NOT_EVALUATED, 0, 1)
    with pytest.raises(ValueError, match="unknown"):
        averages.add("m", EvalStatus.UNKNOWN, 1.0, 1.0)
