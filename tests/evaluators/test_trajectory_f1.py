"""``tool_trajectory_f1``: turn scores, reasons, details, checks, and a CLI run (issue 26 item 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenteval.evaluators.base import EvalContext
from agenteval.evaluators.registry import evaluators
from agenteval.evaluators.trajectory_f1 import ToolTrajectoryF1Evaluator
from agenteval.schema import EvalCase, EvalMetric, Invocation
from cli_process import run_cli

CONTEXT = EvalContext("set", EvalCase(eval_id="c"), 1)
EVALUATOR = ToolTrajectoryF1Evaluator()


def turn(*names: str, **arguments: Any) -> Invocation:
    tools = [
        {"id": f"t{i}", "name": n, "arguments": arguments.get(n, {})} for i, n in enumerate(names)
    ]
    return Invocation.model_validate(
        {"userContent": {"role": "user", "content": "q"}, "tools": tools}
    )


def metric(criterion: dict[str, Any] | None = None, threshold: float = 0.75) -> EvalMetric:
    data: dict[str, Any] = {"metricName": "f1", "threshold": threshold}
    if criterion is not None:
        data["criterion"] = {"toolTrajectory": criterion}
    return EvalMetric.model_validate(data)


def test_registered_with_a_unit_score_range() -> None:
    assert isinstance(evaluators.get("tool_trajectory_f1"), ToolTrajectoryF1Evaluator)
    assert ToolTrajectoryF1Evaluator.score_range == (0.0, 1.0)


def test_turn_scores_reasons_and_details_any_order() -> None:
    actuals = [turn("search", "book"), turn("search", "book", "email"), turn("book", "search")]
    expecteds = [turn("search", "book", "pay"), turn("search", "book"), turn("search", "book")]
    result = EVALUATOR.evaluate(metric(), actuals, expecteds, CONTEXT)
    scores = [t.score for t in result.turns]
    assert scores == pytest.approx([0.8, 0.8, 1.0])
    assert result.score == pytest.approx((0.8 + 0.8 + 1.0) / 3)
    assert [t.status.value for t in result.turns] == ["passed", "passed", "passed"]
    missing = result.turns[0].details
    assert missing.reason == (
        "precision 1, recall 0.6667, F1 0.8 (any order: 2 of 2 actual calls match 2 of 3 "
        "expected); missing: pay"
    )
    assert result.turns[1].details.reason.endswith("; extra: email")
    data = (missing.model_extra or {})["trajectoryF1"]
    assert data == {
        "precision": 1.0,
        "recall": 2 / 3,
        "f1": pytest.approx(0.8),
        "order": "any order",
        "matched": 2,
        "actualCalls": 2,
        "expectedCalls": 3,
        "pairs": [{"expected": 0, "actual": 0}, {"expected": 1, "actual": 1}],
        "missing": [2],
        "extra": [],
        "nearMisses": [],
    }


def test_in_order_scores_the_swap_one_half_and_fails_it() -> None:
    result = EVALUATOR.evaluate(
        metric({"orderSensitive": True}),
        [turn("book", "search")],
        [turn("search", "book")],
        CONTEXT,
    )
    assert result.turns[0].score == 0.5
    assert result.turns[0].status.value == "failed"
    reason = result.turns[0].details.reason
    assert reason.startswith("precision 0.5, recall 0.5, F1 0.5 (in order:")
    assert reason.endswith("; missing: search; extra: search; search was called out of order")


def test_names_and_arguments_through_the_trajectory_criterion() -> None:
    criterion = {"defaultStrategy": {"name": {}, "arguments": {}}}
    actual = [turn("search", "book", search={"q": "rome"}, book={"n": 2})]
    expected = [turn("search", "book", search={"q": "paris"}, book={"n": 2})]
    result = EVALUATOR.evaluate(metric(criterion), actual, expected, CONTEXT)
    assert result.turns[0].score == 0.5
    assert result.turns[0].details.reason.endswith(
        "; missing: search; extra: search; actual tool t0 named search mismatch with expected "
        'tool t0 named search: arguments mismatch: value mismatch at $.q: "rome" vs "paris"'
    )
    names_only = EVALUATOR.evaluate(
        metric({"defaultStrategy": {"name": {}}}), actual, expected, CONTEXT
    )
    assert names_only.turns[0].score == 1.0


def test_subset_matching_and_compare_functions_are_refused() -> None:
    issues = list(EVALUATOR.check(metric({"subsetMatching": True, "compareName": "x"})))
    paths = [issue.path for issue in issues if not issue.warning]
    assert "criterion.toolTrajectory.subsetMatching" in paths
    assert "criterion.toolTrajectory.compareName" in paths
    assert list(EVALUATOR.check(metric())) == []


def test_scored_from_the_command_line(tmp_path: Path) -> None:
    evalset = {
        "evalSetId": "f1",
        "evalCases": [
            {
                "evalId": "one_missing",
                "evalMode": "trace",
                "sessionInput": {"appName": "shop", "userId": "u1"},
                "conversation": [
                    {
                        "invocationId": "t1",
                        "userContent": {"role": "user", "content": "book it"},
                        "tools": [
                            {"name": "search", "arguments": {}},
                            {"name": "book", "arguments": {}},
                        ],
                    }
                ],
                "actualConversation": [
                    {
                        "invocationId": "t1",
                        "userContent": {"role": "user", "content": "book it"},
                        "tools": [{"name": "search", "arguments": {}}],
                    }
                ],
            }
        ],
    }
    (tmp_path / "f1.evalset.json").write_text(json.dumps(evalset))
    (tmp_path / "f1.metrics.json").write_text(
        json.dumps(
            [{"metricName": "calls_f1", "evaluatorName": "tool_trajectory_f1", "threshold": 0.6}]
        )
    )
    out = tmp_path / "run.json"
    proc = run_cli(["run", "-e", str(tmp_path), "--json", str(out)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    case = json.loads(out.read_text())["evalSetResults"][0]["evalCaseResults"][0]
    overall = case["overallEvalMetricResults"][0]
    assert overall["score"] == pytest.approx(2 / 3)
    turn_result = case["evalMetricResultPerInvocation"][0]["evalMetricResults"][0]
    assert turn_result["details"]["trajectoryF1"]["missing"] == [1]
