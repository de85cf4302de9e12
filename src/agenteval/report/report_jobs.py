"""Write every report of a run, each on its own: one failure neither hides nor stops the others."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ReportJob:
    """One report to write: the path it goes to and the call that writes it."""

    path: str
    # Returns the path it wrote when that is known only then (a result file's uuid name).
    write: Callable[[], object]
    # False for outputs that are not files of their own (the CI step summary).
    listed: bool = True


@dataclass(slots=True)
class WriteOutcome:
    """Which reports were written and one line per report that could not be."""

    written: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def describe_failure(path: str, exc: BaseException) -> str:
    """``path: cannot write: <OS error>`` for a failed write."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{path}: cannot write: {exc.strerror}"
    return f"{path}: cannot write: {exc}"


def attempt(job: ReportJob) -> object:
    """What writing ``job`` gave: what its write returned, or the ``OSError`` (disk full,
    read-only, a directory) or ``ValueError`` it raised, to be noted rather than raised."""
    try:
        return job.write()
    except (OSError, ValueError) as exc:
        return exc


def write_reports(jobs: Sequence[ReportJob]) -> WriteOutcome:
    """Run every job in order; a failed one is noted (:func:`attempt`), not raised."""
    outcome = WriteOutcome()
    for job in jobs:
        wrote = attempt(job)
        if isinstance(wrote, OSError | ValueError):
            outcome.failures.append(describe_failure(job.path, wrote))
            continue
        if job.listed:
            outcome.written.append(str(wrote) if isinstance(wrote, Path) else job.path)
    return outcome


__all__ = ["ReportJob", "WriteOutcome", "attempt", "describe_failure", "write_reports"]
