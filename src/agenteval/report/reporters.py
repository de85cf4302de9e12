"""Report formats by name: JUnit, Markdown, and what plugins add (``register_reporter``).

A reporter writes one file from the run's eval set tallies (:class:`SetReport`: statuses,
reasons of the cases not passed, metric averages, pass@k, costs) and the run's facts
(elapsed seconds, warnings and why it is unfinished) -- what the JUnit and Markdown reports
are made of, so a plugin's format holds what they hold, for any number of cases (the
tallies are compact; the cases themselves are never all in memory).  ``run --junit FILE``
is ``--report junit=FILE``; ``--report NAME=FILE`` names any registered one.

A reporter that raises is the file it could not write: the run's other reports are still
written, the verdict says ``1 report not written`` and the run exits 3 (a plugin's bug
never loses the finished work).

Tested in tests/report/test_reporters.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Unpack

from agenteval.errors import Problem
from agenteval.registry import Registry

if TYPE_CHECKING:
    from agenteval.report.run_notes import RunFacts
    from agenteval.report.set_tally import SetReport


class Reporter(Protocol):
    """Writes ``path`` from the run's eval set tallies; returns what it wrote (or None)."""

    def __call__(
        self, path: Path, reports: Sequence[SetReport], **facts: Unpack[RunFacts]
    ) -> object: ...


reporters: Registry[Reporter] = Registry("reporter")


@reporters.register("junit")
def _junit(path: Path, reports: Sequence[SetReport], **facts: Unpack[RunFacts]) -> object:
    # Imported when written: naming the format does not load its writer.
    from agenteval.report.junit import write_junit_reports

    return write_junit_reports(path, reports, **facts)


@reporters.register("markdown")
def _markdown(path: Path, reports: Sequence[SetReport], **facts: Unpack[RunFacts]) -> object:
    from agenteval.report.markdown import write_markdown_reports

    return write_markdown_reports(path, reports, **facts)


def reporter_problems(names: Sequence[str], flag: str = "--report") -> list[Problem]:
    """An unknown reporter name, located with the closest registered one as the hint."""
    problems = []
    for name in names:
        if reporters.get(name) is None:
            close = reporters.closest(name)
            hint = f'did you mean "{close}"?' if close else f"known: {', '.join(reporters.names())}"
            problems.append(Problem(flag, name, "no reporter of this name", hint))
    return problems


def write_with(
    name: str, path: Path, reports: Sequence[SetReport], **facts: Unpack[RunFacts]
) -> object:
    """Write ``path`` with the reporter ``name``; any exception it raises is the file not
    written (``ValueError`` naming it), so the run's other reports are still written."""
    reporter = reporters.resolve(name)
    try:
        return reporter(path, reports, **facts)
    except (OSError, ValueError):
        raise
    except Exception as exc:  # a plugin's bug: this file is lost, not the run
        raise ValueError(f"reporter {name} raised {type(exc).__name__}: {exc}") from exc


__all__ = ["Reporter", "reporter_problems", "reporters", "write_with"]
