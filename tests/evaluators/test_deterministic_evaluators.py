"""Evaluator-level vectors of formats.md §5.5 and the derived vectors D5–D10, D12 of §5.6."""

from __future__ import annotations

from typing import Any

import pytest

from agenteval.criteria.named import turn_compares
from agenteval.evaluators.base import EvalContext, EvaluatorError
from agenteval.evaluators.final_response_avg import FinalResponseEvaluator
from agenteval.evaluators.trajectory import ToolTrajectoryEvaluator
from agenteval.schema import EvalCase, EvalMetric, Invocation, Tool
from agenteval.schema.base import dump

CONTEXT = EvalContext("set", EvalCase(eval_id="c"), 1)


def turn(answer: str | None = None, tools: list[dict[str, Any]] | None = None) -> Invocation:
    data: dict[str, Any] = {"userContent": {"role": "user", "content": "q"}}
    if answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    if tools is not None:
        data["tools"] = tools
    return Invocation.model_validate(data)


def metric(
    criterion: dict[str, Any] | None, threshold: float | None = None, name: str = "m"
) -> EvalMetric:
    data: dict[str, Any] = {"metricName": name}
    if criterion is not None:
        data["criterion"] = criterion
    if threshold is not None:
        data["threshold"] = threshold
    return EvalMetric.model_validate(data)


@pytest.fixture()
def verdicts() -> dict[str, bool]:
    """A registered turn compare function whose answer the test chooses."""
    answer = {"value": True}
    turn_compares.register("test_fixed_answer", lambda a, e: answer["value"])
    yield answer  # type: ignore[misc]
    turn_compares.unregister("test_fixed_answer")


@pytest.mark.parametrize("evaluator", [ToolTrajectoryEvaluator(), FinalResponseEvaluator()])
def test_custom_compare_true_and_false(evaluator: Any, verdicts: dict[str, bool]) -> None:
    """§5.5: one turn, compare true, threshold 0.5 → 1 passed; false → turn 0 failed, overall failed."""
    key = "toolTrajectory" if isinstance(evaluator, ToolTrajectoryEvaluator) else "finalResponse"
    m = metric({key: {"compareName": "test_fixed_answer"}}, threshold=0.5)
    result = evaluator.evaluate(m, [turn("a")], [turn("b")], CONTEXT)
    assert (result.score, result.status.value) == (1.0, "passed")
    verdicts["value"] = False
    result = evaluator.evaluate(m, [turn("a")], [turn("b")], CONTEXT)
    assert (result.score, result.status.value) == (0.0, "failed")
    assert (result.turns[0].score, result.turns[0].status.value) == (0.0, "failed")


@pytest.mark.parametrize("evaluator", [ToolTrajectoryEvaluator(), FinalResponseEvaluator()])
def test_empty_turn_lists_are_not_evaluated(evaluator: Any) -> None:
    """§5.5: no turns → not_evaluated, score 0, no per-turn results."""
    m = metric({"toolTrajectory": {}, "finalResponse": {"text": {}}}, threshold=1)
    result = evaluator.evaluate(m, [], [], CONTEXT)
    assert (result.score, result.status.value, result.turns) == (0.0, "not_evaluated", [])


@pytest.mark.parametrize("evaluator", [ToolTrajectoryEvaluator(), FinalResponseEvaluator()])
def test_count_mismatch_is_an_evaluator_error(evaluator: Any) -> None:
    """§5.5: 1 actual vs 0 expected → error (the case fails)."""
    m = metric({"toolTrajectory": {}, "finalResponse": {"text": {}}})
    with pytest.raises(EvaluatorError, match="count mismatch"):
        evaluator.evaluate(m, [turn("a")], [], CONTEXT)


def test_missing_final_response_criterion() -> None:
    """§5.5 'metric without criterion → error': a configuration problem up front (decision 2)."""
    evaluator = FinalResponseEvaluator()
    issues = list(evaluator.check(metric(None)))
    assert [i.path for i in issues] == ["criterion.finalResponse"]
    with pytest.raises(EvaluatorError):
        evaluator.evaluate(metric(None), [turn("a")], [turn("a")], CONTEXT)


def test_missing_trajectory_criterion_uses_the_default() -> None:
    """Decision 2: without a criterion, names, arguments and results must match in any order."""
    tool_a = {"name": "a", "arguments": {"x": 1}, "result": {"ok": True}}
    tool_b = {"name": "b", "arguments": {}, "result": "done"}
    evaluator = ToolTrajectoryEvaluator()
    same = evaluator.evaluate(
        metric(None, 1), [turn(tools=[tool_b, tool_a])], [turn(tools=[tool_a, tool_b])], CONTEXT
    )
    assert same.score == 1.0
    changed = dict(tool_a, result={"ok": False})
    differs = evaluator.evaluate(
        metric(None, 1), [turn(tools=[tool_b, changed])], [turn(tools=[tool_a, tool_b])], CONTEXT
    )
    assert differs.score == 0.0 and "tool trajectory mismatch" in differs.turns[0].details.reason


def test_d5_empty_final_response_criterion() -> None:
    """D5: finalResponse {} → every turn 0 with the Go reason."""
    result = FinalResponseEvaluator().evaluate(
        metric({"finalResponse": {}}), [turn("x")], [turn("x")], CONTEXT
    )
    assert result.turns[0].score == 0.0
    assert result.turns[0].details.reason == (
        "final response mismatch: final response criterion must configure text, json, rouge, or xml"
    )


def test_d6_d7_missing_expected_final_response() -> None:
    """D6: actual "x" vs no expected answer → 0; D7: both absent → 1."""
    m = metric({"finalResponse": {"text": {"matchStrategy": "exact"}}})
    assert FinalResponseEvaluator().evaluate(m, [turn("x")], [turn()], CONTEXT).score == 0.0
    assert FinalResponseEvaluator().evaluate(m, [turn()], [turn()], CONTEXT).score == 1.0


def test_d8_rouge_with_zero_thresholds_always_passes() -> None:
    """D8: rouge with all thresholds 0 matches any texts."""
    m = metric({"finalResponse": {"rouge": {"rougeType": "rougeL"}}})
    result = FinalResponseEvaluator().evaluate(
        m, [turn("completely different")], [turn("nothing alike")], CONTEXT
    )
    assert result.score == 1.0


def test_d9_absent_threshold_passes_every_score() -> None:
    """D9: threshold absent → 0 ≥ 0, every status passed even for score 0."""
    m = metric({"finalResponse": {"text": {}}})
    result = FinalResponseEvaluator().evaluate(m, [turn("a")], [turn("b")], CONTEXT)
    assert (result.score, result.status.value, result.turns[0].status.value) == (
        0.0,
        "passed",
        "passed",
    )


def test_d10_rouge_numbers_decide_the_verdict() -> None:
    """D10: P 0.48, R 0.923077, F1 0.631579 passes P≥0.3, R≥0.6, F1≥0.4 and fails F1≥0.7."""
    expected = "trpc-agent-go is a Go framework for building AI agents by Tencent."
    actual = (
        "trpc-agent-go is a Go library for building AI agents on top of Tencent’s tRPC framework, "
        "providing agent orchestration and tool-calling capabilities."
    )
    passing = metric(
        {
            "finalResponse": {
                "rouge": {
                    "rougeType": "rouge1",
                    "threshold": {"precision": 0.3, "recall": 0.6, "f1": 0.4},
                }
            }
        },
        1,
    )
    failing = metric(
        {"finalResponse": {"rouge": {"rougeType": "rouge1", "threshold": {"f1": 0.7}}}}, 1
    )
    assert (
        FinalResponseEvaluator().evaluate(passing, [turn(actual)], [turn(expected)], CONTEXT).score
        == 1.0
    )
    result = FinalResponseEvaluator().evaluate(failing, [turn(actual)], [turn(expected)], CONTEXT)
    assert result.score == 0.0
    assert (
        result.turns[0].details.reason.rsplit("rouge mismatch: ", 1)[1]
        == "rouge1 f1=0.631579 precision=0.480000 recall=0.923077"
    )


def test_d12_overall_reason_joins_every_turn(tmp_path: Any) -> None:
    """D12: two clean turns of one metric give the overall reason ";" in the result."""
    import json

    from agenteval.api import Options, evaluate

    case = {
        "evalId": "two",
        "evalMode": "trace",
        "actualConversation": [
            {
                "userContent": {"role": "user", "content": "a"},
                "finalResponse": {"role": "assistant", "content": "x"},
            },
            {
                "userContent": {"role": "user", "content": "b"},
                "finalResponse": {"role": "assistant", "content": "y"},
            },
        ],
        "conversation": [
            {
                "userContent": {"role": "user", "content": "a"},
                "finalResponse": {"role": "assistant", "content": "x"},
            },
            {
                "userContent": {"role": "user", "content": "b"},
                "finalResponse": {"role": "assistant", "content": "y"},
            },
        ],
        "sessionInput": {},
    }
    (tmp_path / "d.evalset.json").write_text(json.dumps({"evalSetId": "d", "evalCases": [case]}))
    (tmp_path / "d.metrics.json").write_text(
        json.dumps(
            [
                {
                    "metricName": "final_response_avg_score",
                    "threshold": 1,
                    "criterion": {"finalResponse": {"text": {}}},
                }
            ]
        )
    )
    run = evaluate([str(tmp_path / "d.evalset.json")], Options())
    overall = dump(run.results[0])["evalCaseResults"][0]["overallEvalMetricResults"][0]
    assert overall["details"]["reason"] == ";"
    assert overall["score"] == 1


def test_tool_ids_are_never_compared() -> None:
    """§2.4: the tool-call id plays no part in matching."""
    a = Tool(id="call_1", name="t", arguments={"x": 1}, result=None)
    e = Tool(id="other", name="t", arguments={"x": 1}, result=None)
    inv_a = Invocation(tools=[a])
    inv_e = Invocation(tools=[e])
    assert (
        ToolTrajectoryEvaluator().evaluate(metric(None, 1), [inv_a], [inv_e], CONTEXT).score == 1.0
    )
