"""Result files validated from parsed JSON, one criterion object per distinct criterion.

The result readers parse a file's JSON to tell its kind; validating that parsed
data (strict Python mode) spares a second parse of the text, and every metric
result's criterion, a tree of about ten small models that each result of a metric
repeats (45% of the models of a result file), is validated once per distinct
criterion and shared by its results, as a run shares it.

For the result schema, strict Python-mode validation of parsed JSON accepts what
JSON mode accepts and builds the same models (statuses are read by their text in
both modes: ``EvalStatus.__get_pydantic_core_schema__``).  Whenever it fails, the
JSON text is validated in JSON mode, so every problem keeps JSON mode's wording and
location.  ``tests/test_result_validation.py`` checks both routes side by side on
valid and broken files.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import ValidationError

from agenteval.schema.metric import Criterion
from agenteval.schema.result import EvalSetResult


def _metric_results(case: Any) -> Iterator[dict[str, Any]]:
    """The metric result objects of one parsed case result (overall and per turn)."""
    if not isinstance(case, dict):
        return
    overall = case.get("overallEvalMetricResults")
    if isinstance(overall, list):
        yield from (m for m in overall if isinstance(m, dict))
    turns = case.get("evalMetricResultPerInvocation")
    if isinstance(turns, list):
        for turn in turns:
            results = turn.get("evalMetricResults") if isinstance(turn, dict) else None
            if isinstance(results, list):
                yield from (m for m in results if isinstance(m, dict))


def _share_criteria(data: dict[str, Any]) -> list[tuple[dict[str, Any], Any]] | None:
    """Put one validated ``Criterion`` per distinct criterion in place of the parsed ones.

    Returns what was replaced, to put back (:func:`_restore`); None, with ``data`` as
    it was, when a criterion does not validate.
    """
    cases = data.get("evalCaseResults")
    replaced: list[tuple[dict[str, Any], Any]] = []
    if not isinstance(cases, list):
        return replaced
    shared: dict[bytes, Criterion] = {}
    for case in cases:
        for metric in _metric_results(case):
            raw = metric.get("criterion")
            if not isinstance(raw, dict):
                continue
            # marshal keeps apart what == does not: 1, 1.0 and true; key order (extras).
            key = marshal.dumps(raw)
            criterion = shared.get(key)
            if criterion is None:
                try:
                    criterion = Criterion.model_validate(raw)
                except ValidationError:
                    _restore(replaced)
                    return None
                shared[key] = criterion
            replaced.append((metric, raw))
            metric["criterion"] = criterion
    return replaced


def _restore(replaced: list[tuple[dict[str, Any], Any]]) -> None:
    for metric, raw in replaced:
        metric["criterion"] = raw


def validate_result(data: Any, text: Callable[[], str]) -> EvalSetResult:
    """``EvalSetResult.model_validate_json(text())``, from ``data``: that text, parsed.

    Raises JSON mode's ValidationError: on any failure ``text()`` (which may read
    ``data``, as it was) is validated in JSON mode.
    """
    replaced = _share_criteria(data) if isinstance(data, dict) else None
    if replaced is not None:
        try:
            return EvalSetResult.model_validate(data)
        except ValidationError:
            _restore(replaced)
    return EvalSetResult.model_validate_json(text())


__all__ = ["validate_result"]
