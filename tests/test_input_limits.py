"""agenteval.input_limits: oversized numbers found with their place, fast on large files."""

from __future__ import annotations

from agenteval.input_limits import MAX_INTEGER_DIGITS, limit_problem


def test_long_integer_located() -> None:
    text = '{\n  "a": [1, ' + "9" * 100_000 + "]}"
    assert limit_problem(text) == (
        "a number with 100,000 digits at line 2 column 12 (at most 4,300 are read)"
    )


def test_limits_that_hold() -> None:
    assert limit_problem('{"a": ' + "9" * MAX_INTEGER_DIGITS + "}") is None
    assert limit_problem('{"a": "' + "9" * 10_000 + '"}') is None  # digits in a string
    assert limit_problem("[" * 1000 + "]" * 1000) is None
