"""The template judge's JSON response scorers: ``single_score``, ``boolean``, ``categorical`` (§5.8.4).

Each decodes the reply per §4.4 (case-insensitive keys, strict JSON types,
one optional code fence) and checks the fields in Go's order.  The
categorical scorer reads its categories from
``criterion.llmJudge.template.responseScorerOptions.categories`` and checks
them before the reply; an unknown label scores 0 without an error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from agenteval.evaluators.base import UNIT_RANGE, ScoreRange
from agenteval.evaluators.llm.operators.registry import OperatorError, quoted
from agenteval.evaluators.llm.operators.response_json import (
    BOOLEAN,
    NUMBER,
    STRING,
    Spec,
    unmarshal_reply,
)
from agenteval.evaluators.llm.operators.scorers import (
    ScoreResult,
    numeric,
    required,
    response_scorers,
)
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import DetailValue

if TYPE_CHECKING:
    from agenteval.judge import JudgeReply

OPTIONS_PATH = "criterion.llmJudge.template.responseScorerOptions"


def field_and_reason(reply: JudgeReply | None, field: str, kind: Spec) -> tuple[Any, str]:
    """The reply's ``field`` (JSON type ``kind``) and ``reason``, each required, in Go's order."""
    data = unmarshal_reply(reply, {field: kind, "reason": STRING})
    required(data, {field: field, "reason": "reason"})
    return data[field], data["reason"]


class SingleScoreScorer:
    """``{"score": number in [0, 1], "reason": string}`` → that score."""

    # A score outside 0..1 is refused (Go's "score must be between 0 and 1").
    score_range: ClassVar[ScoreRange] = UNIT_RANGE

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """The judge's own score and reason."""
        value, reason = field_and_reason(reply, "score", NUMBER)
        if value < 0 or value > 1:
            raise OperatorError("score must be between 0 and 1")
        return ScoreResult(score=value, reason=reason, value=numeric(value))


class BooleanScorer:
    """``{"passed": bool, "reason": string}`` → 1.0 or 0.0 with a boolean value."""

    score_range: ClassVar[ScoreRange] = UNIT_RANGE

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """1 when the judge says passed, else 0."""
        passed, reason = field_and_reason(reply, "passed", BOOLEAN)
        return ScoreResult(
            score=1.0 if passed else 0.0,
            reason=reason,
            value=DetailValue(kind="boolean", boolean=passed),
        )


@dataclass(frozen=True, slots=True)
class Category:
    """One configured label and the score it is worth."""

    label: str
    score: float


class CategoryError(OperatorError):
    """The configured categories are invalid; ``path`` is relative to the metric."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def read_categories(metric: EvalMetric | None) -> list[Category]:
    """The validated categories of a categorical template metric, in configured order."""
    llm_judge = metric.criterion.llm_judge if metric and metric.criterion else None
    if llm_judge is None:
        raise CategoryError("llm judge criterion is required", "criterion.llmJudge")
    if llm_judge.template is None:
        raise CategoryError("template is nil", "criterion.llmJudge.template")
    options = llm_judge.template.get("responseScorerOptions")
    if options is None:
        raise CategoryError("responseScorerOptions is required", OPTIONS_PATH)
    if not isinstance(options, Mapping):
        raise CategoryError("responseScorerOptions must be an object", OPTIONS_PATH)
    raw = options.get("categories")
    where = f"{OPTIONS_PATH}.categories"
    if raw is not None and not isinstance(raw, list):
        raise CategoryError("categories must be a list", where)
    if not raw:
        raise CategoryError("categorical response scorer categories are required", where)
    categories: list[Category] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        categories.append(_category(entry, f"{where}[{index}]", seen))
    return categories


def _category(entry: Any, where: str, seen: set[str]) -> Category:
    if entry is None:
        raise CategoryError("categorical category is nil", where)
    if not isinstance(entry, Mapping):
        raise CategoryError("categorical category must be an object", where)
    label = entry.get("label")
    score = entry.get("score")
    if label is not None and not isinstance(label, str):
        raise CategoryError("categorical category label must be a string", f"{where}.label")
    # Go reads the score into a float64: absent or null is 0.
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise CategoryError("categorical category score must be a number", f"{where}.score")
    if not label:
        raise CategoryError("categorical category label is empty", f"{where}.label")
    value = float(score or 0)
    if not math.isfinite(value) or value < 0 or value > 1:
        raise CategoryError(
            f"categorical category {quoted(label)} score must be between 0 and 1", f"{where}.score"
        )
    if label in seen:
        raise CategoryError(
            f"duplicate categorical category label {quoted(label)}", f"{where}.label"
        )
    seen.add(label)
    return Category(label, value)


class CategoricalScorer:
    """``{"category": label, "reason": string}`` → the label's configured score."""

    # Configured category scores must be within 0..1; an unknown label scores 0.
    score_range: ClassVar[ScoreRange] = UNIT_RANGE

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """Exact label lookup; an unknown label scores 0 and says so in the reason."""
        categories = read_categories(metric)
        label, reason = field_and_reason(reply, "category", STRING)
        value = DetailValue(kind="categorical", categorical=label)
        for category in categories:
            if category.label == label:
                return ScoreResult(score=category.score, reason=reason, value=value)
        return ScoreResult(
            score=0.0, reason=f"unknown categorical label {quoted(label)}: {reason}", value=value
        )


response_scorers.register("single_score", SingleScoreScorer())
response_scorers.register("boolean", BooleanScorer())
response_scorers.register("categorical", CategoricalScorer())
