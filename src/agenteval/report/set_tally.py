"""What the console, JUnit, Markdown and GitHub reports print about an eval set, tallied case by case.

A streamed run hands every finished case result to :meth:`SetTally.add` in
result-file order (run 1's cases, then run 2's, …) and drops it;
:meth:`SetTally.finish` then takes the result's head (no cases; ``judgeUsage``,
``judgeFailures`` and the other extras set) and returns a :class:`SetReport`,
which the reporters read instead of the whole result.  :func:`set_report`
does the same for a whole result (``show``, ``diff``, the tests), so both
paths print the same text.

What a tally holds (measured in tests/report/test_set_tally.py and
bench/report_memory.py):

* every case's status (a dict entry per evalId);
* the first ``max_shown`` cases' whole results (the console prints them in
  detail; :class:`ConsoleView`); with ``quiet`` instead the reason lines of the
  cases that may be printed (failed, or with a metric not evaluated), until
  ``max_shown`` of them failed;
* a compact record per run (status, error, each metric's score, threshold and
  the reason of a metric that did not pass, cut to ``reason_keep``
  characters) of every case that did not pass cleanly, and of every run when
  a case runs several times (its status is the mean over runs, known only
  after the last one);
* running sums: metric averages, unstable judge turns, gate methods.

A case that passed with every metric passed and no error, run once, leaves
only its status behind: ~80 bytes, against ~0.8 KB for a failing case and
~290 bytes per case result of a three-run set until :meth:`SetTally.finish`.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

from agenteval.errors import Problem
from agenteval.inputs.case_sources import CaseSource, HeldResult, check_case_summaries, runs_of
from agenteval.report.agent_cost import agent_cost_text
from agenteval.report.console_tables import ReasonLine, reason_lines, unstable_turns
from agenteval.report.judge_cost import CostliestCases
from agenteval.report.metric_averages import MetricAverages
from agenteval.report.outcomes import OutcomeText, RunRecord, run_record
from agenteval.results.agent_usage import AGENT_USAGE_KEY
from agenteval.results.aggregation import (
    CASE_USAGE_KEY,
    Outcome,
    any_not_evaluated,
    averaged_status,
    case_overall_status,
    incomplete_ids,
    run_outcome,
    uses_custom_aggregator,
)
from agenteval.schema.result import (
    EvalCaseResult,
    EvalSetResult,
    MetricSummary,
    extra,
)
from agenteval.schema.status import EvalStatus, summarize

# Reasons and errors are kept to one character more than the largest cap a report
# applies (JUnit's 2,000-character bodies), so every capped text is unchanged.
REASON_KEEP = 2001
DEFAULT_MAX_SHOWN = 200
# Extra key of an EvalSetResult holding its wall time in seconds (read when present).
DURATION_KEY = "durationSeconds"

_PASSED = EvalStatus.PASSED
_FAILED = EvalStatus.FAILED
_NOT_EVALUATED = EvalStatus.NOT_EVALUATED
_INCOMPLETE = EvalStatus.INCOMPLETE


class ConsoleView(NamedTuple):
    """How the console prints an eval set's cases: ``run``'s and ``show``'s ``--quiet``,
    ``--verbose`` and ``--max-shown``, tallied with the cases (:class:`SetTally` keeps
    what the view prints) and carried to the console on each :class:`SetReport`.

    ``quiet``: only failing cases with their reasons, and the final line; ``verbose``:
    the reasons of passing turns too, and any extra ``details`` keys evaluators
    recorded; ``max_shown``: detail for at most this many cases per eval set (None:
    all), the rest counted.  A NamedTuple rather than a frozen dataclass: made once at
    start-up, a frozen slots dataclass costs ~4.3 M instructions there (its methods
    compiled from source), a NamedTuple ~1.1 M (valgrind cachegrind, Python 3.11).
    """

    quiet: bool = False
    verbose: bool = False
    max_shown: int | None = DEFAULT_MAX_SHOWN

    @classmethod
    def of_flags(cls, *, quiet: bool, verbose: bool, max_shown: int) -> ConsoleView:
        """The view the command-line flags ask for (``--max-shown 0`` shows every case)."""
        return cls(quiet, verbose, max_shown or None)

    def at_limit(self, shown: int) -> bool:
        """Whether ``shown`` cases printed in detail are as many as the view prints."""
        return self.max_shown is not None and shown >= self.max_shown


# The view a run prints with no flags.
DEFAULT_VIEW = ConsoleView()
# For a tally whose report is not printed (the HTML page, the API's reports): no case kept.
NOTHING_SHOWN = ConsoleView(max_shown=0)


@dataclass(frozen=True, slots=True)
class ShownCase:
    """A case the console prints in detail.

    ``runs`` holds its whole results (sorted by runId) without ``quiet``; with
    ``quiet`` it is empty and ``lines`` holds the reason lines, ``score`` the
    first run's score and ``passed_runs`` / ``run_count`` its runs.
    """

    eval_id: str
    status: EvalStatus
    runs: tuple[EvalCaseResult, ...] = ()
    lines: tuple[ReasonLine, ...] = ()
    score: float = 0.0
    passed_runs: int = 0
    run_count: int = 0


@dataclass(frozen=True, slots=True)
class SetReport:
    """Everything the console, JUnit, Markdown and GitHub reports print about one eval set."""

    eval_set_id: str
    num_runs: int
    # Status per evalId in order of first appearance (the one that decides the exit code).
    statuses: dict[str, EvalStatus]
    # Cases not passed, and passed cases with a run that did not pass, as compact text.
    outcomes: dict[str, OutcomeText]
    shown: dict[str, ShownCase]
    # The console view tallied (what ``shown`` holds follows it).
    view: ConsoleView
    metric_summaries: list[MetricSummary]
    unstable: int
    gate_methods: dict[str, dict[str, int]]
    # (evalId, runs passed) per case, sorted by evalId, for pass@k; empty for one run.
    pass_counts: list[tuple[str, int]]
    judge_usage: dict[str, Any] | None = None
    eval_set_result_id: str = ""
    creation_timestamp: float | None = None
    seconds: float = 0.0  # the result's durationSeconds extra key, else 0
    counts: dict[EvalStatus, int] = field(default_factory=dict)
    # The run did not finish (``partial``): a stop, or a merge with shards or cases missing.
    partial: bool = False
    # (case label, judge cost as worded) of the costliest cases, costliest first.
    costliest: list[tuple[str, str]] = field(default_factory=list)
    # What the agent under test spent (the result's ``agentUsage``), apart from the judge.
    agent_usage: dict[str, Any] | None = None
    # (case label, agent cost as worded) of the cases whose agent spent most, costliest first.
    agent_costliest: list[tuple[str, str]] = field(default_factory=list)

    def count(self, status: EvalStatus) -> int:
        """How many cases have ``status``."""
        return self.counts.get(status, 0)

    def incomplete(self) -> frozenset[str]:
        """The evalIds whose status is incomplete (their verdict too, whatever their runs say)."""
        return frozenset(eval_id for eval_id, s in self.statuses.items() if s is _INCOMPLETE)

    def undecided(self) -> frozenset[str]:
        """The evalIds whose status is not evaluated (no run decided: their verdict is
        undecided, never a stable fail)."""
        return frozenset(eval_id for eval_id, s in self.statuses.items() if s is _NOT_EVALUATED)

    def not_passed(self) -> list[OutcomeText]:
        """The cases that did not pass, in report order."""
        return [
            self.outcomes[eval_id]
            for eval_id, status in self.statuses.items()
            if status is not _PASSED
        ]


class _QuietCase:
    """What ``--quiet`` prints about a case that may be shown: header numbers, reason lines."""

    __slots__ = ("lines", "run_id", "score")

    def __init__(self, run_id: int, score: float) -> None:
        self.run_id = run_id  # the lowest runId seen, whose score the header shows
        self.score = score
        self.lines: list[tuple[int, list[ReasonLine]]] = []


class SetTally:
    """Running tally of one eval set's case results; :meth:`finish` gives its :class:`SetReport`."""

    def __init__(
        self,
        eval_set_id: str,
        num_runs: int,
        *,
        view: ConsoleView = DEFAULT_VIEW,
        reason_keep: int | None = REASON_KEEP,
        repeats: bool | None = None,
        hold: bool = False,
        record: bool = False,
    ) -> None:
        """``repeats``: cases may come more than once (default: ``num_runs > 1``).

        ``hold``: with ``quiet``, treat every case as one that may be printed (a whole
        result's ``judgeFailures`` may name any case; its caller holds every result anyway).
        ``record``: keep what :meth:`absorb` needs to count this tally after another.
        """
        self.eval_set_id = eval_set_id
        self.num_runs = num_runs
        self._view = view
        self._keep = reason_keep
        self._repeats = num_runs > 1 if repeats is None else repeats
        self._hold = hold
        self._status: dict[str, EvalStatus | None] = {}
        self._records: dict[str, list[RunRecord]] = {}
        self._not_evaluated: set[str] = set()
        self._shown: dict[str, list[EvalCaseResult]] = {}
        self._quiet_cases: dict[str, _QuietCase] = {}
        self._certain_shown = 0
        self._metrics = MetricAverages(record=record)
        self._unstable = 0
        self._gates: dict[str, dict[str, int]] = {}
        self._costly = CostliestCases()
        self._agent_costly = CostliestCases(word=agent_cost_text)
        self._finished = False

    def add(self, case: EvalCaseResult) -> None:
        """Count one case result (result-file order); keeps only what the reports print."""
        if self._finished:
            raise RuntimeError("SetTally.add after finish")
        eval_id = case.eval_id
        first = eval_id not in self._status
        has_not_evaluated = any_not_evaluated(case)
        if has_not_evaluated:
            self._not_evaluated.add(eval_id)
        status: EvalStatus | None = None
        if not self._repeats:
            status = summarize((case.final_eval_status,))
            if status is _NOT_EVALUATED and case.error_message:
                status = _FAILED
            self._status[eval_id] = status
            if status is not _PASSED or case.error_message or not _all_passed(case):
                self._records[eval_id] = [run_record(case, self._keep)]
        else:
            if first:
                self._status[eval_id] = None
            self._records.setdefault(eval_id, []).append(run_record(case, self._keep))
        self._tally_metrics(case)
        label = f"{eval_id} (run {case.run_id})" if self.num_runs > 1 else eval_id
        extras = case.model_extra or {}
        self._costly.add(label, extras.get(CASE_USAGE_KEY))
        self._agent_costly.add(label, extras.get(AGENT_USAGE_KEY))
        if self._view.quiet:
            self._add_quiet(case, status, has_not_evaluated)
        elif eval_id in self._shown:
            self._shown[eval_id].append(case)
        elif first and not self._view.at_limit(len(self._shown)):
            self._shown[eval_id] = [case]

    def _tally_metrics(self, case: EvalCaseResult) -> None:
        for metric in case.overall_eval_metric_results or ():
            self._metrics.add(
                metric.metric_name,
                metric.eval_status,
                metric.score,
                metric.threshold,
                upper_bound=metric.upper_bound,
            )
            methods = (metric.model_extra or {}).get("methods")
            if isinstance(methods, dict):
                add_gate_methods(self._gates, metric.metric_name, methods)
        self._unstable += unstable_turns((case,))

    def _add_quiet(
        self, case: EvalCaseResult, status: EvalStatus | None, has_not_evaluated: bool
    ) -> None:
        # --quiet prints failed and incomplete cases; whether a case is either is known at
        # finish (judgeFailures; the mean over runs), so the ones that may be are kept until then.
        full = self._view.at_limit(self._certain_shown)
        if full and case.eval_id not in self._quiet_cases:
            return  # max_shown failed cases came before: no later case is printed in detail
        candidate = self._hold or self._repeats or status is _FAILED or has_not_evaluated
        if not candidate:
            return
        if status is _FAILED:
            self._certain_shown += 1
        quiet_case = self._quiet_cases.get(case.eval_id)
        if quiet_case is None:
            quiet_case = self._quiet_cases[case.eval_id] = _QuietCase(case.run_id, case.score)
        elif case.run_id < quiet_case.run_id:
            quiet_case.run_id, quiet_case.score = case.run_id, case.score
        lines = reason_lines(case, multi_run=self.num_runs > 1, verbose=self._view.verbose)
        if lines:
            quiet_case.lines.append((case.run_id, lines))

    def part(self) -> SetTally:
        """A recording tally like this one, for a later share of the cases (a worker's,
        :mod:`agenteval.run.case_split`), to :meth:`absorb` when it is done."""
        if self._repeats or self._hold:
            raise ValueError("only a tally of one run per case is counted in parts")
        return SetTally(
            self.eval_set_id, self.num_runs, view=self._view, reason_keep=self._keep, record=True
        )

    def __getstate__(self) -> dict[str, Any]:
        """A part shipped from its worker: the cases it keeps to show (whole results, up to
        ``max_shown`` of them) travel pickled apart and are read back only if the tally
        that absorbs it has room left (with its own first cases it mostly has none: reading
        200 results back cost ~40 ms)."""
        state = dict(self.__dict__)
        state["_shown"] = pickle.dumps(self._shown, protocol=pickle.HIGHEST_PROTOCOL)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _shown_cases_kept(self) -> dict[str, list[EvalCaseResult]]:
        shown = self._shown
        if isinstance(shown, bytes):  # shipped: read back now that they are needed
            shown = self._shown = pickle.loads(shown)  # our own worker's bytes
        return shown

    def absorb(self, part: SetTally) -> None:
        """Count ``part``'s cases (they came after every case added here) as :meth:`add`
        would have, one by one: the cases shown stop at the same limit, the averages add
        the same floats in the same order."""
        if self._finished or part._repeats or self._repeats:
            raise ValueError("absorb needs two unfinished tallies of one run per case")
        if part._status.keys() & self._status.keys():
            raise ValueError("the tallies share a case; absorb needs apart cases")
        self._status.update(part._status)
        self._records.update(part._records)
        self._not_evaluated |= part._not_evaluated
        if not self._view.at_limit(len(self._shown)):
            for eval_id, cases in part._shown_cases_kept().items():
                if self._view.at_limit(len(self._shown)):
                    break
                self._shown[eval_id] = cases
        for eval_id, quiet_case in part._quiet_cases.items():
            if self._view.at_limit(self._certain_shown):
                break  # as _add_quiet: no later case is printed in detail
            if part._status.get(eval_id) is _FAILED:
                self._certain_shown += 1
            self._quiet_cases[eval_id] = quiet_case
        self._metrics.absorb(part._metrics)
        self._unstable += part._unstable
        for name, methods in part._gates.items():
            add_gate_methods(self._gates, name, methods)
        self._costly.absorb(part._costly)
        self._agent_costly.absorb(part._agent_costly)

    def finish(self, head: EvalSetResult) -> SetReport:
        """The eval set's report; ``head`` is its result without cases (extras set)."""
        self._finished = True
        incomplete = self._incomplete(head)
        custom = uses_custom_aggregator(head)
        statuses: dict[str, EvalStatus] = {}
        outcomes: dict[str, OutcomeText] = {}
        records = self._records
        for eval_id, known in self._status.items():
            if known is _PASSED and eval_id not in records and eval_id not in incomplete:
                # Passed with nothing to print about its run (most cases): no record is
                # made for it (~1 µs a case of the run's serial tail).
                statuses[eval_id] = known
                continue
            runs = self._runs(eval_id)
            # The mean over runs adds scores in arrival order, as case_statuses does.
            status = (
                known
                if known is not None
                else case_status(self._records[eval_id], custom_aggregator=custom)
            )
            if eval_id in incomplete:
                status = _INCOMPLETE
            statuses[eval_id] = status
            if status is not _PASSED or any(r.final_eval_status is not _PASSED for r in runs):
                outcomes[eval_id] = OutcomeText(self.eval_set_id, eval_id, status, runs, custom)
        counts: dict[EvalStatus, int] = {}
        for status in statuses.values():
            counts[status] = counts.get(status, 0) + 1
        return SetReport(
            eval_set_id=self.eval_set_id,
            num_runs=self.num_runs,
            statuses=statuses,
            outcomes=outcomes,
            shown=self._shown_cases(statuses, outcomes),
            view=self._view,
            metric_summaries=self._metrics.summaries(),
            unstable=self._unstable,
            gate_methods=self._gates,
            pass_counts=self._pass_counts(),
            judge_usage=head.judge_usage,
            eval_set_result_id=head.eval_set_result_id,
            creation_timestamp=head.creation_timestamp,
            seconds=suite_time(head),
            counts=counts,
            partial=bool(head.partial),
            costliest=self._costly.worded(),
            agent_usage=head.agent_usage,
            agent_costliest=self._agent_costly.worded(),
        )

    def _runs(self, eval_id: str) -> tuple[RunRecord, ...]:
        records = self._records.get(eval_id)
        if records is None:
            # Passed, every metric passed, no error: nothing a report prints about its run.
            return (RunRecord(1, _PASSED, "", ()),)
        return tuple(sorted(records, key=lambda r: r.run_id))

    def _incomplete(self, head: EvalSetResult) -> set[str]:
        return set(incomplete_ids(head.judge_failures, self._not_evaluated))

    def _shown_cases(
        self, statuses: dict[str, EvalStatus], outcomes: dict[str, OutcomeText]
    ) -> dict[str, ShownCase]:
        if not self._view.quiet:
            return {
                eval_id: ShownCase(
                    eval_id, statuses[eval_id], tuple(sorted(runs, key=lambda r: r.run_id))
                )
                for eval_id, runs in self._shown.items()
            }
        shown: dict[str, ShownCase] = {}
        for eval_id, status in statuses.items():
            if status not in (_FAILED, _INCOMPLETE):
                continue
            if self._view.at_limit(len(shown)):
                break
            outcome = outcomes[eval_id]
            # Not kept: a judgeFailures list naming a case with no metric left unevaluated
            # (the runner never writes one); printed with what its record says.
            quiet_case = self._quiet_cases.get(eval_id) or _QuietCase(0, 0.0)
            ordered = sorted(quiet_case.lines, key=lambda item: item[0])
            shown[eval_id] = ShownCase(
                eval_id,
                status,
                lines=tuple(line for _, lines in ordered for line in lines),
                score=quiet_case.score,
                passed_runs=outcome.passed_runs,
                run_count=len(outcome.runs),
            )
        return shown

    def _pass_counts(self) -> list[tuple[str, int]]:
        # Counted from the runs, as the status column is, never from a saved summary: one
        # edited apart from its case results said "2/2 stable pass" beside "0/2 runs passed"
        # (the reader warns of such a summary, inputs/result_inputs.py).
        if self.num_runs <= 1:
            return []
        return [
            (eval_id, sum(1 for r in self._runs(eval_id) if r.final_eval_status is _PASSED))
            for eval_id in sorted(self._status)
        ]


class ReportSink:
    """The reports' part of a run's case sink: one :class:`SetTally` per eval set, in order.

    ``begin_set`` / ``add`` / ``end_set`` take what the runner's sink methods get;
    :attr:`reports` holds the finished eval sets' :class:`SetReport` objects.
    """

    def __init__(self, *, view: ConsoleView = DEFAULT_VIEW) -> None:
        self._view = view
        self._tally: SetTally | None = None
        self.reports: list[SetReport] = []

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        """Start tallying an eval set of ``num_runs`` runs."""
        self._tally = SetTally(eval_set_id, num_runs, view=self._view)

    def add(self, case: EvalCaseResult) -> None:
        """Count one finished case (result-file order)."""
        assert self._tally is not None, "add before begin_set"
        self._tally.add(case)

    def part(self) -> SetTally:
        """A tally for a later share of the current eval set's cases (:meth:`SetTally.part`)."""
        assert self._tally is not None, "part before begin_set"
        return self._tally.part()

    def absorb(self, part: SetTally) -> None:
        """Count a share's tally after the cases added so far (:meth:`SetTally.absorb`)."""
        assert self._tally is not None, "absorb before begin_set"
        self._tally.absorb(part)

    def end_set(self, head: EvalSetResult) -> None:
        """Finish the eval set with its head (no cases; judgeFailures and the other extras set)."""
        assert self._tally is not None, "end_set before begin_set"
        self.reports.append(self._tally.finish(head))
        self._tally = None


def add_gate_methods(totals: dict[str, dict[str, int]], name: str, methods: dict[Any, Any]) -> None:
    """Add one metric result's ``methods`` counts (final_response_gate) to ``totals``."""
    counts = totals.setdefault(name, {})
    for method, count in methods.items():
        if isinstance(count, int) and not isinstance(count, bool):
            counts[method] = counts.get(method, 0) + count


def suite_time(result: EvalSetResult) -> float:
    """Seconds an eval set took: its ``durationSeconds`` extra key, else 0."""
    value = extra(result).get(DURATION_KEY)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if math.isfinite(value) and value >= 0 else 0.0


def _all_passed(case: EvalCaseResult) -> bool:
    return all(m.eval_status is _PASSED for m in case.overall_eval_metric_results or ())


def case_status(runs: Sequence[RunRecord], *, custom_aggregator: bool = False) -> EvalStatus:
    """As aggregation.case_statuses: one run its status, several the mean of each metric
    (a custom case aggregator's: its verdicts; without judgeFailures, which the caller applies)."""
    return case_overall_status(
        (run.final_eval_status for run in runs),
        partial(_averaged_status, runs),
        any(run.error_message for run in runs),
        runs=len(runs),
        custom_aggregator=custom_aggregator,
    )


def _averaged_status(runs: Sequence[RunRecord]) -> EvalStatus:
    return averaged_status(metric for run in runs for metric in run.metrics)


def num_runs(result: EvalSetResult) -> int:
    """N of a result: the summary's numRuns, else the highest runId (at least 1)."""
    return runs_of(HeldResult(result))


def outcome(reports: Sequence[SetReport], *, unfinished: bool = False) -> Outcome:
    """``aggregation.run_outcome`` of tallied eval sets: the statuses their cases reached
    (a ``partial`` eval set leaves the run unfinished)."""
    reached = (
        status
        for status in (_INCOMPLETE, _FAILED, _PASSED, _NOT_EVALUATED)
        if any(report.count(status) for report in reports)
    )
    return run_outcome(reached, unfinished=unfinished or any(r.partial for r in reports))


def overall_status(reports: Sequence[SetReport]) -> EvalStatus:
    """The overall status of tallied eval sets (:func:`outcome`)."""
    return outcome(reports).status


def set_report(result: EvalSetResult, *, view: ConsoleView = DEFAULT_VIEW) -> SetReport:
    """The :class:`SetReport` of a whole result (:func:`source_report` of it)."""
    return source_report(HeldResult(result), view=view)


def saved_tally(
    eval_set_id: str,
    num_runs: int,
    eval_ids: Sequence[str],
    *,
    view: ConsoleView = DEFAULT_VIEW,
) -> SetTally:
    """The tally of saved case results (``eval_ids``: each one's evalId, in order): reasons
    whole, every case held for --quiet (a saved judgeFailures may name any case)."""
    return SetTally(
        eval_set_id,
        num_runs,
        view=view,
        reason_keep=None,
        repeats=True if len(set(eval_ids)) != len(eval_ids) else None,
        hold=True,
    )


def source_report(
    source: CaseSource,
    *,
    view: ConsoleView = DEFAULT_VIEW,
    problems: list[Problem] | None = None,
) -> SetReport:
    """The :class:`SetReport` of a saved result, its cases tallied as they are read (reasons
    whole, as the result holds them); ``problems``: see :meth:`CaseSource.cases`."""
    tally = saved_tally(source.head.eval_set_id, runs_of(source), source.eval_ids, view=view)
    for case in source.cases(problems):
        tally.add(case)
    if tally.num_runs > 1:  # one run: its case summaries are the cases again, never read
        check_case_summaries(source, problems)
    return tally.finish(source.head)


__all__ = [
    "DEFAULT_MAX_SHOWN",
    "DEFAULT_VIEW",
    "NOTHING_SHOWN",
    "REASON_KEEP",
    "ConsoleView",
    "ReportSink",
    "SetReport",
    "SetTally",
    "ShownCase",
    "add_gate_methods",
    "case_status",
    "num_runs",
    "outcome",
    "overall_status",
    "saved_tally",
    "set_report",
    "source_report",
    "suite_time",
]
