"""What every result reader reads: an eval set result as a head and its cases, one at a time.

``show``, ``diff``, ``merge``, ``report`` and ``--resume`` fold over the case results of
:class:`CaseSource` objects and never hold a file's cases together: a result read from a
file is a :class:`agenteval.inputs.result_inputs.ResultPart` (each case parsed when it is
reached); a result already in memory (the Python API, tests) is a :class:`HeldResult`.
So the readers have one path, and the whole-result functions are folds over it.

Tested in tests/inputs/test_case_sources.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from agenteval.errors import Problem
from agenteval.schema.result import EvalCaseResult, EvalCaseSummary, EvalSetResult


class CaseSource(Protocol):
    """An eval set result read case by case (module docstring)."""

    @property
    def head(self) -> EvalSetResult:
        """The result's own keys (its cases and case summaries are read apart)."""

    @property
    def source(self) -> str:
        """Where the result comes from (a file), for messages."""

    @property
    def case_count(self) -> int:
        """How many case results it holds."""

    @property
    def eval_ids(self) -> Sequence[str]:
        """Each case result's evalId, in order."""

    @property
    def run_ids(self) -> Sequence[int]:
        """Each case result's runId as written (0 where absent)."""

    def cases(
        self, problems: list[Problem] | None = None, indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult]:
        """The case results (those at ``indices``, else all) in order.

        A case that cannot be read is left out and its problems go to ``problems``;
        without that list they are raised (ConfigError) after the last case.
        """

    def read_cases(
        self, problems: list[Problem], indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult | None]:
        """:meth:`cases` with None in the place of a case that cannot be read (its problems
        in ``problems``), for callers that read several sources in step."""

    def case_summaries(self, problems: list[Problem] | None = None) -> Iterator[EvalCaseSummary]:
        """The summary's case summaries, in order."""


class HeldResult:
    """A whole :class:`EvalSetResult` in memory as a :class:`CaseSource`."""

    def __init__(self, result: EvalSetResult, source: str = "") -> None:
        self.head = result
        self.source = source
        self._cases = result.case_results()

    @property
    def case_count(self) -> int:
        """How many case results it holds."""
        return len(self._cases)

    @property
    def eval_ids(self) -> Sequence[str]:
        """Each case result's evalId, in order."""
        return [case.eval_id for case in self._cases]

    @property
    def run_ids(self) -> Sequence[int]:
        """Each case result's runId."""
        return [case.run_id for case in self._cases]

    def cases(
        self, problems: list[Problem] | None = None, indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult]:
        """The case results (those at ``indices``, else all) in order."""
        if indices is None:
            return iter(self._cases)
        return (self._cases[index] for index in indices)

    def read_cases(
        self, problems: list[Problem], indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult | None]:
        """:meth:`cases` (a held case is always read)."""
        return self.cases(problems, indices)

    def case_summaries(self, problems: list[Problem] | None = None) -> Iterator[EvalCaseSummary]:
        """The summary's case summaries, in order."""
        summary = self.head.summary
        return iter(summary.eval_case_summaries or []) if summary is not None else iter(())


class Subset:
    """Some of a case source's cases (``indices``, in order) under another ``head``."""

    def __init__(self, whole: CaseSource, indices: Sequence[int], head: EvalSetResult) -> None:
        self.head = head
        self.source = whole.source
        self._whole = whole
        self._indices = list(indices)

    @property
    def case_count(self) -> int:
        """How many case results it holds."""
        return len(self._indices)

    @property
    def eval_ids(self) -> Sequence[str]:
        """Each case result's evalId, in order."""
        ids = self._whole.eval_ids
        return [ids[index] for index in self._indices]

    @property
    def run_ids(self) -> Sequence[int]:
        """Each case result's runId as written."""
        runs = self._whole.run_ids
        return [runs[index] for index in self._indices]

    def cases(
        self, problems: list[Problem] | None = None, indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult]:
        """The case results (those at ``indices`` of this subset, else all) in order."""
        picked = self._indices if indices is None else [self._indices[i] for i in indices]
        return self._whole.cases(problems, picked)

    def read_cases(
        self, problems: list[Problem], indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult | None]:
        """:meth:`cases` with None in the place of a case that cannot be read."""
        picked = self._indices if indices is None else [self._indices[i] for i in indices]
        return self._whole.read_cases(problems, picked)

    def case_summaries(self, problems: list[Problem] | None = None) -> Iterator[EvalCaseSummary]:
        """The whole source's case summaries."""
        return self._whole.case_summaries(problems)


def held(
    results: Sequence[EvalSetResult], sources: Sequence[str] | None = None
) -> list[CaseSource]:
    """Whole results as case sources (``sources``: their names, ``part 1``… by default)."""
    names = sources if sources is not None else [f"part {i + 1}" for i in range(len(results))]
    if len(names) != len(results):
        raise ValueError(f"{len(names)} source names for {len(results)} parts")
    return [HeldResult(result, name) for result, name in zip(results, names, strict=True)]


def check_case_summaries(source: CaseSource, problems: list[Problem] | None = None) -> None:
    """Read ``source``'s case summaries for their problems and warnings alone (after its
    cases: a file's reader then checks each one's run counts against its case results);
    ``problems`` as in :meth:`CaseSource.case_summaries`."""
    for _ in source.case_summaries(problems):
        pass


def runs_of(source: CaseSource) -> int:
    """N of a result: the summary's numRuns, else the highest runId (at least 1)."""
    summary = source.head.summary
    if summary is not None and summary.num_runs > 0:
        return summary.num_runs
    return max(source.run_ids, default=1) or 1


__all__ = ["CaseSource", "HeldResult", "Subset", "check_case_summaries", "held", "runs_of"]
