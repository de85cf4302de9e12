"""Markdown summary (``--markdown FILE`` and GitHub's job summary).

Three parts: pass rate per eval set (with a total row when there are
several), metric averages over every case and run (not_evaluated results
skipped, as in the console report), and the cases that did not pass with
why.  Case statuses are the in-memory ones that decide the exit code.

Table cells escape Markdown and HTML syntax (a ``|`` in a reason must not
end the cell), turn newlines into ``<br>``, and reasons are capped at
``reason_cap`` characters; at most ``max_cases`` not-passed cases are listed,
because GitHub refuses job summaries above 1 MiB.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from agenteval.aggregation import metric_summaries, overall_status
from agenteval.report.atomic_write import write_text_atomic
from agenteval.report.console import num_runs
from agenteval.report.console_tables import STATUS_LABELS, format_score
from agenteval.report.outcomes import (
    DEFAULT_REASON_CAP,
    CaseOutcome,
    cap,
    case_outcomes,
    not_passed,
)
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
DEFAULT_MAX_CASES = 100

_HEADLINE_MARKS = {
    EvalStatus.PASSED: "✅",
    EvalStatus.FAILED: "❌",
    EvalStatus.NOT_EVALUATED: "⚠️",
    EvalStatus.UNKNOWN: "❔",
    EvalStatus.INCOMPLETE: "❗",
}
# ASCII punctuation that would start emphasis, code, links, HTML or strike-through,
# or end a table cell; CommonMark renders a backslash-escaped one literally.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
_NEWLINES = re.compile(r"\r\n?|\n")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _control_picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def cell(text: str) -> str:
    """``text`` made safe inside a GitHub-flavoured Markdown table cell."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    lines = _NEWLINES.sub("<br>", escaped)
    # Terminal escapes and NULs would vanish or garble the page; show them as ␛ / ␀.
    return _CONTROLS.sub(_control_picture, lines).strip() or " "


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _rule(*aligns: str) -> str:
    marks = {"l": ":--", "r": "--:"}
    return "|" + "|".join(marks[a] for a in aligns) + "|"


def _percent(passed: int, total: int) -> str:
    if total == 0:
        return "—"
    value = f"{100 * passed / total:.1f}".removesuffix(".0")
    return f"{value}%"


def _counts(outcomes: Sequence[CaseOutcome]) -> tuple[int, int, int]:
    passed = sum(1 for o in outcomes if o.status is EvalStatus.PASSED)
    failed = sum(1 for o in outcomes if o.status is EvalStatus.FAILED)
    return passed, failed, len(outcomes) - passed - failed


def _headline(results: Sequence[EvalSetResult], title: str, elapsed: float | None) -> list[str]:
    status = overall_status(results)
    outcomes = [o for result in results for o in case_outcomes(result)]
    passed, failed, not_evaluated = _counts(outcomes)
    label = STATUS_LABELS[status].upper()
    detail = f"**{passed} of {len(outcomes)} cases passed** ({_percent(passed, len(outcomes))})"
    incomplete = sum(1 for o in outcomes if o.status is EvalStatus.INCOMPLETE)
    detail += f" · {failed} failed · {not_evaluated - incomplete} not evaluated"
    detail += f" · {incomplete} incomplete" if incomplete else ""
    detail += f" · {len(results)} eval set{'s' if len(results) != 1 else ''}"
    if elapsed is not None:
        detail += f" · {elapsed:.2f} s"
    return [f"## {_HEADLINE_MARKS[status]} {cell(title)}: {label}", "", detail, ""]


def _pass_rate_table(results: Sequence[EvalSetResult]) -> list[str]:
    lines = [
        _row("eval set", "cases", "passed", "failed", "not evaluated", "pass rate", "runs"),
        _rule("l", "r", "r", "r", "r", "r", "r"),
    ]
    totals = [0, 0, 0, 0]
    for result in results:
        outcomes = case_outcomes(result)
        passed, failed, not_evaluated = _counts(outcomes)
        for index, value in enumerate((len(outcomes), passed, failed, not_evaluated)):
            totals[index] += value
        lines.append(
            _row(
                cell(result.eval_set_id or "(unnamed)"),
                str(len(outcomes)),
                str(passed),
                str(failed),
                str(not_evaluated),
                _percent(passed, len(outcomes)),
                str(num_runs(result)),
            )
        )
    if len(results) > 1:
        total, passed, failed, not_evaluated = totals
        lines.append(
            _row(
                "**total**",
                f"**{total}**",
                f"**{passed}**",
                f"**{failed}**",
                f"**{not_evaluated}**",
                f"**{_percent(passed, total)}**",
                "",
            )
        )
    return [*lines, ""]


def _metric_table(results: Sequence[EvalSetResult]) -> list[str]:
    rows: list[str] = []
    for result in results:
        summaries = metric_summaries(
            metric
            for case in result.case_results()
            for metric in case.overall_eval_metric_results or []
        )
        for summary in summaries:
            counts = summary.status_counts
            rows.append(
                _row(
                    cell(result.eval_set_id or "(unnamed)"),
                    cell(summary.metric_name),
                    format_score(summary.average_score),
                    format_score(summary.threshold),
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


def _why(outcome: CaseOutcome, reason_cap: int | None) -> str:
    parts = outcome.unevaluated(reason_cap)
    parts += [s.text(reason_cap) for s in outcome.shortfalls()]
    parts += [f"error: {cap(e, reason_cap)}" for e in outcome.errors()]
    if not parts:
        return cell(outcome.headline(reason_cap))
    if len(parts) == 1:
        return cell(parts[0])
    # Bullets keep metrics apart when a reason itself spans several lines.
    return "<br>".join(f"• {cell(part)}" for part in parts)


def _case_table(
    results: Sequence[EvalSetResult], max_cases: int | None, reason_cap: int | None
) -> list[str]:
    outcomes = not_passed(results)
    if not outcomes:
        return []
    lines = [
        "### Cases that did not pass",
        "",
        _row("eval set", "case", "status", "why"),
        _rule("l", "l", "l", "l"),
    ]
    shown = outcomes if max_cases is None else outcomes[:max_cases]
    for outcome in shown:
        status = STATUS_LABELS[outcome.status]
        if outcome.status is EvalStatus.INCOMPLETE:
            status = f"{_HEADLINE_MARKS[outcome.status]} {status}"
        if outcome.multi_run:
            passed_runs = sum(1 for r in outcome.runs if r.final_eval_status is EvalStatus.PASSED)
            status += f" ({passed_runs}/{len(outcome.runs)} runs passed)"
        lines.append(
            _row(
                cell(outcome.eval_set_id or "(unnamed)"),
                cell(outcome.eval_id or "(no evalId)"),
                status,
                _why(outcome, reason_cap),
            )
        )
    lines.append("")
    hidden = len(outcomes) - len(shown)
    if hidden:
        lines += [f"_… and {hidden} more not listed; every case is in the result files._", ""]
    return lines


def markdown_summary(
    results: Sequence[EvalSetResult],
    *,
    elapsed: float | None = None,
    title: str = "agenteval",
    max_cases: int | None = DEFAULT_MAX_CASES,
    reason_cap: int | None = DEFAULT_REASON_CAP,
) -> str:
    """The Markdown summary of a run: pass rates, metric averages, cases that did not pass."""
    lines = _headline(results, title, elapsed)
    lines += _pass_rate_table(results)
    lines += _metric_table(results)
    lines += _case_table(results, max_cases, reason_cap)
    return "\n".join(lines).rstrip("\n") + "\n"


def write_markdown(
    path: Path | str, results: Sequence[EvalSetResult], *, elapsed: float | None = None
) -> Path:
    """Atomically write :func:`markdown_summary` of ``results`` to ``path``; returns the path."""
    return write_text_atomic(path, markdown_summary(results, elapsed=elapsed))


def append_step_summary(
    results: Sequence[EvalSetResult],
    environ: Mapping[str, str],
    *,
    elapsed: float | None = None,
) -> Path | None:
    """Append the summary to the file ``GITHUB_STEP_SUMMARY`` names; None when it is unset."""
    target = environ.get(STEP_SUMMARY_ENV, "")
    if not target:
        return None
    path = Path(target)
    # Appending, not replacing: earlier steps of the job may have written their own summary.
    with path.open("a", encoding="utf-8", errors="replace") as handle:
        handle.write(markdown_summary(results, elapsed=elapsed) + "\n")
    return path


__all__ = [
    "DEFAULT_MAX_CASES",
    "STEP_SUMMARY_ENV",
    "append_step_summary",
    "cell",
    "markdown_summary",
    "write_markdown",
]
