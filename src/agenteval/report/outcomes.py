"""Per-case outcomes and plain-text failure explanations shared by the CI reporters.

JUnit, Markdown and GitHub annotations all say the same things about a case:
its in-memory status (:func:`agenteval.aggregation.case_statuses`, which
decides the exit code), the metrics that made it fail with score, threshold
and reason, and what each run did.  This module computes those once, as
plain text, so the three formats cannot disagree.

Tested in tests/report/test_markdown.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agenteval.aggregation import case_statuses, metric_summaries
from agenteval.report.console_tables import format_score
from agenteval.schema.result import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval.schema.status import EvalStatus

# Reasons longer than this are cut (with "…") wherever a reporter caps them.
DEFAULT_REASON_CAP = 300


@dataclass(frozen=True, slots=True)
class MetricShortfall:
    """A metric that failed a case: its score (or average over runs) against its threshold."""

    metric_name: str
    score: float
    threshold: float
    reason: str
    runs_averaged: int = 0  # 0: one run's own result; n > 0: mean over n evaluated runs

    def text(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> str:
        """``metric: score 0.5 < threshold 1: why`` (reason cut to ``reason_cap`` chars)."""
        runs = self.runs_averaged
        label = "score" if runs == 0 else f"average over {runs} run{'s' if runs != 1 else ''}"
        line = (
            f"{self.metric_name}: {label} {format_score(self.score)}"
            f" < threshold {format_score(self.threshold)}"
        )
        reason = cap(self.reason, reason_cap)
        return f"{line}: {reason}" if reason else line


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One eval case over all its runs, with the status that decides the exit code."""

    eval_set_id: str
    eval_id: str
    status: EvalStatus
    runs: tuple[EvalCaseResult, ...]  # sorted by runId

    @property
    def multi_run(self) -> bool:
        """True when the case ran more than once."""
        return len(self.runs) > 1

    def shortfalls(self) -> list[MetricShortfall]:
        """The metrics that fail the case: per run for one run, averaged across runs for several."""
        if not self.multi_run:
            return [
                _shortfall(metric)
                for run in self.runs
                for metric in run.overall_eval_metric_results or []
                if metric.eval_status is EvalStatus.FAILED
            ]
        results = [m for run in self.runs for m in run.overall_eval_metric_results or []]
        reasons = _first_reasons(results)
        shortfalls: list[MetricShortfall] = []
        for summary in metric_summaries(results):
            if summary.eval_status is not EvalStatus.FAILED:
                continue
            counts = summary.status_counts
            evaluated = (counts.passed + counts.failed) if counts else 0
            shortfalls.append(
                MetricShortfall(
                    metric_name=summary.metric_name,
                    score=summary.average_score,
                    threshold=summary.threshold,
                    reason=reasons.get(summary.metric_name, ""),
                    runs_averaged=max(evaluated, 1),
                )
            )
        return shortfalls

    def errors(self) -> list[str]:
        """The case's error messages, prefixed with the run when it ran several times."""
        return [
            f"run {run.run_id}: {run.error_message}" if self.multi_run else run.error_message
            for run in self.runs
            if run.error_message
        ]

    def unevaluated(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> list[str]:
        """For an INCOMPLETE case: each metric that could not be evaluated, with why."""
        if self.status is not EvalStatus.INCOMPLETE:
            return []
        lines = [
            f"{metric.metric_name} not evaluated"
            + (f": {cap(reason, reason_cap)}" if (reason := metric_reason(metric)) else "")
            for run in self.runs
            for metric in run.overall_eval_metric_results or []
            if metric.eval_status is EvalStatus.NOT_EVALUATED
        ]
        return list(dict.fromkeys(lines)) or ["a metric could not be evaluated"]

    def headline(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> str:
        """One line: why the case is not passed (unevaluated or failing metrics, errors)."""
        parts = self.unevaluated(reason_cap)
        parts += [s.text(reason_cap) for s in self.shortfalls()]
        parts += [f"error: {cap(e, reason_cap)}" for e in self.errors()]
        if not parts:
            if self.status is EvalStatus.NOT_EVALUATED:
                return "no metric was evaluated for this case"
            if self.status is EvalStatus.FAILED:
                # A custom case aggregator can fail a case whose metrics all passed.
                return "the case failed although no metric failed (case aggregator)"
            return ""
        return "; ".join(parts)

    def run_lines(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> list[str]:
        """Per-run detail: each run's status, its failing metrics and its error."""
        lines: list[str] = []
        for run in self.runs:
            prefix = f"run {run.run_id}: " if self.multi_run else ""
            lines.append(f"{prefix}{run.final_eval_status.value}")
            for metric in run.overall_eval_metric_results or []:
                if metric.eval_status is not EvalStatus.PASSED:
                    lines.append(f"  {_metric_line(metric, reason_cap)}")
            if run.error_message:
                lines.append(f"  error: {cap(run.error_message, reason_cap)}")
        return lines


def _shortfall(metric: EvalMetricResult) -> MetricShortfall:
    return MetricShortfall(
        metric_name=metric.metric_name,
        score=metric.score,
        threshold=metric.threshold,
        reason=metric_reason(metric),
    )


def _metric_line(metric: EvalMetricResult, reason_cap: int | None) -> str:
    if metric.eval_status is EvalStatus.FAILED:
        return _shortfall(metric).text(reason_cap)
    reason = cap(metric_reason(metric), reason_cap)
    line = f"{metric.metric_name}: {metric.eval_status.value}"
    return f"{line}: {reason}" if reason else line


def _first_reasons(results: Iterable[EvalMetricResult]) -> dict[str, str]:
    """The first failing run's reason per metric: an example of why its average is low."""
    reasons: dict[str, str] = {}
    for metric in results:
        if metric.eval_status is EvalStatus.FAILED and metric.metric_name not in reasons:
            reason = metric_reason(metric)
            if reason:
                reasons[metric.metric_name] = reason
    return reasons


def metric_reason(metric: EvalMetricResult) -> str:
    """A metric's ``details.reason`` without the empty ``;`` slots of passing turns."""
    if metric.details is None:
        return ""
    # Go joins per-turn reasons with ";" including empty ones: ";" means "no reason".
    return ";".join(part for part in metric.details.reason.split(";") if part.strip())


def cap(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, ending in "…" when cut (None = no limit)."""
    if limit is None or len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def case_outcomes(result: EvalSetResult) -> list[CaseOutcome]:
    """Every case of an eval set result, in order of first appearance, with its status."""
    grouped: dict[str, list[EvalCaseResult]] = {}
    for case in result.case_results():
        grouped.setdefault(case.eval_id, []).append(case)
    statuses = case_statuses(result)
    return [
        CaseOutcome(
            eval_set_id=result.eval_set_id,
            eval_id=eval_id,
            status=statuses[eval_id],
            runs=tuple(sorted(runs, key=lambda r: r.run_id)),
        )
        for eval_id, runs in grouped.items()
    ]


def not_passed(results: Sequence[EvalSetResult]) -> list[CaseOutcome]:
    """Cases of every eval set whose status is failed or not_evaluated, in report order."""
    return [
        outcome
        for result in results
        for outcome in case_outcomes(result)
        if outcome.status is not EvalStatus.PASSED
    ]


__all__ = [
    "DEFAULT_REASON_CAP",
    "CaseOutcome",
    "MetricShortfall",
    "cap",
    "case_outcomes",
    "metric_reason",
    "not_passed",
]
