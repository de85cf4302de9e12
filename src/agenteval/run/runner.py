"""Plan and run the evaluation: cases × metrics × runs → result objects (formats.md §4, §6)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from agenteval.evaluators.base import (
    EvalContext,
    EvaluateResult,
    Evaluator,
    EvaluatorError,
    raised_text,
    score_case,
)
from agenteval.evaluators.registry import CaseAggregator
from agenteval.inputs.lazy_cases import PlannedCases
from agenteval.judge.stop_refusals import count_refusals
from agenteval.results.agent_usage import AGENT_USAGE_KEY, case_agent_usage
from agenteval.results.aggregation import CASE_USAGE_KEY, build_summary, default_case_aggregate
from agenteval.results.merging import MergedSet, case_ranks
from agenteval.schema.base import builder
from agenteval.schema.case_rubrics import (
    CaseRubricError,
    case_rubric_index,
    effective_rubrics,
    with_rubrics,
)
from agenteval.schema.evalset import EvalCase, Invocation
from agenteval.schema.metric import EvalMetric, Rubric
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    Fingerprint,
    MetricDetails,
    RubricScore,
    set_extra,
)
from agenteval.schema.status import EvalStatus
from agenteval.schema.turns import (
    CaseLayoutError,
    FailedRun,
    RecordedIncomplete,
    case_turns,
    run_trace_key,
)

if TYPE_CHECKING:
    from agenteval.agents.driver import AgentDriver, PendingRecord
    from agenteval.judge.session import JudgeSession
    from agenteval.judge.usage import Usage


@dataclass(slots=True)
class PlannedMetric:
    """A metric to run with its resolved evaluator."""

    metric: EvalMetric
    evaluator: Evaluator


@dataclass(slots=True)
class EvalSetPlan:
    """One eval set with the metrics to run on it."""

    path: Path
    eval_set_id: str
    # The cases to score (--case and --shard applied), built anew on each pass: len() and iter().
    cases: PlannedCases
    metrics: list[PlannedMetric]
    # Every metric of the file, skipped ones included: case rubrics are validated against them.
    all_metrics: list[EvalMetric]
    metrics_path: Path | None = None
    # What the results are scored on (eval set, metrics, traces, shard), written with them.
    fingerprint: Fingerprint | None = None

    @property
    def case_ids(self) -> Sequence[str]:
        """Every evalId of the eval set file in order, selected or not (--resume's order)."""
        return self.cases.ids


class StopSignal:
    """Set by a signal handler: the runner starts nothing new and the judge sends nothing new.

    Two levels: ``request`` (the first signal) stops new work and lets calls in flight
    finish; ``halt`` (the second) also cancels what is in flight.  Callbacks run inside the
    signal handler: they must only hand work to the event loop (:func:`call_soon_in`).
    """

    def __init__(self) -> None:
        self.event = threading.Event()
        self.halted = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._halt_callbacks: list[Callable[[], None]] = []
        self._start_callbacks: list[Callable[[], None]] = []
        self.started = False

    def on_start(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when scoring starts (loading and file discovery are over)."""
        self._start_callbacks.append(callback)
        if self.started:
            callback()

    def start(self) -> None:
        """Scoring starts: from now on a stop keeps what finished."""
        self.started = True
        for callback in self._start_callbacks:
            callback()

    def on_stop(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the stop is requested (now, if it already was); returns
        its remover."""
        self._callbacks.append(callback)
        if self.event.is_set():
            callback()
        return lambda: _remove(self._callbacks, callback)

    def request(self) -> None:
        """Ask the run to stop; safe to call from a signal handler."""
        self.event.set()
        for callback in list(self._callbacks):
            callback()

    def on_halt(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the run is halted (now, if it was); returns its remover."""
        self._halt_callbacks.append(callback)
        if self.halted.is_set():
            callback()
        return lambda: _remove(self._halt_callbacks, callback)

    def halt(self) -> None:
        """Stop, and cancel what is in flight too; what finished is still kept."""
        if not self.event.is_set():
            self.request()
        self.halted.set()
        for callback in list(self._halt_callbacks):
            callback()


def _remove(callbacks: list[Callable[[], None]], callback: Callable[[], None]) -> None:
    with contextlib.suppress(ValueError):
        callbacks.remove(callback)


def call_soon_in(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Run ``callback`` in ``loop`` soon; from a signal handler (nothing once the loop closed)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback)


class StopFlag(Protocol):
    """What the runner reads of a stop: a ``threading.Event``, or a worker's shared flag."""

    def is_set(self) -> bool:
        """True once the run was asked to stop."""


@dataclass(slots=True)
class RunSettings:
    """Run-wide settings of the runner."""

    num_runs: int = 1
    traces: Mapping[str, list[Invocation]] | None = None
    case_aggregator: CaseAggregator | None = None
    judge: object = None
    warnings: list[str] = field(default_factory=list)
    # Set by a signal handler: start no new case; results finishing later are dropped.
    stop: StopFlag | None = None
    # The run's signals: a halt (second signal) cancels the case runs in flight.
    signals: StopSignal | None = None
    # (evalSetId, evalId, runId) already scored by an earlier, interrupted run (--resume).
    skip: frozenset[tuple[str, str, int]] = frozenset()
    # Called once per finished case run (the progress bar).
    on_case_done: Callable[[], None] | None = None
    # --agent: drives default-mode and scenario cases live (agents/driver.py).
    agent: AgentDriver | None = None
    # (evalSetId, evalId) of the case runs left unevaluated by a cause outside the case: an
    # agent that could not be started or reached, an evaluator that raised.  Incomplete, not
    # failed (the eval set's result lists them with ``judgeFailures``).
    incomplete: set[tuple[str, str]] = field(default_factory=set)
    # Case runs in flight at once on the concurrent path: results are delivered in order,
    # so a slow case holds back at most this many finished ones (memory stays bounded).
    window: int = 1024
    # What the agent's (and the judge's) model calls cost (agenteval.judge.prices.PriceTable):
    # the built-in table with --prices over it; None: the built-in table, read when needed.
    prices: Any = None

    def stopping(self) -> bool:
        """True once the run was asked to stop."""
        return self.stop is not None and self.stop.is_set()


# A case run that finished in its task: its result and the --record line it waits to write.
Finished = tuple[EvalCaseResult, "PendingRecord | None"]

# Version nibble 4 and the RFC 4122 variant bits, as uuid.UUID(version=4) sets them.
_UUID_KEEP = ~((0xF000 << 64) | (0xC000 << 48))
_UUID_V4 = (0x4000 << 64) | (0x8000 << 48)


class _Entropy:
    """``os.urandom`` read 4 KiB at a time: one system call per 256 session ids, not per id."""

    def __init__(self) -> None:
        self._data = b""
        self._at = 0

    def take16(self) -> bytes:
        """The next 16 random bytes."""
        if self._at >= len(self._data):
            self._data, self._at = os.urandom(4096), 0
        self._at += 16
        return self._data[self._at - 16 : self._at]

    def drop(self) -> None:
        """Forget what was read: a forked child must not repeat its parent's ids."""
        self._data, self._at = b"", 0


_entropy = _Entropy()
os.register_at_fork(after_in_child=_entropy.drop)


def _session_id() -> str:
    """A random version-4 UUID as text, like ``str(uuid.uuid4())`` at a third of the cost."""
    value = int.from_bytes(_entropy.take16(), "big") & _UUID_KEEP | _UUID_V4
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


# A run builds a dozen result objects per case; the core validators skip BaseModel.__init__.
_new_metric_result = builder(EvalMetricResult)
_new_details = builder(MetricDetails)
_new_turn_results = builder(EvalMetricResultPerInvocation)
_new_case_result = builder(EvalCaseResult)


def _failed_case(
    eval_set_id: str, case: EvalCase, run_id: int, session_id: str, message: str
) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id=eval_set_id,
        eval_id=case.eval_id,
        run_id=run_id,
        final_eval_status=EvalStatus.FAILED,
        error_message=message,
        session_id=session_id,
        user_id=case.session_input.user_id if case.session_input else "",
    )


def _metric_results(
    metric: EvalMetric, result: EvaluateResult
) -> tuple[EvalMetricResult, list[EvalMetricResult]]:
    name = metric.metric_name
    threshold = metric.threshold
    criterion = metric.criterion
    turns = result.turns
    per_turn = [
        _new_metric_result(
            {
                "metric_name": name,
                "score": turn.score,
                "eval_status": turn.status,
                "threshold": threshold,
                "criterion": turn.criterion or criterion,
                "details": turn.details,
            }
        )
        for turn in turns
    ]
    rubric_scores: list[RubricScore] = []
    for turn in turns:
        if turn.details.rubric_scores:
            rubric_scores.extend(turn.details.rubric_scores)
    # Go joins every turn's reason, empty ones included (formats.md §6.3).
    details = _new_details(
        {
            "reason": ";".join([t.details.reason for t in turns]),
            "score": result.score,
            "rubric_scores": rubric_scores or None,
        }
    )
    fields: dict[str, Any] = {
        "metric_name": name,
        "score": result.score,
        "eval_status": result.status,
        "threshold": threshold,
        "criterion": criterion,
        "details": details,
    }
    # Keyword arguments keep the error of an extra key that repeats a field.
    overall = (
        EvalMetricResult(**fields, **result.extra) if result.extra else _new_metric_result(fields)
    )
    return overall, per_turn


def _case_rubrics(plan: EvalSetPlan, case: EvalCase) -> dict[str, list[Rubric]]:
    """Effective rubric lists of the metrics that run (formats.md §2.8, llm-evaluators.md §7).

    A case rubric must name a metric of the file, skipped ones included; the container and
    duplicate-id checks apply only to metrics that run, as in Go's per-metric loop.
    """
    index = case_rubric_index(case, plan.all_metrics)
    if not index:
        return {}
    merged: dict[str, list[Rubric]] = {}
    for planned in plan.metrics:
        name = planned.metric.metric_name
        added = index.get(name)
        if added and name not in merged:
            merged[name] = effective_rubrics(case.eval_id, planned.metric, added)
    return merged


def _run_traces(
    traces: Mapping[str, list[Invocation]] | None, eval_id: str, run_id: int
) -> Mapping[str, list[Invocation]] | None:
    """The traces for one run: a recorded run of its own (``--num-runs`` replay) wins."""
    if traces and run_id > 1:
        own = traces.get(run_trace_key(eval_id, run_id))
        if own is not None:
            return {eval_id: own}
    return traces


async def evaluate_case(
    plan: EvalSetPlan, case: EvalCase, run_id: int, settings: RunSettings
) -> EvalCaseResult:
    """Score one case in one run; errors become a failed case result, never an exception."""
    session_id = _session_id()
    traces = _run_traces(settings.traces, case.eval_id, run_id)
    driven: list[Invocation] | None = None
    driven_expected: list[Invocation] | None = None
    agent = settings.agent
    if agent is not None and agent.wants(case, bool(traces and case.eval_id in traces)):
        from agenteval.agents.driver import AgentIncomplete, AgentRunError

        judge = cast("JudgeSession | None", settings.judge)
        try:
            driven, driven_expected = await agent.drive(case, run_id, plan.all_metrics, judge)
        except AgentRunError as exc:
            if isinstance(exc, AgentIncomplete):  # not started, or its judge failed
                settings.incomplete.add((plan.eval_set_id, case.eval_id))
            failed = _failed_case(plan.eval_set_id, case, run_id, session_id, str(exc))
            return _with_agent_usage(failed, exc.finished, settings.prices)
    try:
        actuals, expecteds = case_turns(
            case, traces, driven=driven, driven_expected=driven_expected
        )
        rubrics = _case_rubrics(plan, case)
    except (CaseLayoutError, CaseRubricError) as exc:
        if isinstance(exc, RecordedIncomplete):  # as incomplete as when it was recorded
            settings.incomplete.add((plan.eval_set_id, case.eval_id))
        failed = _failed_case(plan.eval_set_id, case, run_id, session_id, str(exc))
        recorded = traces.get(case.eval_id) if traces else None
        # A recorded agent failure: its turns cost what they cost when driven.
        finished = recorded if isinstance(recorded, FailedRun) else ()
        return _with_agent_usage(failed, finished, settings.prices)
    context = EvalContext(plan.eval_set_id, case, run_id, settings.judge, settings.prices)
    scored = await _score_metrics(plan, rubrics, actuals, expecteds, context, settings.incomplete)
    if isinstance(scored, str):
        return _failed_case(plan.eval_set_id, case, run_id, session_id, scored)
    overall_results, turn_results, ran_metrics = scored
    score, status, problem = _aggregate(
        case, ran_metrics, overall_results, settings.case_aggregator
    )
    if problem:
        # A bug in a plugin's aggregator: no verdict, so the case is incomplete (exit 3),
        # but its metric results were scored and are kept.
        settings.incomplete.add((plan.eval_set_id, case.eval_id))
    per_invocation = [
        _new_turn_results(
            {
                "actual_invocation": actual,
                "expected_invocation": expected,
                "eval_metric_results": results or None,
            }
        )
        for actual, expected, results in zip(actuals, expecteds, turn_results, strict=True)
    ]
    result = _new_case_result(
        {
            "eval_set_id": plan.eval_set_id,
            "eval_id": case.eval_id,
            "run_id": run_id,
            "score": score,
            "final_eval_status": status,
            "overall_eval_metric_results": overall_results or None,
            "eval_metric_result_per_invocation": per_invocation or None,
            "session_id": session_id,
            "user_id": case.session_input.user_id if case.session_input else "",
            **({"error_message": problem} if problem else {}),
        }
    )
    return _with_agent_usage(result, actuals, settings.prices)


def _with_agent_usage(
    result: EvalCaseResult, turns: Sequence[Invocation], prices: Any
) -> EvalCaseResult:
    """``result`` with what the agent spent on ``turns`` (an extra key Go ignores), whether
    or not a usage metric runs, and also when the case failed after some turns."""
    spent = case_agent_usage(turns, prices)
    if spent is not None:
        set_extra(result, AGENT_USAGE_KEY, spent)
    return result


Scored = tuple[list[EvalMetricResult], list[list[EvalMetricResult]], list[EvalMetric]]


async def _score_metrics(
    plan: EvalSetPlan,
    rubrics: Mapping[str, list[Rubric]],
    actuals: list[Invocation],
    expecteds: list[Invocation],
    context: EvalContext,
    incomplete: set[tuple[str, str]],
) -> Scored | str:
    """Every metric's overall and per-turn results and the metrics run, or why one failed.

    An evaluator that raises, or that says its metric could not be evaluated, leaves the
    case in ``incomplete``.
    """
    overall_results: list[EvalMetricResult] = []
    turn_results: list[list[EvalMetricResult]] = [[] for _ in actuals]
    n_turns = len(turn_results)
    ran_metrics: list[EvalMetric] = []
    for planned in plan.metrics:
        metric = planned.metric
        if rubrics and metric.metric_name in rubrics:
            metric = with_rubrics(metric, rubrics[metric.metric_name])
        evaluator = planned.evaluator
        try:
            result = await score_case(evaluator, metric, actuals, expecteds, context)
        except EvaluatorError as exc:
            return f"run evaluation for metric {metric.metric_name}: {exc}"
        if result.incomplete:  # e.g. a bug in the evaluator: this metric, not the run, is lost
            incomplete.add((plan.eval_set_id, context.case.eval_id))
        overall, per_turn = _metric_results(metric, result)
        overall_results.append(overall)
        ran_metrics.append(metric)
        for index, item in enumerate(per_turn):
            if index >= n_turns:
                break
            turn_results[index].append(item)
    return overall_results, turn_results, ran_metrics


def _aggregate(
    case: EvalCase,
    metrics: Sequence[EvalMetric],
    results: Sequence[EvalMetricResult],
    aggregator: CaseAggregator | None,
) -> tuple[float, EvalStatus, str]:
    """Case score and status; a non-empty third item is why a custom aggregator failed."""
    if aggregator is None:
        score, status = default_case_aggregate(results)
        return score, status, ""
    try:
        score, status = aggregator(case, metrics, results)
        score = float(score)
    except Exception as exc:  # a plugin's aggregator may raise anything
        return 0.0, EvalStatus.FAILED, f"case aggregator {raised_text(exc)}"
    valid = (EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED)
    if not math.isfinite(score) or status not in valid:
        return (
            0.0,
            EvalStatus.FAILED,
            (f"case aggregator returned an invalid result (score {score!r}, status {status!r})"),
        )
    return score, EvalStatus(status), ""


def aggregate_case(
    case: EvalCase,
    metrics: Sequence[EvalMetric],
    results: Sequence[EvalMetricResult],
    aggregator: CaseAggregator | None,
) -> tuple[float, EvalStatus, str]:
    """A case's score and status from its metric results, as a run aggregates them."""
    return _aggregate(case, metrics, results, aggregator)


# A case run to score: (run id, case).
Work = tuple[int, EvalCase]


def _fresh_cases(plan: EvalSetPlan, settings: RunSettings, run_id: int) -> PlannedCases:
    """The plan's cases not resumed in run ``run_id``, picked by evalId (no case is built)."""
    if not settings.skip:
        return plan.cases
    skip, eval_set_id = settings.skip, plan.eval_set_id
    return plan.cases.where(lambda eval_id: (eval_set_id, eval_id, run_id) not in skip)


def _fresh_runs(plan: EvalSetPlan, settings: RunSettings, run_id: int) -> Iterator[Work]:
    for case in _fresh_cases(plan, settings, run_id):
        yield run_id, case


def planned_runs(plan: EvalSetPlan, settings: RunSettings) -> list[tuple[int, EvalCase]]:
    """The (run id, case) pairs still to score: run 1's cases in order, then run 2's, ..."""
    return [
        pair
        for run_id in range(1, settings.num_runs + 1)
        for pair in _fresh_runs(plan, settings, run_id)
    ]


def count_planned(plan: EvalSetPlan, settings: RunSettings) -> int:
    """``len(planned_runs(...))`` without building a case."""
    runs = range(1, settings.num_runs + 1)
    return sum(len(_fresh_cases(plan, settings, run_id)) for run_id in runs)


def work_in_order(
    plan: EvalSetPlan, settings: RunSettings, resumed: MergedSet | None = None
) -> Iterator[Work | EvalCaseResult]:
    """Every case run in result-file order: run 1's cases in file order, then run 2's, ...

    Cases of ``resumed`` (an interrupted run's finished cases, read one at a time) take
    their place in that order, as :func:`agenteval.results.merging.merge_results` orders them: by
    run, then by position in the file; cases the file no longer holds come last in their
    run, by evalId.
    """
    if resumed is None:
        for run_id in range(1, settings.num_runs + 1):
            yield from _fresh_runs(plan, settings, run_id)
        return
    resumed = resumed.sorted_by(plan.case_ids)
    keys = list(resumed.case_keys())
    earlier = resumed.cases()
    rank = case_ranks(plan.case_ids, (eval_id for _, eval_id in keys))
    position = 0
    last_run = max([settings.num_runs, *(run_id for run_id, _ in keys)])
    for run_id in range(1, last_run + 1):
        fresh = _fresh_runs(plan, settings, run_id) if run_id <= settings.num_runs else iter(())
        for work in fresh:
            place = rank[work[1].eval_id]
            while position < len(keys) and keys[position][0] == run_id:
                if rank[keys[position][1]] > place:
                    break
                yield next(earlier)
                position += 1
            yield work
        while position < len(keys) and keys[position][0] == run_id:
            yield next(earlier)
            position += 1


async def stream_evalset(
    plan: EvalSetPlan,
    settings: RunSettings,
    deliver: Callable[[EvalCaseResult], None],
    resumed: MergedSet | None = None,
) -> None:
    """Score every planned case run of one eval set; hand each result to ``deliver`` in order.

    Judge metrics and driven agents run up to ``settings.window`` case runs concurrently (the
    judge client bounds the calls in flight); deterministic ones run one by one.  Results
    are delivered in result-file order (``resumed``'s finished cases at their place) and
    not kept here.  Once ``settings.stop`` is set no case starts; a case finishing
    afterwards is kept unless the stop refused one of its judge calls (then ``--resume``
    redoes it), so no judge reply already paid for is lost.
    """
    items = work_in_order(plan, settings, resumed)
    if settings.agent is not None or any(p.evaluator.is_async for p in plan.metrics):
        await _deliver_concurrently(plan, settings, items, deliver)
        return
    for item in items:
        if not isinstance(item, tuple):
            deliver(item)
        elif not settings.stopping():
            run_id, case = item
            result = await evaluate_case(plan, case, run_id, settings)
            if settings.on_case_done is not None:
                settings.on_case_done()
            deliver(result)


async def _deliver_concurrently(
    plan: EvalSetPlan,
    settings: RunSettings,
    items: Iterator[Work | EvalCaseResult],
    deliver: Callable[[EvalCaseResult], None],
) -> None:
    agent = settings.agent
    count_usage: Callable[[], Usage] | None = None
    if settings.judge is not None:
        # Imported only when a judge runs: the judge package is heavy to import.
        from agenteval.judge.usage import case_usage as count_usage

    async def one(run_id: int, case: EvalCase) -> Finished | None:
        refused = count_refusals()  # this task's own context: one counter per case
        record = agent.record_slot() if agent is not None else None  # likewise
        spent = count_usage() if count_usage is not None else None  # likewise for judge usage
        result = await evaluate_case(plan, case, run_id, settings)
        if refused.count:
            return None  # a stop refused some of its judge calls: redone by --resume
        if spent is not None and spent.active:
            # What the judge did for this case (an extra key Go readers ignore).
            set_extra(result, CASE_USAGE_KEY, spent.to_json())
        if settings.on_case_done is not None:
            settings.on_case_done()
        return result, record

    pending: deque[asyncio.Task[Finished | None] | EvalCaseResult] = deque()
    awaited: list[asyncio.Task[Finished | None]] = []  # the head, out of ``pending``

    def cancel_in_flight() -> None:
        for item in (*awaited, *pending):
            if isinstance(item, asyncio.Task):
                item.cancel()

    loop = asyncio.get_running_loop()
    remove = (
        settings.signals.on_halt(lambda: call_soon_in(loop, cancel_in_flight))
        if settings.signals is not None
        else None
    )
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < settings.window:
                item = next(items, None)
                if item is None:
                    exhausted = True
                elif not isinstance(item, tuple):
                    pending.append(item)
                elif not settings.stopping():
                    pending.append(asyncio.ensure_future(one(*item)))
            if not pending:
                return
            head = pending.popleft()
            if not isinstance(head, asyncio.Task):
                deliver(head)
                continue
            awaited.append(head)
            try:
                finished = await head
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not head.cancelled() or (current is not None and current.cancelling()):
                    raise
                continue  # cancelled by a halt: not finished, left for --resume
            finally:
                awaited.clear()
            if finished is not None:
                result, record = finished
                if record is not None and agent is not None:
                    agent.commit(record)  # the --record line first: then it counts as finished
                deliver(result)
    finally:
        if remove is not None:
            remove()
        for task in pending:
            if isinstance(task, asyncio.Task):
                task.cancel()


async def run_evalset(plan: EvalSetPlan, settings: RunSettings) -> EvalSetResult:
    """:func:`stream_evalset` with every result kept: the eval set's result with its summary.

    The result is marked ``partial`` when a stop cut the run short.
    """
    case_results: list[EvalCaseResult] = []
    await stream_evalset(plan, settings, case_results.append)
    result = EvalSetResult(
        eval_set_id=plan.eval_set_id,
        eval_case_results=case_results,
        summary=build_summary(
            case_results, settings.num_runs, custom_aggregator=settings.case_aggregator is not None
        ),
    )
    if settings.stopping():
        result.partial = True
    return result
