"""Incremental scoring for ``run --watch``: only the (case, metric) pairs whose inputs changed.

A pair's inputs are hashed: the case as parsed (its turns, rubrics, session input), its
``--traces`` turns, the metric as resolved (criterion, threshold, judge settings after
``${VAR}`` expansion) and the content of every ``--plugin`` file (a plugin may change
any evaluator).  A pass re-scores the pairs whose hash is new, grouped by metric (one
single-metric plan per metric, holding just the cases to re-score), and keeps the
others' results from the previous pass; the cases are then put back together in file
and metric order and aggregated as the runner aggregates them, so a pass's results are
the results a full run would give.  Judge replies come from the judge cache.

A pair left not evaluated or incomplete (a judge that could not be reached, for all its
turns or one) is never kept: it is scored again on the next pass.

Tested in tests/watch/test_pairs.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agenteval import api
from agenteval.errors import Problem
from agenteval.results.aggregation import run_outcome
from agenteval.run.runner import EvalSetPlan, aggregate_case
from agenteval.schema.evalset import EvalCase, Invocation
from agenteval.schema.result import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval.schema.status import EvalStatus

# (evalSetId, evalId, metricName)
PairKey = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class PairResult:
    """One metric's part of one case's result (or the case's error, for every metric)."""

    digest: str
    case: EvalCaseResult  # the single-metric case result it was cut from
    # Its run left the case INCOMPLETE (an evaluator that raised, a judge that failed).
    incomplete: bool = False

    @property
    def overall(self) -> EvalMetricResult | None:
        """The metric's overall result (None when the case failed before scoring)."""
        results = self.case.overall_eval_metric_results or []
        return results[0] if results else None

    @property
    def status(self) -> EvalStatus:
        """The metric's status; a case error counts as failed."""
        overall = self.overall
        return overall.eval_status if overall is not None else EvalStatus.FAILED


@dataclass(slots=True)
class PassOutcome:
    """One pass: the whole results, what was re-scored, judge use and the warnings."""

    results: list[EvalSetResult]
    pairs: dict[PairKey, PairResult]
    rescored: list[PairKey]
    kept: int
    judge_usage: dict[str, object] | None
    judge_failures: list[str]
    warnings: list[Problem] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """What ``run`` would exit with for these results."""
        if self.judge_failures or any(result.judge_failures for result in self.results):
            return api.EXIT_INCOMPLETE
        statuses = [
            case.final_eval_status for result in self.results for case in result.case_results()
        ]
        if all(status is EvalStatus.PASSED for status in statuses):
            return api.EXIT_PASSED
        return api.EXIT_FAILED


class _Cases:
    """A result sink that keeps each eval set's cases and head, without a file summary.

    The summary (aggregation.build_summary) is what result files need; a pass only
    prints, and the console tallies the cases itself.  Building it twice per pass cost
    more than the scoring saved (bench/watch_pass.py).
    """

    def __init__(self) -> None:
        self.results: list[EvalSetResult] = []
        self._cases: list[EvalCaseResult] = []

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        self._cases = []

    def add(self, case: EvalCaseResult) -> None:
        self._cases.append(case)

    def end_set(self, head: EvalSetResult) -> None:
        self.results.append(head.model_copy(update={"eval_case_results": self._cases}))
        self._cases = []

    def overall_status(self) -> EvalStatus:
        statuses = [case.final_eval_status for r in self.results for case in r.case_results()]
        return run_outcome(statuses).status  # the one status rule


def _digest(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(len(part).to_bytes(8, "big"))
        hasher.update(part)
    return hasher.hexdigest()


def plugin_digest(plugins: Sequence[str]) -> bytes:
    """The content of every ``--plugin`` file, hashed (module names hash as their names)."""
    parts: list[bytes] = []
    for spec in plugins:
        path = Path(spec)
        if spec.endswith(".py") or "/" in spec:
            try:
                parts.append(path.read_bytes())
            except OSError:
                parts.append(b"<unreadable>")
        else:
            parts.append(spec.encode())
    return _digest(*parts).encode()


def case_digest(case: EvalCase, traces: Mapping[str, list[Invocation]] | None) -> bytes:
    """The case's inputs: the case as parsed and its ``--traces`` turns."""
    turns = (traces or {}).get(case.eval_id)
    traced = b"".join(turn.model_dump_json(by_alias=True).encode() for turn in turns or [])
    return _digest(case.model_dump_json(by_alias=True).encode(), traced).encode()


def pair_digests(
    prepared: api.Prepared, plugins: Sequence[str]
) -> dict[PairKey, tuple[str, EvalSetPlan]]:
    """Every pair of the prepared run with the hash of its inputs (and its plan)."""
    shared = plugin_digest(plugins)
    found: dict[PairKey, tuple[str, EvalSetPlan]] = {}
    for plan in prepared.plans:
        metrics = [
            (p.metric.metric_name, p.metric.model_dump_json(by_alias=True).encode())
            for p in plan.metrics
        ]
        for case in plan.cases:
            of_case = case_digest(case, prepared.traces)
            for name, metric in metrics:
                digest = _digest(shared, of_case, metric)
                found[(plan.eval_set_id, case.eval_id, name)] = (digest, plan)
    return found


def _subplans(stale: Sequence[PairKey], prepared: api.Prepared) -> list[EvalSetPlan]:
    """One single-metric plan per (eval set, metric) with the cases to re-score."""
    grouped: dict[tuple[str, str], set[str]] = {}
    for set_id, eval_id, metric in stale:
        grouped.setdefault((set_id, metric), set()).add(eval_id)
    by_id = {plan.eval_set_id: plan for plan in prepared.plans}
    plans: list[EvalSetPlan] = []
    for (set_id, metric), ids in grouped.items():
        plan = by_id[set_id]
        planned = [p for p in plan.metrics if p.metric.metric_name == metric]
        cases = plan.cases.where(ids.__contains__)
        plans.append(dataclasses.replace(plan, metrics=planned, cases=cases))
    return plans


def _combined_case(
    plan: EvalSetPlan,
    case: EvalCase,
    parts: list[PairResult],
    prepared: api.Prepared,
) -> tuple[EvalCaseResult, bool]:
    """One case's result from its metrics' parts, aggregated as the runner aggregates, and
    whether the case aggregator failed to give a verdict (the case is then incomplete)."""
    failed = next((p.case for p in parts if p.overall is None), None)
    if failed is not None or not parts:
        return (failed if failed is not None else _no_metric_case(plan, case)), False
    base = parts[0].case
    overall = [part.overall for part in parts if part.overall is not None]
    turns = []
    for index, turn in enumerate(base.eval_metric_result_per_invocation or []):
        results = [
            result
            for part in parts
            for result in (
                (part.case.eval_metric_result_per_invocation or [])[index].eval_metric_results or []
            )
        ]
        turns.append(turn.model_copy(update={"eval_metric_results": results or None}))
    metrics = [p.metric for p in plan.metrics]
    score, status, problem = aggregate_case(case, metrics, overall, prepared.case_aggregator)
    update: dict[str, object] = {
        "score": score,
        "final_eval_status": status,
        "overall_eval_metric_results": overall,
        "eval_metric_result_per_invocation": turns or None,
    }
    if problem:  # as in a run: the error, and the metric results kept
        update["error_message"] = problem
    return base.model_copy(update=update), bool(problem)


def _no_metric_case(plan: EvalSetPlan, case: EvalCase) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id=plan.eval_set_id,
        eval_id=case.eval_id,
        run_id=1,
        final_eval_status=EvalStatus.NOT_EVALUATED,
    )


def score_pass(
    prepared: api.Prepared,
    options: api.Options,
    previous: Mapping[PairKey, PairResult],
) -> PassOutcome:
    """Score the pairs of ``prepared`` whose inputs changed since ``previous``; keep the rest."""
    digests = pair_digests(prepared, options.plugins)
    # A pair left incomplete (one turn's judge call failed) is scored again like one left
    # not evaluated: kept, it stayed incomplete until its inputs changed.
    stale = [
        key
        for key, (digest, _) in digests.items()
        if key not in previous
        or previous[key].digest != digest
        or previous[key].incomplete
        or previous[key].status is EvalStatus.NOT_EVALUATED
    ]
    sink = _Cases()
    judge = api.JudgeOutcome()
    subplans = _subplans(stale, prepared)
    if subplans:
        part = dataclasses.replace(prepared, plans=subplans, case_aggregator=None)
        asyncio.run(api.stream_prepared(part, options, sink, judge))
    fresh: dict[PairKey, PairResult] = {}
    for plan, result in zip(subplans, sink.results, strict=True):
        (metric,) = [p.metric.metric_name for p in plan.metrics]
        failures = result.judge_failures  # a count in files older than the list
        incomplete = set(failures) if isinstance(failures, list) else set()
        for case_result in result.case_results():
            key = (plan.eval_set_id, case_result.eval_id, metric)
            fresh[key] = PairResult(digests[key][0], case_result, case_result.eval_id in incomplete)
    pairs = {key: fresh.get(key) or previous[key] for key in digests}
    results = _assemble(prepared, pairs)
    return PassOutcome(
        results=results,
        pairs=pairs,
        rescored=stale,
        kept=len(digests) - len(stale),
        judge_usage=judge.usage,
        judge_failures=judge.failures,
        warnings=list(prepared.warnings),
    )


def _assemble(prepared: api.Prepared, pairs: Mapping[PairKey, PairResult]) -> list[EvalSetResult]:
    """The eval sets' results in file order, each case put back together from its pairs."""
    sink = _Cases()
    for plan in prepared.plans:
        sink.begin_set(plan.eval_set_id, 1)
        names = [p.metric.metric_name for p in plan.metrics]
        incomplete: list[str] = []
        for case in plan.cases:
            parts = [pairs[(plan.eval_set_id, case.eval_id, name)] for name in names]
            combined, undecided = _combined_case(plan, case, parts, prepared)
            if undecided or any(part.incomplete for part in parts):
                incomplete.append(case.eval_id)
            sink.add(combined)
        head = EvalSetResult(eval_set_id=plan.eval_set_id, fingerprint=plan.fingerprint)
        # The INCOMPLETE cases, where a run's result keeps them (the console reads them).
        head.judge_failures = incomplete or None
        sink.end_set(head)
    return sink.results


__all__ = ["PairKey", "PairResult", "PassOutcome", "case_digest", "pair_digests", "score_pass"]
