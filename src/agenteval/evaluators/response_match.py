"""Lexical final-answer metrics: ``exact_match``, ``normalized_match``, ``response_match_score``.

text-metrics.md §1–§3.  Each scores every turn in [0, 1] from the texts of the
actual and expected final responses, passes a turn when ``score >= threshold``
and averages the turns into the metric score.
"""

from __future__ import annotations

from typing import ClassVar

from agenteval.criteria.lexical import normalize, rouge1
from agenteval.criteria.rouge import score_json
from agenteval.evaluators.base import TurnEvaluator, TurnResult, binary_turn
from agenteval.evaluators.registry import register_evaluator
from agenteval.inputs.score_text import reason_numbers
from agenteval.schema.evalset import Invocation, Message
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import DetailValue, MetricDetails
from agenteval.schema.status import status_for
from agenteval.steps.record import listening

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


def excerpt(text: str) -> str:
    """``text`` quoted, shortened to a readable length for a reason line."""
    short = text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"
    return repr(short)


class AnswerMatch(TurnEvaluator):
    """Score 1 per turn whose final answer equals the expected one, else 0."""

    # Compare the answers after ``normalize`` (case, punctuation and spacing ignored).
    normalized: ClassVar[bool] = False

    def score_turn(
        self, metric: EvalMetric, actual: Invocation, expected: Invocation
    ) -> TurnResult:
        """1 when the answers are equal (as compared), with both quoted in the reason if not."""
        got, want = answer_texts(actual, expected)
        compared = (normalize(got), normalize(want)) if self.normalized else (got, want)
        matched = compared[0] == compared[1]
        recorder = listening()
        if recorder is not None:
            recorder.add(
                "answer_match",
                {
                    "comparison": "normalized" if self.normalized else "identical",
                    "actual": compared[0],
                    "expected": compared[1],
                    "ok": matched,
                },
            )
        differs = (
            "normalized final response differs" if self.normalized else "final response differs"
        )
        reason = "" if matched else f"{differs}: got {excerpt(got)}, expected {excerpt(want)}"
        return binary_turn(matched, reason, metric.threshold)


@register_evaluator
class ExactMatchEvaluator(AnswerMatch):
    """Score 1 per turn whose final answer is the identical string, else 0."""

    name = "exact_match"
    description = "Final answer identical to the expected one (1/0 per turn), averaged over turns"


@register_evaluator
class NormalizedMatchEvaluator(AnswerMatch):
    """Score 1 per turn whose final answer equals the expected one after ``normalize``."""

    name = "normalized_match"
    description = (
        "Final answer equal to the expected one ignoring case, punctuation and spacing, "
        "averaged over turns"
    )
    normalized = True


@register_evaluator
class ResponseMatchScoreEvaluator(TurnEvaluator):
    """google-adk's ``response_match_score``: ROUGE-1 F-measure per turn, averaged."""

    name = "response_match_score"
    description = (
        "ROUGE-1 F-measure of the final answer against the expected one, as google-adk "
        "computes it (Unicode-aware tokens, Porter stemming), averaged over turns"
    )

    def score_turn(
        self, metric: EvalMetric, actual: Invocation, expected: Invocation
    ) -> TurnResult:
        """ADK's ROUGE-1 F-measure of the turn's answers, P/R/F in the details."""
        threshold = metric.threshold
        got, want = answer_texts(actual, expected)
        scores = rouge1(got, want)
        score = scores.fmeasure
        status = status_for(score, threshold)
        reason = ""
        if score < threshold:
            shown, bar = reason_numbers(score, threshold)
            reason = f"ROUGE-1 F1 {shown} < threshold {bar}"
        details = MetricDetails(
            reason=reason,
            score=score,
            value=DetailValue(kind="numeric", numeric=score),
            rouge=score_json(scores),
        )
        return TurnResult(score=score, status=status, details=details)
