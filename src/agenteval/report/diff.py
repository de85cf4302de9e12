"""``agenteval diff BASE NEW``: what got worse, what got better, what came and went.

Compared per case (evalSetId, evalId) and per case metric (evalSetId,
evalId, metricName).  A case's status is its in-memory status (the one that
decides the exit code), not_evaluated when it is INCOMPLETE (a metric not evaluated in
any run, or listed in ``judgeFailures``: the rule every reader counts by), and its
score the mean case score over its evaluated runs (none for a trpc-agent-go file, which
writes no case score: compared as 0 it was a drop of 1 under an unchanged pass); a metric's status and score are its overall result for one run, or
its average over runs (metric summary, not_evaluated runs skipped) for
several.

Status order: passed > not_evaluated > failed.  Any drop is a regression
(passed→failed, passed→not_evaluated, not_evaluated→failed);
failed→passed and not_evaluated→passed are improvements; failed→not_evaluated
is only a change, since nothing was fixed, it is just no longer measured.
A score that drops (rises) by more than ``tolerance`` is a regression
(improvement); scores are compared only when both sides were evaluated.  A
change with both a worse and a better signal counts as a regression.  A
case or metric only in NEW has appeared; only in BASE, disappeared, which
counts as a regression unless ``missing_is_regression=False`` (a case that
vanished can no longer fail).  Metrics of a case that appeared or
disappeared as a whole are not listed again.  A moved threshold is noted.

A side whose eval set is ``partial`` (its run was interrupted, or merged with shards
missing) did not score every case: a case of that eval set missing from it is
``unscored`` there, never appeared or disappeared and never a regression, and the
comparison is incomplete (``diff`` exits 3, as ``show`` of such a result does).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rich.console import Console
from rich.text import Text

from agenteval.errors import Problem
from agenteval.inputs.case_sources import CaseSource, HeldResult
from agenteval.inputs.safe_text import escape_control
from agenteval.inputs.score_text import counted
from agenteval.report.cell_table import CellTable, Column
from agenteval.report.console_tables import (
    STATUS_LABELS,
    STATUS_STYLES,
    format_score,
    status_text,
)
from agenteval.report.json_keys import camel_fields
from agenteval.report.outcomes import RunRecord, run_record
from agenteval.report.set_tally import case_status
from agenteval.results.aggregation import (
    any_not_evaluated,
    incomplete_ids,
    metric_summaries,
    uses_custom_aggregator,
)
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus

# Float noise (0.8 − 0.7 = 0.10000000000000009) must not turn "exactly the tolerance" into a drop.
_EPSILON = 1e-9
_RANK = {EvalStatus.FAILED: 0, EvalStatus.NOT_EVALUATED: 1, EvalStatus.PASSED: 2}


class ChangeKind(StrEnum):
    """What happened to a case or metric between BASE and NEW."""

    REGRESSED = "regressed"
    DISAPPEARED = "disappeared"
    # Missing from a side whose run did not finish (``partial``): nothing is known of it.
    UNSCORED = "unscored"
    APPEARED = "appeared"
    CHANGED = "changed"
    IMPROVED = "improved"


_KIND_ORDER = {kind: i for i, kind in enumerate(ChangeKind)}
_KIND_STYLES = {
    ChangeKind.REGRESSED: "bold red",
    ChangeKind.DISAPPEARED: "red",
    ChangeKind.UNSCORED: "yellow",
    ChangeKind.APPEARED: "cyan",
    ChangeKind.CHANGED: "yellow",
    ChangeKind.IMPROVED: "green",
}


@dataclass(frozen=True, slots=True)
class Side:
    """A case or metric on one side: status, score (None when not evaluated), threshold."""

    status: EvalStatus
    score: float | None
    threshold: float | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"status", "score", "threshold"?}`` (score null when not evaluated)."""
        data: dict[str, Any] = {"status": self.status.value, "score": self.score}
        if self.threshold is not None:
            data["threshold"] = self.threshold
        return data

    def label(self) -> str:
        """``passed 0.8`` / ``not evaluated``."""
        status = STATUS_LABELS.get(self.status, self.status.value)
        return status if self.score is None else f"{status} {format_score(self.score)}"


@dataclass(frozen=True, slots=True)
class Change:
    """One case or metric that differs between BASE and NEW."""

    eval_set_id: str
    eval_id: str
    metric_name: str | None  # None: the case as a whole
    kind: ChangeKind
    regression: bool
    base: Side | None
    new: Side | None
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The change as plain JSON data (camelCase keys like the result files)."""
        return {
            "kind": self.kind.value,
            **camel_fields(self, "regression", "eval_set_id", "eval_id", "metric_name"),
            "base": self.base.to_json() if self.base else None,
            "new": self.new.to_json() if self.new else None,
            "reasons": list(self.reasons),
        }


@dataclass(slots=True)
class ResultDiff:
    """Every change between two sets of results, regressions first."""

    tolerance: float
    changes: list[Change] = field(default_factory=list)
    compared_cases: int = 0
    compared_metrics: int = 0
    # Whether BASE and NEW hold a ``partial`` eval set (a run stopped before every case ran).
    partial: dict[str, bool] = field(default_factory=lambda: {"base": False, "new": False})

    @property
    def regressed(self) -> bool:
        """True when anything regressed (``diff`` exits 1)."""
        return any(change.regression for change in self.changes)

    @property
    def incomplete(self) -> bool:
        """True when a side is partial: the comparison misses what it did not score (exit 3)."""
        return any(self.partial.values())

    def not_scored(self) -> dict[str, int]:
        """Per side, the cases the other side holds that it did not score (``unscored``)."""
        counts = {"base": 0, "new": 0}
        for change in self.of_kind(ChangeKind.UNSCORED):
            counts["base" if change.base is None else "new"] += 1
        return counts

    def of_kind(self, kind: ChangeKind) -> list[Change]:
        """The changes of one kind, in report order."""
        return [change for change in self.changes if change.kind is kind]

    def counts(self) -> dict[str, int]:
        """Number of changes per kind, plus regressions (disappearances included)."""
        counts = {kind.value: 0 for kind in ChangeKind}
        for change in self.changes:
            counts[change.kind.value] += 1
        counts["regressions"] = sum(1 for change in self.changes if change.regression)
        return counts

    def to_json(self) -> dict[str, Any]:
        """Machine-readable diff: verdict, tolerance, partial sides, counts and every change."""
        return {
            **camel_fields(
                self, "regressed", "incomplete", "tolerance", "compared_cases", "compared_metrics"
            ),
            "partial": dict(self.partial),
            "notScored": self.not_scored(),
            "counts": self.counts(),
            "changes": [change.to_json() for change in self.changes],
        }


@dataclass(frozen=True, slots=True)
class BaselineVerdict:
    """A run compared with its ``--baseline``, as the run's verdict line says it."""

    label: str  # the baseline as given (``@branch:main``, a result file), escaped
    regressed: bool
    counts: str  # :func:`change_counts`

    @classmethod
    def of(cls, label: str, diff: ResultDiff) -> BaselineVerdict:
        """The verdict of ``diff`` against the baseline called ``label``."""
        return cls(escape_control(label), diff.regressed, change_counts(diff))


CaseKey = tuple[str, str]
MetricKey = tuple[str, str, str]


# The place of a case whose runs are still being read (replaced before snapshot returns).
_WAITING = Side(EvalStatus.NOT_EVALUATED, None)
_NOT_EVALUATED = EvalStatus.NOT_EVALUATED


@dataclass(slots=True)
class Snapshot:
    """Sides of every case and case metric of one set of results."""

    cases: dict[CaseKey, Side] = field(default_factory=dict)
    metrics: dict[MetricKey, Side] = field(default_factory=dict)
    # The evalSetIds whose results are ``partial``: their missing cases were never scored.
    partial: set[str] = field(default_factory=set)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


# One run of a case as diff reads it: its record (statuses, metric scores) and case score
# (None when the file holds none: trpc-agent-go writes no case score, which is not a 0).
_Run = tuple[RunRecord, float | None]


def _metric_sides(runs: Sequence[_Run]) -> Iterator[tuple[str, Side]]:
    if len(runs) == 1:
        for metric in runs[0][0].metrics:
            evaluated = metric.eval_status is not EvalStatus.NOT_EVALUATED
            score = metric.score if evaluated else None
            yield metric.metric_name, Side(metric.eval_status, score, metric.threshold)
        return
    results = [m for record, _ in runs for m in record.metrics]
    for summary in metric_summaries(results):
        evaluated = summary.eval_status is not EvalStatus.NOT_EVALUATED
        score = summary.average_score if evaluated else None
        yield summary.metric_name, Side(summary.eval_status, score, summary.threshold)


def _add_case(
    shot: Snapshot,
    eval_set_id: str,
    eval_id: str,
    runs: list[_Run],
    incomplete: bool = False,
    custom_aggregator: bool = False,
) -> None:
    """A case's side and its metrics' sides (its status as case_statuses gives it;
    not_evaluated when ``incomplete``, which an average over the other runs would hide)."""
    runs.sort(key=lambda run: run[0].run_id)
    records = [record for record, _ in runs]
    status = (
        _NOT_EVALUATED if incomplete else case_status(records, custom_aggregator=custom_aggregator)
    )
    scores = [
        score
        for record, score in runs
        if score is not None and record.final_eval_status is not _NOT_EVALUATED
    ]
    shot.cases[(eval_set_id, eval_id)] = Side(status, _mean(scores))
    for name, side in _metric_sides(runs):
        shot.metrics[(eval_set_id, eval_id, name)] = side


def snapshot(
    results: Sequence[EvalSetResult | CaseSource], problems: list[Problem] | None = None
) -> Snapshot:
    """Case and metric sides of a set of results (results sharing an evalSetId are joined).

    Cases are read one at a time: a case seen once is reduced to its sides at once, the
    runs of a case seen several times (``--num-runs``) are kept as compact records
    until its eval set is read.  ``problems``: see :meth:`CaseSource.cases`.
    """
    sources = [HeldResult(r) if isinstance(r, EvalSetResult) else r for r in results]
    by_set: dict[str, list[CaseSource]] = {}
    for source in sources:
        by_set.setdefault(source.head.eval_set_id, []).append(source)
    shot = Snapshot()
    for eval_set_id, members in by_set.items():
        seen = Counter(eval_id for member in members for eval_id in member.eval_ids)
        # INCOMPLETE by the one rule (aggregation.incomplete_ids): judgeFailures, then any
        # case with a metric not evaluated in some run, found as its runs are read.
        incomplete = {i for m in members for i in incomplete_ids(m.head.judge_failures, ())}
        custom = any(uses_custom_aggregator(member.head) for member in members)
        if any(member.head.partial for member in members):
            shot.partial.add(eval_set_id)
        waiting: dict[str, list[_Run]] = {}
        for member in members:
            for case in member.cases(problems):
                key = (eval_set_id, case.eval_id)
                score = case.score if "score" in case.model_fields_set else None
                run = (run_record(case, 0), score)
                if any_not_evaluated(case):
                    incomplete.add(case.eval_id)
                if seen[case.eval_id] <= 1 and key not in shot.cases:
                    _add_case(shot, eval_set_id, case.eval_id, [run], case.eval_id in incomplete)
                    continue
                if key not in shot.cases:
                    shot.cases[key] = _WAITING  # keeps the case's place (first appearance)
                waiting.setdefault(case.eval_id, []).append(run)
        for eval_id, runs in waiting.items():
            _add_case(shot, eval_set_id, eval_id, runs, eval_id in incomplete, custom)
    return shot


def _arrow(before: float | None, after: float | None) -> str:
    return f"{format_score(before or 0.0)} → {format_score(after or 0.0)}"


def _compare(base: Side, new: Side, tolerance: float) -> tuple[ChangeKind | None, list[str]]:
    worse: list[str] = []
    better: list[str] = []
    notes: list[str] = []
    if base.status is not new.status:
        flip = f"status {base.status.value} → {new.status.value}"
        base_rank, new_rank = _RANK.get(base.status, 1), _RANK.get(new.status, 1)
        if new_rank < base_rank:
            worse.append(flip)
        elif new.status is EvalStatus.NOT_EVALUATED:
            notes.append(flip)
        else:
            better.append(flip)
    if base.score is not None and new.score is not None:
        delta = new.score - base.score
        moved = f"score {format_score(base.score)} → {format_score(new.score)}"
        if -delta > tolerance + _EPSILON:
            worse.append(f"{moved} (−{format_score(-delta)})")
        elif delta > tolerance + _EPSILON:
            better.append(f"{moved} (+{format_score(delta)})")
    moved_threshold = (
        base.threshold is not None
        and new.threshold is not None
        and abs(base.threshold - new.threshold) > _EPSILON
    )
    if moved_threshold:
        notes.append(f"threshold {_arrow(base.threshold, new.threshold)}")
    if worse:
        return ChangeKind.REGRESSED, worse + better + notes
    if better:
        return ChangeKind.IMPROVED, better + notes
    return (ChangeKind.CHANGED, notes) if notes else (None, [])


def _change(
    key: tuple[str, ...],
    base: Side | None,
    new: Side | None,
    tolerance: float,
    missing_is_regression: bool,
    unscored_in: str | None = None,
) -> Change | None:
    """``unscored_in``: the side (BASE, NEW) whose run did not finish, if any: a case
    missing from it was never scored there, so it neither appeared nor disappeared."""
    eval_set_id, eval_id = key[0], key[1]
    metric = key[2] if len(key) > 2 else None
    if (base is None) is not (new is None) and unscored_in is not None:
        kind, reasons = ChangeKind.UNSCORED, [f"not scored in {unscored_in} (interrupted)"]
    elif base is None and new is not None:
        kind, reasons = ChangeKind.APPEARED, [f"new, {new.label()}"]
    elif new is None and base is not None:
        kind, reasons = ChangeKind.DISAPPEARED, [f"missing, was {base.label()}"]
    elif base is not None and new is not None:
        found, reasons = _compare(base, new, tolerance)
        if found is None:
            return None
        kind = found
    else:
        return None
    regression = kind is ChangeKind.REGRESSED or (
        kind is ChangeKind.DISAPPEARED and missing_is_regression
    )
    return Change(eval_set_id, eval_id, metric, kind, regression, base, new, tuple(reasons))


def _unscored_in(
    key: CaseKey, before: Side | None, after: Side | None, old: Snapshot, new: Snapshot
) -> str | None:
    """The side a case is missing from when that side's eval set is partial, else None."""
    if before is None and key[0] in old.partial:
        return "BASE"
    if after is None and key[0] in new.partial:
        return "NEW"
    return None


def diff_results(
    base: Sequence[EvalSetResult | CaseSource],
    new: Sequence[EvalSetResult | CaseSource],
    tolerance: float = 0.0,
    *,
    missing_is_regression: bool = True,
    problems: list[Problem] | None = None,
) -> ResultDiff:
    """Compare BASE and NEW results per case and per case metric (rules in the module docstring).

    Results are read case by case (:func:`snapshot`); ``problems``: see
    :meth:`CaseSource.cases`.
    """
    if not math.isfinite(tolerance) or tolerance < 0:
        raise ValueError(f"tolerance must be a finite number >= 0, got {tolerance}")
    old_shot, new_shot = snapshot(base, problems), snapshot(new, problems)
    diff = ResultDiff(tolerance=tolerance)
    diff.partial = {"base": bool(old_shot.partial), "new": bool(new_shot.partial)}
    metrics_of: dict[CaseKey, list[MetricKey]] = {}
    for shot in (new_shot, old_shot):
        for metric_key in shot.metrics:
            names = metrics_of.setdefault((metric_key[0], metric_key[1]), [])
            if metric_key not in names:
                names.append(metric_key)
    found: list[Change] = []
    case_keys = [*new_shot.cases, *(k for k in old_shot.cases if k not in new_shot.cases)]
    for case_key in case_keys:
        before, after = old_shot.cases.get(case_key), new_shot.cases.get(case_key)
        unscored_in = _unscored_in(case_key, before, after, old_shot, new_shot)
        change = _change(case_key, before, after, tolerance, missing_is_regression, unscored_in)
        if change is not None:
            found.append(change)
        if before is None or after is None:
            continue  # the whole case came or went: listed once, not again per metric
        diff.compared_cases += 1
        for metric_key in metrics_of.get(case_key, []):
            old_metric, new_metric = (
                old_shot.metrics.get(metric_key),
                new_shot.metrics.get(metric_key),
            )
            if old_metric is not None and new_metric is not None:
                diff.compared_metrics += 1
            change = _change(metric_key, old_metric, new_metric, tolerance, missing_is_regression)
            if change is not None:
                found.append(change)
    # Stable sort: within a kind, NEW's case order (then BASE-only cases), a case before its metrics.
    diff.changes = sorted(found, key=lambda c: _KIND_ORDER[c.kind])
    return diff


def render_diff(console: Console, diff: ResultDiff) -> None:
    """Print the verdict line and a table of every change, regressions first."""
    render_changes(console, diff)
    render_partial(console, diff)
    if diff.incomplete:  # a side cut short: never a clean verdict, whatever was compared
        verdict = status_text(EvalStatus.INCOMPLETE, upper=True)
    else:
        verdict = Text("REGRESSED" if diff.regressed else "NO REGRESSION")
        verdict.stylize("red" if diff.regressed else "green")
    verdict.stylize("bold")
    verdict.append(f": {change_counts(diff)}")
    verdict.append(f" · {compared_text(diff)}", style="dim")
    console.print(verdict)


def render_partial(console: Console, diff: ResultDiff) -> None:
    """``NEW is partial (interrupted): 10 cases not scored``: a line per side cut short,
    counting the cases the other side holds that it did not score."""
    not_scored = diff.not_scored()
    for side, partial in diff.partial.items():
        if partial:
            missing = counted(not_scored[side], "case")
            line = f"{side.upper()} is partial (interrupted): {missing} not scored"
            console.print(line, style="yellow", markup=False, highlight=False)


def change_counts(diff: ResultDiff) -> str:
    """``2 regressions, 1 improved``: the regressions always, the other kinds when any."""
    counts = diff.counts()
    parts = [counted(counts["regressions"], "regression")]
    kinds = (ChangeKind.IMPROVED, ChangeKind.APPEARED, ChangeKind.DISAPPEARED, ChangeKind.UNSCORED)
    parts += [f"{counts[kind.value]} {kind.value}" for kind in kinds if counts[kind.value]]
    return ", ".join(parts)


def compared_text(diff: ResultDiff) -> str:
    """``3 cases and 6 metrics compared · tolerance 0``."""
    return (
        f"{counted(diff.compared_cases, 'case')} and {counted(diff.compared_metrics, 'metric')}"
        f" compared · tolerance {format_score(diff.tolerance)}"
    )


def render_changes(console: Console, diff: ResultDiff) -> None:
    """Print the table of every change, regressions first (nothing when nothing changed)."""
    if not diff.changes:
        return
    names = ("change", "eval set", "case", "metric")
    table = CellTable(
        [Column(name, "left", key=True, labelled=False) for name in names]
        + [Column("base", "left"), Column("new", "left"), Column("why", "left", prose=True)]
    )
    for change in diff.changes:
        table.add_row(
            Text(change.kind.value, style=_KIND_STYLES[change.kind]),
            Text(escape_control(change.eval_set_id)),
            Text(escape_control(change.eval_id)),
            Text(
                escape_control(change.metric_name or "(case)"),
                style="" if change.metric_name else "dim",
            ),
            _side_text(change.base),
            _side_text(change.new),
            Text(escape_control("; ".join(change.reasons))),
        )
    console.print(table)


def _side_text(side: Side | None) -> Text:
    if side is None:
        return Text("—", style="dim")
    return Text(side.label(), style=STATUS_STYLES.get(side.status, ""))


__all__ = [
    "BaselineVerdict",
    "Change",
    "ChangeKind",
    "ResultDiff",
    "Side",
    "Snapshot",
    "change_counts",
    "compared_text",
    "diff_results",
    "render_changes",
    "render_diff",
    "render_partial",
    "snapshot",
]
