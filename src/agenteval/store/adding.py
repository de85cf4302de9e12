"""``agenteval store add RESULT…``: result files and run documents brought into a store.

Each ``--json`` run document becomes one stored run (kept verbatim: ``store export
--json`` gives its bytes back); the plain result files given together become one more
(each kept verbatim: ``store export -o DIR`` gives each file back).  Times come from the
files (``createdAt`` − ``durationSeconds``, else ``creationTimestamp``), commit and
branch only from ``--commit`` / ``--branch``: the working directory's git says nothing
about where an old file was made.  A result whose ``evalSetResultId`` is stored already
is refused, so adding the same files twice does not count a run twice.

A file with invalid UTF-8 inside its strings is read as U+FFFD, as Go reads it, with the
reader's warning (``inputs.go_utf8``), and stored as read, not verbatim: a stored document
is read back as UTF-8 text, and ``show @RUN``, ``diff`` and ``report`` of such a run failed
with an internal error (a run document's was refused by ``store add`` itself, exit 4).

Tested in tests/store/test_adding.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pydantic_core
from sqlalchemy import select

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.file_kind import FileKind, kind_of
from agenteval.inputs.go_utf8 import go_utf8
from agenteval.inputs.result_inputs import read_results
from agenteval.results.aggregation import case_statuses, results_outcome
from agenteval.schema.gojson import model_to_go_json_bytes
from agenteval.schema.result import EvalSetResult, extra
from agenteval.schema.status import EvalStatus
from agenteval.store import tables
from agenteval.store.connection import Store
from agenteval.store.context import RunContext
from agenteval.store.documents import BytesDocument, DocumentSource
from agenteval.store.queries import rerun_warning
from agenteval.store.writer import (
    BATCH_CASES,
    FinishedSet,
    RunMeta,
    RunOutcome,
    RunRecorder,
    new_run_id,
)


@dataclass(slots=True)
class Addition:
    """One run to add: its results, their files' bytes, the run document when it is one."""

    label: str
    results: list[EvalSetResult] = field(default_factory=list)
    documents: list[bytes] = field(default_factory=list)
    file_names: list[str | None] = field(default_factory=list)
    run_document: bytes | None = None
    keys: dict[str, Any] = field(default_factory=dict)
    mtime: float = 0.0


def _inputs(paths: Sequence[Path], warnings: list[Problem] | None = None) -> list[Addition]:
    results, sources = read_results(paths, warnings)
    by_source: dict[str, list[EvalSetResult]] = {}
    for result, source in zip(results, sources, strict=True):
        by_source.setdefault(source, []).append(result)
    runs: list[Addition] = []
    plain = Addition("result files")
    seen: dict[str, str] = {}
    given: dict[str, str] = {}
    for source, found in by_source.items():
        _refuse_given_twice(found, source, given)
        path = Path(source)
        data = _as_read(path.read_bytes(), source)
        parsed: Any = pydantic_core.from_json(data) if b'"evalSetResults"' in data else None
        if isinstance(parsed, dict) and kind_of(parsed) is FileKind.RUN:
            item = Addition(source, run_document=data, mtime=path.stat().st_mtime)
            item.keys = {k: v for k, v in parsed.items() if k != "evalSetResults"}
            for result in found:
                item.results.append(result)
                item.documents.append(model_to_go_json_bytes(result))
                item.file_names.append(None)
            runs.append(item)
            continue
        for result in found:
            if result.eval_set_id in seen:
                raise ConfigError(
                    [
                        Problem(
                            source,
                            "evalSetId",
                            f"eval set {result.eval_set_id!r} is also in {seen[result.eval_set_id]}",
                            "result files added together are one run: add each run's files "
                            "in its own `store add`",
                        )
                    ]
                )
            seen[result.eval_set_id] = source
            plain.results.append(result)
            plain.documents.append(data)
            plain.file_names.append(path.name)
        plain.mtime = max(plain.mtime, path.stat().st_mtime)
    if plain.results:
        runs.append(plain)
    return runs


def _as_read(data: bytes, source: str) -> bytes:
    """``data`` as ``read_results`` read it: verbatim, or with each invalid UTF-8 byte inside
    a string as U+FFFD (``read_results`` refuses any other, and gave the warning)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        read = go_utf8(data, source)
        if read is not None:
            return read[0].encode("utf-8")
    return data


def _refuse_given_twice(found: Sequence[EvalSetResult], source: str, given: dict[str, str]) -> None:
    """A result given twice in one ``store add`` (a run document and its result files) would
    be stored as two runs, its cases counted twice: refused, as one stored already is."""
    for result in found:
        result_id = result.eval_set_result_id
        if result_id and given.setdefault(result_id, source) != source:
            raise ConfigError(
                [
                    Problem(
                        source,
                        "evalSetResultId",
                        f"result {result_id!r} is also in {given[result_id]}",
                        "a run document holds the results of its result files: add one or "
                        "the other",
                    )
                ]
            )


def _times(item: Addition) -> tuple[float, float, float]:
    """(started_at, finished_at, duration) from the files' own keys, else their mtime."""
    finished = item.keys.get("createdAt")
    duration = item.keys.get("durationSeconds")
    if not isinstance(finished, int | float):
        stamps = [r.creation_timestamp for r in item.results if r.creation_timestamp]
        finished = max(stamps) if stamps else item.mtime
    if not isinstance(duration, int | float):
        durations = [extra(r).get("durationSeconds") for r in item.results]
        duration = sum(d for d in durations if isinstance(d, int | float))
    return float(finished) - float(duration), float(finished), float(duration)


def _refuse_stored_twice(store: Store, inputs: Sequence[Addition]) -> None:
    ids = [r.eval_set_result_id for item in inputs for r in item.results if r.eval_set_result_id]
    if not ids:
        return
    t, runs = tables.run_sets, tables.runs
    found = None
    with store.transaction() as conn:
        for start in range(0, len(ids), 500):
            query = (
                select(t.c.result_id, runs.c.run_id)
                .join(runs, runs.c.id == t.c.run)
                .where(t.c.result_id.in_(ids[start : start + 500]))
            )
            found = found or conn.execute(query).first()
    if found is not None:
        raise ConfigError(
            [Problem(store.where, "", f"result {found[0]!r} is stored already (run {found[1]})")]
        )


def read_additions(paths: Sequence[Path], warnings: list[Problem] | None = None) -> list[Addition]:
    """The runs in ``paths``, read and checked before any store is opened: a failed ``store
    add`` created the store (an empty file) first (ConfigError; ``warnings``: what reading
    them found that is no error goes there)."""
    inputs = _inputs(paths, warnings)
    if not inputs:
        raise ConfigError([Problem(", ".join(map(str, paths)), "", "no results to add")])
    return inputs


class AddOptions(TypedDict, total=False):
    """What :func:`add_read` takes beside the runs: where they came from, and a list for
    what reading and adding them found that is no error."""

    commit: str | None
    branch: str | None
    run_group: str | None
    warnings: list[Problem] | None


def add_results(store: Store, paths: Sequence[Path], **options: Unpack[AddOptions]) -> list[str]:
    """Add the runs in ``paths`` (read, then added); returns their new run ids (ConfigError /
    StoreError)."""
    return add_read(store, read_additions(paths, options.get("warnings")), **options)


def add_read(
    store: Store,
    inputs: Sequence[Addition],
    *,
    commit: str | None = None,
    branch: str | None = None,
    run_group: str | None = None,
    warnings: list[Problem] | None = None,
) -> list[str]:
    """Add the runs :func:`read_additions` read; returns their new run ids (ConfigError /
    StoreError; ``warnings``: a group member replaced is said there)."""
    _refuse_stored_twice(store, inputs)
    added: list[str] = []
    for item in inputs:
        run_id = _add(store, item, RunContext(commit=commit, branch=branch), run_group)
        added.append(run_id)
        if run_group is not None and warnings is not None:
            # Cases a group member holds already: this run replaces it there, said, not silent.
            with store.transaction() as conn:
                told = rerun_warning(conn, run_group, run_id)
            if told is not None:
                warnings.append(Problem(f"--run-group {run_group}", "", told))
    return added


def _add(store: Store, item: Addition, context: RunContext, run_group: str | None) -> str:
    started, finished, duration = _times(item)
    num_runs = max((r.summary.num_runs if r.summary else 1) or 1 for r in item.results)
    meta = RunMeta(
        run_id=new_run_id(),
        started_at=started,
        app_name="agenteval",
        num_runs=num_runs,
        context=context,
        run_group=run_group,
        origin="add",
    )
    recorder = RunRecorder(store, meta)
    recorder.start()
    statuses_all: list[EvalStatus] = []
    for result in item.results:
        rows = recorder.new_set(result.eval_set_id)
        for count, case in enumerate(result.case_results(), start=1):
            rows.add(case)
            if count % BATCH_CASES == 0:
                recorder.bulk(rows.take_batch())
        statuses = case_statuses(result)
        statuses_all.extend(statuses.values())
        head = result.model_copy(update={"eval_case_results": None})
        recorder.end_set(rows, head, statuses)
    verdict = results_outcome(
        item.results, unfinished=any(bool(r.judge_failures) for r in item.results)
    )
    finished_sets = [
        FinishedSet(BytesDocument(data), result.eval_set_result_id, name)
        for result, data, name in zip(item.results, item.documents, item.file_names, strict=True)
    ]
    run_document: DocumentSource | None = (
        BytesDocument(item.run_document) if item.run_document is not None else None
    )
    outcome = RunOutcome(
        outcome=verdict.status.value,
        exit_code=verdict.exit_code,
        duration_seconds=duration,
        interrupted=any(bool(r.partial) for r in item.results),
        agent=item.keys.get("agent") if isinstance(item.keys.get("agent"), dict) else None,
        finished_at=finished,
    )
    recorder.finish(outcome, finished_sets, run_document=run_document)
    return meta.run_id


__all__ = ["Addition", "add_read", "add_results", "read_additions"]
