"""The base judge pipeline (llm-evaluators.md §2, §11 44–45) over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from llm_support import CASE, error, judge_model, metric, ok, run, turn, verdict

from agenteval.evaluators.base import EvalContext, EvaluateResult, EvaluatorError, TurnResult
from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.evaluators.llm.operators.constructors import PromptConstructor, TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.samples import MajorityVote
from agenteval.evaluators.llm.pipeline import JudgeEvaluator, Operators
from agenteval.judge import (
    JudgeReply,
    JudgeRequest,
    PreparedCall,
    StructuredOutput,
)
from agenteval.schema import EvalMetric
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = FinalResponseJudge()
SCHEMA = StructuredOutput(name="probe", schema={"type": "object"}, description="probe schema")


@dataclass
class ProbeConstructor(PromptConstructor):
    """Records what the pipeline asks of it; can fail on a chosen turn."""

    events: list[tuple[str, int]] = field(default_factory=list)
    fail_construct_at: int | None = None
    fail_schema_at: int | None = None

    def prompt(self, turn: TurnPrefix) -> str:
        assert len(turn.actuals) == len(turn.expecteds)
        self.events.append(("construct", len(turn.actuals)))
        if len(turn.actuals) == self.fail_construct_at:
            raise OperatorError("inputs are missing")
        return f"probe turn {len(turn.actuals)}: {turn.actuals[-1].user_content.content}"  # type: ignore[union-attr]

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        self.events.append(("schema", len(turn.actuals)))
        if len(turn.actuals) == self.fail_schema_at:
            raise OperatorError("rubric id is required")
        return SCHEMA


class Probe(JudgeEvaluator):
    name = "probe_judge"

    def default_operators(self) -> Operators:
        return FinalResponseJudge().operators


def three_turns() -> tuple[list[Any], list[Any]]:
    actuals = [turn(f"question {i}", f"answer {i}") for i in (1, 2, 3)]
    expecteds = [turn(f"question {i}", f"reference {i}") for i in (1, 2, 3)]
    return actuals, expecteds


# --- §2 steps 1–5 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "criterion",
    [None, {}, {"llmJudge": None}, {"llmJudge": {}}],
)
def test_missing_fields(judge_server: JudgeServer, criterion: dict[str, Any] | None) -> None:
    data: dict[str, Any] = {"metricName": "m"}
    if criterion is not None:
        data["criterion"] = criterion
    m = EvalMetric.model_validate(data)
    assert error(run(JUDGE, m, [turn()], [turn()])) == "missing required fields in eval metric"
    assert judge_server.count == 0


@pytest.mark.parametrize("samples", [0, -1])
def test_num_samples_must_be_positive_and_nothing_is_sent(
    judge_server: JudgeServer, samples: int
) -> None:
    m = metric(judge_server, numSamples=samples)
    assert error(run(JUDGE, m, [turn()], [turn()])) == "num samples must be greater than 0"
    assert judge_server.count == 0


def test_num_samples_absent_means_one(judge_server: JudgeServer) -> None:
    result = ok(run(JUDGE, metric(judge_server), [turn()], [turn()]))
    assert judge_server.count == 1
    assert result.turns[0].status is EvalStatus.PASSED


def test_negative_sample_parallelism(judge_server: JudgeServer) -> None:
    block = {"judgeModel": judge_model(judge_server), "sampleParallelism": -1}
    m = metric(judge_server, llm_judge=block)
    assert error(run(JUDGE, m, [turn()], [turn()])) == "sample parallelism must be non-negative"
    assert judge_server.count == 0


def test_sample_parallelism_keeps_sample_order(judge_server: JudgeServer) -> None:
    block = {
        "judgeModel": judge_model(judge_server, numSamples=3),
        "sampleParallelismEnabled": True,
        "sampleParallelism": 2,
    }
    judge_server.enqueue(verdict("invalid", "s1"), verdict("valid", "s2"), verdict("valid", "s3"))
    m = metric(judge_server, llm_judge=block)
    result = ok(run(JUDGE, m, [turn()], [turn()], judge_options=_serial()))
    details = result.turns[0].details
    assert [s["reason"] for s in (details.model_extra or {})["samples"]] == ["s1", "s2", "s3"]
    assert details.reason == "s2"


def test_count_mismatch(judge_server: JudgeServer) -> None:
    message = error(run(JUDGE, metric(judge_server), [turn()], []))
    assert message == "actual invocations (1) and expected invocations (0) count mismatch"
    assert judge_server.count == 0


def test_zero_turns_make_no_call_and_are_not_evaluated(judge_server: JudgeServer) -> None:
    result = ok(run(JUDGE, metric(judge_server), [], []))
    assert (result.score, result.status, result.turns) == (0.0, EvalStatus.NOT_EVALUATED, [])
    assert judge_server.count == 0


def test_unknown_provider_is_an_error(judge_server: JudgeServer) -> None:
    m = metric(judge_server, providerName="nosuch")
    message = error(run(JUDGE, m, [turn()], [turn()]))
    assert message == "judge response: create model instance: unknown provider: nosuch (turn 1)"
    assert judge_server.count == 0


def test_bad_generation_config_is_an_error(judge_server: JudgeServer) -> None:
    m = metric(judge_server, generationConfig={"temperature": "hot"})
    assert "generationConfig.temperature" in error(run(JUDGE, m, [turn()], [turn()]))


def test_no_judge_in_context() -> None:
    context = EvalContext("set-1", CASE, 1)
    with pytest.raises(EvaluatorError, match=r"^no judge available"):
        asyncio.run(JUDGE.aevaluate(metric(None), [turn()], [turn()], context))


def test_score_below_threshold_fails_the_turn(judge_server: JudgeServer) -> None:
    judge_server.default = verdict("invalid")
    result = ok(run(JUDGE, metric(judge_server, threshold=0.5), [turn()], [turn()]))
    assert (result.turns[0].score, result.turns[0].status) == (0.0, EvalStatus.FAILED)
    assert (result.score, result.status) == (0.0, EvalStatus.FAILED)


def test_threshold_zero_passes_a_zero_score(judge_server: JudgeServer) -> None:
    judge_server.default = verdict("invalid")
    result = ok(run(JUDGE, metric(judge_server, threshold=0), [turn()], [turn()]))
    assert (result.turns[0].score, result.turns[0].status) == (0.0, EvalStatus.PASSED)


# --- §2 step 6: prefixes, order, schema ---------------------------------------------------


def test_prefix_slices_and_schema_on_every_call(judge_server: JudgeServer) -> None:
    probe = ProbeConstructor()
    evaluator = Probe().with_operators(constructor=probe)
    actuals, expecteds = three_turns()
    result = ok(run(evaluator, metric(judge_server, numSamples=2), actuals, expecteds))
    assert probe.events == [
        ("construct", 1),
        ("schema", 1),
        ("construct", 2),
        ("schema", 2),
        ("construct", 3),
        ("schema", 3),
    ]
    bodies = judge_server.bodies()
    assert len(bodies) == 6
    for body in bodies:
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["name"] == "probe"
    # Turns are serial: both samples of turn k arrive before any request of turn k+1.
    turn_of = [int(b["messages"][0]["content"].split()[2].rstrip(":")) for b in bodies]
    assert turn_of == [1, 1, 2, 2, 3, 3]
    assert [t.status for t in result.turns] == [EvalStatus.PASSED] * 3


def test_construct_error_skips_structured_output(judge_server: JudgeServer) -> None:
    probe = ProbeConstructor(fail_construct_at=2)
    actuals, expecteds = three_turns()
    message = error(
        run(Probe().with_operators(constructor=probe), metric(judge_server), actuals, expecteds)
    )
    assert message == "construct messages: inputs are missing (turn 2)"
    assert probe.events == [("construct", 1), ("schema", 1), ("construct", 2)]
    assert judge_server.count == 1


def test_structured_output_error(judge_server: JudgeServer) -> None:
    probe = ProbeConstructor(fail_schema_at=1)
    message = error(
        run(Probe().with_operators(constructor=probe), metric(judge_server), [turn()], [turn()])
    )
    assert message == "resolve structured output: rubric id is required (turn 1)"
    assert judge_server.count == 0


# --- errors and wrapping ------------------------------------------------------------------


class FailingSamples:
    def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
        raise OperatorError("cannot choose")


class FailingInvocations:
    def aggregate(self, turns: Sequence[TurnResult], metric: EvalMetric) -> EvaluateResult:
        raise OperatorError("cannot average")


class DroppingInvocations:
    def aggregate(self, turns: Sequence[TurnResult], metric: EvalMetric) -> EvaluateResult:
        return EvaluateResult(1.0, EvalStatus.PASSED, list(turns)[:-1])


class CrashingScorer:
    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> Any:
        raise ValueError("plugin bug")


def test_samples_aggregator_error_is_wrapped(judge_server: JudgeServer) -> None:
    evaluator = JUDGE.with_operators(samples=FailingSamples())
    assert error(run(evaluator, metric(judge_server), [turn()], [turn()])) == (
        "aggregate samples: cannot choose (turn 1)"
    )


def test_invocations_aggregator_error_is_returned_unwrapped(judge_server: JudgeServer) -> None:
    evaluator = JUDGE.with_operators(invocations=FailingInvocations())
    assert error(run(evaluator, metric(judge_server), [turn()], [turn()])) == "cannot average"


def test_wrong_number_of_turn_results(judge_server: JudgeServer) -> None:
    evaluator = JUDGE.with_operators(invocations=DroppingInvocations())
    actuals, expecteds = three_turns()
    assert error(run(evaluator, metric(judge_server, name="m"), actuals, expecteds)) == (
        "metric m returned 2 per-invocation results, expected 3"
    )


def test_unexpected_plugin_exception_names_its_type(judge_server: JudgeServer) -> None:
    evaluator = JUDGE.with_operators(scorer=CrashingScorer())
    assert error(run(evaluator, metric(judge_server), [turn()], [turn()])) == (
        "score based on response: ValueError: plugin bug (turn 1)"
    )


def test_first_scorer_error_aborts_and_names_the_sample(judge_server: JudgeServer) -> None:
    judge_server.enqueue(verdict("valid"), Reply(content="no verdict here"), verdict("valid"))
    m = metric(judge_server, numSamples=3)
    message = error(run(JUDGE, m, [turn()], [turn()], judge_options=_serial()))
    assert message == (
        "score based on response: extract reasoning and label: no final response blocks "
        "found in response (turn 1, sample 2)"
    )


def test_with_operators_leaves_the_original_alone() -> None:
    swapped = JUDGE.with_operators(samples=FailingSamples())
    assert isinstance(JUDGE.operators.samples, MajorityVote)
    assert isinstance(swapped.operators.samples, FailingSamples)
    assert swapped.operators.scorer is JUDGE.operators.scorer


def _serial() -> Any:
    from llm_support import options

    # One call at a time: samples reach the server in sample order, so scripts map to samples.
    return options(concurrency=1)


# --- injected backend (§3.7, §11 45) ------------------------------------------------------


@dataclass
class ScriptedBackend:
    """A plugin judge backend implementing the JudgeBackend protocol."""

    content: str = "reasoning: fine\nis_the_agent_response_valid: valid"
    calls: list[tuple[int, bool]] = field(default_factory=list)

    def prepare(self, request: JudgeRequest, sample_index: int) -> PreparedCall:
        body = {
            "messages": [m.to_json() for m in request.messages],
            "schema": request.structured_output is not None,
        }
        return PreparedCall("plugin://judge", "plugin-model", body, sample_index)

    async def send(self, call: PreparedCall) -> JudgeReply:
        self.calls.append((call.sample_index, bool(call.body["schema"])))
        return JudgeReply(text=self.content)


def test_injected_backend_ignores_judge_model_samples() -> None:
    backend = ScriptedBackend()
    m = metric(None, numSamples=3)
    ok(run(JUDGE, m, [turn()], [turn()], backend=backend))
    assert backend.calls == [(0, False)]


def test_injected_backend_count_drives_samples() -> None:
    backend = ScriptedBackend()
    seen: list[int] = []

    class Counting(MajorityVote):
        def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
            seen.append(len(samples))
            return super().aggregate(samples, metric)

    evaluator = JUDGE.with_operators(samples=Counting())
    ok(run(evaluator, metric(None), [turn()], [turn()], backend=backend, backend_num_samples=3))
    assert sorted(backend.calls) == [(0, False), (1, False), (2, False)]
    assert seen == [3]


def test_injected_backend_zero_samples() -> None:
    outcome = run(
        JUDGE, metric(None), [turn()], [turn()], backend=ScriptedBackend(), backend_num_samples=0
    )
    assert error(outcome) == "num samples must be greater than 0"


def test_injected_backend_needs_no_judge_model() -> None:
    m = EvalMetric.model_validate({"metricName": "m", "criterion": {"llmJudge": {}}})
    backend = ScriptedBackend()
    result = ok(run(JUDGE, m, [turn()], [turn()], backend=backend))
    assert result.status is EvalStatus.PASSED and len(backend.calls) == 1


def test_injected_backend_gets_the_schema_for_two_turns() -> None:
    backend = ScriptedBackend()
    probe = ProbeConstructor()
    actuals, expecteds = three_turns()
    ok(
        run(
            Probe().with_operators(constructor=probe),
            metric(None),
            actuals[:2],
            expecteds[:2],
            backend=backend,
        )
    )
    assert [e for e in probe.events if e[0] == "schema"] == [("schema", 1), ("schema", 2)]
    assert backend.calls == [(0, True), (0, True)]
