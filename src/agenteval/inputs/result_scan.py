"""The first pass over a result file or run document: heads, and where each case is.

A 100,000-case result file is ~700 MB of JSON; parsed whole, with its models, it took
3.3 GB (``show``) and two of them 5.6 GB (``diff``).  This pass walks the document a
window at a time (:class:`agenteval.inputs.json_scan.JsonWindow`) and keeps, per eval set
result, its *head* (every key but ``evalCaseResults``, with ``summary`` but without
its ``evalCaseSummaries``; parsed by pydantic-core as the whole-file path parsed it),
the byte span of each case result and of each case summary, and each case's
``evalId`` and ``runId`` (read from the stdlib decoder's value, which finds the span
anyway: ~16 bytes and an id per case).  The cases themselves are parsed and validated
one at a time later, from their spans (:class:`agenteval.inputs.result_inputs.ResultPart`).

A run document's ``evalSetResults`` entries are walked the same way, so the
document is never held whole either.  What kind of file it is
(:func:`agenteval.inputs.file_kind.kind_of`) is told from a skeleton: the document
with each streamed array replaced by its first :data:`SAMPLE` entries (as many as
the kind test looks at); an eval set's ``evalCases`` are only sampled too.

A key given twice keeps its last value, as the whole-document parsers do, and is noted
in its result's :attr:`ScannedResult.repeated` (the case results' own keys are looked at
when each is read, :mod:`agenteval.inputs.result_inputs`).  Anything
that is not JSON ends the pass with a :class:`~agenteval.inputs.json_scan.ScanError` at
its byte offset.

Tested in tests/inputs/test_result_scan.py.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from json.decoder import JSONDecodeError
from typing import Any

from agenteval.errors import Problem
from agenteval.inputs.duplicate_keys import PairsDecoder, duplicate_problems, may_repeat
from agenteval.inputs.input_limits import MAX_INTEGER_DIGITS
from agenteval.inputs.json_scan import WINDOW_BYTES, JsonWindow, Reader, ScanError, parse_at_depth

# Entries of a streamed or sampled array kept for telling the file's kind (file_kind
# samples 20 cases).
SAMPLE = 20
CASES_KEY = "evalCaseResults"
SUMMARY_KEY = "summary"
CASE_SUMMARIES_KEY = "evalCaseSummaries"
ENTRIES_KEY = "evalSetResults"
# Arrays of other file kinds that only need a sample (an eval set given by mistake).
SAMPLED_KEYS = frozenset({"evalCases", "eval_cases"})
_PARSER_PLACE = re.compile(r" at line \d+ column \d+$")


@dataclass(slots=True)
class ScannedResult:
    """One eval set result found by the scan: head, and span and ids of every case.

    ``where``: its JSON path in the document ("" for a result file, ``evalSetResults[2]``
    in a run document).  ``head``: the parsed object without the streamed arrays (a
    value that is no object when the entry is none).  The streamed arrays are flat
    ``(start, end)`` byte pairs.
    """

    where: str
    head: Any = field(default_factory=dict)
    cases: array[int] = field(default_factory=lambda: array("q"))
    eval_ids: list[str] = field(default_factory=list)
    run_ids: array[int] = field(default_factory=lambda: array("q"))
    summaries: array[int] = field(default_factory=lambda: array("q"))
    sample: list[Any] = field(default_factory=list)
    # evalCaseResults / summary.evalCaseSummaries were arrays, streamed (not in ``head``).
    case_list: bool = False
    summary_list: bool = False
    # Keys given twice in the head, in document order, their file still "" (the reader's).
    repeated: list[Problem] = field(default_factory=list)

    @property
    def case_count(self) -> int:
        """How many case results the eval set result holds."""
        return len(self.cases) // 2


@dataclass(slots=True)
class ScannedDocument:
    """A scanned document: its skeleton (for its kind), the top-level object as a result,
    and a run document's entries."""

    skeleton: Any
    top: ScannedResult | None
    entries: list[ScannedResult] | None


def _run_id(value: Any) -> int:
    """A case's runId as the file holds it (0 when absent, null or not an integer)."""
    run_id = value.get("runId") if isinstance(value, dict) else None
    return run_id if isinstance(run_id, int) and not isinstance(run_id, bool) else 0


def _eval_id(value: Any) -> str:
    eval_id = value.get("evalId") if isinstance(value, dict) else None
    return eval_id if isinstance(eval_id, str) else ""


class ResultScan(JsonWindow):
    """One pass over a result file or run document (module docstring)."""

    def __init__(self, read: Reader, size: int, window: int = WINDOW_BYTES) -> None:
        super().__init__(read, size, window)

    def scan(self) -> ScannedDocument:
        """Walk the whole document; raises ScanError where it is not JSON."""
        try:
            return self._document()
        except ScanError:
            raise
        except JSONDecodeError as exc:
            raise ScanError(exc.msg, self.byte(max(exc.pos, self._mark_pos))) from None
        except RecursionError:
            raise self.fail("nesting too deep to read") from None
        except UnicodeDecodeError as exc:
            raise ScanError(
                f"not UTF-8 text ({exc.reason})", self._end + exc.start, json=False
            ) from None
        except ValueError:  # the stdlib refuses to read an integer that long
            raise self.fail(
                f"a number with more than {MAX_INTEGER_DIGITS:,} digits "
                f"(at most {MAX_INTEGER_DIGITS:,} are read)"
            ) from None

    def _document(self) -> ScannedDocument:
        first = self.peek(at_end=True)
        if first == "":
            raise self.fail("the file is empty")
        top: ScannedResult | None = None
        entries: list[ScannedResult] | None = None
        skeleton: Any
        if first == "{":
            top = ScannedResult("")
            skeleton, entries = self._object(top, 1)
        elif first == "[":
            skeleton = self._sampled(None)
        else:
            skeleton = self._parsed(0)
        if self.peek(at_end=True):
            raise self.fail("extra data after the document")
        return ScannedDocument(skeleton, top, entries)

    def _parsed(
        self, depth: int, noted: tuple[ScannedResult, list[int | str]] | None = None
    ) -> Any:
        """The value at the cursor parsed by pydantic-core as inside ``depth`` containers (the
        parser bounds nesting as in the whole document); ``noted``: the result whose head
        holds it and its place, where a key given twice inside it is noted."""
        _, start, end = self.value()
        text = self.text(start, end)
        try:
            parsed = parse_at_depth(text, depth)
        except ValueError as exc:  # nesting past the parser's bound
            # Its place is the value's (the parser's own is within the value).
            raise self.fail(_PARSER_PLACE.sub("", str(exc))) from None
        if noted is not None and may_repeat(text, parsed):
            pairs = PairsDecoder()
            root = pairs.decoder.decode(text)
            noted[0].repeated.extend(duplicate_problems(root, pairs.repeated, "", noted[1]))
        self.skip_to(end)
        return parsed

    def _items(self) -> bool:
        """Enter an array; False when it is empty (and passed)."""
        self.next_char()
        if self.peek() == "]":
            self.next_char()
            return False
        return True

    def _after_item(self) -> bool:
        """Past the separator after an array entry; False after the closing bracket."""
        separator = self.next_char()
        if separator == "]":
            return False
        if separator != ",":
            raise self.unexpected("expected ',' or ']'")
        return True

    def _sampled(self, kept: list[Any] | None) -> list[Any]:
        """An array's first SAMPLE entries (stdlib values); ``kept``: where to put them."""
        sample: list[Any] = [] if kept is None else kept
        more = self._items()
        while more:
            value, _, end = self.value()
            if len(sample) < SAMPLE:
                sample.append(value)
            self.skip_to(end)
            more = self._after_item()
        return sample

    def _object(
        self, result: ScannedResult, depth: int
    ) -> tuple[dict[str, Any], list[ScannedResult] | None]:
        """A result object's members (inside ``depth`` containers) into ``result``;
        (skeleton, run document entries)."""
        head: dict[str, Any] = {}
        skeleton: dict[str, Any] = {}
        entries: list[ScannedResult] | None = None
        result.head = head
        base: list[int | str] = [result.where] if result.where else []
        self.next_char()
        if self.peek() == "}":
            self.next_char()
            return skeleton, entries
        twice: dict[str, None] = {}
        while True:
            key, _ = self.key()
            if key in skeleton:
                twice[key] = None
            head.pop(key, None)
            following = self.peek()
            if key == CASES_KEY and following == "[":
                result.cases, result.eval_ids, result.run_ids = array("q"), [], array("q")
                result.sample = []
                result.case_list = True
                self._cases(result)
                skeleton[key] = result.sample
            elif key == SUMMARY_KEY and following == "{":
                result.summaries = array("q")
                result.summary_list = False
                head[key] = skeleton[key] = self._summary(result, depth + 1)
            elif key == ENTRIES_KEY and following == "[" and depth == 1:
                entries = self._entries()
                skeleton[key] = [entry.head for entry in entries]
            elif key in SAMPLED_KEYS and following == "[":
                skeleton[key] = self._sampled(None)
            else:
                if key == CASES_KEY:
                    result.cases, result.eval_ids, result.run_ids = array("q"), [], array("q")
                    result.case_list = False
                if key == SUMMARY_KEY:
                    result.summaries = array("q")
                    result.summary_list = False
                if key == ENTRIES_KEY:
                    entries = None
                head[key] = skeleton[key] = self._parsed(depth, (result, [*base, key]))
            separator = self.next_char()
            if separator == "}":
                self._note_twice(result, skeleton, twice, base)
                return skeleton, entries
            if separator != ",":
                raise self.unexpected("expected ',' or '}'")

    @staticmethod
    def _note_twice(
        result: ScannedResult,
        members: dict[str, Any],
        twice: dict[str, None],
        base: list[int | str],
    ) -> None:
        """Note the keys of ``members`` (an object of the head, at ``base``) given twice."""
        if twice:
            repeated = [(members, key) for key in twice]
            result.repeated.extend(duplicate_problems(members, repeated, "", base))

    def _cases(self, result: ScannedResult) -> None:
        more = self._items()
        while more:
            value, start, end = self.value()
            result.cases.append(self.byte(start))
            result.cases.append(self.byte(end))
            result.eval_ids.append(_eval_id(value))
            result.run_ids.append(_run_id(value))
            if len(result.sample) < SAMPLE:
                result.sample.append(value)
            self.skip_to(end)
            more = self._after_item()

    def _summary(self, result: ScannedResult, depth: int) -> dict[str, Any]:
        summary: dict[str, Any] = {}
        base: list[int | str] = [*([result.where] if result.where else []), SUMMARY_KEY]
        self.next_char()
        if self.peek() == "}":
            self.next_char()
            return summary
        twice: dict[str, None] = {}
        seen: set[str] = set()
        while True:
            key, _ = self.key()
            if key in seen:
                twice[key] = None
            seen.add(key)
            summary.pop(key, None)
            if key == CASE_SUMMARIES_KEY and self.peek() == "[":
                result.summaries = array("q")
                result.summary_list = True
                more = self._items()
                while more:
                    _, start, end = self.value()
                    result.summaries.append(self.byte(start))
                    result.summaries.append(self.byte(end))
                    self.skip_to(end)
                    more = self._after_item()
            else:
                if key == CASE_SUMMARIES_KEY:
                    result.summaries = array("q")
                    result.summary_list = False
                summary[key] = self._parsed(depth, (result, [*base, key]))
            separator = self.next_char()
            if separator == "}":
                # A streamed array is not in ``summary``: said as the array it is.
                members = {**{name: [] for name in seen}, **summary}
                self._note_twice(result, members, twice, base)
                return summary
            if separator != ",":
                raise self.unexpected("expected ',' or '}'")

    def _entries(self) -> list[ScannedResult]:
        entries: list[ScannedResult] = []
        more = self._items()
        while more:
            entry = ScannedResult(f"{ENTRIES_KEY}[{len(entries)}]")
            if self.peek() == "{":
                self._object(entry, 3)
            else:
                entry.head = self._parsed(2)
            entries.append(entry)
            more = self._after_item()
        return entries


__all__ = [
    "CASES_KEY",
    "CASE_SUMMARIES_KEY",
    "ENTRIES_KEY",
    "SAMPLE",
    "ResultScan",
    "ScannedDocument",
    "ScannedResult",
]
