"""Numbers as every report prints them: a score (at most 4 decimals, no trailing zeros)
and a count of something (``1 call``, ``2 calls``).

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


def counted(count: int, noun: str, plural: str = "", *, grouped: bool = False) -> str:
    """``1 call``, ``2 calls`` (``plural`` when not ``noun`` + "s": ``1 retry``, ``2 retries``);
    ``grouped``: thousands separated (``12,000 spans``)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {noun if count == 1 else plural or noun + 's'}"


__all__ = ["counted", "format_score"]
