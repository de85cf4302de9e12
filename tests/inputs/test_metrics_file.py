"""File-local rules of a metric file: metricName present and unique, no null tool strategy."""

from __future__ import annotations

from agenteval.inputs.loading import parse_metrics
from agenteval.inputs.metrics_file import metric_rules, null_tool_strategies


def test_empty_and_duplicate_metric_names_are_located() -> None:
    problems = metric_rules("m.json", [(0, "a", True), (1, "", True), (2, "a", True)])
    assert [str(p) for p in problems] == [
        "m.json: [1].metricName: metricName is empty",
        "m.json: [2].metricName: duplicate metricName 'a' (first defined at [0])",
    ]


def test_null_tool_strategy_is_reported_at_its_key() -> None:
    text = (
        '[{"metricName": "tool_trajectory_avg_score", "threshold": 1,'
        ' "criterion": {"toolTrajectory": {"toolStrategy": {"search": null, "add": {}}}}}]'
    )
    metrics, problems = parse_metrics(text, "m.json", {})
    assert [str(p) for p in null_tool_strategies("m.json", metrics)] == [
        "m.json: [0].criterion.toolTrajectory.toolStrategy.search: tool strategy is null "
        "(use {} to accept any pair, or remove the entry)"
    ]
    assert [str(p) for p in problems] == [str(p) for p in null_tool_strategies("m.json", metrics)]
