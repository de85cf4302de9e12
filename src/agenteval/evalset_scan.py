"""Read an eval set file's bytes case by case: each case's parsed JSON and its byte span.

A 100,000-case eval set is ~110 MB of JSON; parsed whole it is a tree of
millions of objects (about 1.3 GB with its models).  The scanner keeps the
file's bytes, decodes a window of a few MB at a time and walks the top-level
object value by value: the standard library's C decoder (``raw_decode``) finds
where each value ends, and pydantic-core's parser, the one the whole-file path
uses, reads the value's text (wrapped in as many brackets as it sits deep, so
its nesting bound applies as in the whole document).  Only one case is parsed
at any moment, and its byte span is kept for reading it again later
(:mod:`agenteval.lazy_cases`, with the same parser).

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

Tested in tests/test_evalset_scan.py.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from json.decoder import JSONDecodeError
from typing import Any, cast

import pydantic_core

from agenteval.errors import ControlFlow
from agenteval.input_limits import limit_problem

# Decoded text held at a time (a case larger than this widens the window).
WINDOW_BYTES = 4 << 20

_DECODER = json.JSONDecoder()
# The stdlib decoder's string reader (C); typeshed does not declare it.
_scanstring = cast(Callable[[str, int, bool], tuple[str, int]], vars(json.decoder)["scanstring"])
_BLANKS = re.compile(r"[ \t\n\r]*")
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")


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


class EvalSetScan:
    """One pass over an eval set file's bytes; :meth:`cases` yields the cases in file order.

    After the pass, :attr:`before` and :attr:`after` hold the top-level keys found
    before and after ``evalCases`` (parsed), in file order.
    """

    def __init__(self, data: bytes, window: int = WINDOW_BYTES) -> None:
        self._data = data
        self._view = memoryview(data)
        self._window = window
        self._text = ""  # decoded data[self._base:self._end]
        self._base = 0
        self._end = 0
        self._ascii = True
        self._pos = 0  # index into self._text
        # Byte offset of text position self._mark_pos (positions are asked in increasing order).
        self._mark_pos = 0
        self._mark_byte = 0
        self.before: dict[str, Any] = {}
        self.after: dict[str, Any] = {}

    def cases(self) -> Iterator[ScannedCase]:
        """Every entry of ``evalCases`` in order; raises NotStreamable on anything unusual."""
        try:
            yield from self._object()
        except (JSONDecodeError, RecursionError, UnicodeDecodeError, ValueError) as exc:
            raise NotStreamable(str(exc)) from None

    def _object(self) -> Iterator[ScannedCase]:
        if not self._more() or self._next() != "{":
            raise NotStreamable("not a JSON object")
        found = False
        if self._peek() == "}":
            raise NotStreamable("an empty object")
        while True:
            key = self._key()
            if key in self.before or key in self.after or (found and key == "evalCases"):
                raise NotStreamable(f"key {key!r} given twice")
            if key == "evalCases":
                found = True
                yield from self._case_list()
            else:
                start, end = self._value()
                # One level down, as inside the whole document (the parser bounds nesting).
                (value,) = _parsed(f"[{self._text[start:end]}]")
                (self.after if found else self.before)[key] = value
                self._pos = end
            separator = self._next()
            if separator == "}":
                break
            if separator != ",":
                raise NotStreamable("expected ',' or '}'")
        if self._peek(at_end=True):
            raise NotStreamable("extra data after the object")
        if not found:
            raise NotStreamable("no evalCases")

    def _case_list(self) -> Iterator[ScannedCase]:
        if self._next() != "[":
            raise NotStreamable("evalCases is not an array")
        if self._peek() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            start, end = self._value()
            text = self._text[start:end]
            # Two levels down, as inside the whole document (the parser bounds nesting).
            ((value,),) = _parsed(f"[[{text}]]")
            start_byte = self._byte(start)
            end_byte = self._byte(end)
            self._pos = end
            yield ScannedCase(index, value, start_byte, end_byte, text)
            index += 1
            separator = self._next()
            if separator == "]":
                return
            if separator != ",":
                raise NotStreamable("expected ',' or ']' in evalCases")

    def _key(self) -> str:
        if self._next() != '"':
            raise NotStreamable("expected a key")
        while True:
            try:
                key, end = _scanstring(self._text, self._pos, True)
                break
            except JSONDecodeError:
                if not self._more():
                    raise
        _parsed(f'"{self._text[self._pos : end]}')  # refused as the whole document would be
        self._pos = end
        if self._next() != ":":
            raise NotStreamable("expected ':'")
        return str(key)

    def _value(self) -> tuple[int, int]:
        """The text span of the JSON value at the cursor; the cursor stays at its start."""
        self._peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._text, self._pos)
            except JSONDecodeError:
                if not self._more():
                    raise
                continue
            # A number at the window's edge may go on in the next part ("12." of "12.5").
            at_edge = _NUMBER_TAIL.fullmatch(self._text, end) is not None
            if not (at_edge and isinstance(value, int | float)) or not self._more():
                return self._pos, end

    def _peek(self, *, at_end: bool = False) -> str:
        """The next non-blank character (the cursor moves to it); "" at the end of the data."""
        while True:
            self._pos = _BLANKS.match(self._text, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._text):
                return self._text[self._pos]
            if not self._more():
                if at_end:
                    return ""
                raise NotStreamable("unexpected end of the data")

    def _next(self) -> str:
        char = self._peek()
        self._pos += 1
        return char

    def _byte(self, pos: int) -> int:
        """The byte offset of text position ``pos`` (never less than the last one asked)."""
        if self._ascii:
            self._mark_byte += pos - self._mark_pos
        else:
            self._mark_byte += len(self._text[self._mark_pos : pos].encode("utf-8"))
        self._mark_pos = pos
        return self._mark_byte

    def _more(self) -> bool:
        """Drop the text before the cursor and decode the next part; False at the end."""
        data = self._data
        if self._end >= len(data):
            return False
        base = self._byte(self._pos)
        kept = self._text[self._pos :]
        stop = min(len(data), self._end + max(self._window, 2 * len(kept)))
        while stop < len(data) and data[stop] & 0xC0 == 0x80:
            stop -= 1  # never split a UTF-8 sequence
        chunk, _ = codecs.utf_8_decode(self._view[self._end : stop], "strict", True)
        self._text = kept + chunk
        self._ascii = self._text.isascii()
        self._base = base
        self._end = stop
        self._pos = self._mark_pos = 0
        self._mark_byte = base
        return True


def _parsed(text: str) -> Any:
    """``text`` read by pydantic-core, as the whole-file path reads it; NotStreamable if refused."""
    if limit_problem(text) is not None:
        raise NotStreamable("a number too long")  # read_text names it with its line
    try:
        return pydantic_core.from_json(text)
    except ValueError as exc:  # a lone surrogate, nesting past the parser's bound
        raise NotStreamable(str(exc)) from None
