"""Validate case-level rubrics and merge them into their target metric (formats.md §2.8).

llm-evaluators.md §7, with Go's error texts: each case rubric is checked in
order (null, blank ``metricName``, missing ``content``, blank text, unknown
metric), normalised (``id`` trimmed or ``case_rubric_<k>`` with k its
1-based position in the case's list, text and type trimmed, description kept),
then appended, per metric in file order, after the metric's own rubrics.  The
target metric must have an ``llmJudge`` criterion and ids must stay unique
(the metric's own trimmed, non-empty ids included).  The shared metric config
is never changed: the effective metric is a copy.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenteval.errors import CaseError
from agenteval.schema.evalset import EvalCase, EvalCaseRubric
from agenteval.schema.metric import EvalMetric, Rubric


class CaseRubricError(CaseError):
    """A case rubric is invalid; the case fails with this message."""


def _normalised(
    case_id: str, index: int, rubric: EvalCaseRubric | None, known: set[str]
) -> tuple[str, Rubric]:
    where = f"case rubric {case_id}[{index}]"
    # Lists from files never hold None (the loader rejects it), but a plugin might pass one.
    if rubric is None:
        raise CaseRubricError(f"{where}: rubric is nil")
    if not rubric.metric_name.strip():
        raise CaseRubricError(f"{where}: metricName is empty")
    if rubric.content is None:
        raise CaseRubricError(f"{where}: content is nil")
    text = rubric.content.text.strip()
    if not text:
        raise CaseRubricError(f"{where}: content.text is empty")
    if rubric.metric_name not in known:
        raise CaseRubricError(f"{where}: metric {rubric.metric_name} not found")
    normalised = Rubric(
        id=rubric.id.strip() or f"case_rubric_{index + 1}",
        content={"text": text},
        description=rubric.description,
        type=rubric.type.strip(),
    )
    return rubric.metric_name, normalised


def case_rubric_index(case: EvalCase, metrics: Sequence[EvalMetric]) -> dict[str, list[Rubric]]:
    """Per target metric name, the case's normalised rubrics in case order (§7 steps 1–3)."""
    if not case.rubrics:
        return {}
    known = {m.metric_name for m in metrics if m is not None and m.metric_name.strip()}
    index: dict[str, list[Rubric]] = {}
    for position, rubric in enumerate(case.rubrics):
        name, normalised = _normalised(case.eval_id, position, rubric, known)
        index.setdefault(name, []).append(normalised)
    return index


def effective_rubrics(case_id: str, metric: EvalMetric, added: Sequence[Rubric]) -> list[Rubric]:
    """The metric's rubrics followed by ``added``, with §7 step 4's container and id checks."""
    judge = metric.criterion.llm_judge if metric.criterion is not None else None
    if judge is None:
        raise CaseRubricError(
            f"case rubric {case_id}: metric {metric.metric_name} "
            "llmJudge criterion is required as rubric container"
        )
    own = list(judge.rubrics or ())
    seen: set[str] = set()
    for rubric in own:
        rubric_id = rubric.id.strip()
        if not rubric_id:
            continue
        if rubric_id in seen:
            raise CaseRubricError(f"case rubric {case_id}: duplicate rubric id {rubric_id}")
        seen.add(rubric_id)
    for rubric in added:
        if rubric.id in seen:
            raise CaseRubricError(f"case rubric {case_id}: duplicate rubric id {rubric.id}")
        seen.add(rubric.id)
    return own + list(added)


def merged_rubrics(case: EvalCase, metrics: Sequence[EvalMetric]) -> dict[str, list[Rubric]]:
    """Per metric name with case rubrics, its effective rubric list; raises CaseRubricError.

    Metrics are visited in file order, so the first failing metric names the error,
    as in Go's per-metric loop.
    """
    index = case_rubric_index(case, metrics)
    merged: dict[str, list[Rubric]] = {}
    for metric in metrics:
        added = index.get(metric.metric_name)
        if added and metric.metric_name not in merged:
            merged[metric.metric_name] = effective_rubrics(case.eval_id, metric, added)
    return merged


def with_rubrics(metric: EvalMetric, rubrics: list[Rubric]) -> EvalMetric:
    """A copy of ``metric`` whose llmJudge criterion carries ``rubrics`` (the original is untouched)."""
    assert metric.criterion is not None and metric.criterion.llm_judge is not None
    judge = metric.criterion.llm_judge.model_copy(update={"rubrics": list(rubrics)})
    criterion = metric.criterion.model_copy(update={"llm_judge": judge})
    return metric.model_copy(update={"criterion": criterion})
