"""Runs for the HTML report: result files, ``--json`` run documents and directories of them.

Files are read by :func:`agenteval.inputs.result_inputs.read_parts`, like every other result
reader (wrong kinds of file are named there).  A run document is one run (its own keys:
duration, warnings…); the plain result files given together are one more, and shards of
an eval set among them are joined as ``agenteval merge`` joins them (whole).  Otherwise a
run keeps its :class:`ResultPart` s and the page is built from their cases as they are
read (RunBuilder.feed_source); only a comparison of two runs reads them whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenteval.errors import Problem
from agenteval.inputs.result_inputs import (
    ResultPart,
    raise_problems,
    read_parts,
    reading_warnings,
)
from agenteval.results.merging import merge_results
from agenteval.schema.result import EvalSetResult


@dataclass(slots=True)
class ReportRun:
    """One run shown in the report: its results (or their parts) and where they came from."""

    label: str
    results: list[EvalSetResult]  # whole; empty when ``parts`` are read case by case
    sources: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # run-document keys: duration, warnings
    parts: list[ResultPart] = field(default_factory=list)
    # The shards joined into ``results`` (read whole), kept for what reading them found.
    shards: list[ResultPart] = field(default_factory=list)

    @property
    def warnings(self) -> list[Problem]:
        """What reading the run's files found so far that is no error (unknown keys)."""
        return reading_warnings([*self.parts, *self.shards])

    @property
    def eval_set_ids(self) -> list[str]:
        """The run's evalSetIds, in order."""
        return [r.eval_set_id for r in self.results] + [p.eval_set_id for p in self.parts]

    def whole(self) -> list[EvalSetResult]:
        """The whole results (parts read whole; ConfigError naming every invalid piece)."""
        if not self.parts:
            return self.results
        problems: list[Problem] = []
        results = _whole(self.parts, problems)
        raise_problems(problems)
        return results


def _whole(parts: Sequence[ResultPart], problems: list[Problem]) -> list[EvalSetResult]:
    return [result for part in parts if (result := part.whole(problems)) is not None]


def load_runs(paths: Sequence[Path]) -> list[ReportRun]:
    """Runs from the given paths: each run document is one, all plain result files one more."""
    by_file: dict[str, list[ResultPart]] = {}
    for part in read_parts(paths):
        by_file.setdefault(part.source, []).append(part)
    runs: list[ReportRun] = []
    plain: list[ResultPart] = []
    for source, found in by_file.items():
        keys = found[0].document_keys
        if keys is None:
            plain.extend(found)
        else:
            runs.append(ReportRun(Path(source).name, [], [source], keys, parts=found))
    if plain:
        files = list(dict.fromkeys(part.source for part in plain))
        label = Path(files[0]).name if len(files) == 1 else "results"
        if len({part.eval_set_id for part in plain}) < len(plain):
            # Shards of one run: joined as `agenteval merge` joins them (overlaps refused).
            merged = merge_results(plain)
            runs.append(ReportRun(label=label, results=merged, sources=files, shards=plain))
        else:
            runs.append(ReportRun(label=label, results=[], sources=files, parts=plain))
    return runs


__all__ = ["ReportRun", "load_runs"]
