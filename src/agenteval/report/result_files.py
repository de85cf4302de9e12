"""JSON result files: safe names, atomic writes, Go-style encoding (from :mod:`agenteval.schema.gojson`).

Two kinds of file are written here:

* ``--output DIR``: one trpc-agent-go result file per eval set,
  ``<app>_<evalSetId>_<uuid4>.evalset_result.json`` (formats.md §1, §6).
* ``--json FILE``: the whole run as one document (see :func:`run_document`)::

      {
        "agentevalVersion": "0.1.0",
        "createdAt": 1767225600.5,          # Unix seconds, time of saving
        "overallStatus": "failed",          # "incomplete" when any case is, else summarize
        "caseStatusCounts": {"passed": 3, "failed": 1, "notEvaluated": 1},  # + "incomplete": n
        "numEvalSets": 2,
        "durationSeconds": 0.42,            # only when the caller knows it
        "evalSetResults": [ <EvalSetResult>, ... ],   # each exactly as in a result file
        "warnings": ["file: path: message (hint)", ...],  # a flood of one kind collapsed
        ...                                  # run-level extras from the caller
      }

  ``caseStatusCounts`` counts the in-memory per-case statuses
  (:func:`agenteval.results.aggregation.case_statuses`), which decide the exit code.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from agenteval import __version__
from agenteval.errors import Problem
from agenteval.report.atomic_write import write_bytes_atomic
from agenteval.report.gc_pause import collector_paused
from agenteval.report.result_stream import (
    ResultDocument,
    write_result_document,
    write_run_document,
)
from agenteval.report.run_notes import collapse
from agenteval.results.aggregation import case_statuses, run_outcome
from agenteval.schema.base import dump
from agenteval.schema.gojson import model_to_go_json, to_go_json
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus

RESULT_SUFFIX = ".evalset_result.json"


def write_json(path: Path, data: Any) -> Path:
    """Atomically write plain JSON data to ``path`` in Go layout; returns the path."""
    return write_bytes_atomic(path, to_go_json(data).encode("utf-8"))


def safe_name(text: str, max_bytes: int = 80) -> str:
    """``text`` reduced to a single safe file-name component (no separators, no leading dot)."""
    chars = [ch if ch.isalnum() or ch in "-_." else "_" for ch in text]
    name = "".join(chars)
    stripped = name.lstrip(".")
    name = "_" * (len(name) - len(stripped)) + stripped
    name = name.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    return name or "_"


def result_id(app_name: str, eval_set_id: str) -> str:
    """A new ``<app>_<evalSetId>_<uuid4>`` result id made of safe characters."""
    return f"{safe_name(app_name)}_{safe_name(eval_set_id)}_{uuid.uuid4()}"


def result_file_name(rid: str) -> str:
    """The file name of the result ``rid`` in an output directory (a safe name)."""
    return f"{safe_name(rid, max_bytes=200)}{RESULT_SUFFIX}"


def write_result(result: EvalSetResult, output_dir: Path, app_name: str) -> Path:
    """Write one ``*.evalset_result.json`` directly in ``output_dir``; returns its path.

    Fills ``evalSetResultId``/``evalSetResultName`` when empty and sets
    ``creationTimestamp`` to now, on ``result`` itself.
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    if not result.eval_set_result_id:
        result.eval_set_result_id = result_id(app_name, result.eval_set_id)
    if not result.eval_set_result_name:
        result.eval_set_result_name = result.eval_set_result_id
    result.creation_timestamp = time.time()
    path = output_dir / result_file_name(result.eval_set_result_id)
    # Defence in depth: safe_name already removed every separator.
    if path.resolve().parent != output_dir.resolve():
        raise ValueError(f"result file {path} would leave {output_dir}")
    # The same writer as a run's streamed results, fed this result's cases one by one.
    with collector_paused():
        document = ResultDocument.of_result(result)
    try:
        return write_result_document(document, path)
    finally:
        document.close()


_COUNT_KEYS = {
    EvalStatus.PASSED: "passed",
    EvalStatus.FAILED: "failed",
    EvalStatus.NOT_EVALUATED: "notEvaluated",
    EvalStatus.INCOMPLETE: "incomplete",
}


def run_header(
    set_statuses: Sequence[Iterable[EvalStatus]], *, duration_seconds: float | None = None
) -> dict[str, Any]:
    """The keys of a run document before ``evalSetResults``, from each eval set's case statuses."""
    counts = {"passed": 0, "failed": 0, "notEvaluated": 0, "incomplete": 0}
    for statuses in set_statuses:
        for status in statuses:
            counts[_COUNT_KEYS[status]] += 1
    if not counts["incomplete"]:
        del counts["incomplete"]  # the key appears only when some case is INCOMPLETE
    # The overall status depends only on which statuses occur.
    overall = run_outcome(status for status, key in _COUNT_KEYS.items() if counts.get(key)).status
    header: dict[str, Any] = {
        "agentevalVersion": __version__,
        "createdAt": time.time(),
        "overallStatus": overall.value,
        "caseStatusCounts": counts,
        "numEvalSets": len(set_statuses),
    }
    if duration_seconds is not None:
        header["durationSeconds"] = duration_seconds
    return header


def run_document(
    results: Sequence[EvalSetResult],
    *,
    duration_seconds: float | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``--json FILE`` document of a whole run (shape in the module docstring)."""
    statuses = [list(case_statuses(result).values()) for result in results]
    document = run_header(statuses, duration_seconds=duration_seconds)
    document["evalSetResults"] = [dump(r) for r in results]
    document.update(extra or {})
    return document


class RunOutcome(Protocol):
    """What :func:`write_run_json` reads from a run (``agenteval.api.RunResult`` fits)."""

    @property
    def results(self) -> Sequence[EvalSetResult]: ...

    @property
    def elapsed(self) -> float: ...

    @property
    def warnings(self) -> Sequence[object]: ...


def run_trailer(run: object, warnings: Sequence[str] | None = None) -> dict[str, Any]:
    """The keys of a run document after ``evalSetResults``: warnings, judge and agent usage, agent.

    Warnings are listed as the console prints them (``warnings``, when the caller has them
    so): repeats of one kind past a few are one ``… and N more like this`` line
    (``run_notes.collapse``), so a flood is bounded.
    """
    if warnings is None:
        given = list(getattr(run, "warnings", ()))
        problems = [w for w in given if isinstance(w, Problem)]
        listed = collapse(problems) if len(problems) == len(given) else given
        warnings = [str(w) for w in listed]
    trailer: dict[str, Any] = {"warnings": list(warnings)}
    # The run's judge calls, tokens and cost, per metric and in total; absent without a judge.
    usage = getattr(run, "judge_usage", None)
    if usage:
        trailer["judgeUsage"] = usage
    # What the agent under test spent over the run's eval sets; absent when no turn said.
    spent = getattr(run, "agent_usage", None)
    if spent:
        trailer["agentUsage"] = spent
    # What the driven agent did (run --agent); absent for runs that only read traces.
    agent = getattr(run, "agent_stats", None)
    if agent is not None:
        trailer["agent"] = agent.to_json()
    return trailer


def write_run_json(path: Path, run: RunOutcome) -> Path:
    """Write the ``--json FILE`` document of a finished run atomically; returns the path."""
    return write_whole_run(path, run.results, duration_seconds=run.elapsed, extra=run_trailer(run))


def write_whole_run(
    path: Path,
    results: Sequence[EvalSetResult],
    *,
    duration_seconds: float | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """:func:`run_document` of whole results, written through the streamed writer."""
    statuses = [list(case_statuses(result).values()) for result in results]
    header = run_header(statuses, duration_seconds=duration_seconds)
    documents: list[ResultDocument] = []
    try:
        with collector_paused():
            for result in results:
                documents.append(ResultDocument.of_result(result))
        return write_run_document(path, documents, header, dict(extra or {}))
    finally:
        for document in documents:
            document.close()


__all__ = [
    "RESULT_SUFFIX",
    "RunOutcome",
    "model_to_go_json",
    "result_file_name",
    "result_id",
    "run_document",
    "run_header",
    "run_trailer",
    "safe_name",
    "to_go_json",
    "write_json",
    "write_result",
    "write_run_json",
    "write_whole_run",
]
