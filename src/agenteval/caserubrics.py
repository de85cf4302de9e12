"""Validate case-level rubrics and merge them into their target metric (formats.md §2.8)."""

from __future__ import annotations

from collections.abc import Sequence

from agenteval.schema.evalset import EvalCase
from agenteval.schema.metric import EvalMetric, Rubric


class CaseRubricError(Exception):
    """A case rubric is invalid; the case fails with this message."""


def merged_rubrics(case: EvalCase, metrics: Sequence[EvalMetric]) -> dict[str, list[Rubric]]:
    """Per metric name, the metric's rubrics followed by the case's; raises CaseRubricError."""
    if not case.rubrics:
        return {}
    by_name = {m.metric_name: m for m in metrics}
    added: dict[str, list[Rubric]] = {}
    for position, rubric in enumerate(case.rubrics, start=1):
        metric = by_name.get(rubric.metric_name)
        if not rubric.metric_name or metric is None:
            raise CaseRubricError(
                f"case rubric {position} targets unknown metric {rubric.metric_name!r}"
            )
        judge = metric.criterion.llm_judge if metric.criterion else None
        if judge is None:
            raise CaseRubricError(
                f"case rubric {position} targets metric {rubric.metric_name!r}, "
                "which has no llmJudge criterion"
            )
        text = (rubric.content.text if rubric.content else "").strip()
        if not text:
            raise CaseRubricError(f"case rubric {position} has empty content.text")
        added.setdefault(rubric.metric_name, []).append(
            Rubric(
                id=rubric.id.strip() or f"case_rubric_{position}",
                content={"text": text},
                description=rubric.description,
                type=rubric.type,
            )
        )
    merged: dict[str, list[Rubric]] = {}
    for name, extra in added.items():
        judge = by_name[name].criterion.llm_judge  # type: ignore[union-attr]
        combined = list(judge.rubrics or []) + extra if judge else extra
        seen: set[str] = set()
        for item in combined:
            if item.id in seen:
                raise CaseRubricError(f"duplicate rubric id {item.id!r} for metric {name!r}")
            seen.add(item.id)
        merged[name] = combined
    return merged


def with_rubrics(metric: EvalMetric, rubrics: list[Rubric]) -> EvalMetric:
    """A copy of ``metric`` whose llmJudge criterion carries ``rubrics``."""
    assert metric.criterion is not None and metric.criterion.llm_judge is not None
    judge = metric.criterion.llm_judge.model_copy(update={"rubrics": rubrics})
    criterion = metric.criterion.model_copy(update={"llm_judge": judge})
    return metric.model_copy(update={"criterion": criterion})
