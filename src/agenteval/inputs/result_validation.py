"""Result objects validated from parsed JSON, one criterion object per distinct criterion.

The result readers validate a file's eval set result in pieces (its head, then each
case result, each case summary: :mod:`agenteval.inputs.result_inputs`), from JSON already
parsed (strict Python mode) rather than from text: no second parse.  Every metric
result's criterion, a tree of about ten small models that each result of a metric
repeats (45% of the models of a result file), is validated once per distinct
criterion and shared by its results, as a run shares it.

For the result schema, strict Python-mode validation of parsed JSON accepts what
JSON mode accepts and builds the same models (statuses are read by their text in
both modes: ``EvalStatus.__get_pydantic_core_schema__``).  Whenever it fails, the
JSON text is validated in JSON mode, so every problem keeps JSON mode's wording and
location.  ``tests/inputs/test_result_validation.py`` checks both routes side by side on
valid and broken files.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel, ValidationError

from agenteval.schema.metric import Criterion
from agenteval.schema.result import EvalCaseResult, EvalCaseSummary, EvalSetResult

M = TypeVar("M", bound=BaseModel)


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


def _restore(replaced: list[tuple[dict[str, Any], Any]]) -> None:
    for metric, raw in replaced:
        metric["criterion"] = raw


def _validated(model: type[M], data: Any, text: Callable[[], str | bytes]) -> M:
    """``model.model_validate_json(text())`` from ``data``, that text parsed (module docstring)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        try:
            written = text()
        except ValueError:  # data JSON cannot hold (a lone surrogate): Python mode's words
            raise exc from None
        return model.model_validate_json(written)


class CaseValidator:
    """Validates the case results of one eval set result one at a time, sharing criteria."""

    def __init__(self) -> None:
        # marshal keeps apart what == does not: 1, 1.0 and true; key order (extras).
        self._shared: dict[bytes, Criterion] = {}

    def _share(self, case: Any) -> list[tuple[dict[str, Any], Any]] | None:
        """Put one validated ``Criterion`` per distinct criterion in place of the parsed ones.

        Returns what was replaced, to put back; None, with ``case`` as it was, when a
        criterion does not validate.
        """
        replaced: list[tuple[dict[str, Any], Any]] = []
        for metric in _metric_results(case):
            raw = metric.get("criterion")
            if not isinstance(raw, dict):
                continue
            key = marshal.dumps(raw)
            criterion = self._shared.get(key)
            if criterion is None:
                try:
                    criterion = Criterion.model_validate(raw)
                except ValidationError:
                    _restore(replaced)
                    return None
                self._shared[key] = criterion
            replaced.append((metric, raw))
            metric["criterion"] = criterion
        return replaced

    def case(self, data: Any, text: Callable[[], str | bytes]) -> EvalCaseResult:
        """``EvalCaseResult.model_validate_json(text())`` from ``data``, that text parsed.

        Raises JSON mode's ValidationError: on any failure ``text()`` is validated in
        JSON mode (``data`` is as it was by then).
        """
        replaced = self._share(data)
        if replaced is not None:
            try:
                return EvalCaseResult.model_validate(data)
            except ValidationError:
                _restore(replaced)
        return EvalCaseResult.model_validate_json(text())


def validate_summary(data: Any, text: Callable[[], str | bytes]) -> EvalCaseSummary:
    """A case summary from its parsed JSON (JSON mode's problems on failure)."""
    return _validated(EvalCaseSummary, data, text)


def validate_head(data: Any) -> EvalSetResult:
    """An eval set result without its case results, from parsed JSON (JSON mode's problems)."""
    return _validated(EvalSetResult, data, lambda: pydantic_core.to_json(data))


__all__ = ["CaseValidator", "validate_head", "validate_summary"]
