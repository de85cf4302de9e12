"""Recording a run into a store as it streams: never shown finished unless it is whole.

The order of writes is what keeps a store consistent through a crash:

1. :meth:`RunRecorder.start` — the ``runs`` row, state ``running``, in its own
   transaction before anything is scored (a store that cannot take it fails the run
   with exit 2 before scoring);
2. :class:`StoreSink` — the run's :class:`~agenteval.api.ResultSink`, wrapping the one the
   reports read: every case result also becomes ``case_runs`` and ``metric_results``
   rows, handed in batches of :data:`BATCH_CASES` case runs to a writer thread that
   inserts each batch in one transaction (scoring never waits for the database unless
   it falls :data:`QUEUE_BATCHES` batches behind); at the end of an eval set its
   ``cases``, ``run_sets`` (with the cases' statuses packed) and ``set_metrics`` rows
   follow;
3. :meth:`RunRecorder.finish` — after the result files are written: each eval set's
   document (:mod:`agenteval.store.documents`), then one last transaction that sets the
   run's totals (judge and agent spend included: :mod:`agenteval.store.judge_spend`,
   :mod:`agenteval.store.agent_spend`) and its state ``finished`` (or ``interrupted``).

A kill at any moment leaves the run ``running`` ("unfinished" in ``history``), never
``finished`` with rows missing.  A database error in any step stops the recording — the
run goes on, its result files are written — and :meth:`RunRecorder.finish` raises it as
:class:`~agenteval.store.connection.StoreError` (exit 3 after scoring); the half-written
run is then deleted when the store still allows it.

Tested in tests/store/test_writer.py.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, insert, update

from agenteval import __version__
from agenteval.report.metric_averages import MetricAverages
from agenteval.schema.result import EvalCaseResult, EvalSetResult
from agenteval.schema.status import EvalStatus
from agenteval.store import tables
from agenteval.store.agent_spend import agent_columns
from agenteval.store.connection import Store, StoreError
from agenteval.store.context import RunContext
from agenteval.store.documents import DocumentSource, write_document
from agenteval.store.fingerprints import StoredFingerprint, run_config_hash, set_fingerprint
from agenteval.store.judge_spend import judge_cost_columns

if TYPE_CHECKING:
    from agenteval.api import ResultSink

BATCH_CASES = 2000
QUEUE_BATCHES = 4
# Reasons and errors kept in rows (the whole text stays in the stored document).
TEXT_KEEP = 2000


def new_run_id() -> str:
    """A fresh run id: 12 hex digits (``@RUN_ID`` also takes a unique prefix)."""
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True, slots=True)
class RunMeta:
    """What a stored run starts with."""

    run_id: str
    started_at: float
    app_name: str
    num_runs: int
    context: RunContext = field(default_factory=RunContext)
    run_group: str | None = None
    shard_index: int | None = None
    shard_count: int | None = None
    origin: str = "run"


@dataclass(frozen=True, slots=True)
class FinishedSet:
    """An eval set's finished document as the run wrote it (None: it could not be kept)."""

    document: DocumentSource | None
    result_id: str
    file_name: str | None


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How the run ended, for the final transaction."""

    outcome: str
    exit_code: int
    duration_seconds: float
    interrupted: bool = False
    agent: Mapping[str, Any] | None = None
    # The run document's own keys ({"header": …, "trailer": …}): `store export --json`.
    document_keys: Mapping[str, Any] | None = None
    finished_at: float | None = None


def _usage_total(usage: Mapping[str, Any] | None) -> Mapping[str, Any]:
    total = usage.get("total") if isinstance(usage, Mapping) else None
    return total if isinstance(total, Mapping) else {}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class _CaseTally:
    """Per case: runs passed, runs, and the score sum of its evaluated runs."""

    __slots__ = ("evaluated", "passed", "runs", "score_sum")

    def __init__(self) -> None:
        self.passed = self.runs = self.evaluated = 0
        self.score_sum = 0.0


class SetRows:
    """The rows of one eval set, built case by case."""

    def __init__(self, run: int, position: int, eval_set_id: str) -> None:
        self.run = run
        self.position = position
        self.eval_set_id = eval_set_id
        self.metrics = MetricAverages()
        self.cases: dict[str, _CaseTally] = {}
        self.case_runs: list[tuple[Any, ...]] = []
        self.metric_results: list[tuple[Any, ...]] = []

    def add(self, case: EvalCaseResult) -> None:
        """The rows of one case run."""
        repeat = case.run_id or 1
        status = case.final_eval_status
        tally = self.cases.get(case.eval_id)
        if tally is None:
            tally = self.cases[case.eval_id] = _CaseTally()
        tally.runs += 1
        tally.passed += status is EvalStatus.PASSED
        if status is not EvalStatus.NOT_EVALUATED:
            tally.evaluated += 1
            tally.score_sum += case.score
        turns = case.eval_metric_result_per_invocation or []
        tool_calls = sum(
            len(turn.actual_invocation.tools or [])
            for turn in turns
            if turn.actual_invocation is not None
        )
        self.case_runs.append(
            (
                self.run,
                self.position,
                case.eval_id,
                repeat,
                status.value,
                case.score,
                case.error_message[:TEXT_KEEP],
                case.session_id,
                len(turns),
                tool_calls,
            )
        )
        for metric in case.overall_eval_metric_results or ():
            reason = metric.details.reason if metric.details is not None else ""
            self.metrics.add(
                metric.metric_name,
                metric.eval_status,
                metric.score,
                metric.threshold,
                upper_bound=metric.upper_bound,
            )
            self.metric_results.append(
                (
                    self.run,
                    self.position,
                    case.eval_id,
                    repeat,
                    metric.metric_name,
                    metric.score,
                    metric.eval_status.value,
                    metric.threshold,
                    reason[:TEXT_KEEP],
                )
            )

    def take_batch(self) -> dict[Any, list[tuple[Any, ...]]]:
        """The case rows gathered since the last batch (then forgotten)."""
        batch = {tables.case_runs: self.case_runs, tables.metric_results: self.metric_results}
        self.case_runs, self.metric_results = [], []
        return batch

    def case_rows(self, statuses: Mapping[str, EvalStatus]) -> list[tuple[Any, ...]]:
        """One ``cases`` row per case, with the status that decided the exit code."""
        rows = []
        for eval_id, tally in self.cases.items():
            status = statuses.get(eval_id, EvalStatus.NOT_EVALUATED)
            score = tally.score_sum / tally.evaluated if tally.evaluated else None
            rows.append(
                (
                    self.run,
                    self.position,
                    self.eval_set_id,
                    eval_id,
                    status.value,
                    tally.passed,
                    tally.runs,
                    score,
                )
            )
        return rows


Write = Callable[[Connection], None]


class RunRecorder:
    """Records one run into ``store`` (the module docstring gives the order of writes)."""

    def __init__(
        self,
        store: Store,
        meta: RunMeta,
        fingerprint: Callable[[str], StoredFingerprint | None] | None = None,
    ) -> None:
        self.store = store
        self.meta = meta
        self._fingerprint = fingerprint
        self.key: int | None = None
        self.failure: StoreError | None = None
        self.set_hashes: list[tuple[str, str | None]] = []
        self.counts: dict[str, int] = {}
        self.usage: list[Mapping[str, Any]] = []
        # Each eval set's agentUsage: the run's is their sum, as api.evaluation adds it up.
        self.agent_usage: list[object] = []
        self.sets = 0
        self._queue: queue.Queue[Write | None] = queue.Queue(maxsize=QUEUE_BATCHES)
        self._thread: threading.Thread | None = None

    # -- 1. the run row -------------------------------------------------------------------

    def start(self) -> int:
        """Insert the run as ``running``; returns its key.  StoreError when the store refuses."""
        meta = self.meta
        context = meta.context
        with self.store.transaction() as conn:
            result = conn.execute(
                insert(tables.runs).values(
                    run_id=meta.run_id,
                    run_group=meta.run_group,
                    shard_index=meta.shard_index,
                    shard_count=meta.shard_count,
                    state="running",
                    started_at=meta.started_at,
                    agenteval_version=__version__,
                    git_commit=context.commit,
                    git_branch=context.branch,
                    git_dirty=context.dirty,
                    ci_url=context.ci_url,
                    app_name=meta.app_name,
                    num_runs=meta.num_runs,
                    origin=meta.origin,
                )
            )
            key = result.inserted_primary_key
            assert key is not None
            self.key = int(key[0])
        self._thread = threading.Thread(target=self._drain, name="agenteval-store", daemon=True)
        self._thread.start()
        return self.key

    # -- 2. rows as the run streams ------------------------------------------------------

    def _drain(self) -> None:
        while True:
            write = self._queue.get()
            try:
                if write is None:
                    return
                if self.failure is None:  # after a failure the recording stops; the run goes on
                    self._write(write)
            finally:
                self._queue.task_done()

    def _write(self, write: Write) -> None:
        try:
            with self.store.transaction() as conn:
                write(conn)
        except StoreError as exc:
            self.failure = exc
        except Exception as exc:  # a bug in a write: reported, the run is not lost
            self.failure = StoreError(self.store.where, f"{type(exc).__name__}: {exc}")

    def settle(self) -> None:
        """Wait until every queued write is in the store (or failed)."""
        if self._thread is not None:
            self._queue.join()

    def submit(self, write: Write) -> None:
        """Queue one transaction's work for the writer thread (waits when it falls behind)."""
        if self.failure is None:
            self._queue.put(write)

    def bulk(self, batch: Mapping[Any, Sequence[tuple[Any, ...]]]) -> None:
        """Queue rows for bulk insertion in one transaction."""

        def write(conn: Connection) -> None:
            for table, rows in batch.items():
                self.store.bulk_insert(conn, table, rows)

        self.submit(write)

    @property
    def recording(self) -> bool:
        """False once a write failed (rows are no longer built)."""
        return self.failure is None

    def new_set(self, eval_set_id: str) -> SetRows:
        """The rows of the next eval set of the run."""
        assert self.key is not None, "start() first"
        rows = SetRows(self.key, self.sets, eval_set_id)
        self.sets += 1
        return rows

    def end_set(
        self, rows: SetRows, head: EvalSetResult, statuses: Mapping[str, EvalStatus]
    ) -> None:
        """Queue an eval set's last case rows, its cases, its set row and metric rows."""
        self.bulk(rows.take_batch())
        case_rows = rows.case_rows(statuses)
        for start in range(0, len(case_rows), BATCH_CASES * 4):
            self.bulk({tables.cases: case_rows[start : start + BATCH_CASES * 4]})
        case_ids, case_statuses = tables.packed_outcomes([(r[3], r[4]) for r in case_rows])
        computed = self._fingerprint(rows.eval_set_id) if self._fingerprint is not None else None
        fingerprint = set_fingerprint(head, computed)
        self.set_hashes.append((rows.eval_set_id, fingerprint.config_hash))
        # A status's value names its count column (cases_passed, cases_not_evaluated, ...).
        counts = Counter(
            statuses.get(eval_id, EvalStatus.NOT_EVALUATED).value for eval_id in rows.cases
        )
        for key, value in counts.items():
            self.counts[key] = self.counts.get(key, 0) + value
        usage = head.judge_usage or {}
        self.usage.append(usage)
        self.agent_usage.append(head.agent_usage)
        by_metric = usage.get("byMetric") if isinstance(usage.get("byMetric"), dict) else {}
        set_row = {
            "run": rows.run,
            "position": rows.position,
            "eval_set_id": rows.eval_set_id,
            "result_id": "",
            "evalset_hash": fingerprint.eval_set,
            "traces_hash": fingerprint.traces,
            "case_aggregator": fingerprint.case_aggregator,
            "shard": fingerprint.shard,
            "config_hash": fingerprint.config_hash,
            "partial": bool(head.partial),
            "cases_total": len(rows.cases),
            **{f"cases_{key}": value for key, value in counts.items()},
            "judge_usage": json.dumps(usage, sort_keys=True) if usage else None,
            "case_ids": case_ids,
            "case_statuses": case_statuses,
        }
        metric_rows = []
        for name, average in rows.metrics.sorted():
            spent = by_metric.get(name) if isinstance(by_metric, dict) else None
            spent = spent if isinstance(spent, dict) else {}
            metric_rows.append(
                {
                    "run": rows.run,
                    "position": rows.position,
                    "metric_name": name,
                    "metric_hash": fingerprint.metrics.get(name),
                    "threshold": average.threshold,
                    "evaluated": average.evaluated,
                    "score_sum": average.score_sum,
                    "passed": average.passed,
                    "failed": average.failed,
                    "not_evaluated": average.not_evaluated,
                    "judge_calls": _int(spent.get("calls")),
                    "judge_cache_hits": _int(spent.get("cacheHits")),
                    "judge_prompt_tokens": _int(spent.get("promptTokens")),
                    "judge_completion_tokens": _int(spent.get("completionTokens")),
                }
            )

        def write(conn: Connection) -> None:
            conn.execute(insert(tables.run_sets).values(set_row))
            if metric_rows:
                conn.execute(insert(tables.set_metrics), metric_rows)

        self.submit(write)

    # -- 3. documents and the final transaction ---------------------------------------

    def _join(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def finish(
        self,
        outcome: RunOutcome,
        documents: Sequence[FinishedSet],
        *,
        run_document: DocumentSource | None = None,
    ) -> None:
        """Store the documents, then mark the run finished; StoreError when it could not be.

        ``run_document``: a ``--json`` document kept verbatim (``store add``).
        """
        self._join()
        if self.failure is not None:
            self._discard()
            raise self.failure
        key = self.key
        assert key is not None
        try:
            for position, finished in enumerate(documents):
                self._store_document(key, position, finished)
            if run_document is not None:
                with self.store.transaction() as conn:
                    write_document(conn, key, tables.RUN_DOCUMENT_PART, run_document)
            with self.store.transaction() as conn:
                conn.execute(
                    update(tables.runs).where(tables.runs.c.id == key).values(self._totals(outcome))
                )
        except StoreError as exc:
            self.failure = exc
            self._discard()
            raise

    def _store_document(self, key: int, position: int, finished: FinishedSet) -> None:
        with self.store.transaction() as conn:
            size = chunks = 0
            if finished.document is not None:
                size, chunks = write_document(conn, key, position, finished.document)
            conn.execute(
                update(tables.run_sets)
                .where(tables.run_sets.c.run == key, tables.run_sets.c.position == position)
                .values(
                    result_id=finished.result_id,
                    file_name=finished.file_name,
                    document_size=size,
                    document_chunks=chunks,
                )
            )

    def _totals(self, outcome: RunOutcome) -> dict[str, Any]:
        judge: dict[str, int] = {}
        for usage in self.usage:
            total = _usage_total(usage)
            for column, key in (
                ("judge_calls", "calls"),
                ("judge_cache_hits", "cacheHits"),
                ("judge_retries", "retries"),
                ("judge_prompt_tokens", "promptTokens"),
                ("judge_completion_tokens", "completionTokens"),
            ):
                judge[column] = judge.get(column, 0) + _int(total.get(key))
        agent = outcome.agent or {}
        return {
            "state": "interrupted" if outcome.interrupted else "finished",
            "outcome": outcome.outcome,
            "exit_code": outcome.exit_code,
            "finished_at": outcome.finished_at if outcome.finished_at is not None else time.time(),
            "duration_seconds": outcome.duration_seconds,
            "cases_total": sum(self.counts.values()),
            **{f"cases_{key}": value for key, value in self.counts.items()},
            **judge,
            # The whole cost or NULL, never the priced calls' sum alone (store.judge_spend).
            **judge_cost_columns(self.usage),
            "agent_sessions": _int(agent.get("sessions")) if agent else None,
            "agent_tool_calls": _int(agent.get("toolCalls")) if agent else None,
            **agent_columns(self.agent_usage),
            "config_hash": run_config_hash(self.set_hashes),
            # Key order kept: the run document is rebuilt from these keys byte for byte.
            "document_keys": (json.dumps(outcome.document_keys) if outcome.document_keys else None),
        }

    def _discard(self) -> None:
        """Delete the half-written run when the store still allows it (else it stays unfinished)."""
        if self.key is None:
            return
        try:
            with self.store.transaction() as conn:
                conn.execute(delete(tables.runs).where(tables.runs.c.id == self.key))
        except StoreError:
            pass

    def abandon(self) -> None:
        """The run ended before scoring (bad input, a signal while loading): remove its row."""
        self._join()
        self._discard()


class StoreSink:
    """A :class:`~agenteval.api.ResultSink` that records every case into the store too.

    ``inner`` is the sink the reports read (``report.streamed_run.StreamedRun`` for
    ``agenteval run``); ``statuses`` gives, after ``inner.end_set``, the status per evalId
    that decided the exit code (INCOMPLETE included).
    """

    def __init__(
        self,
        inner: ResultSink,
        recorder: RunRecorder,
        statuses: Callable[[], Mapping[str, EvalStatus]],
    ) -> None:
        self.inner = inner
        self.recorder = recorder
        self._statuses = statuses
        self._rows: SetRows | None = None
        self._pending = 0

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        """Start the eval set in both sinks."""
        self.inner.begin_set(eval_set_id, num_runs)
        self._rows = self.recorder.new_set(eval_set_id)
        self._pending = 0

    def add(self, case: EvalCaseResult) -> None:
        """Hand the case to the reports, then to the store's rows."""
        self.inner.add(case)
        rows = self._rows
        if rows is None or not self.recorder.recording:
            return
        rows.add(case)
        self._pending += 1
        if self._pending >= BATCH_CASES:
            self.recorder.bulk(rows.take_batch())
            self._pending = 0

    def end_set(self, head: EvalSetResult) -> None:
        """Finish the eval set in the reports, then queue its remaining rows."""
        self.inner.end_set(head)
        rows = self._rows
        self._rows = None
        if rows is not None and self.recorder.recording:
            self.recorder.end_set(rows, head, self._statuses())

    def overall_status(self) -> EvalStatus:
        """The reports' overall status."""
        return self.inner.overall_status()


__all__ = [
    "BATCH_CASES",
    "FinishedSet",
    "RunMeta",
    "RunOutcome",
    "RunRecorder",
    "SetRows",
    "StoreSink",
    "new_run_id",
]
