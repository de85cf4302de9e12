"""Case, run and eval-set aggregation of results (formats.md §6.6 and §7).

Pure functions over result objects: the default case aggregator, the
``summary`` of a result file, pass@k / pass^k, the in-memory per-case status
and the overall status that decides the exit code.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple, Protocol

from agenteval.exit_codes import ExitCode
from agenteval.schema.base import builder
from agenteval.schema.result import (
    EvalCaseResult,
    EvalCaseSummary,
    EvalMetricResult,
    EvalSetResult,
    EvalSetResultSummary,
    MetricSummary,
    RunSummary,
    StatusCounts,
    go_number,
)
from agenteval.schema.status import FAILED as _FAILED
from agenteval.schema.status import INCOMPLETE as _INCOMPLETE
from agenteval.schema.status import NOT_EVALUATED as _NOT_EVALUATED
from agenteval.schema.status import PASSED as _PASSED
from agenteval.schema.status import EvalStatus, status_for, summarize

# Extra summary keys (not read by Go): pass@k and pass^k keyed by str(k).
PASS_AT_K_KEY = "passAtK"
PASS_HAT_K_KEY = "passHatK"
# Extra key of a result file (not read by Go): the evalIds of its INCOMPLETE cases.
INCOMPLETE_KEY = "judgeFailures"
# Extra key of a case result (not read by Go): what the judge did for it and its cost
# (one usage object, no byMetric), written by the runner, read by reports and --resume.
CASE_USAGE_KEY = "judgeUsage"


# A summary's run-level objects; the core validators skip BaseModel.__init__.
_new_counts = builder(StatusCounts)
_new_metric_summary = builder(MetricSummary)
# A case summary is built as the plain data of its file keys (``CaseSummaryData``) and
# made a model only when it is kept: with one run it is written and dropped as each case
# finishes, and building its ~10 models, then serialising them, cost ~45 µs a case of
# bench/adk_side_by_side.py against ~10 µs for the data written by orjson.
_new_case_summary = builder(EvalCaseSummary)

# An EvalCaseSummary as the data of its file keys, in the model's field order, None left
# out and scores as written (``go_number``): what ``to_go_json_bytes`` writes as the model.
CaseSummaryData = dict[str, Any]


def default_case_aggregate(
    metric_results: Sequence[EvalMetricResult],
) -> tuple[float, EvalStatus]:
    """Case score and status: all metrics must pass (score 1), else 0 (formats.md §6.6)."""
    status = summarize(result.eval_status for result in metric_results)
    return (1.0 if status is _PASSED else 0.0), status


# --- status counting -------------------------------------------------------


@dataclass(slots=True)
class _Counts:
    """Mutable status histogram; unknown statuses are an aggregation error."""

    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0

    def add(self, status: EvalStatus) -> None:
        if status is _PASSED:
            self.passed += 1
        elif status is _FAILED:
            self.failed += 1
        elif status is _NOT_EVALUATED:
            self.not_evaluated += 1
        else:
            raise ValueError(f"unexpected status {status.value!r} in aggregation")

    def absorb(self, other: _Counts) -> None:
        """Add ``other``'s counts (a worker's share of the cases, agenteval.run.case_split)."""
        self.passed += other.passed
        self.failed += other.failed
        self.not_evaluated += other.not_evaluated

    def status(self) -> EvalStatus:
        """``summarize`` of the counted statuses."""
        if self.failed:
            return _FAILED
        return _PASSED if self.passed else _NOT_EVALUATED

    def data(self) -> dict[str, int] | None:
        # The Go writer leaves the whole object out when every count is 0.
        if not (self.passed or self.failed or self.not_evaluated):
            return None
        return {"passed": self.passed, "failed": self.failed, "notEvaluated": self.not_evaluated}

    def model(self) -> StatusCounts | None:
        data = self.data()
        return None if data is None else _new_counts(data)


def status_counts(statuses: Iterable[EvalStatus]) -> StatusCounts | None:
    """Histogram of statuses; None when there is none (Go omits the object)."""
    counts = _Counts()
    for status in statuses:
        counts.add(status)
    return counts.model()


# --- metric summaries ------------------------------------------------------


@dataclass(slots=True)
class _MetricTally:
    """Running average of one metric; threshold is the first one seen."""

    threshold: float
    evaluated: int = 0
    score_sum: float = 0.0
    counts: _Counts = field(default_factory=_Counts)
    # A count metric: its average passes unless it exceeds the threshold. Read from the
    # first result, as the threshold: one evaluator wrote every result of a metric.
    upper_bound: bool = False
    # The scores summed, in order, when a worker's share is merged later (None: not kept).
    addends: list[float] | None = None

    def absorb(self, part: _MetricTally) -> None:
        """Count ``part``'s results after this tally's own, as if they had come one by one.

        The sum is the floats added again in their order (``part`` kept them): adding
        ``part.score_sum`` could differ in the last bit from the sum a single pass makes.
        """
        self.counts.absorb(part.counts)
        self.evaluated += part.evaluated
        for score in part.addends or ():
            self.score_sum += score
        if self.addends is not None:
            self.addends.extend(part.addends or ())

    def status(self) -> EvalStatus:
        """The average's status (not_evaluated when no result was evaluated)."""
        if not self.evaluated:
            return _NOT_EVALUATED
        average = self.score_sum / self.evaluated
        return status_for(average, self.threshold, upper_bound=self.upper_bound)

    def data(self, name: str) -> dict[str, Any]:
        """The metric's summary as the data of its file keys (a ``MetricSummary``)."""
        average = self.score_sum / self.evaluated if self.evaluated else 0.0
        status = self.status()
        data: dict[str, Any] = {
            "metricName": name,
            "averageScore": go_number(average),
            "evalStatus": status,
            "threshold": go_number(self.threshold),
        }
        counts = self.counts.data()
        if counts is not None:
            data["statusCounts"] = counts
        return data

    def summary(self, name: str) -> MetricSummary:
        return _new_metric_summary(self.data(name))


class ScoredMetric(Protocol):
    """What a metric summary reads of a metric result (an EvalMetricResult, a report's record)."""

    @property
    def metric_name(self) -> str: ...

    @property
    def eval_status(self) -> EvalStatus: ...

    @property
    def score(self) -> float: ...

    @property
    def threshold(self) -> float: ...

    @property
    def upper_bound(self) -> bool: ...


def _tally(
    tallies: dict[str, _MetricTally], results: Iterable[ScoredMetric], record: bool = False
) -> None:
    """Count ``results``; ``record``: keep each new tally's addends (see ``_MetricTally``)."""
    for result in results:
        tally = tallies.get(result.metric_name)
        if tally is None:
            tally = tallies[result.metric_name] = _MetricTally(
                threshold=result.threshold,
                upper_bound=result.upper_bound,
                addends=[] if record else None,
            )
        tally.counts.add(result.eval_status)
        # not_evaluated results would dilute the average: they are counted only.
        if result.eval_status is _NOT_EVALUATED:
            continue
        tally.evaluated += 1
        tally.score_sum += result.score
        if tally.addends is not None:
            tally.addends.append(result.score)


def _absorb_tallies(into: dict[str, _MetricTally], part: dict[str, _MetricTally]) -> None:
    """``part``'s metric tallies counted after ``into``'s (a metric new to ``into`` takes
    ``part``'s threshold, the first one seen)."""
    for name, tally in part.items():
        mine = into.get(name)
        if mine is None:
            mine = into[name] = _MetricTally(
                threshold=tally.threshold, upper_bound=tally.upper_bound
            )
        mine.absorb(tally)


def _summaries(tallies: dict[str, _MetricTally]) -> list[MetricSummary] | None:
    if not tallies:
        return None
    return [tallies[name].summary(name) for name in sorted(tallies)]


def _summaries_data(tallies: dict[str, _MetricTally]) -> list[dict[str, Any]]:
    return [tallies[name].data(name) for name in sorted(tallies)]


def metric_summaries(results: Iterable[ScoredMetric]) -> list[MetricSummary]:
    """Per-metric average over results, sorted by metricName (formats.md §7)."""
    tallies: dict[str, _MetricTally] = {}
    _tally(tallies, results)
    return _summaries(tallies) or []


# --- pass@k / pass^k -------------------------------------------------------


def _check_counts(n: int, c: int, k: int) -> None:
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be within 0..n, got c={c}, n={n}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def _log_all_fail(n: int, c: int, k_max: int) -> Iterator[float]:
    """ln(C(n−c, k)/C(n, k)) for k = 1..k_max, while n−c ≥ k.

    C(n−c, k)/C(n, k) = Π_{i<k} (1 − c/(n−i)): a running sum of log1p terms
    never overflows and keeps pass@1 = c/n to the last digit, which the
    lgamma difference (terms near ln n! cancelling) does not.
    """
    total = 0.0
    for i in range(min(k_max, n - c)):
        total += math.log1p(-c / (n - i))
        yield total


def pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k = 1 − C(n−c, k)/C(n, k), in log space so large n cannot overflow."""
    _check_counts(n, c, k)
    if k > n:
        raise ValueError(f"k cannot exceed n, got k={k}, n={n}")
    if c == 0:
        return 0.0
    if n - c < k:
        return 1.0
    log_ratio = deque(_log_all_fail(n, c, k), maxlen=1)[0]
    # 1 − e^x loses digits when x is near 0; −expm1(x) does not.
    return -math.expm1(log_ratio)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k = (c/n)^k (underflows to 0 for huge k, never overflows)."""
    _check_counts(n, c, k)
    if c == 0:
        return 0.0
    if c == n:
        return 1.0
    return math.pow(c / n, k)


def pass_rates(n: int, c: int) -> tuple[dict[str, float], dict[str, float]]:
    """pass@k and pass^k for k = 1..n, keyed by str(k), in O(n) time."""
    _check_counts(n, c, 1)
    at_k: dict[str, float] = {}
    if c > 0:
        for k, log_ratio in enumerate(_log_all_fail(n, c, n), start=1):
            at_k[str(k)] = -math.expm1(log_ratio)
    for k in range(1, n + 1):
        at_k.setdefault(str(k), 0.0 if c == 0 else 1.0)
    hat_k = {str(k): pass_hat_k(n, c, k) for k in range(1, n + 1)}
    return at_k, hat_k


# --- summary ---------------------------------------------------------------


def run_id_of(result: EvalCaseResult) -> int:
    """A case result's runId; files written before Go recorded run ids hold exactly one run."""
    return result.run_id if result.run_id > 0 else 1


def uses_custom_aggregator(result: EvalSetResult) -> bool:
    """Whether ``result``'s cases were scored by a ``--case-aggregator`` (its fingerprint
    names it; trpc-agent-go's files and the default aggregator's name none)."""
    fingerprint = result.fingerprint
    return fingerprint is not None and bool(fingerprint.case_aggregator)


def case_overall_status(
    run_statuses: Iterable[EvalStatus],
    averaged: Callable[[], EvalStatus],
    has_error: bool,
    *,
    runs: int,
    custom_aggregator: bool,
) -> EvalStatus:
    """A case's status over its ``runs`` (formats.md §7), the one rule of every report.

    One run: the aggregator's verdict.  Several runs under the default aggregator: the
    metric averages (``averaged()``), as trpc-agent-go decides.  Several runs under a
    custom aggregator: its verdicts summarized, as for one run — the metric averages
    answer the default aggregator's question (does every metric pass?), not the one it
    was given, and read "0/3 runs passed" as PASSED when it failed or did not evaluate
    every run.  Either way not_evaluated with an errorMessage is failed.
    """
    status = averaged() if runs > 1 and not custom_aggregator else summarize(run_statuses)
    if status is _NOT_EVALUATED and has_error:
        return _FAILED
    return status


@dataclass(slots=True)
class _CaseTally:
    """Everything the summary needs about one evalId across runs."""

    run_statuses: list[EvalStatus] = field(default_factory=list)
    has_error: bool = False
    metrics: dict[str, _MetricTally] = field(default_factory=dict)
    # Each run's CaseRunSummary, as data.
    runs: list[dict[str, Any]] = field(default_factory=list)


def _metric_name(result: EvalMetricResult) -> str:
    return result.metric_name


def _case_run_data(run_id: int, result: EvalCaseResult) -> dict[str, Any]:
    """A case's ``CaseRunSummary`` of one run, as data."""
    data: dict[str, Any] = {
        "runId": run_id,
        "finalEvalStatus": result.final_eval_status,
        "errorMessage": result.error_message,
    }
    metrics = sorted(result.overall_eval_metric_results or [], key=_metric_name)
    if metrics:
        data["metricResults"] = [
            {
                "metricName": m.metric_name,
                "score": go_number(m.score),
                "evalStatus": m.eval_status,
                "threshold": go_number(m.threshold),
            }
            for m in metrics
        ]
    return data


def _by_run(case_results: Sequence[EvalCaseResult], num_runs: int) -> list[EvalCaseResult]:
    """``case_results`` run by run (stable within a run), refusing a runId beyond ``num_runs``."""
    for index, result in enumerate(case_results):
        run_id = run_id_of(result)
        if run_id > num_runs:
            raise ValueError(
                f"case result {index} ({result.eval_id!r}) has runId {run_id} > numRuns {num_runs}"
            )
    return sorted(case_results, key=run_id_of)


class SummaryTally:
    """The ``summary`` of a result file, built case by case (formats.md §7).

    Feed the case results run by run (run 1's, then run 2's, ...), as a result file
    holds them; :func:`build_summary` sorts any other order first.  With one run and an
    ``emit`` callback, each case's summary is built as soon as its result arrives and
    handed to ``emit`` instead of being kept: the summary then holds no case summaries
    (the caller writes them, sorted by evalId), so memory does not grow with the cases.
    ``emit`` gets the case summary as the data of its file keys (``CaseSummaryData``).
    """

    def __init__(
        self,
        num_runs: int,
        emit: Callable[[CaseSummaryData], None] | None = None,
        *,
        record: bool = False,
    ) -> None:
        """``record``: keep what :meth:`absorb` needs to add this tally after another
        (a worker's share of the cases, :mod:`agenteval.run.case_split`)."""
        if num_runs < 1:
            raise ValueError(f"num_runs must be >= 1, got {num_runs}")
        self.num_runs = num_runs
        self._emit = emit if num_runs == 1 else None
        self._record = record
        self._runs: dict[int, _RunTally] = {r: _RunTally() for r in range(1, num_runs + 1)}
        self._cases: dict[str, _CaseTally] = {}
        # Case overall statuses, counted (summarize needs only which ones occur).
        self._case_status = _Counts()
        self._added = 0

    def part(self) -> SummaryPart:
        """What :meth:`absorb` reads of a recording tally (plain data, for a pipe)."""
        if not self._record:
            raise ValueError("the tally did not record its addends")
        return SummaryPart(self._runs, self._cases, self._case_status, self._added)

    def absorb(self, part: SummaryPart) -> None:
        """Count a recording tally's cases after every case added here, as if added one
        by one (they came later in result-file order, and no evalId is in both)."""
        if part.cases.keys() & self._cases.keys():
            raise ValueError("the tallies share a case; absorb needs apart cases")
        for run_id, run in part.runs.items():
            mine = self._runs[run_id]
            mine.results.absorb(run.results)
            _absorb_tallies(mine.metrics, run.metrics)
        self._cases.update(part.cases)
        self._case_status.absorb(part.case_status)
        self._added += part.added

    def add(self, result: EvalCaseResult) -> None:
        """Count one case result of one run."""
        run_id = run_id_of(result)
        if run_id > self.num_runs:
            raise ValueError(
                f"case result {self._added} ({result.eval_id!r}) has runId {run_id}"
                f" > numRuns {self.num_runs}"
            )
        self._added += 1
        run = self._runs[run_id]
        run.results.add(result.final_eval_status)
        metric_results = result.overall_eval_metric_results or []
        _tally(run.metrics, metric_results, self._record)
        case = _CaseTally() if self._emit is not None else self._cases.get(result.eval_id)
        if case is None:
            case = self._cases[result.eval_id] = _CaseTally()
        case.run_statuses.append(result.final_eval_status)
        case.has_error = case.has_error or bool(result.error_message)
        _tally(case.metrics, metric_results)
        case.runs.append(_case_run_data(run_id, result))
        if self._emit is not None:
            summary = _case_summary(result.eval_id, case, 1)
            self._case_status.add(summary["overallStatus"])
            self._emit(summary)

    def finish(self, *, custom_aggregator: bool = False) -> EvalSetResultSummary:
        """The summary of every case added (without case summaries when they were emitted);
        ``custom_aggregator``: a ``--case-aggregator`` scored them (:func:`case_overall_status`)."""
        run_summaries: list[RunSummary] = []
        run_counts = _Counts()
        for run_id, run in self._runs.items():
            run_status = run.results.status()
            run_counts.add(run_status)
            run_summaries.append(
                RunSummary(
                    run_id=run_id,
                    overall_status=run_status,
                    case_status_counts=run.results.model(),
                    metric_summaries=_summaries(run.metrics),
                )
            )
        cases = self._cases
        case_summaries = [
            _new_case_summary(_case_summary(i, cases[i], self.num_runs, custom_aggregator))
            for i in sorted(cases)
        ]
        for case_summary in case_summaries:
            self._case_status.add(case_summary.overall_status)
        summary = EvalSetResultSummary(
            overall_status=self._case_status.status(),
            num_runs=self.num_runs,
            run_status_counts=run_counts.model(),
            run_summaries=run_summaries,
            eval_case_summaries=case_summaries or None,
        )
        if self.num_runs > 1 and case_summaries:
            _attach_overall_pass_rates(summary, case_summaries, self.num_runs)
        return summary


@dataclass(slots=True)
class _RunTally:
    results: _Counts = field(default_factory=lambda: _Counts())
    metrics: dict[str, _MetricTally] = field(default_factory=dict)


class SummaryPart(NamedTuple):
    """A recording :class:`SummaryTally`'s counts, for :meth:`SummaryTally.absorb`."""

    runs: dict[int, _RunTally]
    cases: dict[str, _CaseTally]
    case_status: _Counts
    added: int


def build_summary(
    case_results: Sequence[EvalCaseResult], num_runs: int, *, custom_aggregator: bool = False
) -> EvalSetResultSummary:
    """The ``summary`` of a result file, as formats.md §7 describes (``custom_aggregator``:
    see :func:`case_overall_status`).

    A case result without ``runId`` (old files) counts as run 1.  With
    ``num_runs`` > 1 every case summary also carries ``passAtK`` and
    ``passHatK`` (k = 1..N; n = N runs, c = runs whose finalEvalStatus is
    passed), and the eval-set summary carries the same keys holding the mean
    over cases of the per-case values.
    """
    tally = SummaryTally(num_runs)
    for result in _by_run(case_results, num_runs):
        tally.add(result)
    return tally.finish(custom_aggregator=custom_aggregator)


def _case_summary(
    eval_id: str, case: _CaseTally, num_runs: int, custom_aggregator: bool = False
) -> CaseSummaryData:
    """The case's ``EvalCaseSummary`` as data (``CaseSummaryData``)."""
    metrics = _summaries_data(case.metrics)
    overall = case_overall_status(
        case.run_statuses,
        lambda: summarize(m["evalStatus"] for m in metrics),
        case.has_error,
        runs=num_runs,
        custom_aggregator=custom_aggregator,
    )
    counts = _Counts()
    for status in case.run_statuses:
        counts.add(status)
    summary: CaseSummaryData = {"evalId": eval_id, "overallStatus": overall}
    run_counts = counts.data()
    if run_counts is not None:
        summary["runStatusCounts"] = run_counts
    if metrics:
        summary["metricSummaries"] = metrics
    if case.runs:
        summary["runSummaries"] = case.runs
    if num_runs > 1:
        # Extra keys (after the fields, as the model writes them); not scores: floats as they are.
        summary[PASS_AT_K_KEY], summary[PASS_HAT_K_KEY] = pass_rates(num_runs, counts.passed)
    return summary


def _attach_overall_pass_rates(
    summary: EvalSetResultSummary, cases: Sequence[EvalCaseSummary], num_runs: int
) -> None:
    """Overall pass@k / pass^k = mean over cases of the per-case values."""
    for key in (PASS_AT_K_KEY, PASS_HAT_K_KEY):
        per_case = [case_pass_rates(case, key) for case in cases]
        means = {
            str(k): math.fsum(rates[str(k)] for rates in per_case) / len(per_case)
            for k in range(1, num_runs + 1)
        }
        setattr(summary, key, means)


def case_pass_rates(case: EvalCaseSummary, key: str) -> dict[str, float]:
    """The ``passAtK`` or ``passHatK`` map a case summary carries ({} if absent)."""
    value = (case.model_extra or {}).get(key)
    if not isinstance(value, dict):
        return {}
    return {str(k): float(v) for k, v in value.items()}


# --- in-memory status and exit code -----------------------------------------


def _averaged_case_status(runs: Sequence[EvalCaseResult]) -> EvalStatus:
    """Metrics averaged across runs (not_evaluated skipped), then summarized."""
    return averaged_status(m for run in runs for m in run.overall_eval_metric_results or [])


def averaged_status(metrics: Iterable[ScoredMetric]) -> EvalStatus:
    """Each metric's results (a case's runs) averaged, not_evaluated ones skipped, then
    summarized: a case's status over several runs (formats.md §7)."""
    tallies: dict[str, _MetricTally] = {}
    for metric in metrics:
        # Unlike the file summary, the threshold comes from the first evaluated run.
        if metric.eval_status is _NOT_EVALUATED:
            continue
        tally = tallies.get(metric.metric_name)
        if tally is None:
            tally = tallies[metric.metric_name] = _MetricTally(
                threshold=metric.threshold, upper_bound=metric.upper_bound
            )
        tally.evaluated += 1
        tally.score_sum += metric.score
    return summarize(t.status() for t in tallies.values())


def case_statuses(result: EvalSetResult) -> dict[str, EvalStatus]:
    """In-memory status per evalId (formats.md §7), in order of first appearance.

    One run (or a custom case aggregator's runs) → its finalEvalStatus; several runs →
    metric scores averaged across runs, then summarized (:func:`case_overall_status`).
    A case listed in ``judgeFailures`` is incomplete.
    """
    incomplete = set(incomplete_cases(result))
    custom = uses_custom_aggregator(result)
    runs_by_case: dict[str, list[EvalCaseResult]] = {}
    for case in result.case_results():
        runs_by_case.setdefault(case.eval_id, []).append(case)
    statuses: dict[str, EvalStatus] = {}
    for eval_id, runs in runs_by_case.items():
        status = case_overall_status(
            (run.final_eval_status for run in runs),
            partial(_averaged_case_status, runs),
            any(run.error_message for run in runs),
            runs=len(runs),
            custom_aggregator=custom,
        )
        if eval_id in incomplete:
            status = _INCOMPLETE
        statuses[eval_id] = status
    return statuses


def any_not_evaluated(case: EvalCaseResult) -> bool:
    """True when a metric of ``case``, overall or for a turn, is not_evaluated."""
    if any(m.eval_status is _NOT_EVALUATED for m in case.overall_eval_metric_results or ()):
        return True
    return any(
        m.eval_status is _NOT_EVALUATED
        for turn in case.eval_metric_result_per_invocation or ()
        for m in turn.eval_metric_results or ()
    )


def incomplete_ids(marked: list[str] | int | None, not_evaluated: Iterable[str]) -> list[str]:
    """The INCOMPLETE evalIds: those ``judgeFailures`` lists, then every case with a metric
    result that is ``not_evaluated`` (``not_evaluated``: their ids, in order).

    agenteval writes the list; files of older versions hold a count, trpc-agent-go's none.
    Whatever the key says, a case with a metric that could not be evaluated is never
    passed: a file without the key read such a case as passed on the console, in JUnit
    and in the exit code, while the HTML report said incomplete.
    """
    listed = [str(eval_id) for eval_id in marked] if isinstance(marked, list) else []
    return list(dict.fromkeys([*listed, *not_evaluated]))


def incomplete_cases(result: EvalSetResult) -> list[str]:
    """The evalIds of the cases with a metric that could not be evaluated (:func:`incomplete_ids`)."""
    not_evaluated = (c.eval_id for c in result.case_results() if any_not_evaluated(c))
    return incomplete_ids(result.judge_failures, not_evaluated)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A run's overall status and the exit code that follows from it."""

    status: EvalStatus
    exit_code: ExitCode


_EXIT_CODES = {
    _PASSED: ExitCode.PASSED,
    _FAILED: ExitCode.FAILED,
    _NOT_EVALUATED: ExitCode.FAILED,
    _INCOMPLETE: ExitCode.INCOMPLETE,
}


def run_outcome(case_statuses: Iterable[EvalStatus], *, unfinished: bool = False) -> Outcome:
    """The one rule for a run's status and exit code; every face and report asks it.

    ``unfinished``: the run could not finish beyond what its cases say (an eval set
    ``partial``, a judge call failed for good, a stop, an agent that did not start):
    incomplete, exit 3. Otherwise any case incomplete → incomplete (3); any failed →
    failed (1); any passed → passed (0); none evaluated → not evaluated (1).
    Exit code 2 (nothing scored) and 4 (a bug) are decided before any case exists.
    """
    statuses = set(case_statuses)
    status = _INCOMPLETE if unfinished or _INCOMPLETE in statuses else summarize(statuses)
    return Outcome(status, _EXIT_CODES[status])


def results_outcome(results: Sequence[EvalSetResult], *, unfinished: bool = False) -> Outcome:
    """:func:`run_outcome` of the in-memory case statuses of every eval set (a ``partial``
    one — a stopped run, a merge with shards or cases missing — leaves the run unfinished)."""
    return run_outcome(
        (status for result in results for status in case_statuses(result).values()),
        unfinished=unfinished or any(result.partial for result in results),
    )


def overall_status(results: Sequence[EvalSetResult]) -> EvalStatus:
    """The overall status of whole results (:func:`results_outcome`)."""
    return results_outcome(results).status


__all__ = [
    "CASE_USAGE_KEY",
    "PASS_AT_K_KEY",
    "PASS_HAT_K_KEY",
    "CaseSummaryData",
    "Outcome",
    "SummaryPart",
    "SummaryTally",
    "any_not_evaluated",
    "averaged_status",
    "build_summary",
    "case_overall_status",
    "case_pass_rates",
    "case_statuses",
    "default_case_aggregate",
    "incomplete_cases",
    "incomplete_ids",
    "metric_summaries",
    "overall_status",
    "pass_at_k",
    "pass_hat_k",
    "pass_rates",
    "results_outcome",
    "run_id_of",
    "run_outcome",
    "status_counts",
    "uses_custom_aggregator",
]
