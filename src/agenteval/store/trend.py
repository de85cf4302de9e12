"""``agenteval trend``: how each metric moved over the last N runs, and which cases flap.

Over the last N finished logical runs (``--last``, default 20; ``--branch``,
``--evalset`` narrow them, ``--metric`` narrows the series):

* per (eval set, metric) the average per run, its change points
  (:mod:`agenteval.store.changepoints`) and, at each, the run, its commit and what
  changed in its configuration: the metric's hash, the eval set's, the threshold,
  agenteval's version (a run where the configuration changed is always a change point,
  shift or not; new traces are what is evaluated, not a configuration change);
* per case its outcome in each run, its verdict — stable pass, flaky, stable fail
  (:mod:`agenteval.results.flakiness`) over the runs where it was decided (passed or failed;
  incomplete and not-run don't count), every repeat of a ``--num-runs N`` run counted —
  with the pass rate's Wilson interval and the runs where it flipped; flaky cases first.

Tested in tests/store/test_trend.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from agenteval.errors import ConfigError, Problem
from agenteval.report.json_keys import camel_fields
from agenteval.results.flakiness import CaseVerdict, Verdict, order_key, verdict_of
from agenteval.store.changepoints import change_points, segment_means
from agenteval.store.history import iso
from agenteval.store.queries import (
    LogicalRun,
    MetricPoint,
    case_outcomes,
    case_repeats,
    logical_runs,
    metric_points,
)

DEFAULT_LAST = 20
# A case's status letter in a run (queries.case_outcomes) → its outcome: passed, failed, or
# None (incomplete, not evaluated, not run).
_DECIDED = {"p": True, "f": False}


@dataclass(frozen=True, slots=True)
class TrendFilters:
    """What ``trend`` looks at."""

    metric: str | None = None
    eval_set: str | None = None
    branch: str | None = None
    last: int = DEFAULT_LAST


@dataclass(frozen=True, slots=True)
class ChangePoint:
    """Where a series shifts (or its inputs changed): the run, its commit, what changed."""

    index: int
    run_id: str
    commit: str | None
    before: float
    after: float
    shift: bool
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The change point as JSON."""
        return {
            **camel_fields(self, "run_id", "index", "commit", "before", "after", "shift"),
            "changed": list(self.reasons),
        }


@dataclass(slots=True)
class MetricSeries:
    """One (eval set, metric): its average per run (None where it was not scored)."""

    eval_set_id: str
    metric_name: str
    points: list[MetricPoint | None]
    change_points: list[ChangePoint] = field(default_factory=list)

    @property
    def values(self) -> list[float | None]:
        """The averages, run by run."""
        return [point.average if point is not None else None for point in self.points]

    def to_json(self) -> dict[str, Any]:
        """The series as JSON."""
        thresholds = [p.threshold for p in self.points if p is not None]
        return {
            **camel_fields(self, "eval_set_id", "metric_name"),
            "threshold": thresholds[-1] if thresholds else None,
            "averages": self.values,
            "changePoints": [point.to_json() for point in self.change_points],
        }


@dataclass(frozen=True, slots=True)
class CaseTrend:
    """One case over the runs: its outcome in each, its verdict, the runs where it flipped."""

    eval_set_id: str
    eval_id: str
    outcomes: tuple[bool | None, ...]
    verdict: CaseVerdict
    flip_runs: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The case as JSON (outcomes: ``"pass"``, ``"fail"`` or null per run)."""
        return {
            **camel_fields(self, "eval_set_id", "eval_id"),
            **self.verdict.to_json(),
            "outcomes": [None if o is None else ("pass" if o else "fail") for o in self.outcomes],
            "flippedIn": list(self.flip_runs),
        }


@dataclass(slots=True)
class Trend:
    """Everything ``trend`` shows."""

    runs: list[LogicalRun]
    series: list[MetricSeries]
    cases: list[CaseTrend]

    def verdict_counts(self) -> dict[str, int]:
        """How many cases got each verdict."""
        # Never incomplete: a run where the case was incomplete is undecided in a history.
        counts = {verdict.value: 0 for verdict in Verdict if verdict is not Verdict.INCOMPLETE}
        for case in self.cases:
            counts[case.verdict.verdict.value] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """``trend --json``."""
        return {**self._head_json(), "cases": [case.to_json() for case in self.cases]}

    def _head_json(self) -> dict[str, Any]:
        return {
            "runs": [
                {
                    "runId": run.id,
                    "startedAt": iso(run.started_at),
                    "branch": run.first.branch,
                    "commit": run.first.commit,
                    "configHash": run.first.config_hash,
                    "agentevalVersion": run.first.agenteval_version,
                }
                for run in self.runs
            ],
            "metrics": [series.to_json() for series in self.series],
            "verdicts": self.verdict_counts(),
        }

    def json_text(self) -> str:
        """``trend --json`` as printed: ``json.dumps(self.to_json(), indent=2,
        ensure_ascii=False)``, character for character, in a fraction of its time.

        The standard library indents in Python, value by value: over 10,000 cases of 50
        runs that took 0.35-0.55 s of CPU (building the dicts, then encoding).  Here
        ``json.dumps`` still writes every piece, but a case's verdict, outcomes and flips
        are written once per distinct line of outcomes (most cases share theirs) and only
        its two ids per case; the pieces are joined the way the indenting encoder joins
        them (a value nested ``d`` levels deep is its own text with each line break
        followed by ``2 * d`` more spaces): 0.06 s (bench/run_store.py's history).
        """
        if not self.cases:
            return _dumps(self.to_json())
        tails: dict[tuple[Any, ...], str] = {}
        texts = []
        for case in self.cases:
            key = (case.verdict, case.outcomes, case.flip_runs)
            tail = tails.get(key)
            if tail is None:
                whole = case.to_json()
                del whole["evalSetId"], whole["evalId"]
                # The keys after the two ids, at a case's depth in the document (2).
                tail = tails[key] = _dumps(whole)[2:-2].replace("\n", "\n    ")
            texts.append(
                f'{{\n      "evalSetId": {_dumps(case.eval_set_id)},\n'
                f'      "evalId": {_dumps(case.eval_id)},\n    {tail}\n    }}'
            )
        head = _dumps(self._head_json())
        return head[:-2] + ',\n  "cases": [\n    ' + ",\n    ".join(texts) + "\n  ]\n}"


# json.dumps(value, indent=2, ensure_ascii=False), without making an encoder per call.
_dumps = json.JSONEncoder(indent=2, ensure_ascii=False).encode


def _short(value: str | None) -> str:
    if value is None:
        return "none"
    return value.removeprefix("sha256:")[:12]


def _what_changed(
    before: MetricPoint, after: MetricPoint, run_before: LogicalRun, run_after: LogicalRun
) -> list[str]:
    reasons = []
    if before.metric_hash != after.metric_hash:
        reasons.append(f"metric config {_short(before.metric_hash)} → {_short(after.metric_hash)}")
    if before.evalset_hash != after.evalset_hash:
        reasons.append(f"eval set {_short(before.evalset_hash)} → {_short(after.evalset_hash)}")
    if before.threshold != after.threshold and before.metric_hash == after.metric_hash:
        reasons.append(f"threshold {before.threshold:g} → {after.threshold:g}")
    old, new = run_before.first.agenteval_version, run_after.first.agenteval_version
    if old != new:
        reasons.append(f"agenteval {old} → {new}")
    return reasons


def _change_points(series: MetricSeries, runs: Sequence[LogicalRun]) -> list[ChangePoint]:
    present = [
        (i, p) for i, p in enumerate(series.points) if p is not None and p.average is not None
    ]
    if len(present) < 2:
        return []
    values = [p.average for _, p in present if p.average is not None]
    shifts = set(change_points(values))
    config = {
        k
        for k in range(1, len(present))
        if _what_changed(
            present[k - 1][1], present[k][1], runs[present[k - 1][0]], runs[present[k][0]]
        )
    }
    splits = sorted(shifts | config)
    means = segment_means(values, splits)
    found = []
    for n, k in enumerate(splits):
        index, point = present[k]
        before_index, before_point = present[k - 1]
        run = runs[index]
        found.append(
            ChangePoint(
                index=index,
                run_id=run.id,
                commit=run.first.commit,
                before=means[n],
                after=means[n + 1],
                shift=k in shifts,
                reasons=tuple(_what_changed(before_point, point, runs[before_index], run)),
            )
        )
    return found


def trend_runs(conn: Connection, filters: TrendFilters) -> list[LogicalRun]:
    """The last ``filters.last`` finished logical runs that ``filters`` keep, oldest first."""
    kept = [
        run
        for run in logical_runs(conn)
        if run.state == "finished"
        and (filters.branch is None or run.first.branch == filters.branch)
        and (filters.eval_set is None or filters.eval_set in run.eval_set_ids)
    ]
    return kept[-filters.last :] if filters.last else kept


def trend(conn: Connection, filters: TrendFilters) -> Trend:
    """The trend of the runs ``filters`` select (module docstring)."""
    runs = trend_runs(conn, filters)
    series = []
    names: set[str] = set()
    for (eval_set_id, metric_name), points in metric_points(conn, runs).items():
        if filters.eval_set is not None and eval_set_id != filters.eval_set:
            continue
        names.add(metric_name)
        if filters.metric is not None and metric_name != filters.metric:
            continue
        line = MetricSeries(eval_set_id, metric_name, points)
        line.change_points = _change_points(line, runs)
        series.append(line)
    if filters.metric is not None and runs and not series:
        _no_such_metric(filters.metric, names)
    cases = []
    repeats = case_repeats(conn, runs, filters.eval_set)
    # Most cases share their line of statuses (every run passed): each line is judged once.
    judged: dict[tuple[str, Repeats], _Judged] = {}
    for (eval_set_id, eval_id), letters in case_outcomes(conn, runs, filters.eval_set).items():
        own = repeats.get((eval_set_id, eval_id), {})
        shape = letters, tuple(sorted(own.items()))
        found = judged.get(shape)
        if found is None:
            found = judged[shape] = _judged(letters, own, runs)
        cases.append(CaseTrend(eval_set_id, eval_id, *found))
    cases.sort(key=lambda case: order_key((case.eval_set_id, case.eval_id), case.verdict))
    return Trend(runs, series, cases)


def _no_such_metric(metric: str, names: set[str]) -> None:
    """``--metric`` naming no metric of the runs is an error, as ``run --metric`` is: a typo
    printed the cases without a word about the series that was asked for (exit 0)."""
    known = ", ".join(sorted(names)) or "none"
    raise ConfigError(
        [Problem("--metric", "", f"{metric!r} matches no metric of these runs", f"known: {known}")]
    )


# A case's repeats per run index (queries.case_repeats), as a hashable line.
Repeats = tuple[tuple[int, str], ...]
_Judged = tuple[tuple[bool | None, ...], CaseVerdict, tuple[str, ...]]


def _judged(letters: str, repeats: dict[int, str], runs: Sequence[LogicalRun]) -> _Judged:
    """A case's outcome per run, its verdict and the runs where it flipped.

    The verdict counts every repeat of a ``--num-runs N`` run where the case was decided
    (results.flakiness: one rule for repeats and stored runs): a case passing 1 of 2
    repeats in each of two runs is flaky 2/4, not a stable fail of its two failed runs.
    """
    sequence: list[bool | None] = []
    run_at: list[int] = []
    for index, letter in enumerate(letters):
        decided = _DECIDED.get(letter)
        each = [_DECIDED.get(one) for one in repeats.get(index, "")] if decided is not None else []
        for outcome in each or [decided]:
            sequence.append(outcome)
            run_at.append(index)
    verdict = verdict_of(sequence)
    flipped = dict.fromkeys(runs[run_at[position]].id for position in verdict.flips)
    return tuple(map(_DECIDED.get, letters)), verdict, tuple(flipped)


__all__ = [
    "DEFAULT_LAST",
    "CaseTrend",
    "ChangePoint",
    "MetricSeries",
    "Trend",
    "TrendFilters",
    "trend",
    "trend_runs",
]
