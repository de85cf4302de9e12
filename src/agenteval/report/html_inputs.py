"""Runs for the HTML report: result files, ``--json`` run documents and directories of them.

A run document (``--json FILE``, recognised by its ``evalSetResults`` key) is
one run.  Plain result files given together — also the ``*.json`` files of a
directory — are one run; shards of an eval set are joined as ``agenteval
merge`` joins them.
Anything else is a located configuration error naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.loading import load_result, read_text, validation_problems
from agenteval.merging import merge_results
from agenteval.schema.result import EvalSetResult


@dataclass(slots=True)
class ReportRun:
    """One run shown in the report: its results and where they came from."""

    label: str
    results: list[EvalSetResult]
    sources: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # run-document keys: duration, warnings


def _run_document(path: Path, data: dict[str, Any]) -> ReportRun:
    """One run from a parsed ``--json`` run document."""
    items = data.get("evalSetResults")
    if not isinstance(items, list):
        raise ConfigError(
            [Problem(str(path), "evalSetResults", "expected a list of result objects")]
        )
    results: list[EvalSetResult] = []
    problems: list[Problem] = []
    for index, item in enumerate(items):
        try:
            # JSON mode: the models read statuses from their file text, not Python values.
            results.append(EvalSetResult.model_validate_json(orjson.dumps(item)))
        except ValidationError as exc:
            problems.extend(validation_problems(str(path), exc, f"evalSetResults[{index}]"))
    if problems:
        raise ConfigError(problems)
    extras = {k: v for k, v in data.items() if k != "evalSetResults"}
    return ReportRun(label=path.name, results=results, sources=[str(path)], extras=extras)


def _as_run_document(text: str) -> dict[str, Any] | None:
    """The parsed document when ``text`` is a run document (``evalSetResults`` at the top)."""
    if '"evalSetResults"' not in text:
        return None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None  # load_result names the JSON error with its location
    if isinstance(data, dict) and "evalSetResults" in data and "evalCaseResults" not in data:
        return data
    return None


def _files(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix == ".json" and p.is_file())
            if not found:
                raise ConfigError([Problem(str(path), "", "no *.json result files in directory")])
            files.extend(found)
        else:
            files.append(path)
    return files


def load_runs(paths: Sequence[Path]) -> list[ReportRun]:
    """Runs from the given paths: each run document is one, all plain result files one more."""
    runs: list[ReportRun] = []
    plain: list[EvalSetResult] = []
    plain_sources: list[str] = []
    problems: list[Problem] = []
    for path in _files(paths):
        try:
            text = read_text(path)
            document = _as_run_document(text)
            if document is not None:
                runs.append(_run_document(path, document))
            else:
                plain.append(load_result(path))
                plain_sources.append(str(path))
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError(problems)
    if len({result.eval_set_id for result in plain}) < len(plain):
        # Shards of one run: joined exactly as `agenteval merge` joins them (overlaps refused).
        plain = merge_results(plain, sources=plain_sources)
    if plain:
        label = Path(plain_sources[0]).name if len(plain_sources) == 1 else "results"
        runs.append(ReportRun(label=label, results=plain, sources=plain_sources))
    return runs


__all__ = ["ReportRun", "load_runs"]
