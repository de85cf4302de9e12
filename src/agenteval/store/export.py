"""A stored run written back out: its result files byte for byte, its run document, its results.

``agenteval store export RUN -o DIR`` writes each eval set's stored document under the
file name ``run`` gave it: the same bytes as the run's ``--output`` files.  ``--json
FILE`` writes the run document: kept verbatim when one was added with ``store add``,
else rebuilt from the stored documents and the run document's own keys exactly as
``run --json`` wrote them.  A run group (shards) is exported as ``agenteval merge`` joins
its shards: merged result files (and a run document of the merged results).

Readers (``show``, ``diff``, ``merge``, ``report``, ``run --resume``, ``run --baseline``)
get a stored run through :func:`materialize` (exported into a temp directory and read
like any file) or :func:`stored_results`.

Tested in tests/store/test_export.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from agenteval.inputs.result_inputs import parse_results
from agenteval.report.atomic_write import StreamedFile
from agenteval.report.result_files import RESULT_SUFFIX, safe_name, write_result, write_whole_run
from agenteval.report.result_stream import write_run_document
from agenteval.results.merging import merge_results
from agenteval.schema.result import EvalSetResult
from agenteval.store import tables
from agenteval.store.connection import Store, StoreError
from agenteval.store.documents import DamagedDocument, has_document, read_document
from agenteval.store.queries import LogicalRun, StoredSet


class _StoredDocument:
    """A stored result document that copies itself out like a run's spooled one."""

    def __init__(self, conn: Connection, stored: StoredSet) -> None:
        self.conn = conn
        self.stored = stored

    def pieces(self) -> Iterator[bytes]:
        """The document's bytes in pieces."""
        if not self.stored.document_chunks:
            raise DamagedDocument("was not stored (the run could not keep it)")
        yield from read_document(
            self.conn, self.stored.run, self.stored.position, self.stored.document_size
        )

    def copy_to(self, out: Callable[[bytes], object], depth: int = 0) -> None:
        """Copy the document out (at ``depth`` > 0 indented, its final newline left out)."""
        if depth == 0:
            for piece in self.pieces():
                out(piece)
            return
        pad = b"\n" + b"  " * depth
        held = b""
        for piece in self.pieces():
            data = held + piece
            held = data[-1:]
            out(data[:-1].replace(b"\n", pad))
        # The last byte is the document's final newline: left out inside a run document.


def _damaged(
    store: Store, run: LogicalRun, stored: StoredSet, problem: DamagedDocument
) -> StoreError:
    return StoreError(
        store.where, f"run {run.id}: the result document of {stored.eval_set_id} {problem}"
    )


def _file_name(stored: StoredSet, run: LogicalRun, taken: set[str]) -> str:
    """The stored file name, made safe again (the store is input like any other), numbered
    when an earlier eval set of the run took it: ``store add a/x.evalset_result.json
    b/x.evalset_result.json`` keeps two files of one name, and the second overwrote the first.
    ``taken`` (names in lower case: one file on a case-insensitive disk) gets the name."""
    name = stored.file_name or (
        f"{safe_name(stored.result_id, max_bytes=200)}{RESULT_SUFFIX}"
        if stored.result_id
        else f"{safe_name(run.id)}_{safe_name(stored.eval_set_id)}{RESULT_SUFFIX}"
    )
    name = safe_name(name, max_bytes=240).removesuffix(RESULT_SUFFIX)
    numbered, count = name, 1
    while f"{numbered}{RESULT_SUFFIX}".lower() in taken:
        count += 1
        numbered = f"{name}-{count}"
    taken.add(f"{numbered}{RESULT_SUFFIX}".lower())
    return numbered + RESULT_SUFFIX


def _bytes(conn: Connection, stored: StoredSet) -> bytes:
    return b"".join(_StoredDocument(conn, stored).pieces())


def stored_results(store: Store, run: LogicalRun) -> list[EvalSetResult]:
    """The run's eval set results (a group's shards merged as ``agenteval merge`` does)."""
    with store.transaction() as conn:
        return _stored_results(store, conn, run)


def _stored_results(store: Store, conn: Connection, run: LogicalRun) -> list[EvalSetResult]:
    results: list[EvalSetResult] = []
    sources: list[str] = []
    # A group's shards in shard order, as `agenteval merge shard1 shard2 …` takes them.
    shard_of = {member.key: member.shard_index or 0 for member in run.runs}
    for stored in sorted(run.sets, key=lambda s: (shard_of.get(s.run, 0), s.run, s.position)):
        try:
            data = _bytes(conn, stored)
        except DamagedDocument as problem:
            raise _damaged(store, run, stored, problem) from None
        where = f"{store.where} @{run.id} {stored.eval_set_id}"
        parsed, problems = parse_results(data.decode("utf-8"), where)
        if problems:
            raise StoreError(where, f"stored result does not read back: {problems[0].message}")
        results.extend(parsed)
        sources.extend(where for _ in parsed)
    if run.group:
        return merge_results(results, sources=sources)
    return results


def export_run(
    store: Store, run: LogicalRun, output: Path | None, json_file: Path | None
) -> list[Path]:
    """Write the run's result files into ``output`` and/or its run document to ``json_file``."""
    written: list[Path] = []
    if run.group:
        results = stored_results(store, run)
        if output is not None:
            written.extend(write_result(result, output, run.first.app_name) for result in results)
        if json_file is not None:
            written.append(write_whole_run(json_file, results))
        return written
    with store.transaction() as conn:
        if output is not None:
            output.mkdir(parents=True, exist_ok=True)
            taken: set[str] = set()
            for stored in run.sets:
                path = output / _file_name(stored, run, taken)
                try:
                    with StreamedFile(path) as out:
                        _StoredDocument(conn, stored).copy_to(out.write)
                        written.append(out.commit())
                except DamagedDocument as problem:
                    raise _damaged(store, run, stored, problem) from None
        if json_file is not None:
            written.append(_export_run_document(store, conn, run, json_file))
    return written


def _export_run_document(store: Store, conn: Connection, run: LogicalRun, path: Path) -> Path:
    member = run.first
    if has_document(conn, member.key, tables.RUN_DOCUMENT_PART):
        with StreamedFile(path) as out:
            try:
                for piece in read_document(conn, member.key, tables.RUN_DOCUMENT_PART):
                    out.write(piece)
            except DamagedDocument as problem:
                raise StoreError(store.where, f"run {run.id}: its run document {problem}") from None
            return out.commit()
    if not member.document_keys:
        # Added from result files: no run document was ever written; one is made of them.
        return write_whole_run(path, _stored_results(store, conn, run))
    header, trailer = _header_and_trailer(member.key, member.document_keys)
    documents = [_StoredDocument(conn, stored) for stored in run.sets]
    try:
        return write_run_document(path, documents, header, trailer)
    except DamagedDocument as problem:
        raise StoreError(store.where, f"run {run.id}: a result document {problem}") from None


def _header_and_trailer(key: int, document_keys: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``runs.document_keys`` read back: the run document's header and trailer objects
    (tables.DamagedRow if not: a hand-edited value was an internal error)."""
    try:
        keys = json.loads(document_keys)
    except ValueError:
        keys = None
    parts = (
        [keys.get(name) or {} for name in ("header", "trailer")] if isinstance(keys, dict) else []
    )
    if len(parts) != 2 or not all(isinstance(part, dict) for part in parts):
        problem = "is not a JSON object of the run document's header and trailer"
        raise tables.DamagedRow("runs", f"id {key}", "document_keys", problem)
    return parts[0], parts[1]


def materialize(store: Store, run: LogicalRun, directory: Path) -> Path:
    """The run as a file a result reader takes: its run document, or a group's merged files."""
    directory.mkdir(parents=True, exist_ok=True)
    if run.group:
        export_run(store, run, directory, None)
        return directory
    path = directory / f"run-{safe_name(run.id)}.json"
    export_run(store, run, None, path)
    return path


__all__ = ["export_run", "materialize", "stored_results"]
