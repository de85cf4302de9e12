"""Runs for the HTML report: result files, ``--json`` run documents and directories of them.

Files are read by :func:`agenteval.inputs.result_inputs.read_parts`, like every other result
reader (wrong kinds of file are named there), and each eval set result is then read
whole for the page (:meth:`ResultPart.whole`, a fold over its cases).  A run document
is one run (its own keys: duration, warnings…); the plain result files given together
are one more, and shards of an eval set among them are joined as ``agenteval merge``
joins them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenteval.errors import Problem
from agenteval.inputs.result_inputs import ResultPart, raise_problems, read_parts
from agenteval.results.merging import merge_results
from agenteval.schema.result import EvalSetResult


@dataclass(slots=True)
class ReportRun:
    """One run shown in the report: its results and where they came from."""

    label: str
    results: list[EvalSetResult]
    sources: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # run-document keys: duration, warnings


def _whole(parts: Sequence[ResultPart], problems: list[Problem]) -> list[EvalSetResult]:
    return [result for part in parts if (result := part.whole(problems)) is not None]


def load_runs(paths: Sequence[Path]) -> list[ReportRun]:
    """Runs from the given paths: each run document is one, all plain result files one more."""
    by_file: dict[str, list[ResultPart]] = {}
    for part in read_parts(paths):
        by_file.setdefault(part.source, []).append(part)
    problems: list[Problem] = []
    runs: list[ReportRun] = []
    plain: list[ResultPart] = []
    for source, found in by_file.items():
        keys = found[0].document_keys
        if keys is None:
            plain.extend(found)
        else:
            runs.append(ReportRun(Path(source).name, _whole(found, problems), [source], keys))
    if len({part.eval_set_id for part in plain}) < len(plain):
        # Shards of one run: joined exactly as `agenteval merge` joins them (overlaps refused).
        joined = merge_results(plain)
    else:
        joined = _whole(plain, problems)
    raise_problems(problems)
    if joined:
        files = list(dict.fromkeys(part.source for part in plain))
        label = Path(files[0]).name if len(files) == 1 else "results"
        runs.append(ReportRun(label=label, results=joined, sources=files))
    return runs


__all__ = ["ReportRun", "load_runs"]
