"""Response scorers: one judge reply → one :class:`ScoreResult` (llm-evaluators.md §2, §4.5).

``response_scorers`` holds the scorers a template metric may name
(``rubric_scores`` here; issue 5 adds ``single_score``, ``boolean`` and
``categorical``).  Evaluator-specific scorers (final response,
hallucination) are composed directly and not registered by name, as in Go.

Tested in tests/evaluators/llm/operators/test_rubrics.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from agenteval.evaluators.base import UNIT_RANGE, ScoreRange
from agenteval.evaluators.llm.operators.registry import OperatorError, operator_registry, quoted
from agenteval.evaluators.llm.operators.response_json import (
    NUMBER,
    STRING,
    ArrayOf,
    ObjectOf,
    unmarshal_reply,
)
from agenteval.evaluators.llm.operators.rubrics import validate_structured, visible_rubrics
from agenteval.registry import Registry
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import DetailValue, RubricScore

if TYPE_CHECKING:
    from agenteval.judge import JudgeReply


@dataclass(slots=True)
class ScoreResult:
    """What one judge sample says: score, reason, typed value and per-rubric scores."""

    score: float
    reason: str = ""
    value: DetailValue | None = None
    rubric_scores: list[RubricScore] | None = None


def numeric(score: float) -> DetailValue:
    """The ``{"kind": "numeric", "numeric": score}`` value."""
    return DetailValue(kind="numeric", numeric=score)


def required(data: Mapping[str, Any], labels: Mapping[str, str]) -> None:
    """Go's ``<label> is required`` for the first key of ``labels`` whose value is null."""
    for key, label in labels.items():
        if data[key] is None:
            raise OperatorError(f"{label} is required")


def rubric_mean(scores: list[RubricScore]) -> ScoreResult:
    """The mean of per-rubric scores, with every reason on its own line."""
    mean = sum(s.score for s in scores) / len(scores)
    return ScoreResult(
        score=mean,
        reason="\n".join(s.reason for s in scores),
        value=numeric(mean),
        rubric_scores=scores,
    )


class ResponseScorer(Protocol):
    """Turns a judge reply into a score; raises ``OperatorError`` for a malformed reply.

    A scorer may declare ``score_range = (low, high)``, the scores it gives: a template
    metric's threshold is then checked against it (``TemplateJudge.metric_score_range``).
    """

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """Score one judge reply (``None`` means the judge returned no response)."""
        ...


response_scorers: Registry[ResponseScorer] = operator_registry("response scorer")

_RUBRIC_SCORES = {
    "rubricScores": ArrayOf(ObjectOf({"id": STRING, "score": NUMBER, "reason": STRING}))
}


class RubricScoresScorer:
    """``{"rubricScores": [{"id", "score", "reason"}]}`` → mean score (§4.5)."""

    # Each rubric score must be within 0..1; their mean is too.
    score_range: ClassVar[ScoreRange] = UNIT_RANGE

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """Validate every item against the metric's rubrics and average the scores."""
        items = unmarshal_reply(reply, _RUBRIC_SCORES)["rubricScores"]
        if not items:
            raise OperatorError("rubricScores is empty")
        # Without rubrics (a template metric) any ids are accepted.
        expected = validate_structured(metric) if visible_rubrics(metric) else None
        scores: list[RubricScore] = []
        seen: set[str] = set()
        for item in items:
            raw_id = item["id"]
            if raw_id is None or not raw_id.strip():
                raise OperatorError("rubric score id is empty")
            rubric_id = raw_id.strip()
            if rubric_id in seen:
                raise OperatorError(f"duplicate rubric score id {quoted(rubric_id)}")
            if expected is not None and rubric_id not in expected:
                raise OperatorError(f"unexpected rubric score id {quoted(rubric_id)}")
            required(item, {"score": "rubric score", "reason": "rubric score reason"})
            value: float = item["score"]
            if value < 0 or value > 1:
                raise OperatorError("rubric score must be between 0 and 1")
            seen.add(rubric_id)
            scores.append(RubricScore(id=rubric_id, score=value, reason=item["reason"]))
        for rubric_id in expected or ():
            if rubric_id not in seen:
                raise OperatorError(f"missing rubric score id {quoted(rubric_id)}")
        return rubric_mean(scores)


response_scorers.register("rubric_scores", RubricScoresScorer())
