"""Structured-output providers: the reply schema a template metric asks the judge for (§5.8.3).

A provider turns the metric into a :class:`~agenteval.judge.StructuredOutput`
(or ``None``: unconstrained).  The four built-ins are registered under the
names of the scorers whose payload they describe, so a template metric gets
its scorer's schema unless ``structuredOutputName`` names another one.

Tested in tests/evaluators/llm/operators/test_json_scorers.py.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agenteval.evaluators.llm.operators.json_scorers import read_categories
from agenteval.evaluators.llm.operators.registry import operator_registry
from agenteval.registry import Registry
from agenteval.schema.metric import EvalMetric

if TYPE_CHECKING:
    from agenteval.judge import StructuredOutput


class StructuredOutputProvider(Protocol):
    """Gives the reply schema for a metric; raises ``OperatorError`` for a bad config."""

    def structured_output(self, metric: EvalMetric) -> StructuredOutput | None:
        """The schema to attach to every judge call of the metric (``None``: none)."""
        ...


structured_outputs: Registry[StructuredOutputProvider] = operator_registry(
    "structured output", "structured output provider"
)

_UNIT = {"type": "number", "minimum": 0, "maximum": 1}
_TEXT = {"type": "string"}


def _object(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class FixedSchema:
    """A provider whose schema does not depend on the metric."""

    name: str
    description: str
    properties: Mapping[str, Any] = field(default_factory=dict)

    def structured_output(self, metric: EvalMetric) -> StructuredOutput | None:
        """The same strict schema for every metric."""
        from agenteval.judge import StructuredOutput

        return StructuredOutput(
            name=self.name,
            schema=copy.deepcopy(_object(self.properties)),
            strict=True,
            description=self.description,
        )


class CategoricalSchema:
    """``{"category": <one of the configured labels>, "reason": string}``."""

    def structured_output(self, metric: EvalMetric) -> StructuredOutput | None:
        """The label enum in configured order (categories are validated first)."""
        from agenteval.judge import StructuredOutput

        labels = [c.label for c in read_categories(metric)]
        schema = _object({"category": {"type": "string", "enum": labels}, "reason": _TEXT})
        return StructuredOutput(
            name="categorical_result",
            schema=schema,
            strict=True,
            description="A categorical label and a concise reason for the evaluation result.",
        )


_RUBRIC_ITEM = _object({"id": _TEXT, "score": _UNIT, "reason": _TEXT})

structured_outputs.register(
    "single_score",
    FixedSchema(
        "single_score_result",
        "A score and a concise reason for the evaluation result.",
        {"score": _UNIT, "reason": _TEXT},
    ),
)
structured_outputs.register(
    "rubric_scores",
    FixedSchema(
        "rubric_scores_result",
        "Per-rubric scores and concise reasons for the evaluation result.",
        {"rubricScores": {"type": "array", "items": _RUBRIC_ITEM}},
    ),
)
structured_outputs.register(
    "boolean",
    FixedSchema(
        "boolean_result",
        "A pass/fail result and a concise reason for the evaluation result.",
        {"passed": {"type": "boolean"}, "reason": _TEXT},
    ),
)
structured_outputs.register("categorical", CategoricalSchema())
