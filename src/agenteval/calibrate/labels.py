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
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.duplicate_keys import own_format_duplicates
from agenteval.inputs.own_formats import strict_problems
from agenteval.schema.labels import KEYS, LabelLine


@dataclass(frozen=True, slots=True)
class Label:
    """A checked label, where it was read (``line N``) and the file it was read from."""

    line: LabelLine
    where: str
    file: str = ""

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
        return Label(LabelLine.model_validate(data), where, file)
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


# A row as read: where it is and its data, or the problem that stopped reading it.
Row = tuple[str, Any] | Problem


def _csv_rows(text: str, file: str) -> list[Row]:
    reader = csv.DictReader(io.StringIO(text))
    rows: list[Row] = []
    header = reader.fieldnames or []
    # A column named twice: DictReader keeps the last one's cells, silently.
    for name in dict.fromkeys(n for i, n in enumerate(header) if n in header[:i]):
        shown = json.dumps(name)  # ASCII: a control character in it is escaped
        rows.append(Problem(file, "line 1", f"column {shown} named twice", "name each column once"))
    for row in reader:
        where = f"line {reader.line_num}"
        if None in row:
            count = len(reader.fieldnames or [])
            rows.append(Problem(file, where, f"more cells than the header's {count} columns"))
            continue
        data = {k: _csv_value(k, v or "") for k, v in row.items() if k is not None}
        rows.append((where, {k: v for k, v in data.items() if v is not None}))
    return rows


def _jsonl_rows(text: str, file: str) -> list[Row]:
    rows: list[Row] = []
    # Lines end at "\n" only: U+2028 and the other breaks str.splitlines knows may stand
    # raw inside a JSON string (a "\r" before the "\n" is JSON whitespace).
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            rows.append((where, pydantic_core.from_json(line)))
        except ValueError as exc:
            rows.append(Problem(file, where, f"invalid JSON: {exc}"))
            continue
        # A key given twice ("label": "pass", "label": "fail") is refused, as any key the
        # format does not take is: the agreement would rest on the last one.
        rows.extend(own_format_duplicates(line, file, where))
    return rows


def _other_kind(text: str, file: str) -> Problem | None:
    """The one error of a file of another kind given as labels (a metric file, a result, a
    traces file), as the project's readers name it (inputs/file_kind.py); None otherwise."""
    from agenteval.inputs.file_kind import (
        FileKind,
        first_line_kind,
        is_label,
        kind_of,
        wrong_kind_message,
    )

    try:
        whole = pydantic_core.from_json(text)
    except ValueError:
        # JSON lines (or no JSON): what its first line is, unless that is a label.
        head = text.lstrip().partition("\n")[0]
        try:
            first = pydantic_core.from_json(head)
        except ValueError:
            return None
        kind = None if is_label(first) else first_line_kind(text)
    else:
        if is_label(whole):
            lines = sum(1 for line in text.split("\n") if line.strip())
            if lines == 1:
                return None  # a file of one label
            return Problem(
                file, "", f"one label spread over {lines} lines", "write each label on one line"
            )
        if isinstance(whole, list) and any(is_label(entry) for entry in whole):
            return Problem(file, "", "a JSON array of labels", "write one JSON object per line")
        kind = kind_of(whole)
        kind = None if kind in (FileKind.OTHER, FileKind.EMPTY) else kind
    if kind is None:
        return None
    message, hint = wrong_kind_message("a labels file", kind)
    if kind in (FileKind.RESULT, FileKind.RUN):
        hint = "give it as the RESULT: agenteval calibrate RESULT --labels FILE"
    return Problem(file, "", message, hint or "give a JSONL or CSV file of labels")


def read_labels(path: Path) -> list[Label]:
    """Every label of a JSONL or CSV file (CSV when it ends in ``.csv``); ConfigError lists problems."""
    from agenteval.inputs.loading import read_text

    file = str(path)
    is_csv = path.suffix.lower() == ".csv"
    # Excel's "CSV UTF-8" starts with a byte order mark: taken for CSV, refused for JSON.
    text = read_text(path, allow_bom=is_csv, allow_empty=True, csv=is_csv).removeprefix("\ufeff")
    other = None if is_csv else _other_kind(text, file)
    if other is not None:
        raise ConfigError([other])
    rows = _csv_rows(text, file) if is_csv else _jsonl_rows(text, file)
    labels, problems = _checked_rows(rows, file)
    if not labels and not problems:
        problems.append(
            Problem(file, "", "no labels", "one JSON object per line, or a CSV header and rows")
        )
    if problems:
        raise ConfigError(problems)
    return labels


def _checked_rows(rows: list[Row], file: str) -> tuple[list[Label], list[Problem]]:
    """The labels of ``rows`` and the problems of the rest (one label per item)."""
    labels: list[Label] = []
    problems: list[Problem] = []
    seen: dict[tuple[Any, ...], str] = {}
    for row in rows:
        if isinstance(row, Problem):
            problems.append(row)
            continue
        checked = _check(row[1], file, row[0])
        if isinstance(checked, list):
            problems.extend(checked)
            continue
        earlier = seen.get(checked.item)
        if earlier is not None:
            problems.append(
                Problem(
                    file, row[0], f"labels the same item as {earlier}", "keep one label per item"
                )
            )
            continue
        seen[checked.item] = row[0]
        labels.append(checked)
    return labels, problems


__all__ = ["KEYS", "Label", "LabelLine", "read_labels"]
