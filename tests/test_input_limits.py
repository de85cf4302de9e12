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


def test_digit_runs_inside_strings_are_text() -> None:
    run = "7" * 5000
    assert limit_problem('{"a": "total: ' + run + '"}') is None
    assert limit_problem('{"a": "x, ' + run + " and [" + run + '"}') is None
    escaped = '{"a": "say \\"' + ", " + run + '\\" ok", "b": [' + "8" * 5000 + "]}"
    assert limit_problem(escaped) == (
        "a number with 5,000 digits at line 1 column 5030 (at most 4,300 are read)"
    )


def test_number_after_a_string_with_digits_is_found() -> None:
    text = '{"s": "n: ' + "1" * 5000 + '", "n": ' + "2" * 4400 + "}"
    problem = limit_problem(text)
    assert problem is not None and "4,400 digits" in problem
