"""A score as every report prints it: at most 4 decimals, no trailing zeros.

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


__all__ = ["format_score"]
