"""The scored items of a saved result that human labels can name.

An item is one metric's verdict on a case (``invocationId`` and ``rubricId`` absent),
on one turn (``invocationId``), or one rubric's verdict on either; keyed like a
label: (evalSetId, evalId, metricName, runId, invocationId, rubricId).  A label
without ``invocationId`` on a one-turn case whose metric only scored rubrics per
turn finds that turn's rubric.  Each item keeps the judge's verdict (``pass`` /
``fail``, or None when not evaluated), its score, the metric's threshold, the
category the metric wrote (``details.value.categorical``) and, for judges with
samples, how many of the turn's samples agreed with the verdict (``agreement``).

Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from agenteval.schema.result import EvalCaseResult, EvalMetricResult, MetricDetails
from agenteval.schema.status import UPPER_BOUND_KEY, EvalStatus

ItemKey = tuple[str, str, str, int, str | None, str | None]


@dataclass(frozen=True, slots=True)
class Item:
    """One judge verdict a label can be compared with."""

    verdict: str | None  # "pass", "fail", or None (not evaluated)
    score: float
    threshold: float
    category: str | None = None
    agreement: float | None = None  # share of samples that agreed with the verdict
    # llm_verifier_pairwise with positionCheck: (turns whose preference flipped, turns checked).
    position: tuple[int, int] | None = None
    turn: int | None = None  # a turn's item: its place in the case, 1-based (explain --turn N)
    # The result does not say which evaluator scored the metric: explain needs --metrics.
    needs_metric_file: bool = False
    # Whether the metric's threshold is an upper bound, as the result says (its name, or its
    # ``upperBound`` key); None when it does not (a file written before the key).
    upper_bound: bool | None = None


def _verdict(status: EvalStatus) -> str | None:
    if status is EvalStatus.PASSED:
        return "pass"
    if status is EvalStatus.FAILED:
        return "fail"
    return None


def _extras(details: MetricDetails | None) -> dict[str, Any]:
    return dict(details.model_extra or {}) if details is not None else {}


def _upper_bound(metric: EvalMetricResult) -> bool | None:
    """What the result says of its threshold being an upper bound, None when nothing."""
    if metric.upper_bound:
        return True
    said = (metric.model_extra or {}).get(UPPER_BOUND_KEY)
    return said if isinstance(said, bool) else None


def _metric_items(
    base: tuple[str, str, int], metric: EvalMetricResult, invocation: str | None
) -> Iterable[tuple[ItemKey, Item]]:
    set_id, eval_id, run_id = base
    details = metric.details
    extras = _extras(details)
    agreement = extras.get("agreement")
    check = extras.get("positionCheck")
    position = (
        (1 if check["flipped"] else 0, 1)
        if isinstance(check, dict) and isinstance(check.get("flipped"), bool)
        else None
    )
    category = details.value.categorical if details is not None and details.value else None
    yield (
        (set_id, eval_id, metric.metric_name, run_id, invocation, None),
        Item(
            _verdict(metric.eval_status),
            metric.score,
            metric.threshold,
            category,
            float(agreement) if isinstance(agreement, int | float) else None,
            position,
            upper_bound=_upper_bound(metric),
        ),
    )
    for rubric in (details.rubric_scores if details is not None else None) or ():
        if metric.eval_status is EvalStatus.NOT_EVALUATED:
            verdict = None
        else:
            verdict = "pass" if rubric.score >= metric.threshold else "fail"
        key = (set_id, eval_id, metric.metric_name, run_id, invocation, rubric.id)
        yield key, Item(verdict, rubric.score, metric.threshold)


def case_items(eval_set_id: str, case: EvalCaseResult) -> dict[ItemKey, Item]:
    """Every item of one case result (its overall metrics, turns and rubrics)."""
    base = (eval_set_id, case.eval_id, case.run_id or 1)
    items: dict[ItemKey, Item] = {}
    turns = case.eval_metric_result_per_invocation or []
    # The samples' agreement of a metric's turns, for its case-level item.
    agreements: dict[str, list[float]] = {}
    positions: dict[str, list[tuple[int, int]]] = {}
    for number, turn in enumerate(turns, start=1):
        invocation = turn.actual_invocation.invocation_id if turn.actual_invocation else None
        for metric in turn.eval_metric_results or ():
            # A turn without an invocationId cannot be labelled, but its samples still count.
            for key, found in _metric_items(base, metric, invocation or ""):
                item = replace(found, turn=number)
                if invocation:
                    items[key] = item
                if key[5] is None and item.agreement is not None:
                    agreements.setdefault(metric.metric_name, []).append(item.agreement)
                if key[5] is None and item.position is not None:
                    positions.setdefault(metric.metric_name, []).append(item.position)
                if len(turns) == 1:
                    # A one-turn case: a label that names no turn means this one.
                    items.setdefault((*key[:4], None, key[5]), item)
    for metric in case.overall_eval_metric_results or ():
        for key, item in _metric_items(base, metric, None):
            seen = agreements.get(metric.metric_name)
            if key[5] is None and item.agreement is None and seen:
                item = replace(item, agreement=sum(seen) / len(seen))
            checked = positions.get(metric.metric_name)
            if key[5] is None and item.position is None and checked:
                flips = sum(f for f, _ in checked)
                item = replace(item, position=(flips, sum(n for _, n in checked)))
            items[key] = item  # the case's own verdict wins over a one-turn alias
    return _mark_unsaved_evaluators(case, items)


def _mark_unsaved_evaluators(
    case: EvalCaseResult, items: dict[ItemKey, Item]
) -> dict[ItemKey, Item]:
    """``items`` with the metrics whose evaluator the result does not name marked, as
    ``agenteval explain`` decides it (a metric named apart from its evaluator, say)."""
    from agenteval.explain.core import evaluator_is_saved

    names = {key[2] for key in items}
    unsaved = {name for name in names if not evaluator_is_saved(case, name)}
    return {
        key: replace(item, needs_metric_file=True) if key[2] in unsaved else item
        for key, item in items.items()
    }


__all__ = ["Item", "ItemKey", "case_items"]
