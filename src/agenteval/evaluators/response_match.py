"""Lexical final-answer metrics: ``exact_match``, ``normalized_match``, ``response_match_score``.

text-metrics.md §1–§3.  Each scores every turn in [0, 1] from the texts of the
actual and expected final responses, passes a turn when ``score >= threshold``
and averages the turns into the metric score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agenteval.criteria.lexical import Rouge1, normalize, rouge1
from agenteval.evaluators.base import (
    UNIT_RANGE,
    EvalContext,
    EvaluateResult,
    Evaluator,
    TurnResult,
    Turns,
    average_turns,
    binary_turn,
    require_same_length,
)
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.evalset import Invocation, Message
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import DetailValue, MetricDetails
from agenteval.schema.status import status_for
from agenteval.steps.record import at_turn, listening

# Longest excerpt of an answer quoted in a failure reason.
_EXCERPT = 60


def message_text(message: Message | None) -> str:
    """A message's text: ``content``, else its text parts joined by newlines (as ADK does)."""
    if message is None:
        return ""
    if message.content or not message.content_parts:
        return message.content
    # Text held only in parts (multimodal messages): ADK joins the non-empty texts with "\n".
    texts = [part.get("text") for part in message.content_parts if isinstance(part, dict)]
    return "\n".join(text for text in texts if isinstance(text, str) and text)


def answer_texts(actual: Invocation, expected: Invocation) -> tuple[str, str]:
    """The (actual, expected) final-response texts of one turn pair; absent → ""."""
    return message_text(actual.final_response), message_text(expected.final_response)


def rouge_json(scores: Rouge1) -> dict[str, float]:
    """ROUGE-1 scores as the ``rouge`` detail object."""
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.fmeasure}


def excerpt(text: str) -> str:
    """``text`` quoted, shortened to a readable length for a reason line."""
    short = text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"
    return repr(short)


def _score_binary(
    metric: EvalMetric,
    actuals: Sequence[Invocation],
    expecteds: Sequence[Invocation],
    same: Callable[[str, str], bool],
    what: str,
) -> EvaluateResult:
    require_same_length(actuals, expecteds)
    turns = []
    for index, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True)):
        at_turn(index)
        got, want = answer_texts(actual, expected)
        matched = same(got, want)
        recorder = listening()
        if recorder is not None:
            normalized = same is _equal_normalized
            recorder.add(
                "answer_match",
                {
                    "comparison": "normalized" if normalized else "identical",
                    "actual": normalize(got) if normalized else got,
                    "expected": normalize(want) if normalized else want,
                    "ok": matched,
                },
            )
        reason = "" if matched else f"{what}: got {excerpt(got)}, expected {excerpt(want)}"
        turns.append(binary_turn(matched, reason, metric.threshold))
    return average_turns(turns, metric.threshold)


def _identical(got: str, want: str) -> bool:
    return got == want


def _equal_normalized(got: str, want: str) -> bool:
    return normalize(got) == normalize(want)


@register_evaluator
class ExactMatchEvaluator(Evaluator):
    """Score 1 per turn whose final answer is the identical string, else 0."""

    name = "exact_match"
    description = "Final answer identical to the expected one (1/0 per turn), averaged over turns"
    # Each turn scores 1 (identical) or 0; the metric score is their mean.
    score_range = UNIT_RANGE

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Compare every turn's answer string with the expected one."""
        return _score_binary(metric, actuals, expecteds, _identical, "final response differs")


@register_evaluator
class NormalizedMatchEvaluator(Evaluator):
    """Score 1 per turn whose final answer equals the expected one after ``normalize``."""

    name = "normalized_match"
    description = (
        "Final answer equal to the expected one ignoring case, punctuation and spacing, "
        "averaged over turns"
    )
    # Each turn scores 1 (equal once normalised) or 0; the metric score is their mean.
    score_range = UNIT_RANGE

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Compare every turn's normalised answer with the normalised expected one."""
        return _score_binary(
            metric, actuals, expecteds, _equal_normalized, "normalized final response differs"
        )


def response_match_turn(actual: Invocation, expected: Invocation, threshold: float) -> TurnResult:
    """One turn of ``response_match_score``: ADK's ROUGE-1 F-measure, P/R/F in the details."""
    got, want = answer_texts(actual, expected)
    scores = rouge1(got, want)
    score = scores.fmeasure
    status = status_for(score, threshold)
    reason = "" if score >= threshold else f"ROUGE-1 F1 {score:.4f} < threshold {threshold:g}"
    details = MetricDetails(
        reason=reason,
        score=score,
        value=DetailValue(kind="numeric", numeric=score),
        rouge=rouge_json(scores),
    )
    return TurnResult(score=score, status=status, details=details)


@register_evaluator
class ResponseMatchScoreEvaluator(Evaluator):
    """google-adk's ``response_match_score``: ROUGE-1 F-measure per turn, averaged."""

    name = "response_match_score"
    description = (
        "ROUGE-1 F-measure of the final answer against the expected one, as google-adk "
        "computes it (Unicode-aware tokens, Porter stemming), averaged over turns"
    )
    # Each turn scores its ROUGE-1 F-measure, 0..1; the metric score is their mean.
    score_range = UNIT_RANGE

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Score every turn pair by ROUGE-1 F-measure."""
        require_same_length(actuals, expecteds)
        turns = []
        for index, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True)):
            at_turn(index)
            turns.append(response_match_turn(actual, expected, metric.threshold))
        return average_turns(turns, metric.threshold)
