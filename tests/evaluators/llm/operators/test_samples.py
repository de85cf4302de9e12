"""Majority vote, average and the operator registries (llm-evaluators.md §4.6–§4.7, §11 42–43)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from llm_support import metric, ok, options, run, turn, verdict

from agenteval.evaluators.base import TurnResult
from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.evaluators.llm.operators.invocations import invocations_aggregators
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.samples import samples_aggregators
from agenteval.evaluators.llm.operators.scorers import response_scorers
from agenteval.schema import EvalMetric
from agenteval.schema.result import MetricDetails
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer

MAJORITY = samples_aggregators.resolve("majority_vote")
AVERAGE = invocations_aggregators.resolve("average")
HALF = EvalMetric(metric_name="m", threshold=0.5)


def sample(score: float, status: EvalStatus, reason: str = "") -> TurnResult:
    return TurnResult(score, status, MetricDetails(reason=reason, score=score))


P, F, N = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED


def test_majority_of_passes_returns_the_first_passing_sample() -> None:
    samples = [sample(0.7, P, "a"), sample(0.2, F, "b"), sample(0.7, P, "c")]
    assert MAJORITY.aggregate(samples, HALF) is samples[0]


def test_majority_of_failures_returns_the_first_failing_sample() -> None:
    samples = [sample(0.2, F, "a"), sample(0.2, F, "b"), sample(0.7, P, "c")]
    chosen = MAJORITY.aggregate(samples, HALF)
    assert chosen is samples[0]
    assert chosen.score == 0.2


def test_no_samples_is_an_error() -> None:
    with pytest.raises(OperatorError, match=r"^no samples$"):
        MAJORITY.aggregate([], HALF)


def test_single_not_evaluated_sample_is_returned() -> None:
    only = sample(0.0, N, "skipped")
    assert MAJORITY.aggregate([only], HALF) is only


def test_tie_fails() -> None:
    samples = [sample(1.0, P), sample(0.0, F)]
    assert MAJORITY.aggregate(samples, HALF) is samples[1]


def test_not_evaluated_samples_do_not_vote() -> None:
    samples = [sample(0.0, N), sample(0.0, F), sample(1.0, P), sample(1.0, P)]
    assert MAJORITY.aggregate(samples, HALF) is samples[2]


def test_split_uses_the_threshold_not_the_status() -> None:
    # A sample's own status is ignored: 0.6 >= 0.5 counts as positive.
    samples = [sample(0.6, F, "a"), sample(0.1, P, "b"), sample(0.9, F, "c")]
    assert MAJORITY.aggregate(samples, HALF) is samples[0]


def test_scores_are_never_averaged() -> None:
    samples = [sample(0.9, P), sample(0.6, P), sample(0.0, F)]
    assert MAJORITY.aggregate(samples, HALF).score == 0.9


def test_average_of_two_turns() -> None:
    result = AVERAGE.aggregate([sample(0.75, P), sample(0.25, F)], HALF)
    assert (result.score, result.status) == (0.5, P)
    assert len(result.turns) == 2


def test_average_of_pass_and_fail() -> None:
    result = AVERAGE.aggregate([sample(1.0, P), sample(0.0, F)], HALF)
    assert (result.score, result.status) == (0.5, P)


def test_average_skips_not_evaluated_turns_but_keeps_them() -> None:
    turns = [sample(0.0, N, "judge down"), sample(0.25, F), sample(1.0, P)]
    result = AVERAGE.aggregate(turns, HALF)
    assert (result.score, result.status) == (0.625, P)
    assert result.turns == turns


def test_all_not_evaluated() -> None:
    result = AVERAGE.aggregate([sample(0.0, N), sample(0.0, N)], HALF)
    assert (result.score, result.status) == (0.0, N)


def test_average_below_threshold_fails() -> None:
    result = AVERAGE.aggregate([sample(0.4, F), sample(0.5, P)], HALF)
    assert result.score == pytest.approx(0.45)
    assert result.status is F


def test_registries_name_unknown_operators_like_go() -> None:
    with pytest.raises(OperatorError) as info:
        samples_aggregators.resolve("missing")
    assert str(info.value) == 'unsupported samples aggregator "missing"'
    with pytest.raises(OperatorError) as info:
        invocations_aggregators.resolve("missing")
    assert str(info.value) == 'unsupported invocations aggregator "missing"'
    with pytest.raises(OperatorError) as info:
        response_scorers.resolve("missing")
    assert str(info.value) == 'unsupported response scorer "missing"'
    assert "majority_vote" in samples_aggregators.names()
    assert "average" in invocations_aggregators.names()
    assert "rubric_scores" in response_scorers.names()


class MinimumScore:
    """A plugin samples aggregator: the lowest-scoring sample."""

    def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
        return min(samples, key=lambda s: s.score)


def test_plugin_swaps_in_a_minimum_samples_aggregator(judge_server: JudgeServer) -> None:
    samples_aggregators.register("minimum", MinimumScore())
    try:
        judge = FinalResponseJudge().with_operators(samples=samples_aggregators.resolve("minimum"))
        # Two of three samples pass: majority vote would pass, the minimum fails.
        judge_server.enqueue(verdict("valid"), verdict("invalid", "no"), verdict("valid"))
        m = metric(judge_server, numSamples=3)
        result = ok(run(judge, m, [turn()], [turn()], judge_options=options(concurrency=1)))
        assert (result.turns[0].score, result.turns[0].status) == (0.0, F)
        assert result.turns[0].details.reason == "no"
        assert (result.score, result.status) == (0.0, F)
        # The registered built-in is untouched.
        assert isinstance(FinalResponseJudge().operators.samples, type(MAJORITY))
    finally:
        samples_aggregators._items.pop("minimum", None)
