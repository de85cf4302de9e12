"""Per-case outcomes and plain-text failure explanations shared by the CI reporters.

JUnit, Markdown and GitHub annotations all say the same things about a case:
its in-memory status (:func:`agenteval.results.aggregation.case_statuses`, which
decides the exit code), the metrics that made it fail with score, threshold
and reason, and what each run did.  This module computes those once, as
plain text, so the three formats cannot disagree.

The text comes from :class:`OutcomeText`, which reads only compact run
records (:class:`RunRecord`: status, error, each metric's score, threshold and
reason); a streamed run keeps those records instead of whole case results
(``set_tally.py``), and :class:`CaseOutcome` builds them from whole results
for the HTML report and ``diff``.

Tested in tests/report/test_outcomes.py and tests/report/test_markdown.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from agenteval.inputs.safe_text import DEFAULT_REASON_CAP, cap
from agenteval.inputs.score_text import failed_against
from agenteval.report.metric_averages import MetricAverages
from agenteval.results.aggregation import case_statuses, uses_custom_aggregator
from agenteval.results.flakiness import passed_runs_text
from agenteval.schema.result import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval.schema.status import EvalStatus

_Run = TypeVar("_Run")


class MetricRecord(NamedTuple):
    """What the reports say about one overall metric result of one run."""

    metric_name: str
    eval_status: EvalStatus
    score: float
    threshold: float
    reason: str  # metric_reason(), kept only for a metric that did not pass
    upper_bound: bool = False  # a count metric (EvalMetricResult.upper_bound)


class RunRecord(NamedTuple):
    """What the reports say about one run of a case."""

    run_id: int
    final_eval_status: EvalStatus
    error_message: str
    metrics: tuple[MetricRecord, ...]


def metric_record(metric: EvalMetricResult, keep: int | None = None) -> MetricRecord:
    """The record of ``metric``, its reason cut to ``keep`` characters (None = whole)."""
    passed = metric.eval_status is EvalStatus.PASSED
    reason = "" if passed else metric_reason(metric)
    return MetricRecord(
        metric.metric_name,
        metric.eval_status,
        metric.score,
        metric.threshold,
        reason if keep is None else reason[:keep],
        metric.upper_bound,
    )


def run_record(run: EvalCaseResult, keep: int | None = None) -> RunRecord:
    """The record of one case result; reasons and the error cut to ``keep`` characters.

    Cutting at ``keep`` changes no output of :func:`cap` with a limit below ``keep``.
    """
    error = run.error_message if keep is None else run.error_message[:keep]
    metrics = tuple(metric_record(m, keep) for m in run.overall_eval_metric_results or ())
    return RunRecord(run.run_id, run.final_eval_status, error, metrics)


@dataclass(frozen=True, slots=True)
class MetricShortfall:
    """A metric that failed a case: its score (or average over runs) against its threshold."""

    metric_name: str
    score: float
    threshold: float
    reason: str
    runs_averaged: int = 0  # 0: one run's own result; n > 0: mean over n evaluated runs
    upper_bound: bool = False  # a count metric: it fails above its threshold

    def text(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> str:
        """``metric: score 0.5 < threshold 1: why`` (``>`` for a count metric; reason cut
        to ``reason_cap`` chars)."""
        runs = self.runs_averaged
        label = "score" if runs == 0 else f"average over {runs} run{'s' if runs != 1 else ''}"
        against = failed_against(self.score, self.threshold, upper_bound=self.upper_bound)
        line = f"{self.metric_name}: {label} {against}"
        reason = cap(self.reason, reason_cap)
        return f"{line}: {reason}" if reason else line


@dataclass(frozen=True, slots=True)
class _Outcome(Generic[_Run]):
    """One eval case over all its runs, with the status that decides the exit code."""

    eval_set_id: str
    eval_id: str
    status: EvalStatus
    runs: tuple[_Run, ...]  # sorted by runId
    # A --case-aggregator scored the case: its verdicts decide, also over several runs.
    custom_aggregator: bool = False

    @property
    def multi_run(self) -> bool:
        """True when the case ran more than once."""
        return len(self.runs) > 1


@dataclass(frozen=True, slots=True)
class OutcomeText(_Outcome[RunRecord]):
    """One eval case over all its runs as records: the text every CI reporter shows."""

    @property
    def passed_runs(self) -> int:
        """How many of the case's runs passed."""
        return sum(1 for run in self.runs if run.final_eval_status is EvalStatus.PASSED)

    def passed_runs_text(self) -> str:
        """``2/3 runs passed``, saying beside it why an incomplete case is not green."""
        incomplete = self.status is EvalStatus.INCOMPLETE
        return passed_runs_text(self.passed_runs, len(self.runs), incomplete=incomplete)

    def shortfalls(self) -> list[MetricShortfall]:
        """The metrics that fail the case: per run for one run, averaged across runs for several."""
        if not self.multi_run:
            return [
                MetricShortfall(m.metric_name, m.score, m.threshold, m.reason, 0, m.upper_bound)
                for run in self.runs
                for m in run.metrics
                if m.eval_status is EvalStatus.FAILED
            ]
        return _averaged_shortfalls([m for run in self.runs for m in run.metrics])

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
            + (f": {cap(metric.reason, reason_cap)}" if metric.reason else "")
            for run in self.runs
            for metric in run.metrics
            if metric.eval_status is EvalStatus.NOT_EVALUATED
        ]
        return list(dict.fromkeys(lines)) or ["a metric could not be evaluated"]

    def headline(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> str:
        """One line: why the case is not passed (unevaluated or failing metrics, errors)."""
        parts = self.unevaluated(reason_cap)
        parts += [s.text(reason_cap) for s in self.shortfalls()]
        parts += [f"error: {cap(e, reason_cap)}" for e in self.errors()]
        if not parts:
            aggregated = self.custom_aggregator and self._metric_evaluated()
            if self.status is EvalStatus.NOT_EVALUATED and aggregated:
                return "the case aggregator did not evaluate the case (its metrics were evaluated)"
            if self.status is EvalStatus.NOT_EVALUATED:
                return "no metric was evaluated for this case"
            if self.status is EvalStatus.FAILED:
                # A custom case aggregator can fail a case whose metrics all passed.
                return "the case failed although no metric failed (case aggregator)"
            return ""
        return "; ".join(parts)

    def _metric_evaluated(self) -> bool:
        """Whether a metric was evaluated in some run (a not_evaluated case then is the
        case aggregator's verdict, not its metrics')."""
        return any(
            m.eval_status is not EvalStatus.NOT_EVALUATED for run in self.runs for m in run.metrics
        )

    def rule(self) -> str:
        """What decides the status of a case that ran several times (formats.md §7)."""
        if self.custom_aggregator:
            return "the case aggregator's verdicts of the runs decide"
        return "metric scores averaged across runs decide"

    def run_lines(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> list[str]:
        """Per-run detail: each run's status, its failing metrics and its error."""
        lines: list[str] = []
        for run in self.runs:
            prefix = f"run {run.run_id}: " if self.multi_run else ""
            lines.append(f"{prefix}{run.final_eval_status.value}")
            for metric in run.metrics:
                if metric.eval_status is not EvalStatus.PASSED:
                    lines.append(f"  {_metric_line(metric, reason_cap)}")
            if run.error_message:
                lines.append(f"  error: {cap(run.error_message, reason_cap)}")
        return lines


@dataclass(frozen=True, slots=True)
class CaseOutcome(_Outcome[EvalCaseResult]):
    """One eval case over all its whole runs (HTML report, diff); text as :class:`OutcomeText`."""

    def text(self) -> OutcomeText:
        """The same case as records, reasons whole."""
        runs = tuple(run_record(run) for run in self.runs)
        return OutcomeText(
            self.eval_set_id, self.eval_id, self.status, runs, self.custom_aggregator
        )

    def shortfalls(self) -> list[MetricShortfall]:
        """See :meth:`OutcomeText.shortfalls`."""
        return self.text().shortfalls()

    def errors(self) -> list[str]:
        """See :meth:`OutcomeText.errors`."""
        return self.text().errors()

    def unevaluated(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> list[str]:
        """See :meth:`OutcomeText.unevaluated`."""
        return self.text().unevaluated(reason_cap)

    def headline(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> str:
        """See :meth:`OutcomeText.headline`."""
        return self.text().headline(reason_cap)

    def run_lines(self, reason_cap: int | None = DEFAULT_REASON_CAP) -> list[str]:
        """See :meth:`OutcomeText.run_lines`."""
        return self.text().run_lines(reason_cap)


def _averaged_shortfalls(metrics: Iterable[MetricRecord]) -> list[MetricShortfall]:
    """Metrics whose mean over runs fails, by name (as ``aggregation.metric_summaries``).

    The reason is the first failing run's: an example of why the average is low.
    """
    averages = MetricAverages()
    for m in metrics:
        averages.add(m.metric_name, m.eval_status, m.score, m.threshold, m.reason, m.upper_bound)
    return [
        MetricShortfall(
            name,
            average.mean,
            average.threshold,
            average.reason,
            average.evaluated,
            average.upper_bound,
        )
        for name, average in averages.sorted()
        if average.status is EvalStatus.FAILED
    ]


def _metric_line(metric: MetricRecord, reason_cap: int | None) -> str:
    if metric.eval_status is EvalStatus.FAILED:
        shortfall = MetricShortfall(
            metric.metric_name, metric.score, metric.threshold, metric.reason, 0, metric.upper_bound
        )
        return shortfall.text(reason_cap)
    reason = cap(metric.reason, reason_cap)
    line = f"{metric.metric_name}: {metric.eval_status.value}"
    return f"{line}: {reason}" if reason else line


def metric_reason(metric: EvalMetricResult) -> str:
    """A metric's ``details.reason`` without the empty ``;`` slots of passing turns."""
    if metric.details is None:
        return ""
    # Go joins per-turn reasons with ";" including empty ones: ";" means "no reason".
    return ";".join(part for part in metric.details.reason.split(";") if part.strip())


def case_outcomes(result: EvalSetResult) -> list[CaseOutcome]:
    """Every case of an eval set result, in order of first appearance, with its status."""
    grouped: dict[str, list[EvalCaseResult]] = {}
    for case in result.case_results():
        grouped.setdefault(case.eval_id, []).append(case)
    statuses = case_statuses(result)
    custom = uses_custom_aggregator(result)
    return [
        CaseOutcome(
            eval_set_id=result.eval_set_id,
            eval_id=eval_id,
            status=statuses[eval_id],
            runs=tuple(sorted(runs, key=lambda r: r.run_id)),
            custom_aggregator=custom,
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
    "MetricRecord",
    "MetricShortfall",
    "OutcomeText",
    "RunRecord",
    "cap",
    "case_outcomes",
    "metric_reason",
    "metric_record",
    "not_passed",
    "run_record",
]
