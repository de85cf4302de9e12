"""Thresholds against each evaluator's score range; a missing threshold warns (issue 21 item 1)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from agenteval.checks.thresholds import threshold_issues
from agenteval.evaluators.base import (
    UNIT_RANGE,
    EvalContext,
    EvaluateResult,
    Evaluator,
    ScoreRange,
    Turns,
)
from agenteval.evaluators.llm.operators.invocations import invocations_aggregators
from agenteval.evaluators.llm.operators.scorers import ScoreResult, response_scorers
from agenteval.evaluators.registry import KNOWN_BUILTINS, evaluators
from agenteval.plugins import (
    load_builtins,
    register_invocations_aggregator,
    register_response_scorer,
)
from agenteval.schema.metric import EvalMetric


def metric(**fields: Any) -> EvalMetric:
    return EvalMetric.model_validate_json(json.dumps({"metricName": "m", **fields}))


def issues(evaluator: Evaluator, **fields: Any) -> list[tuple[str, str, str, bool]]:
    found = threshold_issues(metric(**fields), evaluator)
    return [(i.path, i.message, i.hint, i.warning) for i in found]


def builtin(name: str) -> Evaluator:
    load_builtins()
    found = evaluators.get(name)
    assert found is not None
    return found


BUILTINS = [
    *KNOWN_BUILTINS,
    "exact_match",
    "normalized_match",
    "response_match_score",
    "final_response_gate",
]


@pytest.mark.parametrize("name", [n for n in BUILTINS if n != "llm_judge_template"])
def test_every_builtin_evaluator_declares_the_0_to_1_range(name: str) -> None:
    # Each is a mean of turn scores that are 1/0 verdicts, fractions of sentences or
    # rubrics met, ROUGE values or the verifier's clamped preference: all within 0..1.
    assert builtin(name).metric_score_range(metric(threshold=1)) == UNIT_RANGE


def test_a_threshold_of_80_on_a_0_to_1_score_is_an_error_at_the_threshold() -> None:
    assert issues(builtin("response_match_score"), threshold=80) == [
        (
            "threshold",
            "80 is outside the scores of response_match_score (0 to 1)",
            "no score reaches it: every case fails; for 80% write 0.8",
            False,
        )
    ]


def test_a_negative_threshold_passes_everything_and_is_an_error() -> None:
    assert issues(builtin("tool_trajectory_avg_score"), threshold=-0.5) == [
        (
            "threshold",
            "-0.5 is outside the scores of tool_trajectory_avg_score (0 to 1)",
            "every score passes",
            False,
        )
    ]


@pytest.mark.parametrize("threshold", [0, 0.5, 1])
def test_thresholds_within_the_range_are_fine(threshold: float) -> None:
    assert issues(builtin("exact_match"), threshold=threshold) == []


@pytest.mark.parametrize("fields", [{}, {"threshold": None}], ids=["absent", "null"])
def test_a_missing_threshold_warns_that_the_metric_always_passes(fields: dict[str, Any]) -> None:
    # Null equals absent (formats.md §0.1): a null threshold warns as a missing one does.
    assert issues(builtin("exact_match"), **fields) == [
        (
            "threshold",
            "no threshold, so this metric always passes (a missing threshold is 0)",
            "set one within 0 to 1",
            True,
        )
    ]


class _Unranged(Evaluator):
    name = "unranged_test"

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        raise NotImplementedError


class _Counts(_Unranged):
    name = "counts_test"
    score_range: ClassVar[ScoreRange | None] = (0.0, 100.0)


def test_a_plugin_evaluator_without_a_declared_range_is_not_range_checked() -> None:
    assert issues(_Unranged(), threshold=80) == []
    assert issues(_Unranged()) == [
        (
            "threshold",
            "no threshold: 0 is used, so every score of 0 or more passes",
            "set one",
            True,
        )
    ]


def test_a_plugin_evaluator_declares_its_own_range() -> None:
    assert issues(_Counts(), threshold=80) == []
    assert issues(_Counts(), threshold=101) == [
        (
            "threshold",
            "101 is outside the scores of counts_test (0 to 100)",
            "no score reaches it: every case fails",
            False,
        )
    ]


def template_metric(scorer: str, threshold: float, **names: str) -> EvalMetric:
    template = {"prompt": "Grade {{a}}", "responseScorerName": scorer, **names}
    return metric(threshold=threshold, criterion={"llmJudge": {"template": template}})


@pytest.fixture
def plugin_operators() -> Iterator[None]:
    @register_response_scorer("stars_unranged_test")
    def stars(reply: Any, metric: EvalMetric) -> ScoreResult:
        return ScoreResult(score=5.0)

    @register_response_scorer("stars_ranged_test", score_range=(0.0, 5.0))
    def ranged(reply: Any, metric: EvalMetric) -> ScoreResult:
        return ScoreResult(score=5.0)

    @register_invocations_aggregator("sum_test")
    def total(turns: Any, metric: EvalMetric) -> EvaluateResult:
        raise NotImplementedError

    yield
    response_scorers.unregister("stars_unranged_test")
    response_scorers.unregister("stars_ranged_test")
    invocations_aggregators.unregister("sum_test")


@pytest.mark.usefixtures("plugin_operators")
def test_the_template_judge_range_is_its_scorers_when_the_aggregators_keep_it() -> None:
    judge = builtin("llm_judge_template")
    for scorer in ("single_score", "boolean", "categorical", "rubric_scores"):
        assert judge.metric_score_range(template_metric(scorer, 1)) == UNIT_RANGE
    assert judge.metric_score_range(template_metric("stars_ranged_test", 1)) == (0.0, 5.0)
    # A plugin scorer that does not declare its range, or an aggregator that may leave it.
    assert judge.metric_score_range(template_metric("stars_unranged_test", 1)) is None
    summed = template_metric("single_score", 1, invocationAggregatorName="sum_test")
    assert judge.metric_score_range(summed) is None
    outside = threshold_issues(template_metric("single_score", 4), judge)
    assert [(i.path, i.message) for i in outside] == [
        ("threshold", "4 is outside the scores of llm_judge_template (0 to 1)")
    ]
    assert threshold_issues(template_metric("stars_ranged_test", 4), judge) == []


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_threshold_is_left_to_the_non_finite_check(threshold: float) -> None:
    # That check already says "nan is not a finite number" at the threshold: one error.
    found = threshold_issues(
        EvalMetric(metric_name="m", threshold=threshold), builtin("exact_match")
    )
    assert found == []
