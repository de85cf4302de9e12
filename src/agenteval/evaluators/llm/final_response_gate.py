"""``final_response_gate``: decide each turn by exact match, then ROUGE-1, then the judge.

text-metrics.md §4.  The cheap deterministic steps decide every turn they can;
only the turns they leave open cost a judge call, and each turn records the
method that decided it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agenteval.criteria.lexical import Rouge1, gate_rouge1, normalize
from agenteval.criteria.rouge import score_json
from agenteval.errors import JudgeError
from agenteval.evaluators.base import (
    UNIT_RANGE,
    ConfigIssue,
    EvalContext,
    EvaluateResult,
    Evaluator,
    EvaluatorError,
    TurnResult,
    Turns,
    average_turns,
    each_turn,
)
from agenteval.evaluators.checks.judge_config import check_judge_config
from agenteval.evaluators.llm.gate_judge import (
    JudgeReplyFormatError,
    judge_prompt,
    majority_vote,
    parse_judge_reply,
)
from agenteval.evaluators.llm.pipeline import (
    MISSING_FIELDS,
    JudgeSampler,
    judge_session,
    resolved_settings,
    sample_count,
)
from agenteval.evaluators.registry import register_evaluator
from agenteval.evaluators.response_match import answer_texts, message_text
from agenteval.inputs.score_text import reason_numbers
from agenteval.schema.base import none_as
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric, JudgeModel
from agenteval.schema.result import DetailValue, MetricDetails
from agenteval.schema.status import EvalStatus, status_for
from agenteval.steps.record import listening

if TYPE_CHECKING:
    # The judge package (HTTP stack) is imported only when a judge step is configured.
    from agenteval.judge import JudgeSettings

METHODS = ("exact", "rouge", "judge")
_GATE_KEYS = "rougeF1, judgeThreshold, useJudge"


class GateConfig(BaseModel):
    """``criterion.gate``: the ROUGE-1 F1 that passes a turn, the judge's bar, judge on/off."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    # Above 1 no turn passes by ROUGE: every turn that is not an exact match goes to the judge.
    rouge_f1: Annotated[float, none_as(0.8), Field(ge=0.0)] = Field(0.8, alias="rougeF1")
    judge_threshold: Annotated[float, none_as(0.8), Field(ge=0.0, le=1.0)] = Field(
        0.8, alias="judgeThreshold"
    )
    # None: judge when criterion.llmJudge is present.
    use_judge: bool | None = Field(None, alias="useJudge")


def _gate_issues(raw: Any) -> tuple[GateConfig, list[ConfigIssue]]:
    """The gate settings of a raw ``criterion.gate`` value, and what is wrong with it."""
    if raw is None:
        return GateConfig(), []
    if not isinstance(raw, dict):
        issue = ConfigIssue("criterion.gate", "must be an object", f"keys: {_GATE_KEYS}")
        return GateConfig(), [issue]
    try:
        return GateConfig.model_validate(raw), []
    except ValidationError as exc:
        issues = []
        for error in exc.errors():
            path = ".".join(["criterion", "gate", *(str(part) for part in error["loc"])])
            if error["type"] == "extra_forbidden":
                issues.append(ConfigIssue(path, "unknown key", f"keys: {_GATE_KEYS}"))
            else:
                message = str(error["msg"])
                got = json.dumps(error.get("input"), default=str)
                issues.append(ConfigIssue(path, f"{message[:1].lower()}{message[1:]}, got {got}"))
        return GateConfig(), issues


def _gate_of(metric: EvalMetric) -> Any:
    criterion = metric.criterion
    return (criterion.model_extra or {}).get("gate") if criterion is not None else None


def _judge_model(metric: EvalMetric) -> JudgeModel | None:
    criterion = metric.criterion
    judge = criterion.llm_judge if criterion is not None else None
    return judge.judge_model if judge is not None else None


def uses_judge(metric: EvalMetric, gate: GateConfig) -> bool:
    """Whether the gate's judge step is on: ``useJudge``, defaulting to "llmJudge is present"."""
    if gate.use_judge is not None:
        return gate.use_judge
    return metric.criterion is not None and metric.criterion.llm_judge is not None


def check_gate(metric: EvalMetric) -> list[ConfigIssue]:
    """Every configuration problem of a ``final_response_gate`` metric."""
    gate, issues = _gate_issues(_gate_of(metric))
    if issues or not uses_judge(metric, gate):
        return issues
    criterion = metric.criterion
    if criterion is None or criterion.llm_judge is None:
        return [
            ConfigIssue(
                "criterion.gate.useJudge",
                "useJudge is true but criterion.llmJudge is missing",
                'add criterion.llmJudge.judgeModel, or set "useJudge": false',
            )
        ]
    # The judge block is checked like every judge metric's (same messages, same paths).
    return issues + check_judge_config(metric)


def judge_settings(model: JudgeModel) -> JudgeSettings:
    """The resolved judge settings, with temperature 0 unless the config sets one."""
    from agenteval.judge import resolve_settings

    settings = resolve_settings(model)
    configured = (model.generation_config or {}).get("temperature")
    if configured is None:
        # A reproducible verdict matters more here than Go's 0.8 default for judges.
        generation = dataclasses.replace(settings.generation, temperature=0.0)
        settings = dataclasses.replace(settings, generation=generation)
    return settings


def _decided(passed: bool, reason: str, method: str, rouge: Rouge1, **extra: Any) -> TurnResult:
    score = 1.0 if passed else 0.0
    details = MetricDetails(
        reason=reason,
        score=score,
        value=DetailValue(kind="numeric", numeric=score),
        method=method,
        rouge=score_json(rouge),
        **extra,
    )
    status = EvalStatus.PASSED if passed else EvalStatus.FAILED
    return TurnResult(score=score, status=status, details=details)


@register_evaluator
class FinalResponseGateEvaluator(Evaluator):
    """Pass each turn by exact match, else by ROUGE-1 F1, else (optionally) by the judge."""

    name = "final_response_gate"
    description = (
        "Final answer decided by the cheapest method that can: normalised exact match, "
        "then ROUGE-1 F1, then an LLM judge"
    )
    # Each turn scores 1 (passed by its method) or 0; the metric score is their mean.
    score_range = UNIT_RANGE
    is_async: ClassVar[bool] = True
    needs_judge: ClassVar[bool] = True

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """Validate ``criterion.gate`` and, when the judge step is on, the judge model."""
        return check_gate(metric)

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """The gate may call the judge: the runner awaits ``aevaluate`` instead."""
        raise EvaluatorError("final_response_gate is asynchronous; await aevaluate()")

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Decide every turn; only turns that exact match and ROUGE leave open reach the judge."""
        # Validation has reported these already; a library caller may have skipped it.
        gate, issues = _gate_issues(_gate_of(metric))
        if issues:
            raise EvaluatorError(f"{issues[0].path}: {issues[0].message}")
        pairs = each_turn(actuals, expecteds)
        judge = None
        if uses_judge(metric, gate):
            if metric.criterion is None or metric.criterion.llm_judge is None:
                raise EvaluatorError("useJudge is true but criterion.llmJudge is missing")
            judge = _JudgeTurn.for_metric(metric, gate, context)
        turns: list[TurnResult] = []
        methods = dict.fromkeys(METHODS, 0)
        for index, actual, expected in pairs:
            turn = await _decide_turn(index, actual, expected, gate, judge)
            if turn.status is not EvalStatus.NOT_EVALUATED:
                # The 1/0 verdict meets the metric threshold like every evaluator's turn score.
                turn.status = status_for(turn.score, metric.threshold)
                methods[str((turn.details.model_extra or {})["method"])] += 1
            turns.append(turn)
        result = average_turns(turns, metric.threshold)
        result.extra["methods"] = methods
        return result


async def _decide_turn(
    index: int,
    actual: Invocation,
    expected: Invocation,
    gate: GateConfig,
    judge: _JudgeTurn | None,
) -> TurnResult:
    candidate, reference = answer_texts(actual, expected)
    rouge = gate_rouge1(candidate, reference)
    recorder = listening()
    if recorder is not None:
        exact = normalize(candidate) == normalize(reference)
        method = "exact" if exact else "rouge" if rouge.fmeasure >= gate.rouge_f1 else None
        recorder.add(
            "gate",
            {
                "normalizedActual": normalize(candidate),
                "normalizedExpected": normalize(reference),
                "exact": exact,
                "rougeF1": rouge.fmeasure,
                "rougeF1Bar": gate.rouge_f1,
                "judgeOn": judge is not None,
                "judgeThreshold": gate.judge_threshold,
                "method": method or ("judge" if judge is not None else "rouge"),
            },
        )
    if normalize(candidate) == normalize(reference):
        return _decided(True, "", "exact", rouge)
    f1 = rouge.fmeasure
    shown, bar = reason_numbers(f1, gate.rouge_f1)
    if f1 >= gate.rouge_f1:
        return _decided(True, f"ROUGE-1 F1 {shown} >= {bar}", "rouge", rouge)
    if judge is None:
        return _decided(False, f"ROUGE-1 F1 {shown} < {bar}", "rouge", rouge)
    return await judge.decide(index, actual, candidate, reference, rouge)


@dataclasses.dataclass(slots=True)
class _JudgeTurn:
    """The judge step of one metric on one case: the pipeline's sampler and the gate's bar."""

    sampler: JudgeSampler
    threshold: float

    @classmethod
    def for_metric(cls, metric: EvalMetric, gate: GateConfig, context: EvalContext) -> _JudgeTurn:
        """Resolve the judge of ``metric``; an evaluator error when it cannot be called."""
        session = judge_session(context)
        model = _judge_model(metric)
        if session.injected_backend:
            # An injected backend replaces judgeModel and decides the sample count (§3.7).
            settings = resolved_settings(None)
        elif model is None:
            raise EvaluatorError(MISSING_FIELDS)
        else:
            settings = resolved_settings(model, judge_settings)
        num_samples = sample_count(session, model)
        sampler = JudgeSampler(metric.metric_name, session, settings, num_samples, context)
        return cls(sampler, gate.judge_threshold)

    async def decide(
        self, index: int, actual: Invocation, candidate: str, reference: str, rouge: Rouge1
    ) -> TurnResult:
        """Ask the judge (``numSamples`` times) and vote; a failed call leaves the turn open."""
        from agenteval.judge import JudgeConfigError, JudgeRequest

        prompt = judge_prompt(message_text(actual.user_content), reference, candidate)
        request = JudgeRequest.user_prompt(self.sampler.settings, prompt)
        try:
            replies = await self.sampler.samples(request)
        except JudgeConfigError as exc:
            raise EvaluatorError(f"judge response: {exc} (turn {index + 1})") from None
        except JudgeError as exc:
            return self._not_evaluated(index, str(exc), rouge)
        verdicts = []
        for k, reply in enumerate(replies):
            try:
                verdicts.append(parse_judge_reply(reply.text))
            except JudgeReplyFormatError as exc:
                recorder = listening()
                if recorder is not None:
                    recorder.add("gate.parse_error", {"sample": k + 1, "error": str(exc)})
                sample = f", sample {k + 1}" if len(replies) > 1 else ""
                raise EvaluatorError(
                    f"score based on response: {exc} (turn {index + 1}{sample})"
                ) from None
        vote = majority_vote(verdicts, self.threshold)
        chosen = vote.representative
        recorder = listening()
        if recorder is not None:
            recorder.add(
                "gate.vote",
                {
                    "verdicts": [verdict.to_json() for verdict in verdicts],
                    "pass": vote.passes,
                    "fail": vote.fails,
                    "passed": vote.passed,
                    "threshold": self.threshold,
                },
            )
        reason = (
            f"judge score {chosen.score:g}, pass {str(chosen.passed).lower()} "
            f"(threshold {self.threshold:g}): {chosen.reasoning}"
        )
        extra: dict[str, Any] = {"judge": chosen.to_json()}
        if len(verdicts) > 1:
            extra["votes"] = {"pass": vote.passes, "fail": vote.fails}
        return _decided(vote.passed, reason, "judge", rouge, **extra)

    def _not_evaluated(self, index: int, message: str, rouge: Rouge1) -> TurnResult:
        self.sampler.record_failure(index, message)
        details = MetricDetails(
            reason=message,
            score=0.0,
            method="judge",
            rouge=score_json(rouge),
            judge={"error": message},
        )
        return TurnResult(score=0.0, status=EvalStatus.NOT_EVALUATED, details=details)
