"""Numbers JSON cannot hold: NaN, Infinity and literals beyond float64, located in a document.

JSON has no NaN or Infinity, but Python's and pydantic's readers accept the
literals, and ``1e400`` reads as infinity: a NaN threshold fails every case, an
infinite tolerance accepts everything, an infinite score in a result file passes.
Go's decoder refuses all three, so a file holding one cannot move to trpc-agent-go
either.  Every non-finite number of an input file (eval set, metric file, traces,
result file) is an error at its location.  So is an integer literal beyond float64
(``1`` and 400 zeros): Python reads it as an exact int, but Go reads every number as
a float64 and refuses it, and a float field read it as "expected a number, got a
number".

Tested in tests/inputs/test_finite_numbers.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.errors import Problem
from agenteval.inputs import locations

# Only these literals read as a non-finite float: NaN, Infinity, or an exponent of 3+
# digits.  A match inside a string only costs the walk, which decides.
# The text's bytes reduced to the shape of an exponent: digits -> "0", "e"/"E" -> "e",
# "+" kept, anything else (UTF-8 continuation bytes too) -> " ".
_EXPONENT_SHAPE = bytes(
    ord("0") if 48 <= i <= 57 else ord("e") if i in (69, 101) else i if i == 43 else 32
    for i in range(256)
)
_SHAPES = (b"0e000", b"0e+000")
# An integer beyond float64 (~1.8e308) has at least 309 digits.
_LONG_DIGITS = b"0" * 309
# A number's own bytes, and those around a JSON value (or a word of a string).
_IN_NUMBER = frozenset(b"0123456789.-")
_STARTS_AFTER = frozenset(b" \t\r\n:,[")
_ENDS_BEFORE = frozenset(b" \t\r\n,]}")
_DIGITS = frozenset(b"0123456789")
_HINT = "NaN, Infinity and numbers beyond ±1.8e308 cannot be compared"


def _may_hold_non_finite(text: str | bytes) -> bool:
    """Whether ``text`` holds a literal that may read as a non-finite float."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return b"NaN" in data or b"Infinity" in data or may_overflow(data)


def may_overflow(data: bytes) -> bool:
    """Whether the JSON text ``data`` may hold a number beyond float64 (``1e400``).

    For a parser that refuses ``NaN`` and ``Infinity`` itself (pydantic-core's
    ``allow_inf_nan=False``).  A look at each digit-"e"-three-digits shape found in the
    translated bytes (C loops): only one that stands alone, as a number does (``1e400``
    after ``:``, not ``a1e400f`` in a hash or an id), means the parsed value needs the
    walk.  Walking a result file's case because its session id held such a shape cost
    ~80 µs; the look ~0.1 µs.
    """
    shape = data.translate(_EXPONENT_SHAPE)
    if _LONG_DIGITS in shape:
        return True  # an integer beyond float64, or digits in a string: the walk decides
    for mark in _SHAPES:
        at = shape.find(mark)
        while at != -1:
            if _stands_alone(data, at, len(mark)):
                return True
            at = shape.find(mark, at + 1)
    return False


def _stands_alone(data: bytes, at: int, length: int) -> bool:
    """Whether the exponent shape found at ``at`` is a whole number of its own."""
    start = at
    while start > 0 and data[start - 1] in _IN_NUMBER:
        start -= 1
    if start > 0 and data[start - 1] not in _STARTS_AFTER:
        return False
    end = at + length
    while end < len(data) and data[end] in _DIGITS:
        end += 1
    return end == len(data) or data[end] in _ENDS_BEFORE


def non_finite_numbers(
    data: Any, file: str, text: str | bytes | None = None, base: Sequence[int | str] = ()
) -> list[Problem]:
    """Every NaN or infinite number in a parsed JSON document, with its location.

    With the document's ``text``, a document whose text holds none of the literals
    that can read as non-finite is not walked at all (the common case).  ``base``:
    where ``data`` sits in its file (one case of an eval set read case by case).
    """
    if text is not None and not _may_hold_non_finite(text):
        return []
    problems: list[Problem] = []
    parts: list[int | str] = list(base)

    def walk(value: Any) -> None:
        if isinstance(value, float):
            if not math.isfinite(value):
                problems.append(
                    Problem(
                        file,
                        locations.render(parts) or "$",
                        f"{value!r} is not a finite number",
                        _HINT,
                    )
                )
        elif isinstance(value, int) and beyond_float64(value):
            problems.append(integer_problem(file, locations.render(parts) or "$", value))
        elif isinstance(value, Mapping):
            for key, item in value.items():
                parts.append(key)
                walk(item)
                parts.pop()
        elif isinstance(value, list):
            for index, item in enumerate(value):
                parts.append(index)
                walk(item)
                parts.pop()

    walk(data)
    return problems


def beyond_float64(value: int) -> bool:
    """Whether an int (not a bool) reads as an infinite float64 (Go's decoder refuses it)."""
    if isinstance(value, bool):
        return False
    try:
        float(value)
    except OverflowError:
        return True
    return False


def integer_problem(file: str, path: str, value: int) -> Problem:
    """The error for an integer beyond float64 at ``path`` (said alike by every reader)."""
    return Problem(
        file,
        path,
        f"an integer of {len(str(abs(value)))} digits is not a finite number",
        _HINT,
    )


@dataclass(frozen=True, slots=True)
class FiniteJsonHooks:
    """``json`` decoder hooks (``parse_constant``, ``parse_float``) that refuse what Go's
    decoder refuses, each with its reader's own words: ``constant`` and ``beyond`` are
    messages formatted with ``literal`` (the text read) and ``first`` (its first character).
    """

    constant: str
    beyond: str

    def parse_constant(self, literal: str) -> Any:
        """NaN, Infinity, -Infinity: not JSON."""
        raise ValueError(self.constant.format(literal=literal, first=literal[0]))

    def parse_float(self, literal: str) -> float:
        """A number, unless it lies beyond float64 (``1e400`` reads as infinity)."""
        value = float(literal)
        if not math.isfinite(value):
            raise ValueError(self.beyond.format(literal=literal, first=literal[0]))
        return value


__all__ = [
    "FiniteJsonHooks",
    "beyond_float64",
    "integer_problem",
    "may_overflow",
    "non_finite_numbers",
]
