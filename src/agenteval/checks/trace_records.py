"""Up-front checks of ``--traces`` records: unknown keys, keys given twice (in JSON lines) and
non-finite numbers, as in eval sets.

``inputs/trace_records.py`` and ``inputs/loading.py`` read and validate each record; they
hand each valid record to a :class:`TraceRecordChecks` that ``api`` passes down (inputs
sit below checks).  A record with ``"nmae"`` in a tool call or ``NaN`` in its arguments
was scored as if the key were absent or the value a number.

Tested in tests/checks/test_trace_records.py.
"""

from __future__ import annotations

from typing import Any

from agenteval.errors import Problem
from agenteval.inputs.duplicate_keys import duplicate_keys
from agenteval.inputs.finite_numbers import non_finite_numbers
from agenteval.inputs.unknown_keys import Strictness, sort_unknown, trace_record_unknown_keys


class TraceRecordChecks:
    """Collects the problems of every record it is called with (``record, where, text``)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.non_finite: list[Problem] = []
        self.unknown: list[Problem] = []

    def __call__(self, record: Any, where: str, text: str | None = None) -> None:
        """Check one parsed record found at ``where`` (``text``: its JSON, to skip the walk)."""
        self.non_finite.extend(non_finite_numbers(record, self.file, text, [where]))
        if text is not None:  # a JSON line: a key given twice in it is said as in eval sets
            self.unknown.extend(duplicate_keys(text, self.file, [where], value=record))
        self.unknown.extend(trace_record_unknown_keys(record, self.file, where))

    def sorted(self, strictness: Strictness) -> tuple[list[Problem], list[Problem]]:
        """(errors, warnings): non-finite numbers always, unknown keys as ``strictness`` says."""
        errors, warnings = sort_unknown(self.unknown, strictness)
        return self.non_finite + errors, warnings


__all__ = ["TraceRecordChecks"]
