"""Bounds on what an input file may hold, checked on its text before any parser sees it.

Python refuses to turn more than 4,300 digits into an int (``sys.int_info``): a
100,000-digit number crashed a run deep inside a parser or a writer.  It is found
here with one linear scan and reported with its line and column.  Nesting is bounded
where the JSON is parsed (:func:`nesting_problem`): scanning for it in Python took
seconds on a 20 MB eval set.

Tested in tests/test_input_limits.py.
"""

from __future__ import annotations

import json.decoder
import re
import sys
from collections.abc import Callable
from typing import cast

# Python's own default limit on int <-> str conversion.
MAX_INTEGER_DIGITS = sys.int_info.default_max_str_digits or 4300

# A JSON number token starts after "[", ":" or "," (and blanks).
_LONG_INTEGER = re.compile(rf"[\[:,]\s*-?(\d{{{MAX_INTEGER_DIGITS + 1},}})")

# The stdlib decoder's string reader (C); typeshed does not declare it.
_scanstring = cast(Callable[[str, int, bool], tuple[str, int]], vars(json.decoder)["scanstring"])

_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")
_ZERO_RUN = "0" * (MAX_INTEGER_DIGITS + 1)


def _place(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line} column {column}"


def limit_problem(text: str) -> str | None:
    """Why ``text`` exceeds a bound (with its place), or None."""
    # Fast path, C speed: no run of that many digits anywhere (strings included).
    if _ZERO_RUN not in text.translate(_DIGITS_TO_ZERO):
        return None
    found = _number_outside_strings(text)
    if found is not None:
        digits = len(found.group(1))
        return (
            f"a number with {digits:,} digits at {_place(text, found.start(1))} "
            f"(at most {MAX_INTEGER_DIGITS:,} are read)"
        )
    return None


def _number_outside_strings(text: str) -> re.Match[str] | None:
    """The first over-long number token that is not inside a JSON string, or None.

    A final answer may well say ``"total: 123…"`` with thousands of digits: that is text.
    Strings are skipped with the C string reader, only up to each candidate, so a file
    with no long digit run never gets here and one with some is walked once.
    """
    string_end = 0  # everything before this is known to be outside or inside a string
    for found in _LONG_INTEGER.finditer(text):
        start = found.start(1)
        if start < string_end:
            continue
        while True:
            quote = text.find('"', string_end, start)
            if quote < 0:
                return found
            try:
                _, string_end = _scanstring(text, quote + 1, False)
            except ValueError:
                return None  # not JSON past here: the parser names the problem
            if string_end > start:
                break  # the digits are inside this string
    return None


def nesting_problem(exc: RecursionError) -> str:
    """The message for JSON the stdlib decoder could not read for its depth."""
    return f"nesting too deep to read ({type(exc).__name__})"


__all__ = ["MAX_INTEGER_DIGITS", "limit_problem", "nesting_problem"]
