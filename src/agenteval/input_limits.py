"""Bounds on what an input file may hold, checked on its text before any parser sees it.

Python refuses to turn more than 4,300 digits into an int (``sys.int_info``): a
100,000-digit number crashed a run deep inside a parser or a writer.  It is found
here with one linear scan and reported with its line and column.  Nesting is bounded
where the JSON is parsed (:func:`nesting_problem`): scanning for it in Python took
seconds on a 20 MB eval set.

Tested in tests/test_input_limits.py.
"""

from __future__ import annotations

import re
import sys

# Python's own default limit on int <-> str conversion.
MAX_INTEGER_DIGITS = sys.int_info.default_max_str_digits or 4300

# A JSON number token starts after "[", ":" or "," (and blanks).
_LONG_INTEGER = re.compile(rf"[\[:,]\s*-?(\d{{{MAX_INTEGER_DIGITS + 1},}})")

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
    found = _LONG_INTEGER.search(text)
    if found is not None:
        digits = len(found.group(1))
        return (
            f"a number with {digits:,} digits at {_place(text, found.start(1))} "
            f"(at most {MAX_INTEGER_DIGITS:,} are read)"
        )
    return None


def nesting_problem(exc: RecursionError) -> str:
    """The message for JSON the stdlib decoder could not read for its depth."""
    return f"nesting too deep to read ({type(exc).__name__})"


__all__ = ["MAX_INTEGER_DIGITS", "limit_problem", "nesting_problem"]
