"""What ``agenteval run`` prints about a scored run, around the writing of its reports.

One run, one verdict line: the final line, printed last, after the reports are written,
says what the exit code says (INCOMPLETE with the reason when a signal, a judge or agent
that could not be reached, or a report that could not be written left the run
unfinished); the lines before it are details.

Tested in tests/cli/test_one_verdict.py and tests/cli/test_commands.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape as markup_escape

from agenteval import api, entry
from agenteval.cli.guard import print_warnings, stderr, stdout
from agenteval.inputs.safe_text import escape_control, wrote_line
from agenteval.report import console as console_report
from agenteval.report.agent_cost import agent_usage_text
from agenteval.report.agent_summary import render_agent_stats
from agenteval.report.judge_cost import judge_usage_text
from agenteval.report.run_reports import ReportsWritten, RunReporter, RunReports

if TYPE_CHECKING:
    from agenteval.store.recording import Concluded


def warnings_kept_in(reports: RunReports) -> str:
    """Which of the run's reports list every warning ("" when it writes none of them): the
    count line past the printed ones names only reports this run writes."""
    given = {"--json": reports.json, "--junit": reports.junit, "--markdown": reports.markdown}
    named = [flag for flag, path in given.items() if path is not None]
    if not named:
        return ""
    return f"{' and '.join(named)} {'list' if len(named) > 1 else 'lists'} every one"


def report_run(
    result: api.RunResult,
    reporter: RunReporter,
    *,
    quiet: bool,
    verbose: bool = False,
    stopped_writing: Callable[[], bool] = lambda: False,
    conclude: Callable[[int, dict[str, Any]], Concluded] | None = None,
) -> ReportsWritten:
    """Print the run's details, write its reports, print what was written and the verdict.

    ``conclude`` (the run store and ``--baseline``: store/recording.py) runs just before the
    verdict line and may change both it and the exit code: the verdict stays the last line.
    """
    out = stdout()
    # Warnings are never hidden, not even by --quiet (what CI runs with); past SHOWN_SAVED
    # lines counted (--verbose prints all), every one in the notes the reports carry.
    notes = print_warnings(
        result.warnings, verbose=verbose, kept=warnings_kept_in(reporter.reports)
    )
    reports = reporter.set_reports
    reporter.start_result_files()  # with --jobs: written meanwhile by another process
    console_report.render_sets(out, reports)
    print_judge(out, result, len(reports), quiet=quiet)
    if result.agent_stats is not None:
        render_agent_stats(out, result.agent_stats.to_json(), result.agent_stats.first_failure)
    if result.interrupted:
        out.print(
            "[yellow]interrupted:[/yellow] results hold the cases finished before the stop; "
            "finish with --resume RESULT.json",
            highlight=False,
        )
    written = reporter.write(result, notes, stopped_writing=stopped_writing)
    if not quiet:
        for path in written.written:
            out.print(wrote_line(path), highlight=False, soft_wrap=True, markup=False)
    for failure in written.failures:
        stderr().print(
            f"error: {escape_control(failure)}", highlight=False, soft_wrap=True, markup=False
        )
    concluded = conclude(written.exit_code, written.document_keys) if conclude else None
    if concluded is not None:
        unfinished = (*written.notes.unfinished, *concluded.unfinished)
        notes = dataclasses.replace(written.notes, unfinished=unfinished)
        written = dataclasses.replace(written, exit_code=concluded.code, notes=notes)
    baseline = concluded.baseline if concluded is not None else None
    out.print(
        console_report.report_final_line(
            reports, result.elapsed, notes=written.notes, baseline=baseline
        )
    )
    if "interrupted" in written.notes.unfinished:
        entry.note_interrupted()  # the verdict line said so: the exit path adds no other
    return written


def print_judge(out: Console, result: api.RunResult, sets: int, *, quiet: bool) -> None:
    """The judge's usage and the agent's over several eval sets, and the turns the judge left
    unevaluated."""
    # Each eval set's summary has its own line; the run total adds something only for several.
    judged = judge_usage_text(result.judge_usage) if not quiet and sets > 1 else ""
    if judged:
        out.print(f"judge: {escape_control(judged)}", highlight=False, markup=False)
    spent = agent_usage_text(result.agent_usage)
    if spent and not quiet and sets > 1:
        out.print(f"agent usage: {escape_control(spent)}", highlight=False, markup=False)
    if result.judge_failures:
        # A detail, not a verdict: the final line says INCOMPLETE (one run, one verdict line).
        n = len(result.judge_failures)
        first = markup_escape(escape_control(result.judge_failures[0]))
        out.print(
            f"[yellow]judge:[/yellow] {n} turn{'s' if n != 1 else ''} not evaluated "
            f"(first: {first}); partial results were written",
            highlight=False,
        )


__all__ = ["print_judge", "report_run"]
