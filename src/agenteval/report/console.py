"""Console report of eval set results, rendered with rich.

It reads :class:`agenteval.report.set_tally.SetReport` objects: a streamed run tallies
them case by case, ``show`` and the tests make them from whole results
(:func:`render_results`), so a live run and a saved result file loaded back
render the same.  The caller supplies the ``Console`` (which handles
``NO_COLOR``, width and non-TTY output).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.text import Text

from agenteval.inputs.safe_text import escape_control
from agenteval.report.agent_cost import agent_usage_text
from agenteval.report.console_tables import (
    STATUS_STYLES,
    case_table,
    format_score,
    pass_count_table,
    reason_grid,
    reason_lines,
    status_text,
    summary_table,
)
from agenteval.report.gc_pause import collector_paused
from agenteval.report.judge_cost import (
    costliest_text,
    judge_usage_text,
    metric_costs_text,
)
from agenteval.report.run_notes import NO_NOTES, RunNotes, count_text
from agenteval.report.set_tally import (
    DEFAULT_MAX_SHOWN,
    DEFAULT_VIEW,
    ConsoleView,
    SetReport,
    ShownCase,
    add_gate_methods,
    num_runs,
    outcome,
    set_report,
)
from agenteval.results.agent_usage import AGENT_USAGE_KEY
from agenteval.results.flakiness import passed_runs_text
from agenteval.schema.result import EvalCaseResult, EvalSetResult
from agenteval.schema.status import EvalStatus

if TYPE_CHECKING:
    from agenteval.report.diff import BaselineVerdict

# Detailed case tables per eval set before the rest are only counted and listed.
HIDDEN_IDS_LISTED = 20


def render_results(
    console: Console,
    results: Sequence[EvalSetResult],
    *,
    view: ConsoleView = DEFAULT_VIEW,
    duration_seconds: float | None = None,
    notes: RunNotes = NO_NOTES,
) -> None:
    """Print every eval set's cases, its summary, then the final one-line summary.

    ``view``: quiet, verbose, how many cases in detail (:class:`ConsoleView`).
    ``notes``: the run's warnings and why it could not finish beyond its case statuses
    (the final line then says INCOMPLETE, as the exit code does).
    """
    with collector_paused():
        reports = [set_report(result, view=view) for result in results]
        render_reports(console, reports, duration_seconds=duration_seconds, notes=notes)


def render_reports(
    console: Console,
    reports: Sequence[SetReport],
    *,
    duration_seconds: float | None = None,
    notes: RunNotes = NO_NOTES,
) -> None:
    """:func:`render_results` of tallied eval sets (in the view they were tallied with)."""
    render_sets(console, reports)
    console.print(report_final_line(reports, duration_seconds, notes=notes))


def render_sets(console: Console, reports: Sequence[SetReport]) -> None:
    """Every eval set's cases and summary, without the final line (the caller prints it last)."""
    with collector_paused():
        for report in reports:
            _render_eval_set(console, report)


def _render_eval_set(console: Console, report: SetReport) -> None:
    view = report.view
    multi_run = report.num_runs > 1
    total = len(report.statuses)
    if not view.quiet:
        title = Text("eval set ", style="bold")
        title.append(escape_control(report.eval_set_id) or "(unnamed)")
        detail = f"{total} case{'s' if total != 1 else ''}"
        detail += f" · {report.num_runs} runs" if multi_run else ""
        title.append(f"  {detail}", style="dim")
        console.rule(title, align="left")
    shown = 0
    hidden: list[str] = []
    hidden_count = 0
    # --quiet's cases in one print: rich looks at the terminal for each (200 cases: 12 ms).
    quiet: list[RenderableType] = []
    for eval_id, status in report.statuses.items():
        if view.quiet and status not in (EvalStatus.FAILED, EvalStatus.INCOMPLETE):
            continue
        if view.at_limit(shown):
            # Thousands of case tables help nobody and cost seconds; the summary still counts them.
            if status is not EvalStatus.PASSED:
                hidden_count += 1
                if len(hidden) < HIDDEN_IDS_LISTED:
                    hidden.append(eval_id)
            continue
        shown += 1
        if view.quiet:
            quiet += _quiet_case(report.shown[eval_id], multi_run=multi_run)
        else:
            _render_case(console, report.shown[eval_id], multi_run=multi_run, report=report)
    if quiet:
        console.print(Group(*quiet))
    if view.at_limit(shown) and total > shown:
        _render_hidden(console, total - shown, hidden, hidden_count)
    if not view.quiet:
        _render_summary(console, report)


def _quiet_case(case: ShownCase, *, multi_run: bool) -> list[RenderableType]:
    """What --quiet prints of a case: its header line and its reasons."""
    header = (
        _header(case.eval_id, case.status, case.passed_runs, case.run_count, case.score)
        if multi_run
        else _header(case.eval_id, case.status, 0, 0, case.score)
    )
    return [header, reason_grid(case.lines, indent=2)] if case.lines else [header]


def _render_case(console: Console, case: ShownCase, *, multi_run: bool, report: SetReport) -> None:
    runs = case.runs
    console.print(_case_header(case.eval_id, runs, case.status, multi_run=multi_run))
    table = case_table(runs, multi_run=multi_run)
    if table is not None:
        table.indent = 2
        console.print(table)
    elif not any(run.error_message for run in runs):
        console.print(Text("  no metric ran for this case", style="dim"))
    lines = [
        line
        for run in runs
        for line in reason_lines(run, multi_run=multi_run, verbose=report.view.verbose)
    ]
    if lines:
        console.print(reason_grid(lines, indent=2))
    for run in runs:
        spent = agent_usage_text((run.model_extra or {}).get(AGENT_USAGE_KEY))
        if spent:
            which = f"run {run.run_id} " if multi_run else ""
            console.print(Text(f"  {which}agent usage: {escape_control(spent)}", style="dim"))


def _render_hidden(console: Console, count: int, listed_ids: list[str], not_passed: int) -> None:
    note = Text(f"… {count} more case{'s' if count != 1 else ''} not shown in detail", style="dim")
    if not_passed:
        listed = ", ".join(listed_ids)
        more = not_passed - len(listed_ids)
        note.append(
            f"; not passed: {listed}" + (f" and {more} more" if more > 0 else ""), style="dim"
        )
    note.append(" (every case is in the result files; --max-shown 0 shows all)", style="dim")
    console.print(note)


def _case_header(
    eval_id: str,
    runs: Sequence[EvalCaseResult],
    status: EvalStatus,
    *,
    multi_run: bool,
) -> Text:
    if multi_run:
        passed = sum(1 for run in runs if run.final_eval_status is EvalStatus.PASSED)
        return _header(eval_id, status, passed, len(runs), 0.0)
    return _header(eval_id, status, 0, 0, runs[0].score if runs else 0.0)


def _header(eval_id: str, status: EvalStatus, passed: int, run_count: int, score: float) -> Text:
    """``● id  STATUS`` and ``k/n runs passed`` (``run_count`` > 0) or the score."""
    header = Text("● ", style=STATUS_STYLES[status])
    header.append(escape_control(eval_id) or "(no evalId)", style="bold")
    header.append("  ")
    header.append_text(status_text(status, upper=True))
    if run_count:
        incomplete = status is EvalStatus.INCOMPLETE
        header.append(
            f"  {passed_runs_text(passed, run_count, incomplete=incomplete)}", style="dim"
        )
    elif score:
        # Older Go files carry no case score; an absent score reads as 0.
        header.append(f"  score {format_score(score)}", style="dim")
    return header


def _render_summary(console: Console, report: SetReport) -> None:
    passed = report.count(EvalStatus.PASSED)
    failed = report.count(EvalStatus.FAILED)
    incomplete = report.count(EvalStatus.INCOMPLETE)
    not_evaluated = len(report.statuses) - passed - failed - incomplete
    line = Text("cases: ", style="bold")
    line.append(f"{passed} passed", style=STATUS_STYLES[EvalStatus.PASSED])
    line.append(", ")
    line.append(f"{failed} failed", style=STATUS_STYLES[EvalStatus.FAILED])
    line.append(", ")
    line.append(
        f"{not_evaluated} not evaluated",
        style=STATUS_STYLES[EvalStatus.NOT_EVALUATED],
    )
    if incomplete:
        line.append(", ")
        line.append(f"{incomplete} incomplete", style=STATUS_STYLES[EvalStatus.INCOMPLETE])
    console.print(line)
    if report.unstable:
        note = Text("judge variance: ", style="bold")
        note.append(
            _unstable_text(report.unstable) + " (the judge samples disagreed)", style="yellow"
        )
        console.print(note)
    for name, methods in report.gate_methods.items():
        note = Text(f"{name} decided by: ", style="bold")
        note.append(" · ".join(f"{count} {method}" for method, count in methods.items()))
        console.print(note)
    usage = judge_usage_text(report.judge_usage)
    if usage:
        console.print(Text("judge: ", style="bold") + Text(escape_control(usage), style="dim"))
        for line in judge_cost_lines(report):
            console.print(line)
    for line in agent_cost_lines(report):
        console.print(line)
    averages = summary_table(report.metric_summaries)
    if averages is not None:
        console.print(Text("metric averages over all cases and runs", style="bold"))
        averages.indent = 2
        console.print(averages)
    if report.num_runs > 1 and report.pass_counts:
        console.print(Text(f"pass@k and pass^k over {report.num_runs} runs", style="bold"))
        table = pass_count_table(
            report.pass_counts,
            report.num_runs,
            incomplete=report.incomplete(),
            undecided=report.undecided(),
        )
        table.indent = 2
        console.print(table)
    console.print()


def gate_methods(cases: Iterable[EvalCaseResult]) -> dict[str, dict[str, int]]:
    """Per metric, how many turns each method decided (``methods`` of final_response_gate)."""
    totals: dict[str, dict[str, int]] = {}
    for case in cases:
        for metric in case.overall_eval_metric_results or ():
            methods = (metric.model_extra or {}).get("methods")
            if isinstance(methods, dict):
                add_gate_methods(totals, metric.metric_name, methods)
    return totals


def judge_cost_lines(report: SetReport) -> list[Text]:
    """The judge cost per metric and the costliest cases, when several metrics or cases cost."""
    lines: list[Text] = []
    usage = report.judge_usage if isinstance(report.judge_usage, dict) else {}
    by_metric = metric_costs_text(usage.get("byMetric"))
    if " · " in by_metric:
        lines.append(Text("judge cost by metric: ", style="bold") + Text(escape_control(by_metric)))
    if len(report.costliest) > 1:
        costliest = costliest_text(report.costliest)
        lines.append(Text("costliest cases: ", style="bold") + Text(escape_control(costliest)))
    return lines


def agent_cost_lines(report: SetReport) -> list[Text]:
    """What the agent under test spent over the eval set and its costliest cases (not the judge)."""
    spent = agent_usage_text(report.agent_usage)
    if not spent:
        return []
    lines = [Text("agent usage: ", style="bold") + Text(escape_control(spent), style="dim")]
    if len(report.agent_costliest) > 1:
        costliest = costliest_text(report.agent_costliest)
        lines.append(
            Text("costliest agent cases: ", style="bold") + Text(escape_control(costliest))
        )
    return lines


def _unstable_text(count: int) -> str:
    return f"{count} unstable judge turn{'s' if count != 1 else ''}"


def final_line(results: Sequence[EvalSetResult], duration_seconds: float | None = None) -> Text:
    """``FAILED: 3 of 5 cases passed (1 failed, 1 not evaluated) · 2 eval sets · 0.42 s``.

    Judge turns whose samples disagreed are counted too (``· 2 unstable judge turns``).
    """
    return report_final_line([set_report(result) for result in results], duration_seconds)


def report_final_line(
    reports: Sequence[SetReport],
    duration_seconds: float | None = None,
    *,
    notes: RunNotes = NO_NOTES,
    baseline: BaselineVerdict | None = None,
) -> Text:
    """:func:`final_line` of tallied eval sets: the run's one verdict line.

    ``notes.unfinished`` says why the run could not finish beyond its case statuses
    (``interrupted``, ``1 report not written``): the verdict is then INCOMPLETE, as the
    exit code (3) is, and the reasons follow the counts; ``notes.warning_count`` counts
    the run's warnings (``· 2 warnings``).  With ``baseline`` (``run --baseline``) the
    exit code is diff's, and so is the verdict word: REGRESSED (1) or NO REGRESSION (0),
    INCOMPLETE still first; ``· 2 regressions vs @branch:main`` follows the counts.
    """
    total = sum(len(report.statuses) for report in reports)
    passed = sum(report.count(EvalStatus.PASSED) for report in reports)
    failed = sum(report.count(EvalStatus.FAILED) for report in reports)
    incomplete = sum(report.count(EvalStatus.INCOMPLETE) for report in reports)
    not_evaluated = total - passed - failed - incomplete
    status = outcome(reports, unfinished=bool(notes.unfinished)).status
    line = Text()
    if baseline is not None and status is not EvalStatus.INCOMPLETE:
        word = "REGRESSED" if baseline.regressed else "NO REGRESSION"
        line.append(word, style="red" if baseline.regressed else "green")
    else:
        line.append_text(status_text(status, upper=True))
    line.stylize("bold")
    line.append(f": {passed} of {total} cases passed")
    others = [f"{failed} failed"] if failed else []
    others += [f"{not_evaluated} not evaluated"] if not_evaluated else []
    others += [f"{incomplete} incomplete"] if incomplete else []
    if others:
        line.append(f" ({', '.join(others)})")
    line.append(f" · {len(reports)} eval set{'s' if len(reports) != 1 else ''}")
    unstable = sum(report.unstable for report in reports)
    if unstable:
        line.append(f" · {_unstable_text(unstable)}")
    if baseline is not None:
        line.append(f" · {baseline.counts} vs {baseline.label}")
    for reason in notes.unfinished:
        line.append(f" · {reason}")
    if notes.warning_count:
        line.append(f" · {count_text(notes.warning_count)}")
    if duration_seconds is not None:
        line.append(f" · {duration_seconds:.2f} s")
    return line


__all__ = [
    "DEFAULT_MAX_SHOWN",
    "DEFAULT_VIEW",
    "ConsoleView",
    "final_line",
    "num_runs",
    "render_reports",
    "render_results",
    "render_sets",
    "report_final_line",
]
