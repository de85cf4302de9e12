"""The resolved criterion of a metric: every field, its effective value and its source.

Reads the metric as loaded: a field the file set is located in the file
(``metrics/x.json: [1].criterion.finalResponse.json.numberTolerance``), any other shows
its effective default (``numberTolerance`` 1e-6, ``matchStrategy`` exact), an absent
part says it is not compared, and per-tool strategies say which tool they apply to.
API keys are never shown.

Tested in tests/explain/test_core.py.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agenteval.criteria.json_compare import DEFAULT_NUMBER_TOLERANCE
from agenteval.criteria.trajectory import DEFAULT_STRATEGY
from agenteval.explain.model import CriterionField
from agenteval.inputs.url_secrets import shown_base_url
from agenteval.report.json_keys import camel
from agenteval.schema.metric import (
    EvalMetric,
    JSONCriterion,
    JudgeModel,
    RougeCriterion,
    TextCriterion,
    ToolTrajectoryCriterion,
)

# Evaluators that read criterion.toolTrajectory and use a default when it is absent.
TRAJECTORY_EVALUATORS = frozenset({"tool_trajectory_avg_score", "tool_trajectory_f1"})
_SECRET_FIELDS = frozenset({"api_key"})


def _alias(model: type[BaseModel], name: str) -> str:
    info = model.model_fields[name]
    return info.alias or camel(name.rstrip("_"))


def _effective(model: BaseModel, name: str, value: Any) -> tuple[Any, str]:
    """The value the comparison uses for an unset field, and a note saying so."""
    if isinstance(model, JSONCriterion) and name == "number_tolerance" and value is None:
        return DEFAULT_NUMBER_TOLERANCE, "default tolerance for numbers"
    if isinstance(model, TextCriterion | JSONCriterion) and name == "match_strategy":
        return (value or "exact"), ("" if value else "empty means exact")
    if isinstance(model, RougeCriterion) and name == "measure":
        return (value or "f1"), ("" if value else "empty means f1")
    if isinstance(model, JudgeModel) and name == "num_samples" and value is None:
        return 1, "one sample when unset"
    return value, ""


class _Walker:
    """Collects the fields of one criterion tree with their sources."""

    def __init__(self, located: str | None) -> None:
        # "file: [i]" for the metric in a file, None for a metric without a file.
        self.located = located
        self.fields: list[CriterionField] = []

    def source(self, path: str, in_file: bool, strategy: str) -> str:
        if in_file and self.located is not None:
            return f"{self.located}.{path}"
        if in_file:
            return "given"
        return strategy or "default"

    def walk(self, model: BaseModel, path: str, in_file: bool, strategy: str = "") -> None:
        cls = type(model)
        for name in cls.model_fields:
            if name in _SECRET_FIELDS:
                continue
            sub = f"{path}.{_alias(cls, name)}"
            set_here = in_file and name in model.model_fields_set
            value = getattr(model, name)
            if value is None and path == "criterion":
                continue  # a part this metric does not configure at all
            if isinstance(value, BaseModel):
                self.walk(value, sub, set_here, strategy)
            elif name == "tool_strategy" and isinstance(value, dict):
                self._tool_strategies(value, sub, set_here)
            else:
                self._leaf(model, name, sub, value, set_here, strategy)
        for key, extra in (model.model_extra or {}).items():
            # Keys an evaluator reads beyond the trpc-agent-go formats (criterion.gate).
            sub = f"{path}.{key}"
            self.fields.append(CriterionField(sub, extra, self.source(sub, in_file, strategy)))

    def _tool_strategies(self, table: dict[str, Any], path: str, in_file: bool) -> None:
        for tool, strategy in table.items():
            sub = f"{path}[{tool!r}]"
            label = f"toolStrategy[{tool!r}] (calls named {tool})"
            if strategy is None:
                self.fields.append(
                    CriterionField(
                        sub, None, self.source(sub, in_file, label), "null: never matches"
                    )
                )
            else:
                self.walk(strategy, sub, in_file, label)

    def _leaf(
        self, model: BaseModel, name: str, path: str, value: Any, in_file: bool, strategy: str
    ) -> None:
        shown, note = _effective(model, name, value)
        if isinstance(model, JudgeModel) and name == "base_url" and isinstance(shown, str):
            shown = shown_base_url(shown, model.url_secrets).shown
        if value is None and not note:
            field_type = type(model).model_fields[name].annotation
            if "Criterion" in str(field_type) or "Strategy" in str(field_type):
                note = "absent: not compared"
        self.fields.append(CriterionField(path, shown, self.source(path, in_file, strategy), note))


def resolve_criterion(
    metric: EvalMetric, evaluator: str, located: str | None
) -> list[CriterionField]:
    """Every field of ``metric`` with its effective value and its source."""
    walker = _Walker(located)
    threshold_set = "threshold" in metric.model_fields_set
    walker.fields.append(
        CriterionField(
            "threshold", metric.threshold, walker.source("threshold", threshold_set, ""), ""
        )
    )
    criterion = metric.criterion
    if evaluator in TRAJECTORY_EVALUATORS:
        trajectory = criterion.tool_trajectory if criterion is not None else None
        if trajectory is None:
            walker.walk(
                ToolTrajectoryCriterion(),
                "criterion.toolTrajectory",
                False,
                "built-in default (no criterion.toolTrajectory)",
            )
        else:
            walker.walk(trajectory, "criterion.toolTrajectory", True)
            if trajectory.default_strategy is None:
                walker.walk(
                    DEFAULT_STRATEGY,
                    "criterion.toolTrajectory.defaultStrategy",
                    False,
                    "built-in default strategy (exact name, arguments and result)",
                )
        return walker.fields
    if criterion is not None:
        walker.walk(criterion, "criterion", "criterion" in metric.model_fields_set)
    return walker.fields
