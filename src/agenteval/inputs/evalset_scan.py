"""Read an eval set file's bytes case by case: each case's parsed JSON and its byte span.

A 100,000-case eval set is ~110 MB of JSON; parsed whole it is a tree of
millions of objects (about 1.3 GB with its models).  The scanner keeps the
file's bytes, decodes a window of a few MB at a time and walks the top-level
object value by value (:class:`agenteval.inputs.json_scan.JsonWindow`): the standard
library's C decoder (``raw_decode``) finds where each value ends, and
pydantic-core's parser, the one the whole-file path uses, reads the value's text (wrapped in as many brackets as it sits deep, so
its nesting bound applies as in the whole document).  Only one case is parsed
at any moment, and its byte span is kept for reading it again later
(:mod:`agenteval.inputs.lazy_cases`, with the same parser).

Why not a streaming JSON library: ijson (yajl2_c backend) yields the cases at
about 30 µs each on the bench set (1.1 KB cases), but its events carry no byte
offsets: every later pass over the planned cases would have to stream and
re-parse the whole file, a case could not be read alone, and its values are
not pydantic-core's (lone surrogates, nesting bound, ``Decimal`` numbers), so
a file could read differently than when read whole.  Finding the span costs
about 15 µs a case here, parsing it again about 20 µs; validating the case as
an ``EvalCase`` costs about 45 µs, which every way needs.

The scanner reads only what it can read exactly as the whole-file path does:
an object whose ``evalCases`` is an array, each key once.  Anything else
(invalid UTF-8 or JSON, a value pydantic-core refuses, a number too long,
duplicate keys, a missing ``evalCases``, nesting past the parser's bound)
raises :class:`NotStreamable`, and the caller reads the file whole, as before,
with its exact messages.

Tested in tests/inputs/test_evalset_scan.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from json.decoder import JSONDecodeError
from typing import Any

from agenteval.errors import ControlFlow
from agenteval.inputs.input_limits import limit_problem
from agenteval.inputs.json_scan import (
    WINDOW_BYTES,
    JsonWindow,
    ScanError,
    bytes_reader,
    parse_at_depth,
)


class NotStreamable(ControlFlow):
    """The file is not a plain eval set object the scanner reads exactly; read it whole."""


@dataclass(slots=True)
class ScannedCase:
    """One entry of ``evalCases``: its index, parsed JSON, byte span and text."""

    index: int
    data: Any
    start: int
    end: int
    text: str


class EvalSetScan(JsonWindow):
    """One pass over an eval set file's bytes; :meth:`cases` yields the cases in file order.

    After the pass, :attr:`before` and :attr:`after` hold the top-level keys found
    before and after ``evalCases`` (parsed), in file order.
    """

    def __init__(self, data: bytes, window: int = WINDOW_BYTES) -> None:
        super().__init__(bytes_reader(data), len(data), window)
        self.before: dict[str, Any] = {}
        self.after: dict[str, Any] = {}

    def cases(self) -> Iterator[ScannedCase]:
        """Every entry of ``evalCases`` in order; raises NotStreamable on anything unusual."""
        try:
            yield from self._object()
        except (ScanError, JSONDecodeError, RecursionError, UnicodeDecodeError, ValueError) as exc:
            raise NotStreamable(str(exc)) from None

    def _object(self) -> Iterator[ScannedCase]:
        if self.peek(at_end=True) != "{":
            raise NotStreamable("not a JSON object")
        self.next_char()
        found = False
        if self.peek() == "}":
            raise NotStreamable("an empty object")
        while True:
            key, written = self.key()
            _parsed(written, 0)  # refused as the whole document would be
            if key in self.before or key in self.after or (found and key == "evalCases"):
                raise NotStreamable(f"key {key!r} given twice")
            if key == "evalCases":
                found = True
                yield from self._case_list()
            else:
                _, start, end = self.value()
                value = _parsed(self.text(start, end), 1)
                (self.after if found else self.before)[key] = value
                self.skip_to(end)
            separator = self.next_char()
            if separator == "}":
                break
            if separator != ",":
                raise NotStreamable("expected ',' or '}'")
        if self.peek(at_end=True):
            raise NotStreamable("extra data after the object")
        if not found:
            raise NotStreamable("no evalCases")

    def _case_list(self) -> Iterator[ScannedCase]:
        if self.next_char() != "[":
            raise NotStreamable("evalCases is not an array")
        if self.peek() == "]":
            self.next_char()
            return
        index = 0
        while True:
            _, start, end = self.value()
            text = self.text(start, end)
            value = _parsed(text, 2)
            start_byte = self.byte(start)
            end_byte = self.byte(end)
            self.skip_to(end)
            yield ScannedCase(index, value, start_byte, end_byte, text)
            index += 1
            separator = self.next_char()
            if separator == "]":
                return
            if separator != ",":
                raise NotStreamable("expected ',' or ']' in evalCases")


def _parsed(text: str, depth: int) -> Any:
    """``text`` read by pydantic-core as the whole-file path reads it, inside ``depth``
    containers (the parser bounds nesting); NotStreamable if refused."""
    if limit_problem(text) is not None:
        raise NotStreamable("a number too long")  # read_text names it with its line
    try:
        return parse_at_depth(text, depth)
    except ValueError as exc:  # a lone surrogate, nesting past the parser's bound
        raise NotStreamable(str(exc)) from None
