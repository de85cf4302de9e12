"""Numbers as every report prints them: a score (at most 4 decimals, no trailing zeros),
one to its last digit (explain's arithmetic) and a count of something (``1 call``, ``2 calls``).

A module of its own, importing nothing, so that the views that only print numbers
(``agenteval trend`` and its page) do not load the result models with
``report.console_tables`` (0.3 s of CPU at start-up).

Tested in tests/report/test_console.py.
"""

from __future__ import annotations


def format_score(value: float) -> str:
    """A score with at most 4 decimals and no trailing zeros (``1``, ``0.6316``)."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def exact_number(value: float) -> str:
    """``value`` to its last digit (the shortest text that reads back as the same float):
    ``1``, ``0.8``, ``0.7999999999999999``.  Where a comparison is shown, rounding would
    print ``0.8 < threshold 0.8`` for the mean of 1, 1 and 0.4 that fails 0.8."""
    text = repr(float(value))
    return text.removesuffix(".0")


def counted(count: int, noun: str, plural: str = "", *, grouped: bool = False) -> str:
    """``1 call``, ``2 calls`` (``plural`` when not ``noun`` + "s": ``1 retry``, ``2 retries``);
    ``grouped``: thousands separated (``12,000 spans``)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {noun if count == 1 else plural or noun + 's'}"


__all__ = ["counted", "exact_number", "format_score"]
