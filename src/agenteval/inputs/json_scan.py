"""A cursor over a JSON document's bytes that decodes a window of a few MB at a time.

The readers of large files (eval sets: :mod:`agenteval.inputs.evalset_scan`; result files and
run documents: :mod:`agenteval.inputs.result_scan`) walk a document value by value instead of
parsing it whole: the standard library's C decoder (``raw_decode``) finds where each
value ends, and each value's byte span is kept to read it again later.  Only the
window's text is held, never the whole document's: the bytes come from ``read``, a
function of a byte range (an in-memory buffer or a file).

Why not a streaming JSON library: see :mod:`agenteval.inputs.evalset_scan` (ijson's events
carry no byte offsets, so a value could not be read again alone, and its values are not
pydantic-core's).

Tested in tests/inputs/test_json_scan.py (and through tests/inputs/test_evalset_scan.py).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from json.decoder import JSONDecodeError
from typing import Any, cast

from agenteval.errors import ControlFlow
from agenteval.inputs.go_escapes import from_json
from agenteval.schema.gojson import clean_text

# Decoded text held at a time (a value larger than this widens the window).
WINDOW_BYTES = 4 << 20

_DECODER = json.JSONDecoder()
# The stdlib decoder's string reader (C); typeshed does not declare it.
_scanstring = cast(Callable[[str, int, bool], tuple[str, int]], vars(json.decoder)["scanstring"])
_BLANKS = re.compile(r"[ \t\n\r]*")
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")

# A byte range of the document: read(start, stop) -> its bytes.
Reader = Callable[[int, int], bytes | memoryview]


class ScanError(ControlFlow):
    """The document is not the JSON the scanner reads; ``offset``: the byte it stopped at.

    ``json``: the bytes are text, but not JSON (False: not even UTF-8 text).
    """

    def __init__(self, message: str, offset: int, *, json: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.json = json


class JsonWindow:
    """A cursor in a JSON document of ``size`` bytes read through ``read``, a window at a time.

    Subclasses walk the document with :meth:`next_char`, :meth:`peek`, :meth:`key` and
    :meth:`value`; positions are indices into the window's text, turned into byte offsets
    by :meth:`byte` (asked in increasing order).
    """

    def __init__(self, read: Reader, size: int, window: int = WINDOW_BYTES) -> None:
        self._read = read
        self._size = size
        self._window = window
        self._text = ""  # decoded bytes [self._base, self._end)
        self._base = 0
        self._end = 0
        self._ascii = True
        self._pos = 0  # index into self._text
        # Byte offset of text position self._mark_pos (positions are asked in increasing order).
        self._mark_pos = 0
        self._mark_byte = 0

    def start_at(self, offset: int) -> None:
        """Put the cursor at byte ``offset`` (the start of a character) before reading."""
        if self._end:
            raise ValueError("start_at is for a cursor that has read nothing yet")
        self._base = self._end = self._mark_byte = offset

    def fail(self, message: str) -> ScanError:
        """A ScanError at the cursor."""
        return ScanError(message, self.byte(self._pos))

    def unexpected(self, message: str) -> ScanError:
        """A ScanError at the character :meth:`next_char` just read."""
        return ScanError(message, self.byte(self._pos - 1))

    def value(self) -> tuple[Any, int, int]:
        """The JSON value at the cursor as the stdlib decodes it, and its text span; the cursor
        stays at its start (:meth:`skip_to` moves it past)."""
        self.peek()
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

    def text(self, start: int, end: int) -> str:
        """The window's text between two positions."""
        return self._text[start:end]

    def skip_to(self, end: int) -> None:
        """Move the cursor to ``end`` (a position after a value)."""
        self._pos = end

    def key(self) -> tuple[str, str]:
        """The object key at the cursor and its text as written (quotes included); the cursor
        moves past its ':'."""
        if self.next_char() != '"':
            raise self.unexpected("expected a key")
        while True:
            try:
                key, end = _scanstring(self._text, self._pos, True)
                break
            except JSONDecodeError:
                if not self._more():
                    raise
        written = '"' + self._text[self._pos : end]
        self._pos = end
        if self.next_char() != ":":
            raise self.unexpected("expected ':'")
        # The stdlib keeps a lone surrogate escape as a lone surrogate: U+FFFD, as Go reads it
        # and as the parsed values hold it (parse_at_depth).
        return clean_text(str(key)), written

    def peek(self, *, at_end: bool = False) -> str:
        """The next non-blank character (the cursor moves to it); "" at the end of the data."""
        while True:
            self._pos = _BLANKS.match(self._text, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._text):
                return self._text[self._pos]
            if not self._more():
                if at_end:
                    return ""
                raise self.fail("unexpected end of the data")

    def next_char(self) -> str:
        """The next non-blank character; the cursor moves past it."""
        char = self.peek()
        self._pos += 1
        return char

    def byte(self, pos: int) -> int:
        """The byte offset of text position ``pos`` (never less than the last one asked)."""
        if self._ascii:
            self._mark_byte += pos - self._mark_pos
        else:
            self._mark_byte += len(self._text[self._mark_pos : pos].encode("utf-8"))
        self._mark_pos = pos
        return self._mark_byte

    def _more(self) -> bool:
        """Drop the text before the cursor and decode the next part; False at the end."""
        if self._end >= self._size:
            return False
        base = self.byte(self._pos)
        kept = self._text[self._pos :]
        stop = min(self._size, self._end + max(self._window, 2 * len(kept)))
        chunk = self._read(self._end, stop)
        # A UTF-8 sequence cut at the window's edge waits for the next part.
        text, used = codecs.utf_8_decode(chunk, "strict", stop >= self._size)
        if not used and stop < self._size:
            raise self.fail("a character longer than the window")
        self._text = kept + text
        self._ascii = self._text.isascii()
        self._base = base
        self._end += used
        self._pos = self._mark_pos = 0
        self._mark_byte = base
        return True


def parse_at_depth(text: str, depth: int) -> Any:
    """``text`` read by pydantic-core (the whole-file parser) as inside ``depth`` containers,
    so its nesting bound applies as in the whole document (a lone surrogate escape read as
    U+FFFD, as Go does); ValueError when it refuses."""
    parsed = from_json("[" * depth + text + "]" * depth)
    for _ in range(depth):
        parsed = parsed[0]
    return parsed


def file_reader(handle: Any) -> Reader:
    """A :data:`Reader` over an open binary file."""

    def read(start: int, stop: int) -> bytes:
        handle.seek(start)
        data: bytes = handle.read(stop - start)
        return data

    return read


def bytes_reader(data: bytes) -> Reader:
    """A :data:`Reader` over bytes in memory (slices of a view: no copy)."""
    view = memoryview(data)
    return lambda start, stop: view[start:stop]


def line_and_column(read: Reader, size: int, offset: int) -> tuple[int, int]:
    """Line and column (from 1, columns in characters) of byte ``offset``, read in pieces."""
    line, last_newline, position = 1, -1, 0
    while position < offset:
        piece = bytes(read(position, min(offset, position + WINDOW_BYTES, size)))
        if not piece:
            break
        count = piece.count(b"\n")
        if count:
            line += count
            last_newline = position + piece.rindex(b"\n")
        position += len(piece)
    start = last_newline + 1
    column = len(bytes(read(start, offset)).decode("utf-8", "replace")) + 1
    return line, column


__all__ = [
    "WINDOW_BYTES",
    "JsonWindow",
    "Reader",
    "ScanError",
    "bytes_reader",
    "file_reader",
    "line_and_column",
    "parse_at_depth",
]
