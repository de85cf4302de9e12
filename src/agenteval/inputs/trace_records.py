"""``--traces`` files of ``{evalId, runId?, actualConversation}`` records.

A JSON-lines file (what ``--record`` writes) is read one line at a time and checked whole
before anything runs, but only indexed: :class:`TraceRecords` keeps each record's byte
span, line and turn count, and reads and validates a record again from the file when a
case asks for it.  A 100,000-record file is held as a few MB of offsets, not as every
turn's models (the records' text is most of a run's input: tool results, answers).
A JSON array and a trpc-agent-go result file are read whole (``loading.parse_traces``).

Record rules (every problem located at its line or index): an object; ``evalId`` a
non-empty string; ``runId`` an integer ≥ 1 (``--num-runs`` replays, absent = 1);
``actualConversation`` the schema's invocations (``null`` turns dropped); one record per
``evalId`` and run.  ``--record`` adds ``expectedConversation`` when ``--expected-agent``
produced the expected turns (a replay scores against them, not the eval set's).  ``--record`` adds ``errorMessage`` for a case run whose agent failed
(a replay fails it again) and ``"incomplete": true`` when that run was left incomplete
(the agent could not be started, the judge playing its user failed): a replay leaves the
case incomplete again.

Tested in tests/inputs/test_trace_records.py.
"""

from __future__ import annotations

import json
import os
import weakref
from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.file_kind import FileKind, kind_of, wrong_kind_message
from agenteval.inputs.go_escapes import from_json
from agenteval.inputs.input_limits import limit_problem, nesting_problem, not_utf8_text
from agenteval.inputs.problem_lists import Item, listed_or_counted
from agenteval.schema.evalset import Invocation
from agenteval.schema.gojson import json_kind
from agenteval.schema.turns import FailedRun, RecordedRun, run_trace_key, split_trace_key

_turns_adapter: TypeAdapter[list[Invocation | None] | None] = TypeAdapter(
    list[Invocation | None] | None
)


def _json_type(value: Any) -> str:
    kind = json_kind(value)
    return kind if kind == "null" else f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


# Kinds of file that are plainly not traces (a result file is: its actualInvocations).
_OTHER_KINDS = frozenset(
    {
        FileKind.EVALSET,
        FileKind.ADK_EVALSET,
        FileKind.ADK_CONFIG,
        FileKind.METRICS,
        FileKind.RUN,
        FileKind.OTLP,
        FileKind.LABELS,
        FileKind.PRICES,
    }
)


def not_traces(data: Any, file: str) -> list[Problem]:
    """The error of a parsed document (or a first record) that is another kind of file."""
    kind = kind_of(data)
    return wrong_kind(kind, file) if kind in _OTHER_KINDS else []


def wrong_kind(kind: FileKind, file: str) -> list[Problem]:
    """The error of a file of ``kind`` given as traces."""
    message, hint = wrong_kind_message("a traces file", kind)
    return [Problem(file, "", message, hint)]


@dataclass(slots=True)
class CheckedRecord:
    """One valid record: its trace key and turns."""

    key: str
    turns: list[Invocation]


def check_record(record: Any, where: str, file: str) -> CheckedRecord | list[Problem]:
    """A record's key and turns, or its problems (located at ``where``)."""
    from agenteval.inputs.loading import validation_problems

    if not isinstance(record, dict):
        return [Problem(file, where, f"expected an object, got {_json_type(record)}")]
    eval_id = record.get("evalId")
    if not isinstance(eval_id, str) or not eval_id:
        return [Problem(file, f"{where}.evalId", "evalId is missing or not a string")]
    run_id = record.get("runId", 1)
    if not isinstance(run_id, int) or isinstance(run_id, bool) or run_id < 1:
        return [Problem(file, f"{where}.runId", "runId must be an integer >= 1")]
    conversations: list[list[Invocation]] = []
    for key in ("actualConversation", "expectedConversation"):
        try:
            turns = _turns_adapter.validate_python(record.get(key))
        except ValidationError as exc:
            return validation_problems(file, exc, f"{where}.{key}")
        conversations.append([t for t in turns or [] if t is not None])
    kept, expected = conversations
    error = record.get("errorMessage")
    if error is not None and not isinstance(error, str):
        return [Problem(file, f"{where}.errorMessage", "must be a string")]
    incomplete = record.get("incomplete", False)
    if not isinstance(incomplete, bool):
        return [Problem(file, f"{where}.incomplete", "must be true or false")]
    key = run_trace_key(eval_id, run_id)
    if error is not None:
        # A run --record kept with its agent's error: replaying it fails the case again (or
        # leaves it incomplete again, when the agent could not be started or its judge failed).
        return CheckedRecord(key, FailedRun(kept, error, incomplete))
    # The expected agent's turns of the run, scored against as when it was driven.
    return CheckedRecord(
        key, RecordedRun(kept, expected) if "expectedConversation" in record else kept
    )


def duplicate_problem(key: str, where: str, file: str) -> Problem:
    """The problem of a second record for the same evalId and run."""
    eval_id, _, run = key.partition("\x00run ")
    again = f" in run {run}" if run else ""
    return Problem(file, f"{where}.evalId", f"duplicate evalId {eval_id!r}{again}")


def line_text(line: bytes, where: str, file: str, hint: str = "") -> str:
    """A line's text, or ConfigError located at ``where`` naming its byte that is no UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = not_utf8_text(line, exc, f"column {exc.start + 1}")
        raise ConfigError([Problem(file, where, message, hint)]) from None


def parse_line(line: bytes, where: str, file: str) -> Any:
    """One JSON line's value, or ConfigError located at ``where`` (bad bytes, numbers, nesting)."""
    text = line_text(line, where, file)
    exceeded = limit_problem(text)
    if exceeded is not None:
        raise ConfigError([Problem(file, where, exceeded)])
    try:
        # pydantic-core reads a line in half the time; what it refuses (nesting past its
        # bound) the stdlib reads or words as before; a lone surrogate escape is U+FFFD, as
        # Go reads it (go_escapes).
        return from_json(line)
    except ValueError:
        pass
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError([Problem(file, where, f"invalid JSON: {exc.msg}")]) from None
    except RecursionError as exc:
        raise ConfigError([Problem(file, where, nesting_problem(exc))]) from None


@dataclass(slots=True)
class _Index:
    """Where each record is: key → position; per position its offset, length, line, turns."""

    positions: dict[str, int] = field(default_factory=dict)
    spans: array[int] = field(default_factory=lambda: array("q"))

    def add(self, key: str, offset: int, length: int, lineno: int, turns: int) -> None:
        self.positions[key] = len(self.positions)
        self.spans.extend((offset, length, lineno, turns))


class TraceRecords(Mapping[str, list[Invocation]]):
    """The records of a JSON-lines traces file by trace key, each read from its line on access."""

    def __init__(self, path: Path, index: _Index) -> None:
        self._path = path
        self._index = index
        # Checks and the runner ask for one case's record a few times in a row.
        self._last: tuple[str, list[Invocation]] | None = None
        # Opened at the first access, closed with the mapping (an open per record cost
        # more than reading it); read unbuffered, at each record's offset.
        self._fd: int | None = None

    def __getitem__(self, key: str) -> list[Invocation]:
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        position = self._index.positions[key]
        offset, length, lineno, _ = self._index.spans[4 * position : 4 * position + 4]
        file, where = str(self._path), f"line {lineno}"
        try:
            if self._fd is None:
                self._fd = os.open(self._path, os.O_RDONLY)
                weakref.finalize(self, os.close, self._fd)
            line = os.pread(self._fd, length, offset)
        except OSError as exc:
            raise ConfigError([Problem(file, where, f"cannot read: {exc.strerror}")]) from None
        try:
            checked = check_record(parse_line(line, where, file), where, file)
        except ConfigError:
            checked = []
        if isinstance(checked, list) or checked.key != key:  # it was valid when checked
            raise ConfigError([Problem(file, where, "the file changed while the run read it")])
        self._last = (key, checked.turns)
        return checked.turns

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.positions)

    def __len__(self) -> int:
        return len(self._index.positions)

    def __contains__(self, key: object) -> bool:
        return key in self._index.positions

    def where(self, key: str) -> str:
        """The line a record is on (``line 7``)."""
        return f"line {self._index.spans[4 * self._index.positions[key] + 2]}"

    def turn_count(self, key: str) -> int:
        """How many turns a record holds, without reading it."""
        return self._index.spans[4 * self._index.positions[key] + 3]


# Called with each record that is an object, valid or not (a record whose evalId is "missing"
# because it is spelled "evalid" is told so), where it is and its JSON text: the checks above
# inputs/.
Inspect = Callable[[Any, str, str | None], None]


def read_trace_lines(
    path: Path, inspect: Inspect | None = None
) -> tuple[TraceRecords, list[Problem]]:
    """Check every line of a JSON-lines traces file and index it; ConfigError if one is no JSON."""
    file = str(path)
    index = _Index()
    problems: list[Problem] = []
    offset = 0
    try:
        with path.open("rb") as handle:
            for lineno, line in enumerate(handle, start=1):
                start, offset = offset, offset + len(line)
                if not line.strip():
                    continue
                where = f"line {lineno}"
                record = parse_line(line, where, file)
                if not index.positions and not problems:
                    refused = not_traces(record, file)  # an eval set on one line, ...
                    if refused:
                        return TraceRecords(path, index), refused
                checked = check_record(record, where, file)
                if inspect is not None and isinstance(record, dict):
                    inspect(record, where, line.decode("utf-8", "surrogateescape"))
                if isinstance(checked, list):
                    problems.extend(checked)
                elif checked.key in index.positions:
                    problems.append(duplicate_problem(checked.key, where, file))
                else:
                    index.add(checked.key, start, len(line), lineno, len(checked.turns))
    except OSError as exc:
        raise ConfigError([Problem(file, "", f"cannot read: {exc.strerror}")]) from None
    return TraceRecords(path, index), problems


def unmatched_records(
    file: str, traces: Mapping[str, list[Invocation]], case_ids: set[str]
) -> list[Problem]:
    """Warnings for the records whose evalId no case has (never scored), counted past three."""
    items: list[Item] = []
    for key in traces:
        eval_id, _, run = key.partition("\x00run ")
        if eval_id in case_ids:
            continue
        if isinstance(traces, TraceRecords):
            where, turns = traces.where(key), traces.turn_count(key)
        else:
            where, turns = f"evalId {eval_id!r}", len(traces[key])
        of_run = f" (run {run})" if run else ""
        items.append(
            Item(
                f"{where} {eval_id!r}" if isinstance(traces, TraceRecords) else repr(eval_id),
                Problem(
                    file,
                    where,
                    f"no case has evalId {eval_id!r}{of_run}; its {turns} turn(s) are not scored",
                ),
            )
        )
    return listed_or_counted(
        file, items, "records", "no case has their evalId; their turns are not scored"
    )


def _where(traces: Mapping[str, list[Invocation]], key: str) -> tuple[str, int]:
    """Where a record is (``line 7``, or its evalId and run) and how many turns it holds."""
    if isinstance(traces, TraceRecords):
        return traces.where(key), traces.turn_count(key)
    eval_id, run = split_trace_key(key)
    return f"evalId {eval_id!r} run {run}", len(traces[key])


def runs_past_num_runs(
    file: str, traces: Mapping[str, list[Invocation]], case_ids: set[str], num_runs: int
) -> list[Problem]:
    """Warnings for the records of a case's run past ``--num-runs`` (never scored: a run
    replays its own record, runs 1 to N only), counted past three."""
    # A record no case names is warned of by unmatched_records.
    past = [
        (key, eval_id, run)
        for key in traces
        for eval_id, run in (split_trace_key(key),)
        if run > num_runs and eval_id in case_ids
    ]
    hint = f"--num-runs {max((run for _, _, run in past), default=num_runs)} scores every run"
    items: list[Item] = []
    for key, eval_id, run in past:
        where, turns = _where(traces, key)
        message = f"case {eval_id!r} run {run} is past --num-runs {num_runs}: its {turns} "
        items.append(
            Item(
                f"{where} {eval_id!r} run {run}",
                Problem(file, where, message + "turn(s) are not scored", hint),
            )
        )
    return listed_or_counted(
        file,
        items,
        "records",
        f"runs past --num-runs {num_runs}: their turns are not scored",
        hint,
    )


__all__ = [
    "Inspect",
    "TraceRecords",
    "check_record",
    "duplicate_problem",
    "line_text",
    "not_traces",
    "parse_line",
    "read_trace_lines",
    "runs_past_num_runs",
    "unmatched_records",
    "wrong_kind",
]
