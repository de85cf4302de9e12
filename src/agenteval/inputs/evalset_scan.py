"""Read an eval set file's bytes case by case: each case's parsed JSON and its byte span.

A 100,000-case eval set is ~110 MB of JSON; parsed whole it is a tree of
millions of objects (about 1.3 GB with its models).  The scanner keeps the
file's bytes, decodes a window of a few MB at a time and walks the top-level
object value by value (:class:`agenteval.inputs.json_scan.JsonWindow`): the standard
library's C decoder (``raw_decode``) finds where each value ends, and the value is
the one pydantic-core's parser, the one the whole-file path uses, reads from its text
(wrapped in as many brackets as it sits deep, so its nesting bound applies as in the
whole document): a case's is the stdlib's own value where the two cannot differ
(:func:`_case_value`).  Only one case is parsed at any moment, and its byte span is
kept for reading it again later (:mod:`agenteval.inputs.lazy_cases`, with
pydantic-core's parser).

Why not a streaming JSON library: ijson (yajl2_c backend) yields the cases at
about 30 µs each on the bench set (1.1 KB cases), but its events carry no byte
offsets: every later pass over the planned cases would have to stream and
re-parse the whole file, a case could not be read alone, and its values are
not pydantic-core's (lone surrogates, nesting bound, ``Decimal`` numbers), so
a file could read differently than when read whole.  Finding the span costs
about 15 µs a case here; validating the case as an ``EvalCase`` costs about 45 µs,
which every way needs.

A case that may hold a key twice (:func:`~agenteval.inputs.duplicate_keys.may_repeat`) is
decoded again by :class:`~agenteval.inputs.duplicate_keys.PairsDecoder`, and comes with the
objects that do (:attr:`ScannedCase.repeated`), for the warning the whole-file path gives.

The scanner reads only what it can read exactly as the whole-file path does:
an object whose ``evalCases`` is an array, each key once (in its other values too).  Anything else
(invalid UTF-8 or JSON, a value pydantic-core refuses, a number too long,
duplicate keys, a missing ``evalCases``, nesting past the parser's bound)
raises :class:`NotStreamable`, and the caller reads the file whole, as before,
with its exact messages.

Tested in tests/inputs/test_evalset_scan.py.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from json.decoder import JSONDecodeError
from typing import Any

from agenteval.errors import ControlFlow
from agenteval.inputs.duplicate_keys import PairsDecoder, Repeated, may_repeat
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
    """One entry of ``evalCases``: its index, parsed JSON, byte span and text; ``repeated``:
    when an object of it holds a key twice, the case as the stdlib decoded it and those
    objects (:func:`agenteval.inputs.duplicate_keys.duplicate_problems` locates them)."""

    index: int
    data: Any
    start: int
    end: int
    text: str
    repeated: tuple[Any, list[Repeated]] | None = None


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
        except _READ_ERRORS as exc:
            raise NotStreamable(str(exc)) from None

    def cases_from(self, offset: int) -> Iterator[ScannedCase]:
        """The entries of ``evalCases`` from the one starting at byte ``offset`` (indices
        counted from it), then the keys after the array (into :attr:`after`).

        For a worker checking a later share of the cases (checks/evalset_stream.py): the
        offset is a guess until the scan of the cases before it meets a case exactly there.
        Raises NotStreamable on anything unusual, a value not starting at ``offset`` too.
        """
        try:
            self.start_at(offset)
            yield from self._entries()
            yield from self._members_after(found=True)
        except _READ_ERRORS as exc:
            raise NotStreamable(str(exc)) from None

    def _object(self) -> Iterator[ScannedCase]:
        if self.peek(at_end=True) != "{":
            raise NotStreamable("not a JSON object")
        self.next_char()
        if self.peek() == "}":
            raise NotStreamable("an empty object")
        found = yield from self._member(found=False)
        yield from self._members_after(found)

    def _member(self, found: bool) -> Generator[ScannedCase, None, bool]:
        """One key and its value (the cases, for ``evalCases``); whether ``evalCases`` was found."""
        key, written = self.key()
        _parsed(written, 0)  # refused as the whole document would be
        if key in self.before or key in self.after or (found and key == "evalCases"):
            raise NotStreamable(f"key {key!r} given twice")
        if key == "evalCases":
            yield from self._case_list()
            return True
        _, start, end = self.value()
        value = _parsed(self.text(start, end), 1)
        if may_repeat(self.text(start, end), value):
            raise NotStreamable(f"{key!r} may hold a key twice")  # the whole path says where
        (self.after if found else self.before)[key] = value
        self.skip_to(end)
        return found

    def _members_after(self, found: bool) -> Iterator[ScannedCase]:
        """The object's members after one, to its end (and nothing after it)."""
        while True:
            separator = self.next_char()
            if separator == "}":
                break
            if separator != ",":
                raise NotStreamable("expected ',' or '}'")
            found = yield from self._member(found)
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
        yield from self._entries()

    def _entries(self) -> Iterator[ScannedCase]:
        """The array's entries from the cursor (at a value) to its ']'."""
        index = 0
        while True:
            decoded, start, end = self.value()
            text = self.text(start, end)
            value = _case_value(decoded, text)
            start_byte = self.byte(start)
            end_byte = self.byte(end)
            self.skip_to(end)
            yield ScannedCase(index, value, start_byte, end_byte, text, _repeated(text, value))
            index += 1
            separator = self.next_char()
            if separator == "]":
                return
            if separator != ",":
                raise NotStreamable("expected ',' or ']' in evalCases")


def _repeated(text: str, value: Any) -> tuple[Any, list[Repeated]] | None:
    """A case's text decoded again with its pairs, and the objects holding a key twice;
    None when it holds none (decoded again only when a key may repeat)."""
    if not may_repeat(text, value):
        return None
    pairs = PairsDecoder()
    decoded = pairs.decoder.decode(text)
    return (decoded, pairs.repeated) if pairs.repeated else None


_READ_ERRORS = (ScanError, JSONDecodeError, RecursionError, UnicodeDecodeError, ValueError)


# Containers a case may open and still be read by pydantic-core inside ``evalCases``
# (its bound is 200 levels with the two around the case; tests/inputs/test_evalset_scan.py).
_SHALLOW = 190


def _case_value(decoded: Any, text: str) -> Any:
    """A case's value as pydantic-core reads it, given the standard library's (``decoded``).

    The stdlib decoder has read the case already, to find where it ends; parsing its text
    again with pydantic-core cost ~80 k instructions a case of bench/adk_side_by_side.py
    (~17 % of the up-front checks; valgrind, 2,000 cases).  The two readers' values are the
    same (numbers bit for bit: NaN, Infinity, 1e400, -0, long integers, 500,000 random
    floats; surrogate pairs; a key given twice) except in two ways, which the text rules
    out before ``decoded`` is kept: a lone surrogate escape (the stdlib keeps it, the
    whole-file path reads U+FFFD, as Go does: :mod:`agenteval.inputs.go_escapes`) and
    nesting past pydantic-core's bound.  A case whose text holds a ``\\uD`` escape or more
    than ``_SHALLOW`` brackets is parsed by pydantic-core, as every case was.
    """
    if limit_problem(text) is not None:
        raise NotStreamable("a number too long")  # read_text names it with its line
    # One backslash search (memchr) first: most cases hold no escape at all, and the two
    # three-character searches cost ~2.3 µs a bench case.
    escaped = "\\" in text and ("\\ud" in text or "\\uD" in text)
    if escaped or text.count("[") + text.count("{") > _SHALLOW:
        return _parsed(text, 2)
    return decoded


def _parsed(text: str, depth: int) -> Any:
    """``text`` read by pydantic-core as the whole-file path reads it, inside ``depth``
    containers (the parser bounds nesting); NotStreamable if refused."""
    if limit_problem(text) is not None:
        raise NotStreamable("a number too long")  # read_text names it with its line
    try:
        return parse_at_depth(text, depth)
    except ValueError as exc:  # nesting past the parser's bound
        raise NotStreamable(str(exc)) from None
