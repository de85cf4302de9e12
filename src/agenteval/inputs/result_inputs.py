"""Read results in every form a result reader is given (show, diff, merge, report, --resume),
case by case.

Accepted: a trpc-agent-go result file (``*.evalset_result.json``, also the legacy
string-wrapped layout), agenteval's ``--json`` run document (its
``evalSetResults``), and a directory of them.  In a directory the result files
are read; when it holds none, its run documents.  Anything else is a
configuration error naming the file and what it looks like.

Files are read in two passes, so no reader holds a whole file: :func:`read_parts`
walks each file once (:mod:`agenteval.inputs.result_scan`) and gives one
:class:`ResultPart` per eval set result: its validated head (every key but the case
results; the summary without its case summaries), its case count, and each case's
evalId and runId.  :meth:`ResultPart.cases` then reads, parses and validates one
case result at a time from its byte span (the file is checked not to have changed
in between).  The whole-result API (:meth:`ResultPart.whole`, :func:`read_results`,
:func:`parse_results`) is a fold over those cases, with the problems of every piece
in the order one validation of the whole document gives them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Any

import pydantic_core
from pydantic import BaseModel, ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs import locations
from agenteval.inputs.duplicate_keys import duplicate_keys
from agenteval.inputs.file_kind import FileKind, first_line_kind, kind_of, wrong_kind_message
from agenteval.inputs.finite_numbers import may_overflow, non_finite_numbers
from agenteval.inputs.go_escapes import from_json, go_escapes
from agenteval.inputs.go_utf8 import go_utf8
from agenteval.inputs.input_limits import empty_problem, head_problem, input_file_problem
from agenteval.inputs.json_scan import (
    WINDOW_BYTES,
    Reader,
    ScanError,
    bytes_reader,
    line_and_column,
)
from agenteval.inputs.loading import RESULT_SUFFIX, read_text, validation_problems
from agenteval.inputs.long_lived import building_long_lived
from agenteval.inputs.result_scan import (
    CASE_SUMMARIES_KEY,
    CASES_KEY,
    ENTRIES_KEY,
    ResultScan,
    ScannedDocument,
    ScannedResult,
)
from agenteval.inputs.result_validation import CaseValidator, validate_head, validate_summary
from agenteval.inputs.unknown_keys import Strictness, result_unknown_keys, sort_unknown
from agenteval.schema.gojson import clean_text
from agenteval.schema.result import EvalCaseResult, EvalCaseSummary, EvalSetResult
from agenteval.schema.status import EvalStatus

NOT_A_RESULT = "an agenteval or trpc-agent-go result"
# A result reader given a run's input says how to run it (the generic hints name flags
# of `run` that the readers do not have).
_SCORE_IT = {
    FileKind.EVALSET: "score it with `agenteval run --evalset {file}`",
    FileKind.METRICS: "score with it: `agenteval run --evalset … --metrics {file}`",
}
# Bytes read from a file at a time in the second pass (cases are read in file order), and
# the text the first pass decodes at a time: all a reader holds of a file.
BLOCK_BYTES = 4 << 20
WINDOW = WINDOW_BYTES
# The largest result file whose invalid UTF-8 is repaired (read whole, in memory, as Go
# reads it): a 100 MB file with one stray byte peaked at 1.7 GB; a larger one is refused
# as it was, saying so.
REPAIR_LIMIT = 64 << 20
# After a decoder error, this much of the rest is read to see whether only blanks follow.
_TAIL_BYTES = 4096
# Where a problem of each piece falls among one whole-document validation's problems:
# the eval set result's fields in schema order, its cases after evalSetId, the case
# summaries at the end of summary.
_FIELD_RANK = {
    (field.alias or name): rank
    for rank, (name, field) in enumerate(EvalSetResult.model_fields.items())
}
_CASES_RANK = _FIELD_RANK[CASES_KEY]
_SUMMARY_RANK = _FIELD_RANK["summary"]


class _Source(ABC):
    """Where a document's bytes are: its name in messages, its size, a reader of ranges."""

    name: str
    size: int
    # What reading it found that is no error (invalid UTF-8 read as U+FFFD): given to its
    # first eval set result.
    warnings: Sequence[Problem] = ()

    @abstractmethod
    def reading(self) -> AbstractContextManager[Reader]:
        """A reader of byte ranges, for as long as the ``with`` block runs."""


class _MemorySource(_Source):
    """A document held in memory (a text given to :func:`parse_results`, a legacy file)."""

    def __init__(self, name: str, data: bytes, warnings: Sequence[Problem] = ()) -> None:
        self.name = name
        self.data = data
        self.size = len(data)
        self.warnings = warnings

    @contextmanager
    def reading(self) -> Iterator[Reader]:
        yield bytes_reader(self.data)


class _FileSource(_Source):
    """A regular file, read again in the second pass only if it did not change."""

    def __init__(self, path: Path, status: os.stat_result) -> None:
        self.name = str(path)
        self.path = path
        self.size = status.st_size
        self._identity = _identity(status)

    @contextmanager
    def reading(self) -> Iterator[Reader]:
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise ConfigError([_read_problem(self.name, exc)]) from None
        with handle:
            if _identity(os.fstat(handle.fileno())) != self._identity:
                raise ConfigError(
                    [
                        Problem(
                            self.name,
                            "",
                            "changed while it was being read",
                            "read it when nothing writes it",
                        )
                    ]
                )
            yield _blocks(handle)


def _identity(status: os.stat_result) -> tuple[int, int, int, int]:
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


def _blocks(handle: IO[bytes]) -> Reader:
    """A reader of byte ranges that reads BLOCK_BYTES at a time (ranges come mostly in order)."""
    block = b""
    block_start = 0

    def read(start: int, stop: int) -> bytes:
        nonlocal block, block_start
        if start < block_start or stop > block_start + len(block):
            handle.seek(start)
            block = handle.read(max(BLOCK_BYTES, stop - start))
            block_start = start
        return block[start - block_start : stop - block_start]

    return read


def _read_problem(name: str, exc: OSError) -> Problem:
    if isinstance(exc, FileNotFoundError):
        return Problem(name, "", "file not found")
    if isinstance(exc, IsADirectoryError):
        return Problem(name, "", "is a directory, expected a file")
    return Problem(name, "", f"cannot read: {exc.strerror or exc}")


class ResultPart:
    """One eval set result of a result file or run document, read case by case.

    ``head``: the result without its case results (its summary without the case
    summaries); ``source``: the file; ``where``: the result's JSON path in it ("" in
    a result file, ``evalSetResults[2]`` in a run document).
    """

    def __init__(
        self,
        head: EvalSetResult,
        scanned: ScannedResult,
        source: _Source,
        document_keys: dict[str, Any] | None = None,
        warnings: Iterable[Problem] = (),
    ) -> None:
        # Each read once into a plain attribute (the case loops read them often).
        self.head = head
        self.eval_set_id = head.eval_set_id
        self._source = source
        self.source = source.name
        self._scanned = scanned
        self.where = scanned.where
        self.case_count = scanned.case_count
        # Each case result's evalId in file order ("" where it is no string), and its runId
        # as written (0 where absent, null or no integer).
        self.eval_ids: Sequence[str] = scanned.eval_ids
        self.run_ids: Sequence[int] = scanned.run_ids
        # A run document's own keys (all but evalSetResults); None in a result file.
        self.document_keys = document_keys
        # Keys of closed objects the format does not define, found so far (the head's at
        # once, each case's when it is read): never an error, never hidden (reading_warnings).
        self.warnings: list[Problem] = list(warnings)
        self._criteria: set[bytes] = set()  # walked once each (result_unknown_keys)
        # Each case's finalEvalStatus once every case was read in order (a byte a case,
        # _STATUS_CODES; 0: did not validate): the case summaries are checked against them.
        self._statuses: bytearray | None = None

    def cases(
        self, problems: list[Problem] | None = None, indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult]:
        """The case results (those at ``indices``, else all) in order, each read when reached.

        A case that does not validate is left out and its problems go to ``problems``;
        without that list they are raised together (ConfigError) after the last case.
        """
        found: list[Problem] = [] if problems is None else problems
        before = len(found)
        for case in self.read_cases(found, indices):
            if case is not None:
                yield case
        if problems is None and len(found) > before:
            raise ConfigError(found)

    def read_cases(
        self, problems: list[Problem], indices: Iterable[int] | None = None
    ) -> Iterator[EvalCaseResult | None]:
        """:meth:`cases`, with None in the place of a case that does not validate (its
        problems in ``problems``): for callers that read several sources in step."""
        spans = self._scanned.cases
        validator = CaseValidator()
        statuses = bytearray(self.case_count) if indices is None else None
        with self._source.reading() as read:
            for index in range(self.case_count) if indices is None else indices:
                data = bytes(read(spans[2 * index], spans[2 * index + 1]))
                path = locations.join(self.where, CASES_KEY, index)
                parsed = self._parsed(data, path, problems, EvalCaseResult)
                if parsed is None:
                    yield None
                    continue
                try:
                    case = validator.case(parsed, lambda data=data: go_escapes(data))  # type: ignore[misc]
                except ValidationError as exc:
                    problems.extend(validation_problems(self.source, exc, path))
                    yield None
                    continue
                if statuses is not None:
                    statuses[index] = _STATUS_CODES.get(case.final_eval_status, 0)
                yield case
        self._statuses = statuses

    def case_summaries(self, problems: list[Problem] | None = None) -> Iterator[EvalCaseSummary]:
        """The summary's case summaries in order (problems as in :meth:`cases`)."""
        found: list[Problem] = [] if problems is None else problems
        before = len(found)
        spans = self._scanned.summaries
        counted = self._run_counts()
        with self._source.reading() as read:
            for index in range(len(spans) // 2):
                data = bytes(read(spans[2 * index], spans[2 * index + 1]))
                path = locations.join(self.where, "summary", CASE_SUMMARIES_KEY, index)
                parsed = self._parsed(data, path, found, EvalCaseSummary)
                if parsed is None:
                    continue
                try:
                    summary = validate_summary(parsed, lambda data=data: go_escapes(data))  # type: ignore[misc]
                except ValidationError as exc:
                    found.extend(validation_problems(self.source, exc, path))
                    continue
                if counted is not None:
                    self._check_counts(summary, counted.get(summary.eval_id), path)
                yield summary
        if problems is None and len(found) > before:
            raise ConfigError(found)

    def _run_counts(self) -> dict[str, list[int]] | None:
        """Per evalId, its runs' [passed, failed, not evaluated] as the case results say;
        None unless every case was read, validated and holds one of those statuses."""
        statuses = self._statuses
        if statuses is None or len(statuses) != self.case_count or 0 in statuses:
            return None
        counted: dict[str, list[int]] = {}
        for eval_id, code in zip(self.eval_ids, statuses, strict=True):
            counts = counted.get(eval_id)
            if counts is None:
                counts = counted[eval_id] = [0, 0, 0]
            counts[code - 1] += 1
        return counted

    def _check_counts(self, summary: EvalCaseSummary, runs: list[int] | None, path: str) -> None:
        """Warn when a case summary's run counts are not those of its case results.

        Every reader counts a case's runs from its case results (what the status column
        shows); a summary edited or joined apart from them said "2/2 stable pass" in the
        pass@k table beside "0/2 runs passed".  A warning, not an error: the case results
        are whole and the verdicts do not read the summary.
        """
        said = summary.run_status_counts
        said_runs = [said.passed, said.failed, said.not_evaluated] if said else [0, 0, 0]
        held = runs or [0, 0, 0]
        if said is None or said_runs == held:
            return
        self.warnings.append(
            Problem(
                self.source,
                locations.join(path, "runStatusCounts"),
                f"says {_run_counts_text(said_runs)} for case {summary.eval_id!r}, but its case "
                f"results hold {_run_counts_text(held)}",
                "reports count the case results; was the summary edited or joined apart?",
            )
        )

    def _parsed(self, data: bytes, path: str, found: list[Problem], model: type[BaseModel]) -> Any:
        """A piece's JSON as pydantic-core reads it; None (its problems noted) when it
        refuses it, or when the piece holds what its format cannot (:func:`piece_problems`)."""
        try:
            # NaN and Infinity refused by the parser, beyond float64 looked for in the text:
            # a walk of the value only where one may be.
            parsed = from_json(data, allow_inf_nan=False)
            walk = may_overflow(data)
        except ValueError:
            try:  # NaN or Infinity (the walk locates them), or what the stdlib read only
                parsed, walk = from_json(data), True
            except ValueError as exc:
                found.append(Problem(self.source, path, f"invalid JSON: {exc}"))
                return None
        errors, warnings = piece_problems(parsed, self.source, model, path, walk, self._criteria)
        # A key given twice is read as Go reads it (the last value), and said.
        repeated = duplicate_keys(
            data,
            self.source,
            [path] if path else [],
            value=parsed,
        )
        self.warnings.extend([*repeated, *warnings])
        if errors:
            found.extend(errors)
            return None
        return parsed

    def whole(self, problems: list[Problem] | None = None) -> EvalSetResult | None:
        """The whole eval set result (a fold over its cases); None when a piece is invalid."""
        found: list[Problem] = [] if problems is None else problems
        before = len(found)
        with building_long_lived(self._source.size):
            cases = list(self.cases(found))
            summaries = list(self.case_summaries(found))
        if len(found) > before:
            if problems is None:
                raise ConfigError(found)
            return None
        return _assembled(self.head, self._scanned, cases, summaries)


# A case's finalEvalStatus as one byte (0: the case did not validate, or holds another
# status, unknown or incomplete: then its summary is not compared).
_STATUS_CODES = {EvalStatus.PASSED: 1, EvalStatus.FAILED: 2, EvalStatus.NOT_EVALUATED: 3}


def _run_counts_text(counts: list[int]) -> str:
    passed, failed, not_evaluated = counts
    return f"{passed} passed, {failed} failed, {not_evaluated} not evaluated runs"


# The highest run id tracked as a bit (agenteval's --num-runs stops at 1,000).
_MAX_RUN_BITS = 4096


def layout_problems(part: ResultPart) -> list[Problem]:
    """A result's cases and runs that cannot all be true: a case's run found twice, a
    summary's ``numRuns`` below 1 or below the runs the cases hold, and (in a run not marked
    ``partial``) a case lacking some of the runs (``numRuns``, or the most any case holds).

    Either way the file was joined twice or cut short, and its verdict would be counted
    from what is left: a deleted failing run made its case pass.  Each case's runs are
    one int of bits (a small int, shared, for up to 8 runs): the check holds ~100 bytes a
    case while the first pass's spans are held anyway.
    """
    problems: list[Problem] = []
    runs: dict[str, int] = {}
    for index, (eval_id, run) in enumerate(zip(part.eval_ids, part.run_ids, strict=True)):
        if run < 0:
            where = locations.join(part.where, CASES_KEY, index, "runId")
            problems.append(Problem(part.source, where, f"{run} is no run: runs count from 1"))
            continue
        if not eval_id or run > _MAX_RUN_BITS:
            # No evalId: validating the case says so.  A run id past any --num-runs would
            # cost its own size in bits (a hostile 10**9 is 125 MB): not tracked.
            continue
        bit = 1 << ((run or 1) - 1)
        held = runs.get(eval_id, 0)
        if held & bit:
            problems.append(_repeated(part, index, eval_id, run or 1))
        runs[eval_id] = held | bit
    summary = part.head.summary
    num_runs = summary.num_runs if summary is not None else 0
    if num_runs < 0:
        problems.append(
            Problem(part.source, locations.join(part.where, "summary", "numRuns"),
                    f"{num_runs} is no run count: runs count from 1")
        )  # fmt: skip
    highest = max(runs.values(), default=0).bit_length()
    if num_runs > 0 and highest > num_runs:
        # A summary saying fewer runs than the cases hold would let a run be cut unseen.
        problems.append(
            Problem(
                part.source,
                locations.join(part.where, "summary", "numRuns"),
                f"{num_runs}, but case results hold run {highest}",
                "a result's numRuns is the runs of every case",
            )
        )
    expected = max(num_runs, highest)
    if 1 < expected <= _MAX_RUN_BITS and not part.head.partial:
        num_runs = expected
        every = (1 << num_runs) - 1
        for eval_id, held in runs.items():
            if held & every != every:
                missing = [n for n in range(1, num_runs + 1) if not held & (1 << (n - 1))]
                listed = ", ".join(map(str, missing))
                problems.append(
                    Problem(
                        part.source,
                        locations.join(part.where, CASES_KEY),
                        f"case {eval_id!r} lacks run{'s' if len(missing) > 1 else ''} "
                        f"{listed} of {num_runs}",
                        "every case holds each run of a result: was the file cut short? "
                        "a run stopped early is marked partial",
                    )
                )
    return problems


def _repeated(part: ResultPart, index: int, eval_id: str, run: int) -> Problem:
    """Case ``index``, whose run is also at an earlier place (found again: a rare path)."""
    earlier = next(
        i
        for i, (other, other_run) in enumerate(zip(part.eval_ids, part.run_ids, strict=True))
        if other == eval_id and (other_run or 1) == run
    )
    return Problem(
        part.source,
        locations.join(part.where, CASES_KEY, index),
        f"case {eval_id!r} run {run} is also at {locations.join(part.where, CASES_KEY, earlier)}",
        "a result holds each case's run once; agenteval merge joins shards",
    )


def _assembled(
    head: EvalSetResult,
    scanned: ScannedResult,
    cases: list[EvalCaseResult],
    summaries: list[EvalCaseSummary],
) -> EvalSetResult:
    """The whole result from its pieces, with the fields set that the file holds."""
    update: dict[str, Any] = {}
    if scanned.case_list:
        update["eval_case_results"] = cases
    if scanned.summary_list and head.summary is not None:
        update["summary"] = head.summary.model_copy(update={"eval_case_summaries": summaries})
    return head.model_copy(update=update)


def _ranked(exc: ValidationError, problems: list[Problem]) -> list[tuple[float, Problem]]:
    """Head problems with their place among a whole-document validation's (module docstring)."""
    ranks: list[float] = []
    for item in exc.errors():
        loc = item["loc"]
        first = loc[0] if loc else None
        rank = _FIELD_RANK.get(first, len(_FIELD_RANK)) if isinstance(first, str) else -1
        ranks.append(float(rank))
    if len(ranks) != len(problems):  # one problem per error; else keep them first
        ranks = [-1.0] * len(problems)
    return list(zip(ranks, problems, strict=True))


def piece_problems(
    parsed: Any,
    file: str,
    model: type[BaseModel],
    where: str,
    walk: bool = True,
    criteria: set[bytes] | None = None,
) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings) of one parsed piece of a result (``model``: its head, a case result
    or a case summary) at ``where``, beyond what validating it finds.

    Errors: a number JSON cannot hold (``1e400`` reads as an infinite score, which passes
    any threshold; Go's decoder refuses it) and a key that nearly spells a defined one
    (``scroe`` reads as a score of 0).  Warnings: any other key a closed object does not
    define (:func:`~agenteval.inputs.unknown_keys.result_unknown_keys`).  ``walk``: False
    when the text was found to hold no such number; ``criteria``: those already walked.
    """
    base = [where] if where else []
    errors = non_finite_numbers(parsed, file, None, base) if walk else []
    unknown = result_unknown_keys(parsed, file, model, base, criteria)
    near, others = sort_unknown(unknown, Strictness.DEFAULT)
    return errors + near, others


def _head(
    scanned: ScannedResult, file: str
) -> tuple[EvalSetResult | None, list[tuple[float, Problem]], list[Problem]]:
    """The validated head, its problems ranked (:func:`_ranked`), and its warnings."""
    errors, warnings = piece_problems(scanned.head, file, EvalSetResult, scanned.where)
    warnings = [*_keys_twice(scanned, file), *warnings]
    if errors:
        return None, [(-1.0, problem) for problem in errors], warnings
    try:
        return validate_head(scanned.head), [], warnings
    except ValidationError as exc:
        return None, _ranked(exc, validation_problems(file, exc, scanned.where)), warnings


def _keys_twice(scanned: ScannedResult, file: str) -> list[Problem]:
    """The keys given twice in a scanned head (the scan knows no file name)."""
    return [dataclasses.replace(problem, file=file) for problem in scanned.repeated]


def _folded(scanned: ScannedResult, source: _Source) -> tuple[EvalSetResult | None, list[Problem]]:
    """One eval set result read whole, or every problem of it in whole-validation order."""
    head, ranked, warnings = _head(scanned, source.name)
    warnings = [*source.warnings, *warnings]
    part = ResultPart(head or EvalSetResult(), scanned, source, warnings=warnings)
    case_problems: list[Problem] = []
    summary_problems: list[Problem] = []
    with building_long_lived(source.size):
        cases = list(part.cases(case_problems))
        summaries = list(part.case_summaries(summary_problems))
    ranked += [(_CASES_RANK, problem) for problem in layout_problems(part) + case_problems]
    ranked += [(_SUMMARY_RANK + 0.5, problem) for problem in summary_problems]
    if ranked:
        return None, [problem for _, problem in sorted(ranked, key=lambda item: item[0])]
    assert head is not None
    return _assembled(head, scanned, cases, summaries), []


def _unwrapped(text: str) -> str:
    """The legacy layout stores the whole result as one JSON string (formats.md §1)."""
    if not text.lstrip().startswith('"'):
        return text
    try:
        inner = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return text
    # A raw lone surrogate the outer string's escape made: U+FFFD, as Go reads it.
    return clean_text(inner) if isinstance(inner, str) else text


def _scanned(source: _Source) -> tuple[ScannedDocument | None, list[Problem], _Source]:
    """Pass one over a document, or why it is no JSON; and the source read (a file with invalid
    UTF-8 inside its strings: its text as Go reads it, in memory, with the warning)."""
    with source.reading() as read:
        try:
            return ResultScan(read, source.size, WINDOW).scan(), [], source
        except ScanError as exc:
            line, column = line_and_column(read, source.size, exc.offset)
            if not exc.json:
                if source.size > REPAIR_LIMIT:
                    hint = "over 64 MiB, not read as U+FFFD in memory: save the file as UTF-8"
                    return None, [Problem(source.name, "", exc.message, hint)], source
                # Only now, on the rare file with such bytes: the usual one is never decoded twice.
                read_as_go = go_utf8(bytes(read(0, source.size)), source.name)
                if read_as_go is not None and not source.warnings:
                    text, warning = read_as_go
                    return _scanned(_MemorySource(source.name, text.encode(), [warning]))
                return None, [Problem(source.name, "", exc.message, _binary_hint(source))], source
            if line > 1:  # a document and more after it: JSON lines of another kind?
                start = bytes(read(0, min(source.size, exc.offset + 64))).decode("utf-8", "replace")
                kind = first_line_kind(start)
                if kind is not None and kind not in (FileKind.RESULT, FileKind.RUN):
                    message, hint = wrong_kind_message(NOT_A_RESULT, kind)
                    return None, [Problem(source.name, "", message, hint)], source
            if _ends_early(exc, read, source.size):
                return None, [_cut_short(source.name, read, source.size)], source
            where = f"at line {line} column {column}"
            return None, [Problem(source.name, "", f"invalid JSON: {exc.message} {where}")], source


def _ends_early(exc: ScanError, read: Reader, size: int) -> bool:
    """Whether the document stopped because the bytes ran out: a string left open (the
    decoder says so only at the end of the data), or nothing but blanks after the error."""
    if exc.message.startswith("Unterminated string"):
        return True
    tail = bytes(read(exc.offset, size)) if size - exc.offset <= _TAIL_BYTES else b"x"
    return not tail.strip()


def _cut_short(name: str, read: Reader, size: int) -> Problem:
    """A file that ends inside its document (a result still being written, a copy cut
    off) said so, not as the decoder's "Expecting property name" at its last byte."""
    line, column = line_and_column(read, size, size)
    return Problem(
        name,
        "",
        f"invalid JSON: the file ends at line {line} column {column}, inside its document",
        "cut short: is it still being written, or was it copied in part?",
    )


def _binary_hint(source: _Source) -> str:
    if not isinstance(source, _FileSource):
        return ""
    from agenteval.inputs.foreign_files import binary_file_hint

    return binary_file_hint(source.path)


def _source_of(path: Path) -> tuple[_Source | None, list[Problem]]:
    """A file's source (a legacy string-wrapped file unwrapped in memory), or why not."""
    name = str(path)
    try:
        status = path.stat()
    except OSError as exc:
        return None, [_read_problem(name, exc)]
    if stat.S_ISDIR(status.st_mode):
        return None, [Problem(name, "", "is a directory, expected a file")]
    if not stat.S_ISREG(status.st_mode):
        refused = input_file_problem(path)  # names what it is: FIFO, device, socket
        return None, [refused or Problem(name, "", "not a regular file")]
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError as exc:
        return None, [_read_problem(name, exc)]
    known = head_problem(name, head)  # compressed, UTF-16, a byte order mark: as read_text says
    if known is None and len(head) == status.st_size:
        known = empty_problem(name, head)  # the whole file, empty or blank
    if known is not None:
        return None, [known]
    if not head.lstrip().startswith(b'"'):
        return _FileSource(path, status), []
    warnings: list[Problem] = []  # invalid UTF-8 read as U+FFFD, as Go reads it
    try:
        text = _unwrapped(read_text(path, warnings=warnings))
    except ConfigError as exc:
        return None, exc.problems
    return _MemorySource(name, text.encode("utf-8", "surrogatepass"), warnings), []


def _results_in(
    source: _Source, document: ScannedDocument
) -> tuple[list[ScannedResult], list[Problem], FileKind]:
    """The eval set results of a scanned document by its kind, or why it holds none."""
    kind = kind_of(document.skeleton)
    if kind is FileKind.RESULT and document.top is not None:
        return [document.top], [], kind
    if kind is FileKind.RUN:
        if document.entries is None:
            problem = Problem(
                source.name, "evalSetResults", "expected an array of eval set results"
            )
            return [], [problem], kind
        return document.entries, [], kind
    message, hint = wrong_kind_message(NOT_A_RESULT, kind)
    if kind in _SCORE_IT:
        hint = _SCORE_IT[kind].format(file=source.name)
    return [], [Problem(source.name, "", message, hint)], kind


def _parts(
    source: _Source, document: ScannedDocument
) -> tuple[list[ResultPart], list[Problem], FileKind]:
    """The eval set results of a scanned document with validated heads, or its problems."""
    scanned, problems, kind = _results_in(source, document)
    keys = None
    # The run document's own keys: checked once, their warnings given to its first part.
    document_warnings: list[Problem] = []
    if kind is FileKind.RUN and isinstance(document.skeleton, dict):
        keys = {k: v for k, v in document.skeleton.items() if k != ENTRIES_KEY}
        # Imported here: a run, which may read no result, does not build this model.
        from agenteval.schema.run_document import RunDocument

        errors, document_warnings = piece_problems(keys, source.name, RunDocument, "")
        problems.extend(errors)
        if document.top is not None:  # its own keys given twice
            document_warnings = [*_keys_twice(document.top, source.name), *document_warnings]
    parts: list[ResultPart] = []
    for item in scanned:
        head, ranked, warnings = _head(item, source.name)
        if not parts:
            warnings = [*source.warnings, *document_warnings, *warnings]
        problems.extend(problem for _, problem in ranked)
        if head is not None:
            part = ResultPart(head, item, source, keys, warnings)
            problems.extend(layout_problems(part))
            parts.append(part)
    return parts, problems, kind


def _file_parts(path: Path) -> tuple[list[ResultPart], list[Problem], FileKind | None]:
    source, problems = _source_of(path)
    if source is None:
        return [], problems, None
    document, problems, source = _scanned(source)
    if document is None:
        return [], problems, None
    return _parts(source, document)


def _directory_parts(directory: Path) -> tuple[list[ResultPart], list[Problem]]:
    """A directory's result files; when it holds none, its run documents."""
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix == ".json")
    results = [p for p in files if p.name.endswith(RESULT_SUFFIX)]
    if results:
        return _files_parts(results)
    parts: list[ResultPart] = []
    problems: list[Problem] = []
    for file in files:
        found, found_problems, kind = _file_parts(file)
        if kind is FileKind.RUN:  # other JSON files beside run documents are not results
            parts.extend(found)
            problems.extend(found_problems)
    if not parts and not problems:
        problems.append(
            Problem(
                str(directory),
                "",
                f"no result files (*{RESULT_SUFFIX}) or --json run documents in this directory",
            )
        )
    return parts, problems


def _files_parts(files: Iterable[Path]) -> tuple[list[ResultPart], list[Problem]]:
    parts: list[ResultPart] = []
    problems: list[Problem] = []
    for file in files:
        found, found_problems, _ = _file_parts(file)
        parts.extend(found)
        problems.extend(found_problems)
    return parts, problems


def read_parts(paths: Sequence[Path | str]) -> list[ResultPart]:
    """Every eval set result of ``paths``, read case by case; ConfigError lists all problems
    the first pass finds (a case that does not validate is found when it is read)."""
    parts: list[ResultPart] = []
    problems: list[Problem] = []
    for given in paths:
        path = Path(given)
        found, found_problems = _directory_parts(path) if path.is_dir() else _files_parts([path])
        parts.extend(found)
        problems.extend(found_problems)
    raise_problems(problems, reading_warnings(parts))
    return parts


def read_results(
    paths: Sequence[Path | str], warnings: list[Problem] | None = None
) -> tuple[list[EvalSetResult], list[str]]:
    """Every eval set result of ``paths`` whole, with the file each came from (a fold over
    :func:`read_parts`); ConfigError lists all problems (``warnings``: what reading found
    that is no error goes there)."""
    parts = read_parts(paths)
    problems: list[Problem] = []
    results = [part.whole(problems) for part in parts]
    if warnings is not None:
        warnings.extend(reading_warnings(parts))
    raise_problems(problems, reading_warnings(parts))
    return [r for r in results if r is not None], [part.source for part in parts]


def parse_results(text: str, file: str) -> tuple[list[EvalSetResult], list[Problem]]:
    """The eval set results a result file or run document's text holds, or its problems."""
    source: _Source = _MemorySource(file, _unwrapped(text).encode("utf-8", "surrogatepass"))
    document, problems, source = _scanned(source)
    if document is None:
        return [], problems
    scanned, problems, _ = _results_in(source, document)
    results: list[EvalSetResult] = []
    for item in scanned:
        whole, found = _folded(item, source)
        problems.extend(found)
        if whole is not None:
            results.append(whole)
    return results, problems


def read_as_result(text: str, file: str) -> tuple[EvalSetResult | None, list[Problem]]:
    """A text read as one result file, whatever its keys (``loading.parse_result``)."""
    source: _Source = _MemorySource(file, _unwrapped(text).encode("utf-8", "surrogatepass"))
    document, problems, source = _scanned(source)
    if document is None:
        return None, problems
    if document.top is None:  # not an object: what validating it says
        try:
            EvalSetResult.model_validate_json(pydantic_core.to_json(document.skeleton))
        except ValidationError as exc:
            return None, validation_problems(file, exc)
    scanned = document.top or ScannedResult("")
    return _folded(scanned, source)


def case_count(results: Iterable[ResultPart | EvalSetResult]) -> int:
    """The number of case results over every eval set result (read by parts or whole)."""
    return sum(
        r.case_count if isinstance(r, ResultPart) else len(r.case_results()) for r in results
    )


def each_case(
    parts: Iterable[ResultPart], problems: list[Problem]
) -> Iterator[tuple[ResultPart, EvalCaseResult]]:
    """Every case result of every part, in order (problems collected, not raised)."""
    for part in parts:
        for case in part.cases(problems):
            yield part, case


def reading_warnings(parts: Iterable[ResultPart]) -> list[Problem]:
    """The warnings of every part, in order, of what has been read of them so far."""
    return [warning for part in parts for warning in part.warnings]


def raise_problems(problems: list[Problem], warnings: Sequence[Problem] = ()) -> None:
    """Raise the problems collected while reading (ConfigError, with ``warnings``), if any."""
    if problems:
        raise ConfigError(problems, warnings)


__all__ = [
    "NOT_A_RESULT",
    "ResultPart",
    "case_count",
    "each_case",
    "layout_problems",
    "parse_results",
    "raise_problems",
    "read_as_result",
    "read_parts",
    "read_results",
    "reading_warnings",
]
