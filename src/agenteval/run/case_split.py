"""``--jobs N``: a large deterministic eval set scored on N cores, in shares of its cases.

The cases are cut into N consecutive shares.  This process scores the first; each
other share is scored by a worker forked from it once the run is planned, so a worker
starts with everything loaded and checked (no start-up, no file read again).  A worker
spools its cases into its own document part and counts them in its own tallies, then
ships both through a temp file and exits; this process, done with its own share,
absorbs the shares in file order.  The merged document, summary and console tallies
are the bytes and numbers of a single pass (the tallies' float sums are the same
additions in the same order: each share keeps its addends, see
``results/aggregation.py``), which the tests compare.

Only what a share can score alone is split: one run per case, nothing resumed, no
agent, no judge, no evaluator that awaits, no plugin's evaluator, aggregator, compare
function or tokenizer (they may keep state across cases in their process), a sink that
takes shares (no page builder beside the documents) and at least ``MIN_SHARE`` cases a
share; anything else runs in one process as before.  Linux only: ``fork`` is what makes a worker free to start.

A stop (SIGINT/SIGTERM) reaches the workers through a shared flag: each finishes the
case in hand and ships what it scored, so no finished case is lost; the result is
``partial`` as always, its cases those each share finished.  A worker ignores the
signals itself (a terminal sends them to the whole process group).  A worker that fails
(it dies, cannot write its spool, a case suspends) is not trusted: its whole share is
scored again here, so a result never misses a case a single pass would have scored.

Measured (bench/adk_side_by_side.py, 10,000 cases, 2 cores): see the bench's docstring.
Tested in tests/run/test_case_split.py.
"""

from __future__ import annotations

import dataclasses
import mmap
import struct
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, runtime_checkable

from agenteval.criteria.named import json_compares, text_compares, tokenizers, turn_compares
from agenteval.registry import own_code
from agenteval.results.share_workers import ShareWorker, can_fork, cpu_count
from agenteval.run.runner import EvalSetPlan, RunSettings, stream_evalset
from agenteval.schema.result import EvalCaseResult

# Fewer cases a share and the fork, the shipping and the merge cost more than they save
# (a 1,000-case share scores in ~0.1 s on the bench's cases; forking takes ~5 ms).
MIN_SHARE = 1_000

# The shared page: byte 0 is the stop flag, then one 8-byte count of finished cases a worker.
_STOP = 0
_COUNT = struct.Struct("q")


class CasePart(Protocol):
    """A share's own sink: made before the fork, filled by the worker, which ships what it
    counted as plain data; absorbed (or discarded) by the process that forked it."""

    def add(self, case: EvalCaseResult) -> None:
        """One finished case of the share, in file order."""

    def shipped(self) -> object:
        """Everything counted, as picklable data (what the sink's ``absorb`` takes)."""

    def discard(self) -> None:
        """Drop what the share holds (its worker failed)."""


@runtime_checkable
class SharedSink(Protocol):
    """A run's sink whose current eval set can be counted in shares (report/streamed_run.py)."""

    @property
    def parts(self) -> bool:
        """Whether shares can be taken now."""

    def part(self) -> CasePart:
        """An empty share for cases that come after every case added so far."""

    def absorb(self, part: Any, shipped: Any) -> None:
        """Count a share (with what its worker shipped) after the cases added so far."""


class Delivery(Protocol):
    """Where a run's cases go in order (``api.evaluation``'s per-set delivery)."""

    def __call__(self, case: EvalCaseResult) -> None:
        """One finished case."""

    def to(self, sink: CasePart, settings: RunSettings) -> Delivery:
        """The same delivery into ``sink`` under a worker's ``settings``, nothing delivered yet."""

    def shipped(self) -> Any:
        """What the set's head records of the cases so far (the evalIds left incomplete,
        in order; what the agent spent), as picklable data: a worker ships it."""

    def absorb(self, shipped: Any) -> None:
        """A share's :meth:`shipped`, after this delivery's own cases."""


def share_count(
    plan: EvalSetPlan, settings: RunSettings, sink: object, jobs: int, resumed: object
) -> int:
    """How many shares to score ``plan``'s cases in (1: in this process only)."""
    if jobs < 2 or not can_fork() or not isinstance(sink, SharedSink) or not sink.parts:
        return 1
    if settings.num_runs != 1 or settings.skip or resumed is not None or settings.stopping():
        return 1
    if settings.agent is not None or settings.judge is not None:
        return 1
    aggregator = settings.case_aggregator
    if aggregator is not None and not own_code(aggregator):
        return 1
    if any(named.foreign for named in (text_compares, json_compares, turn_compares, tokenizers)):
        return 1  # a plugin's compare function or tokenizer may be what a criterion names
    for planned in plan.metrics:
        evaluator = planned.evaluator
        if evaluator.is_async or evaluator.needs_judge or not own_code(evaluator):
            return 1
    return max(1, min(jobs, cpu_count(), len(plan.cases) // MIN_SHARE))


async def stream_in_shares(
    plan: EvalSetPlan,
    settings: RunSettings,
    deliver: Delivery,
    sink: SharedSink,
    shares: int,
) -> None:
    """:func:`~agenteval.run.runner.stream_evalset` of ``plan`` in ``shares`` processes."""
    cases = plan.cases
    bounds = share_bounds(len(cases), shares)
    plans = [
        dataclasses.replace(plan, cases=cases[bounds[i] : bounds[i + 1]]) for i in range(shares)
    ]
    shared = mmap.mmap(-1, 8 * (shares + 1))
    workers: list[tuple[int, CasePart, ShareWorker]] = []  # (share number, its part, worker)
    remove = settings.signals.on_stop(lambda: _set_stop(shared)) if settings.signals else None
    here = shares  # the first share no worker was started for: it and the rest are ours
    try:
        for number in range(1, shares):
            try:
                part = sink.part()  # made here: its spools are read here once the worker is done
            except OSError:  # no spool to be had (too many open files, a full temp directory)
                here = number
                break
            worker = _start(number, plans[number], settings, deliver, part, shared)
            workers.append((number, part, worker))
        progress = _Progress(settings.on_case_done, shared, shares)
        own = dataclasses.replace(settings, on_case_done=progress.tick)
        await stream_evalset(plans[0], own, deliver)
        while workers:
            number, part, worker = workers[0]
            shipped = worker.result(progress.workers if settings.on_case_done else None)
            worker.close()
            del workers[0]
            if not isinstance(shipped, tuple):
                # The worker is not trusted: its share is scored here, as one pass would
                # (the cases it had counted on the progress bar are not counted twice).
                part.discard()
                again = dataclasses.replace(own, on_case_done=progress.redo(number))
                await stream_evalset(plans[number], again, deliver)
                continue
            counted, delivered, incomplete_keys = shipped
            sink.absorb(part, counted)
            deliver.absorb(delivered)
            settings.incomplete.update(incomplete_keys)
        for number in range(here, shares):  # after every worker's share: file order
            await stream_evalset(plans[number], own, deliver)
    finally:
        if remove is not None:
            remove()
        for _, part, worker in workers:  # not absorbed: interrupted
            worker.close()
            part.discard()
        shared.close()


# This process's share is this much larger than a worker's: a worker starts a few ms
# later and ships its tallies at the end, so with equal shares this process waited ~25 ms
# for it on the bench's 5,000-case shares (~0.8 s each).
_LEAD = 0.03


def share_bounds(count: int, shares: int) -> list[int]:
    """Where each share of ``count`` cases starts, and the end: the first is ``_LEAD``
    larger than the others, which are equal (to a case)."""
    total = shares + _LEAD
    return [0] + [round(count * (i + _LEAD) / total) for i in range(1, shares)] + [count]


def _set_stop(shared: mmap.mmap) -> None:
    if not shared.closed:
        shared[_STOP] = 1


class _StopFlag:
    """A worker's ``settings.stop``: set when the process that forked it is stopped."""

    def __init__(self, shared: mmap.mmap) -> None:
        self._shared = shared

    def is_set(self) -> bool:
        return self._shared[_STOP] != 0


class _Progress:
    """The progress bar's ticks: this process's cases, and the workers' as they count them."""

    def __init__(self, tick: Callable[[], None] | None, shared: mmap.mmap, shares: int) -> None:
        self._tick = tick
        self._shared = shared
        self._seen = [0] * shares
        # Workers whose shares are scored here again: their counts are read no more.
        self._seen_failed: set[int] = set()

    def tick(self) -> None:
        if self._tick is None:
            return
        self._tick()
        self.workers()

    def redo(self, number: int) -> Callable[[], None] | None:
        """The ticks of worker ``number``'s share scored again here: the first as many as
        the worker counted already are not counted twice."""
        if self._tick is None:
            return None
        self.workers()
        counted = self._seen[number]

        def tick() -> None:
            nonlocal counted
            if counted:
                counted -= 1
            else:
                self.tick()

        self._seen_failed.add(number)
        return tick

    def workers(self) -> None:
        """Tick once for every case a worker finished since the last look."""
        if self._tick is None:
            return
        for number in range(1, len(self._seen)):
            if number in self._seen_failed:
                continue
            (done,) = _COUNT.unpack_from(self._shared, 8 * number)
            for _ in range(done - self._seen[number]):
                self._tick()
            self._seen[number] = done


def _start(
    number: int,
    plan: EvalSetPlan,
    settings: RunSettings,
    deliver: Delivery,
    part: CasePart,
    shared: mmap.mmap,
) -> ShareWorker:
    """Fork the worker of share ``number``: it scores ``plan``'s cases into ``part`` and
    ships what it counted with what its delivery recorded (the evalIds it left incomplete,
    what the agent spent)."""

    def work() -> tuple[object, object, set[tuple[str, str]]]:
        done = 0

        def counted() -> None:
            nonlocal done
            done += 1
            _COUNT.pack_into(shared, 8 * number, done)

        own = dataclasses.replace(
            settings, stop=_StopFlag(shared), signals=None, on_case_done=counted, incomplete=set()
        )
        # The delivery reads the cases left incomplete where this share's scoring notes them.
        delivery = deliver.to(part, own)
        _finish(stream_evalset(plan, own, delivery))
        return part.shipped(), delivery.shipped(), own.incomplete

    return ShareWorker.start(work)


def _finish(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run a coroutine that never waits to its end, without an event loop (a worker's
    loop is its parent's, shared file descriptors and all: it must not run)."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    coroutine.close()
    raise RuntimeError("a deterministic share waited on the event loop")


__all__ = [
    "MIN_SHARE",
    "CasePart",
    "Delivery",
    "SharedSink",
    "share_bounds",
    "share_count",
    "stream_in_shares",
]
