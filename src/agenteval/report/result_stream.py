"""Result documents written as cases finish: flat memory, the same bytes as a whole write.

A result file (``--output``) and the ``--json`` run document used to be built whole from
every case result of the run; at 100,000 cases that held gigabytes.  Here each case is
encoded once, when it finishes, into a spool file (an unnamed temp file) and dropped;
the case summaries of a single run are spooled the same way and written sorted by
evalId.  At the end the pieces are copied into place with the parts only known then
(the summary's tallies, ``creationTimestamp``, the run state).

This is the one writer of result documents: :func:`agenteval.report.result_files.write_result`
feeds it a whole result's cases (with the result's own summary). Byte equality with the
models' serializer over a whole result holds because
each piece is serialised by the same pydantic serializer with the same options, and
the surrounding object is serialised with an empty list where the pieces go: the
pieces are spliced in at that list, re-indented to their depth (JSON text holds no raw
newline inside a string, so indenting every newline is exact).  The tests compare the
bytes with the whole write.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple, Protocol

from agenteval.report.atomic_write import StreamedFile
from agenteval.results.aggregation import (
    CaseSummaryData,
    SummaryPart,
    SummaryTally,
    uses_custom_aggregator,
)
from agenteval.schema.base import DumpMemo
from agenteval.schema.gojson import model_to_go_json_bytes, to_go_json, to_go_json_bytes
from agenteval.schema.result import (
    EvalCaseResult,
    EvalSetResult,
    EvalSetResultSummary,
)

_CHUNK = 1 << 20
_CASES_MARK = b'\n  "evalCaseResults": []'
_CASE_SUMMARIES_MARK = b'\n    "evalCaseSummaries": []'
_SETS_MARK = b'\n  "evalSetResults": []'


def _piece(model: EvalCaseResult, depth: int, memo: DumpMemo) -> bytes:
    """``model`` as it appears inside a document at ``depth`` levels of 2-space indent."""
    return _indented(model_to_go_json_bytes(model, memo), depth)


def _indented(text: bytes, depth: int) -> bytes:
    """A written value (``text``, its final newline dropped) at ``depth`` levels of indent."""
    pad = b" " * (2 * depth)
    return pad + text[:-1].replace(b"\n", b"\n" + pad)


def _split(document: bytes, mark: bytes) -> tuple[bytes, bytes]:
    """``document`` cut inside the empty list after ``mark``'s key: (up to and with '[', after ']')."""
    at = document.index(mark)
    cut = at + len(mark) - 1  # the position of "]"
    return document[:cut], document[cut + 1 :]


def _copy_indented(
    source: _Spool, out: Callable[[bytes], object], size: int, pad: bytes, start: int = 0
) -> None:
    """Copy ``size`` bytes of ``source`` from ``start``, indenting every line by ``pad``."""
    source.seek(start)
    left = size
    newline = b"\n" + pad
    while left > 0:
        chunk = source.read(min(_CHUNK, left))
        if not chunk:
            break
        left -= len(chunk)
        out(chunk.replace(b"\n", newline) if pad else chunk)


# Pieces gathered before one write to a spool: a case's piece is ~6 KB, and writing each
# alone cost a system call per case (~10 % of a 10,000-case deterministic run's CPU time,
# bench/adk_side_by_side.py); held only for the spool being written, never per document.
_BATCH = 1 << 20


class _Spool:
    """An unnamed temp file written in batches of ``_BATCH`` bytes; reads see every write."""

    def __init__(self, spool_dir: Path | None) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile(dir=spool_dir)  # noqa: SIM115
        self._pending: list[bytes] = []
        self._pending_size = 0

    def write(self, data: bytes) -> None:
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= _BATCH:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self._file.write(b"".join(self._pending))
            self._pending.clear()
            self._pending_size = 0
        self._file.flush()

    def seek(self, offset: int) -> None:
        self.flush()
        self._file.seek(offset)

    def read(self, size: int) -> bytes:
        return self._file.read(size)

    def read_at(self, offset: int, size: int) -> bytes:
        """``size`` bytes from ``offset`` (written ones; the file's position is left alone)."""
        self.flush()
        return os.pread(self._file.fileno(), size, offset)

    def close(self) -> None:
        self._pending.clear()
        self._file.close()


def _cut(data: bytes, lengths: list[int]) -> list[bytes]:
    """``data`` cut into pieces of ``lengths``."""
    pieces = []
    at = 0
    for length in lengths:
        pieces.append(data[at : at + length])
        at += length
    return pieces


# Where a case summary lies: its evalId, which spool (0: the document's own, then its
# shares' in order), its offset there and its length.
_Place = tuple[str, int, int, int]


@dataclass(slots=True)
class _SummarySpool:
    """Case summaries of a single run, spooled as they are built, written sorted by evalId.

    A later share's summaries stay in that share's spool (:meth:`absorb`) and are read in
    place when written: copied into this spool first, 5,000 summaries of
    bench/adk_side_by_side.py cost ~15 ms of the run's serial tail.
    """

    # The spool outlives any one call: closed by close(), removed by the OS when closed.
    spool: _Spool
    index: list[tuple[str, int, int]] = field(default_factory=list)
    size: int = 0
    # Later shares' spools and their indexes, in the order absorbed.
    parts: list[tuple[_Spool, list[tuple[str, int, int]]]] = field(default_factory=list)

    def add(self, summary: CaseSummaryData) -> None:
        data = _indented(to_go_json_bytes(summary), 3)
        self.spool.write(data)
        self.index.append((summary["evalId"], self.size, len(data)))
        self.size += len(data)

    def absorb(self, spool: _Spool, index: list[tuple[str, int, int]]) -> None:
        """Take another spool's summaries (indexed from its start by ``index``); the spool
        is read when the summaries are written and closed with this one."""
        self.parts.append((spool, index))

    def __len__(self) -> int:
        return len(self.index) + sum(len(index) for _, index in self.parts)

    def write_sorted(self, out: Callable[[bytes], object]) -> None:
        # Read in runs of summaries that lie one after the other in a spool (they mostly
        # come in evalId order) and written in batches of ``_BATCH`` bytes: read and written
        # one by one, 10,000 summaries took 18 ms (bench/adk_side_by_side.py); mapped, the
        # spool counted in the process's memory.
        self.spool.flush()
        written: list[bytes] = []
        size = 0
        separator = b"\n"
        for pieces in self._runs():
            written += pieces
            size += sum(map(len, pieces))
            if size >= _BATCH:
                out(separator + b",\n".join(written))
                separator, written, size = b",\n", [], 0
        if written:
            out(separator + b",\n".join(written))
        out(b"\n    ")

    def _places(self) -> list[_Place]:
        places = [(eval_id, 0, offset, length) for eval_id, offset, length in self.index]
        for number, (_, index) in enumerate(self.parts, start=1):
            places += [(eval_id, number, offset, length) for eval_id, offset, length in index]
        places.sort()
        return places

    def _runs(self) -> Iterator[list[bytes]]:
        """The summaries in evalId order, read a run of neighbours (up to ``_BATCH``) at a time."""
        spools = [self.spool, *(spool for spool, _ in self.parts)]
        run: list[int] = []  # the lengths of a run of neighbouring summaries
        source = start = end = 0
        for _, number, offset, length in self._places():
            if run and (number != source or offset != end or end - start >= _BATCH):
                yield _cut(spools[source].read_at(start, end - start), run)
                run = []
            if not run:
                source, start, end = number, offset, offset
            run.append(length)
            end += length
        if run:
            yield _cut(spools[source].read_at(start, end - start), run)

    def close(self) -> None:
        self.spool.close()
        for spool, _ in self.parts:
            spool.close()


class DocumentPart(NamedTuple):
    """What a later share of a document's cases counted (:meth:`ResultDocument.shipped`);
    its pieces and case summaries stay in its spools."""

    cases: int
    size: int  # of the pieces, each after its separator (the first after a newline only)
    summary_index: list[tuple[str, int, int]]
    tally: SummaryPart


class ResultDocument:
    """One eval set's result document, written case by case into a spool file.

    ``identity`` (``--output``): give the result its ``evalSetResultId``/``Name``
    (``<app>_<evalSetId>_<uuid4>``) and ``creationTimestamp`` as a result file has them;
    without, the document is what ``--json`` holds for an eval set written nowhere else.
    ``part``: only a share of the cases (no head), shipped to the document they belong to
    (:meth:`part`, :meth:`absorb`).
    """

    def __init__(
        self,
        eval_set_id: str,
        num_runs: int,
        *,
        result_id: str | None,
        spool_dir: Path | None,
        summary: EvalSetResultSummary | None = None,
        head: EvalSetResult | None = None,
        part: bool = False,
    ) -> None:
        self.eval_set_id = eval_set_id
        self.result_id = result_id
        self.spool_dir = spool_dir
        self.cases = 0
        self.spool = _Spool(spool_dir)
        self._memo: DumpMemo = {}  # what the cases' dumps share (their metrics' criteria)
        # ``summary``: the result's own, written as it is (a whole result); else tallied.
        self._given = summary
        spooled = num_runs == 1 and summary is None
        # Beside the cases' spool: one directory for every spool of the document.
        summaries = _Spool(spool_dir) if spooled else None
        self._summaries = _SummarySpool(summaries) if summaries is not None else None
        emit = self._summaries.add if self._summaries is not None else None
        self.tally = SummaryTally(num_runs, emit=emit, record=part) if summary is None else None
        # The finished document's summary (its case summaries only when not spooled).
        self.summary: EvalSetResultSummary | None = None
        self.size = 0  # the document's, the shares absorbed included
        self._own_size = 0  # what is in ``spool``
        # Shares absorbed, in order: (where they go in ``spool``, their spool, their size).
        self._parts: list[tuple[int, _Spool, int]] = []
        if part:
            return
        # The keys before the cases: the eval set's, or ``head``'s own (a whole result).
        # (Only the keys before the cases' mark are kept: whatever follows is cut off.)
        first = self._head(
            head.model_copy() if head is not None else EvalSetResult(eval_set_id=eval_set_id)
        )
        first.eval_case_results = []
        prefix, _ = _split(model_to_go_json_bytes(first), _CASES_MARK)
        self._write(prefix)

    def part(self) -> ResultDocument:
        """An empty document for a later share of this one's cases (a worker's,
        :mod:`agenteval.run.case_split`): the worker adds the cases and :meth:`shipped`
        them, then this document :meth:`absorb` s it (its spools are read in place)."""
        if self.tally is None:
            raise ValueError("a whole result's document has no parts")
        return ResultDocument(
            self.eval_set_id,
            self.tally.num_runs,
            result_id=None,
            spool_dir=self.spool_dir,
            part=True,
        )

    def shipped(self) -> DocumentPart:
        """What this part counted (its spools flushed for the document that absorbs it)."""
        if self.tally is None:
            raise ValueError("a whole result's document is not shipped")
        self.spool.flush()
        index = []
        if self._summaries is not None:
            self._summaries.spool.flush()
            index = self._summaries.index
        return DocumentPart(self.cases, self.size, index, self.tally.part())

    def absorb(self, part: ResultDocument, shipped: DocumentPart) -> None:
        """Append a part's cases, as if each had been :meth:`add`-ed here after the rest;
        its pieces are copied from its spool when the document is (it is closed with it)."""
        if self.tally is None:
            raise ValueError("a whole result's document takes no part")
        if shipped.cases:
            if self.cases:
                self._write(b",")  # the part's first piece follows a newline only
            self._parts.append((self._own_size, part.spool, shipped.size))
            self.size += shipped.size
            self.cases += shipped.cases
        else:
            part.spool.close()
        self.tally.absorb(shipped.tally)
        if self._summaries is not None and part._summaries is not None:
            self._summaries.absorb(part._summaries.spool, shipped.summary_index)
        elif part._summaries is not None:
            part._summaries.close()

    @classmethod
    def of_result(cls, result: EvalSetResult, spool_dir: Path | None = None) -> ResultDocument:
        """A whole result fed through the stream: the document is written as ``result`` is
        (its own ids, summary and ``creationTimestamp``); :meth:`finish` it with ``result``."""
        runs = result.summary.num_runs if result.summary is not None else None
        cases = result.case_results()
        num_runs = runs or max((case.run_id or 1 for case in cases), default=1)
        document = cls(
            result.eval_set_id,
            num_runs,
            result_id=None,
            spool_dir=spool_dir,
            summary=result.summary,
            head=result,
        )
        try:
            for case in cases:
                document.add(case)
            document.finish(result)
        except BaseException:
            document.close()
            raise
        return document

    def _head(self, head: EvalSetResult) -> EvalSetResult:
        if self.result_id is not None:
            head.eval_set_result_id = self.result_id
            head.eval_set_result_name = self.result_id
        return head

    def _write(self, data: bytes) -> None:
        self.spool.write(data)
        self.size += len(data)
        self._own_size += len(data)

    def add(self, case: EvalCaseResult) -> None:
        """Append one case result (result-file order) and count it in the summary."""
        if self.tally is not None:
            self.tally.add(case)
        self._write((b",\n" if self.cases else b"\n") + _piece(case, 2, self._memo))
        self.cases += 1

    def finish(self, head: EvalSetResult) -> None:
        """Close the document: summary, ``creationTimestamp``, ``head``'s run state."""
        self._write(b"\n  ]" if self.cases else b"]")
        custom = uses_custom_aggregator(head)
        summary = self.tally.finish(custom_aggregator=custom) if self.tally else self._given
        self.summary = summary
        emitted = self._summaries is not None and len(self._summaries) > 0
        if emitted and summary is not None:
            summary.eval_case_summaries = []
        whole = self._head(head.model_copy())
        whole.eval_case_results = []
        whole.summary = summary
        if self.result_id is not None:
            whole.creation_timestamp = time.time()
        _, suffix = _split(model_to_go_json_bytes(whole), _CASES_MARK)
        if emitted and self._summaries is not None:
            before, after = _split(suffix, _CASE_SUMMARIES_MARK)
            self._write(before)
            self._summaries.write_sorted(self._write)
            self._write(b"]" + after)
        else:
            self._write(suffix)
        if self._summaries is not None:
            self._summaries.close()
        self.spool.flush()

    def copy_to(self, out: Callable[[bytes], object], depth: int = 0) -> None:
        """Copy the finished document (without its final newline at ``depth`` > 0)."""
        left = self.size - 1 if depth else self.size
        pad = b" " * (2 * depth)
        at = 0
        pieces: list[tuple[_Spool, int, int]] = []
        for cut, spool, size in self._parts:
            pieces += [(self.spool, at, cut - at), (spool, 0, size)]
            at = cut
        pieces.append((self.spool, at, self._own_size - at))
        for spool, start, size in pieces:
            _copy_indented(spool, out, min(size, left), pad, start)
            left -= min(size, left)

    def close(self) -> None:
        self.spool.close()
        if self._summaries is not None:  # closed already once finished; not before
            self._summaries.close()
        for _, spool, _ in self._parts:
            spool.close()


def write_result_document(document: ResultDocument, path: Path) -> Path:
    """Write a finished document to ``path`` whole (see ``StreamedFile``); returns the path."""
    with StreamedFile(path) as out:
        document.copy_to(out.write)
        return out.commit()


class CopiedDocument(Protocol):
    """A finished result document that copies itself into a run document (ResultDocument,
    or one read back from a run store)."""

    def copy_to(self, out: Callable[[bytes], object], depth: int = 0) -> None:
        """Copy the document, indented ``depth`` levels (its final newline left out then)."""


def write_run_document(
    path: Path,
    documents: Iterable[CopiedDocument],
    header: Mapping[str, Any],
    trailer: Mapping[str, Any],
) -> Path:
    """The ``--json`` run document: ``header``, the eval sets' documents, ``trailer``."""
    skeleton: dict[str, Any] = {**header, "evalSetResults": [], **trailer}
    prefix, suffix = _split(to_go_json(skeleton).encode("utf-8"), _SETS_MARK)
    with StreamedFile(path) as out:
        out.write(prefix)
        separator = b"\n    "
        wrote = False
        for document in documents:
            out.write(separator)
            document.copy_to(out.write, depth=2)
            separator = b",\n    "
            wrote = True
        out.write((b"\n  ]" if wrote else b"]") + suffix)
        return out.commit()


__all__ = [
    "CopiedDocument",
    "DocumentPart",
    "ResultDocument",
    "write_result_document",
    "write_run_document",
]
