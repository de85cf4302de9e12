"""Markdown summary (``--markdown FILE`` and GitHub's job summary).

Four parts: pass rate per eval set (with a total row when there are
several), metric averages over every case and run (not_evaluated results
skipped, as in the console report), what the judge and the agent under test
spent (when either did), and the cases that did not pass with why; then the run's warnings, if any (counted in the headline, a flood of one
kind collapsed as on the console).  Case statuses are the in-memory ones that
decide the exit code.

Table cells escape Markdown and HTML syntax (a ``|`` in a reason must not
end the cell), turn newlines into ``<br>``, and reasons are capped at
``reason_cap`` characters; at most ``max_cases`` not-passed cases are listed, in at
most :data:`CASE_TABLE_BYTES`, because GitHub refuses job summaries above 1 MiB.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict, Unpack

from agenteval.inputs.safe_text import BIDI_CONTROLS
from agenteval.inputs.score_text import pass_percent, score_beside, threshold_beside
from agenteval.report.agent_cost import agent_usage_text
from agenteval.report.atomic_write import write_text_atomic
from agenteval.report.console_tables import STATUS_LABELS, STATUS_LOOKS
from agenteval.report.judge_cost import judge_usage_text
from agenteval.report.outcomes import DEFAULT_REASON_CAP, OutcomeText, cap
from agenteval.report.run_notes import NO_NOTES, RunFacts, RunNotes, count_text
from agenteval.report.set_tally import SetReport, set_report
from agenteval.report.set_tally import outcome as run_outcome
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
DEFAULT_MAX_CASES = 100
# Bytes of case rows listed at most (with ``max_cases`` set): 100 cases whose 40 metrics
# failed, or whose agent crashed in each of 30 runs, made a summary over GitHub's 1 MiB,
# which it then drops whole.  The cases past it are counted, as those past ``max_cases``.
CASE_TABLE_BYTES = 512 * 1024

# ASCII punctuation that would start emphasis, code, links, HTML or strike-through,
# or end a table cell; CommonMark renders a backslash-escaped one literally.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
_NEWLINES = re.compile(r"\r\n?|\n")
_CONTROLS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f{BIDI_CONTROLS}]")


def _control_picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0x7F:
        return f"\\u{code:04x}"  # a bidi control: no picture exists; shown as on the console
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def cell(text: str) -> str:
    """``text`` made safe inside a GitHub-flavoured Markdown table cell."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    lines = _NEWLINES.sub("<br>", escaped)
    # Terminal escapes and NULs would vanish or garble the page; show them as ␛ / ␀,
    # and bidi controls, which would reorder the cell, as \u202e.
    return _CONTROLS.sub(_control_picture, lines).strip() or " "


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _rule(*aligns: str) -> str:
    marks = {"l": ":--", "r": "--:"}
    return "|" + "|".join(marks[a] for a in aligns) + "|"


def _percent(passed: int, total: int) -> str:
    if total == 0:
        return "—"
    return pass_percent(passed, total, decimals=1)


def _counts(report: SetReport) -> tuple[int, int, int, int, int]:
    """Cases, passed, failed, not evaluated and incomplete: apart, as the headline counts them."""
    total = len(report.statuses)
    passed = report.count(EvalStatus.PASSED)
    failed = report.count(EvalStatus.FAILED)
    incomplete = report.count(EvalStatus.INCOMPLETE)
    return total, passed, failed, total - passed - failed - incomplete, incomplete


def _headline(
    reports: Sequence[SetReport], title: str, elapsed: float | None, notes: RunNotes
) -> list[str]:
    # INCOMPLETE when the run is unfinished (interrupted), whatever its finished cases say.
    status = run_outcome(reports, unfinished=bool(notes.unfinished)).status
    total = sum(len(report.statuses) for report in reports)
    passed = sum(report.count(EvalStatus.PASSED) for report in reports)
    failed = sum(report.count(EvalStatus.FAILED) for report in reports)
    incomplete = sum(report.count(EvalStatus.INCOMPLETE) for report in reports)
    not_evaluated = total - passed - failed
    label = STATUS_LABELS[status].upper()
    detail = f"**{passed} of {total} cases passed** ({_percent(passed, total)})"
    detail += f" · {failed} failed · {not_evaluated - incomplete} not evaluated"
    detail += f" · {incomplete} incomplete" if incomplete else ""
    detail += f" · {len(reports)} eval set{'s' if len(reports) != 1 else ''}"
    detail += "".join(f" · {reason}" for reason in notes.unfinished)
    if notes.warning_count:
        detail += f" · {count_text(notes.warning_count)}"
    if elapsed is not None:
        detail += f" · {elapsed:.2f} s"
    return [f"## {STATUS_LOOKS[status].mark} {cell(title)}: {label}", "", detail, ""]


def _pass_rate_table(reports: Sequence[SetReport]) -> list[str]:
    # An incomplete case is counted in its own column (shown when there is one), never
    # among the not evaluated: the headline said "1 not evaluated · 2 incomplete" above a
    # table that said 3 not evaluated.
    counted = [_counts(report) for report in reports]
    totals = [sum(counts[index] for counts in counted) for index in range(5)]  # none: zeros
    incomplete = bool(totals[4])
    head = ["eval set", "cases", "passed", "failed", "not evaluated"]
    head += ["incomplete"] if incomplete else []
    lines = [_row(*head, "pass rate", "runs"), _rule("l", *"r" * (len(head) + 1))]
    for report, counts in zip(reports, counted, strict=True):
        numbers = [str(value) for value in counts[: 5 if incomplete else 4]]
        name = cell(report.eval_set_id or "(unnamed)")
        lines.append(_row(name, *numbers, _percent(counts[1], counts[0]), str(report.num_runs)))
    if len(reports) > 1:
        numbers = [f"**{value}**" for value in totals[: 5 if incomplete else 4]]
        lines.append(_row("**total**", *numbers, f"**{_percent(totals[1], totals[0])}**", ""))
    return [*lines, ""]


def _metric_table(reports: Sequence[SetReport]) -> list[str]:
    rows: list[str] = []
    for report in reports:
        for summary in report.metric_summaries:
            counts = summary.status_counts
            rows.append(
                _row(
                    cell(report.eval_set_id or "(unnamed)"),
                    cell(summary.metric_name),
                    score_beside(summary.average_score, summary.threshold),
                    threshold_beside(summary.threshold, summary.average_score),
                    STATUS_LABELS[summary.eval_status],
                    str(counts.passed if counts else 0),
                    str(counts.failed if counts else 0),
                    str(counts.not_evaluated if counts else 0),
                )
            )
    if not rows:
        return []
    header = [
        "### Metric averages",
        "",
        _row(
            "eval set",
            "metric",
            "average",
            "threshold",
            "status",
            "passed",
            "failed",
            "not evaluated",
        ),
        _rule("l", "l", "r", "r", "l", "r", "r", "r"),
    ]
    return [*header, *rows, ""]


def _cost_table(reports: Sequence[SetReport]) -> list[str]:
    """What the judge and the agent under test spent per eval set (as the console says it)."""
    rows: list[str] = []
    for report in reports:
        judge = judge_usage_text(report.judge_usage)
        agent = agent_usage_text(report.agent_usage)
        if judge or agent:
            name = cell(report.eval_set_id or "(unnamed)")
            rows.append(_row(name, cell(judge or "—"), cell(agent or "—")))
    if not rows:
        return []
    header = ["### Cost", "", _row("eval set", "judge", "agent under test"), _rule("l", "l", "l")]
    return [*header, *rows, ""]


def _why(outcome: OutcomeText, reason_cap: int | None) -> str:
    parts = outcome.unevaluated(reason_cap)
    parts += [s.text(reason_cap) for s in outcome.shortfalls()]
    parts += [f"error: {cap(e, reason_cap)}" for e in outcome.errors()]
    if not parts:
        return cell(outcome.headline(reason_cap))
    if len(parts) == 1:
        return cell(parts[0])
    # Bullets keep metrics apart when a reason itself spans several lines.
    return "<br>".join(f"• {cell(part)}" for part in parts)


def _case_row(outcome: OutcomeText, reason_cap: int | None) -> str:
    status = STATUS_LABELS[outcome.status]
    if outcome.status is EvalStatus.INCOMPLETE:
        status = f"{STATUS_LOOKS[outcome.status].mark} {status}"
    if outcome.multi_run:
        status += f" ({outcome.passed_runs_text()})"
    return _row(
        cell(outcome.eval_set_id or "(unnamed)"),
        cell(outcome.eval_id or "(no evalId)"),
        status,
        _why(outcome, reason_cap),
    )


def _case_table(
    reports: Sequence[SetReport], max_cases: int | None, reason_cap: int | None
) -> list[str]:
    not_passed = sum(len(report.statuses) - report.count(EvalStatus.PASSED) for report in reports)
    if not not_passed:
        return []
    lines = [
        "### Cases that did not pass",
        "",
        _row("eval set", "case", "status", "why"),
        _rule("l", "l", "l", "l"),
    ]
    shown = [o for report in reports for o in report.not_passed()[:max_cases]][:max_cases]
    budget = CASE_TABLE_BYTES if max_cases is not None else None
    listed = 0
    for outcome in shown:
        row = _case_row(outcome, reason_cap)
        if budget is not None:
            budget -= len(row.encode("utf-8", "replace")) + 1
            if budget < 0:
                break
        lines.append(row)
        listed += 1
    lines.append("")
    hidden = not_passed - listed
    if hidden:
        lines += [f"_… and {hidden} more not listed; every case is in the result files._", ""]
    return lines


def _warning_list(warnings: Sequence[str]) -> list[str]:
    if not warnings:
        return []
    return ["### Warnings", "", *(f"- {cell(line)}" for line in warnings), ""]


class MarkdownOptions(TypedDict, total=False):
    """The keyword options :func:`markdown_summary` passes on to :func:`markdown_report`."""

    elapsed: float | None
    title: str
    max_cases: int | None
    reason_cap: int | None


def markdown_summary(results: Sequence[EvalSetResult], **options: Unpack[MarkdownOptions]) -> str:
    """The Markdown summary of a run: pass rates, metric averages, cases that did not pass."""
    return markdown_report([set_report(result) for result in results], **options)


def markdown_report(
    reports: Sequence[SetReport],
    *,
    elapsed: float | None = None,
    title: str = "agenteval",
    max_cases: int | None = DEFAULT_MAX_CASES,
    reason_cap: int | None = DEFAULT_REASON_CAP,
    notes: RunNotes = NO_NOTES,
) -> str:
    """:func:`markdown_summary` of tallied eval sets (``notes``: warnings, why unfinished)."""
    lines = _headline(reports, title, elapsed, notes)
    lines += _pass_rate_table(reports)
    lines += _metric_table(reports)
    lines += _cost_table(reports)
    lines += _case_table(reports, max_cases, reason_cap)
    lines += _warning_list(notes.lines())
    return "\n".join(lines).rstrip("\n") + "\n"


def write_markdown(
    path: Path | str, results: Sequence[EvalSetResult], *, elapsed: float | None = None
) -> Path:
    """Atomically write :func:`markdown_summary` of ``results`` to ``path``; returns the path."""
    return write_text_atomic(path, markdown_summary(results, elapsed=elapsed))


def write_markdown_reports(
    path: Path | str, reports: Sequence[SetReport], **facts: Unpack[RunFacts]
) -> Path:
    """Atomically write :func:`markdown_report` of ``reports`` to ``path``; returns the path."""
    return write_text_atomic(path, markdown_report(reports, **facts))


def append_step_summary(
    results: Sequence[EvalSetResult],
    environ: Mapping[str, str],
    *,
    elapsed: float | None = None,
) -> Path | None:
    """Append the summary to the file ``GITHUB_STEP_SUMMARY`` names; None when it is unset."""
    if not environ.get(STEP_SUMMARY_ENV, ""):
        return None
    reports = [set_report(result) for result in results]
    return append_step_summary_reports(reports, environ, elapsed=elapsed)


def append_step_summary_reports(
    reports: Sequence[SetReport],
    environ: Mapping[str, str],
    *,
    elapsed: float | None = None,
    notes: RunNotes = NO_NOTES,
) -> Path | None:
    """:func:`append_step_summary` of tallied eval sets."""
    target = environ.get(STEP_SUMMARY_ENV, "")
    if not target:
        return None
    path = Path(target)
    # Appending, not replacing: earlier steps of the job may have written their own summary.
    with path.open("a", encoding="utf-8", errors="replace") as handle:
        handle.write(markdown_report(reports, elapsed=elapsed, notes=notes) + "\n")
    return path


__all__ = [
    "DEFAULT_MAX_CASES",
    "STEP_SUMMARY_ENV",
    "MarkdownOptions",
    "append_step_summary",
    "append_step_summary_reports",
    "cell",
    "markdown_report",
    "markdown_summary",
    "write_markdown",
    "write_markdown_reports",
]
