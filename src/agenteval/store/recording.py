"""``agenteval run --store / --baseline / --run-group``: a run recorded and compared.

:class:`StoreRun` is everything ``run`` does with a store, in the order it does it:

* :meth:`StoreRun.start`, before scoring: open the store (creating or migrating it),
  resolve ``--baseline`` (``@latest`` / ``@RUN_ID`` / ``@branch:NAME`` among runs of the
  same eval sets, or a result file), and write the run as ``running``.  Any problem is
  exit 2 and nothing is scored.
* :meth:`StoreRun.sink`: the run's result sink, recording every case as it streams.
* :meth:`StoreRun.conclude`, after the result files are written and before the run's
  verdict line: finish the stored run (a failure is one ``error:`` line and exit 3 — the
  files are written, scoring never depended on the store), then with ``--baseline``
  print what it was compared with and ``diff``'s table of changes; the exit code follows
  ``diff``'s rule (1 when anything regressed, else 0) unless the run itself could not
  finish (2, 3 and 4 win) or the baseline is partial (its run was cut short: 3).  What it returns (:class:`Concluded`) goes into the verdict
  line, printed last: ``REGRESSED: … · 2 regressions vs @branch:main``.

Tested in tests/cli/test_store_run.py.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from agenteval.errors import ConfigError, Problem
from agenteval.exit_codes import ExitCode
from agenteval.inputs.result_inputs import read_parts, read_results
from agenteval.inputs.safe_text import escape_control
from agenteval.report.diff import (
    BaselineVerdict,
    compared_text,
    diff_results,
    render_changes,
    render_partial,
)
from agenteval.report.result_files import RESULT_SUFFIX, safe_name
from agenteval.report.result_stream import write_result_document
from agenteval.results.sharding import parse_shard
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus
from agenteval.store.baselines import (
    ReferenceProblem,
    group_member_note,
    is_reference,
    resolve,
)
from agenteval.store.connection import Store, StoreError, open_store
from agenteval.store.context import run_context
from agenteval.store.export import stored_results
from agenteval.store.fingerprints import FingerprintInputs, computed_fingerprint
from agenteval.store.queries import rerun_warning
from agenteval.store.urls import StoreSetting
from agenteval.store.writer import (
    FinishedSet,
    RunMeta,
    RunOutcome,
    RunRecorder,
    StoreSink,
    new_run_id,
)

if TYPE_CHECKING:
    from agenteval.api import ResultSink, RunResult
    from agenteval.report.streamed_run import StreamedRun


@dataclass(frozen=True, slots=True)
class Concluded:
    """What the store and the baseline add to a run's verdict line, and its exit code."""

    code: int
    unfinished: tuple[str, ...] = ()  # why the run is INCOMPLETE beyond its cases
    baseline: BaselineVerdict | None = None


@dataclass(slots=True)
class StoreRun:
    """The store side of one ``agenteval run`` (module docstring)."""

    setting: StoreSetting | None
    baseline: str | None
    run_group: str | None
    app_name: str
    num_runs: int
    shard: str | None
    inputs: FingerprintInputs
    store: Store | None = None
    recorder: RunRecorder | None = None
    baseline_results: list[EvalSetResult] | None = None
    baseline_label: str = ""
    messages: list[str] = field(default_factory=list)
    # What reading a --baseline result file found that is no error (unknown keys): the
    # command prints them before scoring, as every reader of results does.
    warnings: list[Problem] = field(default_factory=list)

    @property
    def records(self) -> bool:
        """Whether the run is written to a store."""
        return self.setting is not None

    def start(self) -> None:
        """Open the store, resolve the baseline, write the run as running (exit 2 on failure)."""
        if self.setting is None:
            if (
                self.run_group is None
                and self.baseline is not None
                and not is_reference(self.baseline)
            ):
                self._load_baseline()  # a result file: no store needed
                return
            needs = "--run-group" if self.run_group is not None else f"--baseline {self.baseline}"
            raise ConfigError(
                [
                    Problem(
                        needs,
                        "",
                        "needs a run store",
                        "give --store URL, or set $AGENTEVAL_STORE or store in [tool.agenteval]",
                    )
                ]
            )
        url = self.setting.parse()
        self.store = open_store(url, write=True)
        if self.baseline is not None:
            self._load_baseline()
        shard_index = shard_count = None
        if self.shard is not None:
            with contextlib.suppress(ValueError):  # a bad --shard is reported by the run
                parsed = parse_shard(self.shard)
                shard_index, shard_count = parsed.index, parsed.count
        meta = RunMeta(
            run_id=new_run_id(),
            started_at=time.time(),
            app_name=self.app_name,
            num_runs=self.num_runs,
            context=run_context(),
            run_group=self.run_group,
            shard_index=shard_index,
            shard_count=shard_count,
        )
        inputs = self.inputs
        self.recorder = RunRecorder(
            self.store, meta, lambda eval_set_id: computed_fingerprint(eval_set_id, inputs)
        )
        self.recorder.start()

    def _load_baseline(self) -> None:
        text = self.baseline
        assert text is not None
        if not is_reference(text):
            self.baseline_results = read_results([Path(text)], self.warnings)[0]
            self.baseline_label = text
            return
        store = self.store
        if store is None:
            raise ConfigError([Problem(f"--baseline {text}", "", "needs a run store")])
        eval_sets = sorted(self.inputs.evalset_paths)
        try:
            with store.transaction() as conn:
                run = resolve(conn, text, eval_sets or None)
        except ReferenceProblem as problem:
            raise ConfigError(
                [Problem(f"--baseline {text}", "", problem.message, problem.hint)]
            ) from None
        self.baseline_results = stored_results(store, run)
        self.baseline_label = f"{text} (run {run.id}" + (
            f", commit {run.first.commit[:12]})" if run.first.commit else ")"
        )

    def sink(
        self, inner: ResultSink, statuses: Callable[[], Mapping[str, EvalStatus]]
    ) -> ResultSink:
        """The sink the run streams into: ``inner``, recorded into the store too."""
        if self.recorder is None:
            return inner
        return StoreSink(inner, self.recorder, statuses)

    def abandon(self) -> None:
        """The run ended before it scored anything: remove its row, close the store."""
        if self.recorder is not None:
            self.recorder.abandon()
        self.close()

    def close(self) -> None:
        """Close the store's connections."""
        if self.store is not None:
            self.store.close()

    def conclude(
        self,
        result: RunResult,
        streamed: StreamedRun,
        code: int,
        document_keys: Mapping[str, Any] | None,
        *,
        out: Console,
        err: Console,
        quiet: bool,
    ) -> Concluded:
        """Finish the stored run and compare with the baseline, before the verdict line."""
        unfinished: tuple[str, ...] = ()
        if self.recorder is not None and self.store is not None:
            outcome = RunOutcome(
                outcome=streamed.overall_status().value,
                exit_code=code,
                duration_seconds=result.elapsed,
                interrupted=result.interrupted,
                agent=result.agent_stats.to_json() if result.agent_stats is not None else None,
                document_keys=document_keys,
            )
            try:
                self.recorder.finish(outcome, finished_sets(streamed))
            except StoreError as exc:
                err.print(
                    f"error: {escape_control(str(exc))} (the run was not stored; "
                    "its result files were written)",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
                if code != ExitCode.INTERNAL_ERROR:
                    code = max(code, ExitCode.INCOMPLETE)
                    unfinished = ("not stored",)
            else:
                self._warn_rerun(err)
                if not quiet:
                    out.print(
                        f"stored run {self.recorder.meta.run_id} in {self.store.where}"
                        + group_member_note(self.run_group),
                        markup=False,
                        highlight=False,
                        soft_wrap=True,
                    )
        if self.baseline_results is None:
            return Concluded(code, unfinished)
        return self._compare(streamed, code, unfinished, out, err)

    def _warn_rerun(self, err: Console) -> None:
        """A retried CI job runs its shard again in its group: the run says that it replaced
        the earlier one (queries.logical_runs), never silently (not even under --quiet)."""
        if self.run_group is None or self.store is None or self.recorder is None:
            return
        try:
            with self.store.transaction() as conn:
                told = rerun_warning(conn, self.run_group, self.recorder.meta.run_id)
        except StoreError as exc:
            told = f"could not check for earlier runs of its cases: {exc}"
        if told is not None:
            problem = Problem(f"--run-group {self.run_group}", "", told)
            err.print(f"warning: {escape_control(str(problem))}", markup=False, highlight=False)

    def _compare(
        self,
        streamed: StreamedRun,
        code: int,
        unfinished: tuple[str, ...],
        out: Console,
        err: Console,
    ) -> Concluded:
        # The run's own documents are compared as diff compares files, case by case: copied
        # from their spools into files and read back from there, never whole in memory.
        with tempfile.TemporaryDirectory(prefix="agenteval-compared-") as tmp:
            copies = [
                write_result_document(item.finished(), Path(tmp) / f"{index}.json")
                for index, item in enumerate(streamed.sets)
            ]
            changes = diff_results(self.baseline_results or [], read_parts(copies), 0.0)
        label = escape_control(self.baseline_label)
        if changes.compared_cases == 0:
            err.print(
                "error: --baseline: no case is in both the baseline and this run; nothing was "
                "compared",
                markup=False,
                highlight=False,
            )
            reason = f"nothing compared with {escape_control(self.baseline or '')}"
            return Concluded(max(code, ExitCode.INCOMPLETE), (*unfinished, reason))
        out.print(f"compared with {label}: {compared_text(changes)}", markup=False, highlight=False)
        render_changes(out, changes)
        render_partial(out, changes)
        if code in (ExitCode.PASSED, ExitCode.FAILED):
            code = ExitCode.FAILED if changes.regressed else ExitCode.PASSED
        if changes.partial["base"]:  # what the baseline did not score was never compared
            unfinished = (*unfinished, "baseline partial (interrupted)")
            code = max(code, ExitCode.INCOMPLETE)
        return Concluded(code, unfinished, BaselineVerdict.of(self.baseline or "", changes))


def finished_sets(streamed: StreamedRun) -> list[FinishedSet]:
    """The run's eval set documents as the store keeps them (None where one was lost)."""
    found: list[FinishedSet] = []
    for item in streamed.sets:
        document = item.document if item.error is None else None
        result_id = document.result_id if document is not None else None
        rid = result_id or ""
        name = item.file_name or (
            f"{safe_name(rid, max_bytes=200)}{RESULT_SUFFIX}" if rid else None
        )
        found.append(FinishedSet(document, rid, name))
    return found


def store_run(
    setting: StoreSetting | None,
    *,
    baseline: str | None,
    run_group: str | None,
    evalset_specs: Sequence[str],
    app_name: str,
    num_runs: int,
    shard: str | None,
    metrics: str | None,
    traces: str | None,
    case_aggregator: str | None,
) -> StoreRun | None:
    """What ``run`` does with a store; None when it has no store, baseline or run group."""
    if setting is None and baseline is None and run_group is None:
        return None
    inputs = FingerprintInputs.of_run(
        evalset_specs, metrics=metrics, traces=traces, case_aggregator=case_aggregator, shard=shard
    )
    return StoreRun(
        setting=setting,
        baseline=baseline,
        run_group=run_group,
        app_name=app_name,
        num_runs=num_runs,
        shard=shard,
        inputs=inputs,
    )


__all__ = ["Concluded", "StoreRun", "finished_sets", "store_run"]
