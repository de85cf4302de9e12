"""Human labels for ``agenteval calibrate``: JSONL lines or CSV rows, checked and located.

One label per line (JSONL) or row (CSV, a header naming the same columns):
``evalSetId``, ``evalId``, ``metricName``, optional ``invocationId`` (a turn),
``rubricId`` (one rubric of a rubric metric) and ``runId`` (which run of a
``--num-runs`` result, 1 when left out), and exactly one verdict: ``label``
(``pass`` / ``fail``), ``score`` (a number) or ``category`` (a string).  The format is
agenteval's own: an unknown key is an error with the nearest defined key as hint;
every problem is ``file: line N: key: problem``.  ``agenteval schema labels`` prints
the JSON Schema of one line.

Tested in tests/calibrate/test_labels.py.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.own_formats import strict_problems
from agenteval.schema.labels import KEYS, LabelLine


@dataclass(frozen=True, slots=True)
class Label:
    """A checked label and where it was read (``line N``)."""

    line: LabelLine
    where: str

    @property
    def item(self) -> tuple[str, str, str, int, str | None, str | None]:
        """The scored item it names: (evalSetId, evalId, metricName, runId, invocationId, rubricId)."""
        line = self.line
        return (
            line.eval_set_id,
            line.eval_id,
            line.metric_name,
            line.run_id or 1,
            line.invocation_id,
            line.rubric_id,
        )

    @property
    def kind(self) -> str:
        """``label``, ``score`` or ``category``."""
        line = self.line
        return (
            "label" if line.label is not None else "score" if line.score is not None else "category"
        )


def _check(data: Any, file: str, where: str) -> Label | list[Problem]:
    if not isinstance(data, dict):
        return [Problem(file, where, "expected a JSON object (one label per line)")]
    try:
        return Label(LabelLine.model_validate(data), where)
    except ValidationError as exc:
        problems = strict_problems(file, exc, KEYS)
        return [
            Problem(p.file, f"{where}: {p.path}" if p.path else where, p.message, p.hint)
            for p in problems
        ]


def _csv_value(key: str, text: str) -> Any:
    """A CSV cell as the JSON value of its column ("" is absent)."""
    if text == "":
        return None
    if key == "score":
        try:
            return float(text)
        except ValueError:
            return text  # reported as not a number
    if key == "runId":
        return int(text) if text.isdigit() else text
    return text


def _csv_rows(text: str, file: str) -> list[tuple[str, Any]]:
    reader = csv.DictReader(io.StringIO(text))
    rows: list[tuple[str, Any]] = []
    for row in reader:
        where = f"line {reader.line_num}"
        if None in row:
            rows.append(
                (where, f"more cells than the header's {len(reader.fieldnames or [])} columns")
            )
            continue
        data = {k: _csv_value(k, v or "") for k, v in row.items() if k is not None}
        rows.append((where, {k: v for k, v in data.items() if v is not None}))
    return rows


def _jsonl_rows(text: str) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            rows.append((where, pydantic_core.from_json(line)))
        except ValueError as exc:
            rows.append((where, f"invalid JSON: {exc}"))
    return rows


def read_labels(path: Path) -> list[Label]:
    """Every label of a JSONL or CSV file (CSV when it ends in ``.csv``); ConfigError lists problems."""
    from agenteval.inputs.loading import read_text

    file = str(path)
    text = read_text(path)
    rows = _csv_rows(text, file) if path.suffix.lower() == ".csv" else _jsonl_rows(text)
    labels: list[Label] = []
    problems: list[Problem] = []
    seen: dict[tuple[Any, ...], str] = {}
    for where, data in rows:
        if isinstance(data, str):
            problems.append(Problem(file, where, data))
            continue
        checked = _check(data, file, where)
        if isinstance(checked, list):
            problems.extend(checked)
            continue
        earlier = seen.get(checked.item)
        if earlier is not None:
            problems.append(
                Problem(
                    file, where, f"labels the same item as {earlier}", "keep one label per item"
                )
            )
            continue
        seen[checked.item] = where
        labels.append(checked)
    if not labels and not problems:
        problems.append(
            Problem(file, "", "no labels", "one JSON object per line, or a CSV header and rows")
        )
    if problems:
        raise ConfigError(problems)
    return labels


__all__ = ["KEYS", "Label", "LabelLine", "read_labels"]
