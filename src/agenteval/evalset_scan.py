"""Read an eval set file's bytes case by case: each case's parsed JSON and its byte span.

A 100,000-case eval set is ~110 MB of JSON; parsed whole it is a tree of
millions of objects (about 1.3 GB with its models).  The scanner keeps the
file's bytes, decodes a window of a few MB at a time, and parses one value
after another with the standard library's C decoder (``raw_decode`` gives the
value and where it ends), so only one case is parsed at any moment and its
span is known for reading it again later (:mod:`agenteval.lazy_cases`).

Why not a streaming JSON library: ijson (yajl2_c backend) yields the cases at
about 30 µs each on the bench set (1.1 KB cases) against about 40 µs here
(limit and surrogate checks included), but its events carry no byte offsets:
every later pass over the planned cases would have to stream and re-parse the
whole file, and a case could not be read alone.  Either is small next to
validating the case as an ``EvalCase`` (about 170 µs), which both need.  The
standard decoder also gives exactly the Python values the planned cases are
rebuilt from later (``json.loads`` of the span), so checked and run cases agree.

The scanner reads only what it understands exactly: an object whose
``evalCases`` is an array, each key once.  Anything else (invalid UTF-8 or
JSON, a lone surrogate escape the file's reader refuses, duplicate keys, a
missing ``evalCases``, nesting too deep) raises :class:`NotStreamable`, and
the caller reads the file whole, as before, with its exact messages.

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
# \ud800-\udfff: the stdlib decoder accepts a lone one, the file's reader (pydantic-core) does not.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


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
                value, start, end = self._value()
                _check_limits(self._text[start:end])
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
            value, start, end = self._value()
            text = self._text[start:end]
            _check_limits(text)
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
        _check_limits(f'"{self._text[self._pos : end]}')
        self._pos = end
        if self._next() != ":":
            raise NotStreamable("expected ':'")
        return str(key)

    def _value(self) -> tuple[Any, int, int]:
        """The JSON value at the cursor with its text span; the cursor stays at its start."""
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
                return value, self._pos, end

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


def _check_limits(text: str) -> None:
    """Refuse what the whole-file reader refuses: a lone surrogate escape, a number too long."""
    if _SURROGATE_ESCAPE.search(text) is not None:
        pydantic_core.from_json(f"[{text}]")  # ValueError on a lone surrogate
    if limit_problem(text) is not None:
        raise NotStreamable("a number too long")
