"""Runs for the HTML report: result files, ``--json`` run documents and directories of them.

Files are read by :func:`agenteval.result_inputs.read_results`, like every
other result reader (wrong kinds of file are named there).  A run document is
one run; the plain result files given together are one more, and shards of
an eval set among them are joined as ``agenteval merge`` joins them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic_core

from agenteval.checks.file_kind import FileKind, kind_of
from agenteval.merging import merge_results
from agenteval.result_inputs import read_results
from agenteval.schema.result import EvalSetResult


@dataclass(slots=True)
class ReportRun:
    """One run shown in the report: its results and where they came from."""

    label: str
    results: list[EvalSetResult]
    sources: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # run-document keys: duration, warnings


def _run_document_keys(path: Path) -> dict[str, Any] | None:
    """A run document's own keys (duration, warnings, ...); None for a result file."""
    data = path.read_bytes()
    if b'"evalSetResults"' not in data:
        return None  # a result file: no second parse of a large file
    document = pydantic_core.from_json(data)
    if kind_of(document) is not FileKind.RUN:
        return None
    return {key: value for key, value in document.items() if key != "evalSetResults"}


def load_runs(paths: Sequence[Path]) -> list[ReportRun]:
    """Runs from the given paths: each run document is one, all plain result files one more."""
    results, sources = read_results(paths)
    by_file: dict[str, list[EvalSetResult]] = {}
    for result, source in zip(results, sources, strict=True):
        by_file.setdefault(source, []).append(result)
    runs: list[ReportRun] = []
    plain: list[EvalSetResult] = []
    plain_sources: list[str] = []
    for source, found in by_file.items():
        keys = _run_document_keys(Path(source))
        if keys is None:
            plain.extend(found)
            plain_sources.extend(source for _ in found)
        else:
            runs.append(ReportRun(Path(source).name, found, [source], keys))
    if len({result.eval_set_id for result in plain}) < len(plain):
        # Shards of one run: joined exactly as `agenteval merge` joins them (overlaps refused).
        plain = merge_results(plain, sources=plain_sources)
    if plain:
        files = list(dict.fromkeys(plain_sources))
        label = Path(files[0]).name if len(files) == 1 else "results"
        runs.append(ReportRun(label=label, results=plain, sources=files))
    return runs


__all__ = ["ReportRun", "load_runs"]
