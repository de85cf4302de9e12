"""Console report of eval set results, rendered with rich.

It reads only result objects, so a live run and a saved result file loaded
back render the same.  The caller supplies the ``Console`` (which handles
``NO_COLOR``, width and non-TTY output).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from agenteval.aggregation import build_summary, case_statuses, summarize_cases
from agenteval.report.console_tables import (
    STATUS_STYLES,
    case_table,
    format_score,
    metric_average_table,
    pass_rate_table,
    reason_grid,
    reason_lines,
    status_text,
    unstable_turns,
)
from agenteval.report.gc_pause import collector_paused
from agenteval.report.safe_text import escape_control
from agenteval.schema.result import EvalCaseResult, EvalSetResult, EvalSetResultSummary
from agenteval.schema.status import EvalStatus

# Detailed case tables per eval set before the rest are only counted and listed.
DEFAULT_MAX_SHOWN = 200
HIDDEN_IDS_LISTED = 20


def render_results(
    console: Console,
    results: Sequence[EvalSetResult],
    *,
    quiet: bool = False,
    verbose: bool = False,
    duration_seconds: float | None = None,
    max_shown: int | None = DEFAULT_MAX_SHOWN,
) -> None:
    """Print every eval set's cases, its summary, then the final one-line summary.

    ``quiet`` prints only failing cases with their reasons and the final
    line; ``verbose`` also prints the reasons of passing turns and any extra
    ``details`` keys evaluators recorded.  At most ``max_shown`` cases per
    eval set are printed in detail (None = all); the rest are counted.
    """
    with collector_paused():
        statuses = [case_statuses(result) for result in results]
        for result, result_statuses in zip(results, statuses, strict=True):
            _render_eval_set(
                console,
                result,
                result_statuses,
                quiet=quiet,
                verbose=verbose,
                max_shown=max_shown,
            )
        console.print(_final_line(results, statuses, duration_seconds))


def render_run(
    console: Console,
    results: Sequence[EvalSetResult],
    *,
    quiet: bool = False,
    verbose: bool = False,
    elapsed: float | None = None,
    max_shown: int | None = DEFAULT_MAX_SHOWN,
) -> None:
    """:func:`render_results` under the name and argument the CLI uses."""
    render_results(
        console,
        results,
        quiet=quiet,
        verbose=verbose,
        duration_seconds=elapsed,
        max_shown=max_shown,
    )


def num_runs(result: EvalSetResult) -> int:
    """N of a result: the summary's numRuns, else the highest runId (at least 1)."""
    if result.summary is not None and result.summary.num_runs > 0:
        return result.summary.num_runs
    return max((case.run_id for case in result.case_results()), default=1) or 1


def _summary(result: EvalSetResult) -> EvalSetResultSummary:
    # Files from old Go versions carry no summary; it follows from the case results.
    return result.summary or build_summary(result.case_results(), num_runs(result))


def _runs_by_case(result: EvalSetResult) -> dict[str, list[EvalCaseResult]]:
    grouped: dict[str, list[EvalCaseResult]] = {}
    for case in result.case_results():
        grouped.setdefault(case.eval_id, []).append(case)
    return {eval_id: sorted(runs, key=lambda r: r.run_id) for eval_id, runs in grouped.items()}


def _render_eval_set(
    console: Console,
    result: EvalSetResult,
    statuses: dict[str, EvalStatus],
    *,
    quiet: bool,
    verbose: bool,
    max_shown: int | None,
) -> None:
    runs_total = num_runs(result)
    multi_run = runs_total > 1
    by_case = _runs_by_case(result)
    if not quiet:
        title = Text("eval set ", style="bold")
        title.append(escape_control(result.eval_set_id) or "(unnamed)")
        detail = f"{len(by_case)} case{'s' if len(by_case) != 1 else ''}"
        detail += f" · {runs_total} runs" if multi_run else ""
        title.append(f"  {detail}", style="dim")
        console.rule(title, align="left")
    shown = 0
    hidden: list[str] = []
    for eval_id, runs in by_case.items():
        status = statuses[eval_id]
        if quiet and status not in (EvalStatus.FAILED, EvalStatus.INCOMPLETE):
            continue
        if max_shown is not None and shown >= max_shown:
            # Thousands of case tables help nobody and cost seconds; the summary still counts them.
            if status is not EvalStatus.PASSED:
                hidden.append(eval_id)
            continue
        shown += 1
        console.print(_case_header(eval_id, runs, status, multi_run=multi_run))
        if not quiet:
            table = case_table(runs, multi_run=multi_run)
            if table is not None:
                console.print(Padding(table, (0, 0, 0, 2), expand=False))
            elif not any(run.error_message for run in runs):
                console.print(Text("  no metric ran for this case", style="dim"))
        lines = [
            line for run in runs for line in reason_lines(run, multi_run=multi_run, verbose=verbose)
        ]
        if lines:
            console.print(reason_grid(lines, indent=2))
    if max_shown is not None and shown >= max_shown and len(by_case) > shown:
        _render_hidden(console, len(by_case) - shown, hidden)
    if not quiet:
        _render_summary(console, result, statuses, runs_total)


def _render_hidden(console: Console, count: int, not_passed: list[str]) -> None:
    note = Text(f"… {count} more case{'s' if count != 1 else ''} not shown in detail", style="dim")
    if not_passed:
        listed = ", ".join(not_passed[:HIDDEN_IDS_LISTED])
        more = len(not_passed) - HIDDEN_IDS_LISTED
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
    header = Text("● ", style=STATUS_STYLES[status])
    header.append(escape_control(eval_id) or "(no evalId)", style="bold")
    header.append("  ")
    header.append_text(status_text(status, upper=True))
    if multi_run:
        passed = sum(1 for run in runs if run.final_eval_status is EvalStatus.PASSED)
        header.append(f"  {passed}/{len(runs)} runs passed", style="dim")
    elif runs and runs[0].score:
        # Older Go files carry no case score; an absent score reads as 0.
        header.append(f"  score {format_score(runs[0].score)}", style="dim")
    return header


def _render_summary(
    console: Console,
    result: EvalSetResult,
    statuses: dict[str, EvalStatus],
    runs_total: int,
) -> None:
    passed, failed, not_evaluated = _count(statuses.values())
    incomplete = sum(1 for status in statuses.values() if status is EvalStatus.INCOMPLETE)
    line = Text("cases: ", style="bold")
    line.append(f"{passed} passed", style=STATUS_STYLES[EvalStatus.PASSED])
    line.append(", ")
    line.append(f"{failed} failed", style=STATUS_STYLES[EvalStatus.FAILED])
    line.append(", ")
    line.append(
        f"{not_evaluated - incomplete} not evaluated",
        style=STATUS_STYLES[EvalStatus.NOT_EVALUATED],
    )
    if incomplete:
        line.append(", ")
        line.append(f"{incomplete} incomplete", style=STATUS_STYLES[EvalStatus.INCOMPLETE])
    console.print(line)
    unstable = unstable_turns(result.case_results())
    if unstable:
        note = Text("judge variance: ", style="bold")
        note.append(_unstable_text(unstable) + " (the judge samples disagreed)", style="yellow")
        console.print(note)
    for name, methods in gate_methods(result.case_results()).items():
        note = Text(f"{name} decided by: ", style="bold")
        note.append(" · ".join(f"{count} {method}" for method, count in methods.items()))
        console.print(note)
    usage = _judge_usage_text(result)
    if usage:
        console.print(Text("judge: ", style="bold") + Text(usage, style="dim"))
    averages = metric_average_table(result.case_results())
    if averages is not None:
        console.print(Text("metric averages over all cases and runs", style="bold"))
        console.print(Padding(averages, (0, 0, 0, 2), expand=False))
    if runs_total > 1:
        cases = _summary(result).eval_case_summaries or []
        if cases:
            console.print(Text(f"pass@k and pass^k over {runs_total} runs", style="bold"))
            console.print(Padding(pass_rate_table(cases, runs_total), (0, 0, 0, 2), expand=False))
    console.print()


def gate_methods(cases: Iterable[EvalCaseResult]) -> dict[str, dict[str, int]]:
    """Per metric, how many turns each method decided (``methods`` of final_response_gate)."""
    totals: dict[str, dict[str, int]] = {}
    for case in cases:
        for metric in case.overall_eval_metric_results or ():
            methods = (metric.model_extra or {}).get("methods")
            if not isinstance(methods, dict):
                continue
            counts = totals.setdefault(metric.metric_name, {})
            for method, count in methods.items():
                if isinstance(count, int) and not isinstance(count, bool):
                    counts[method] = counts.get(method, 0) + count
    return totals


def _judge_usage_text(result: EvalSetResult) -> str:
    usage = result.judge_usage
    total = usage.get("total") if isinstance(usage, dict) else None
    if not isinstance(total, dict) or not (total.get("calls") or total.get("cacheHits")):
        return ""
    return (
        f"{total.get('calls', 0)} calls, {total.get('cacheHits', 0)} from cache, "
        f"{total.get('retries', 0)} retries, {total.get('promptTokens', 0):,} prompt + "
        f"{total.get('completionTokens', 0):,} completion tokens"
    )


def _count(statuses: Iterable[EvalStatus]) -> tuple[int, int, int]:
    passed = failed = not_evaluated = 0
    for status in statuses:
        if status is EvalStatus.PASSED:
            passed += 1
        elif status is EvalStatus.FAILED:
            failed += 1
        else:
            not_evaluated += 1
    return passed, failed, not_evaluated


def _unstable_text(count: int) -> str:
    return f"{count} unstable judge turn{'s' if count != 1 else ''}"


def final_line(results: Sequence[EvalSetResult], duration_seconds: float | None = None) -> Text:
    """``FAILED: 3 of 5 cases passed (1 failed, 1 not evaluated) · 2 eval sets · 0.42 s``.

    Judge turns whose samples disagreed are counted too (``· 2 unstable judge turns``).
    """
    return _final_line(results, [case_statuses(result) for result in results], duration_seconds)


def _final_line(
    results: Sequence[EvalSetResult],
    statuses_by_result: Sequence[dict[str, EvalStatus]],
    duration_seconds: float | None,
) -> Text:
    statuses = [status for by_case in statuses_by_result for status in by_case.values()]
    passed, failed, not_evaluated = _count(statuses)
    incomplete = sum(1 for status in statuses if status is EvalStatus.INCOMPLETE)
    not_evaluated -= incomplete
    # The same as overall_status(results), without computing every case status again.
    overall = summarize_cases(statuses)
    line = Text()
    line.append_text(status_text(overall, upper=True))
    line.stylize("bold")
    line.append(f": {passed} of {len(statuses)} cases passed")
    others = [f"{failed} failed"] if failed else []
    others += [f"{not_evaluated} not evaluated"] if not_evaluated else []
    others += [f"{incomplete} incomplete"] if incomplete else []
    if others:
        line.append(f" ({', '.join(others)})")
    line.append(f" · {len(results)} eval set{'s' if len(results) != 1 else ''}")
    unstable = sum(unstable_turns(result.case_results()) for result in results)
    if unstable:
        line.append(f" · {_unstable_text(unstable)}")
    if duration_seconds is not None:
        line.append(f" · {duration_seconds:.2f} s")
    return line


__all__ = ["final_line", "num_runs", "render_results", "render_run"]
