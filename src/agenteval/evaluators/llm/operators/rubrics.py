"""Rubric visibility, validation and the rubric-scores schema (llm-evaluators.md §4.2–§4.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agenteval.evaluators.llm.operators.registry import OperatorError, quoted
from agenteval.schema.metric import EvalMetric, Rubric

if TYPE_CHECKING:
    from agenteval.judge import StructuredOutput


def visible_rubrics(metric: EvalMetric | None) -> list[Rubric]:
    """Rubrics with content, in order; a rubric without content is invisible everywhere."""
    criterion = metric.criterion.llm_judge if metric and metric.criterion else None
    return [r for r in (criterion.rubrics if criterion else None) or () if r.content is not None]


def validate_structured(metric: EvalMetric | None) -> list[str]:
    """The trimmed visible rubric ids, or Go's error for the first problem (§4.2)."""
    if metric is None:
        raise OperatorError("eval metric is nil")
    if metric.criterion is None or metric.criterion.llm_judge is None:
        raise OperatorError("llm judge criterion is required")
    rubrics = visible_rubrics(metric)
    if not rubrics:
        raise OperatorError("llm judge rubrics are required")
    ids: list[str] = []
    seen: set[str] = set()
    for rubric in rubrics:
        rubric_id = rubric.id.strip()
        if not rubric_id:
            raise OperatorError("llm judge rubric id is required for structured output")
        if rubric_id in seen:
            raise OperatorError(f"duplicate llm judge rubric id {quoted(rubric_id)}")
        seen.add(rubric_id)
        ids.append(rubric_id)
    return ids


def rubric_scores_json_schema(ids: list[str]) -> dict[str, Any]:
    """The JSON schema of ``{"rubricScores": [...]}`` with exactly one item per id."""
    item = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "enum": list(ids)},
            "score": {"type": "number", "enum": [0, 1]},
            "reason": {"type": "string"},
        },
        "required": ["id", "score", "reason"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "rubricScores": {
                "type": "array",
                "minItems": len(ids),
                "maxItems": len(ids),
                "items": item,
            }
        },
        "required": ["rubricScores"],
        "additionalProperties": False,
    }


def rubric_scores_schema(
    metric: EvalMetric | None, name: str, description: str
) -> StructuredOutput:
    """The strict rubric-scores structured output of a built-in rubric evaluator (§4.3)."""
    from agenteval.judge import StructuredOutput

    ids = validate_structured(metric)
    return StructuredOutput(
        name=name, schema=rubric_scores_json_schema(ids), strict=True, description=description
    )
