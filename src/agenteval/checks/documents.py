"""Checks on the raw JSON of an eval set or metric file, before its models are trusted.

A file of another kind (a result file, a run document, an ADK eval set, an
OTLP export, a metric file given as an eval set and vice versa) is named and
refused; non-finite numbers are errors; unknown keys are warnings, or errors
with ``strict``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pydantic_core

from agenteval.checks.file_kind import FileKind, kind_of, wrong_kind_message
from agenteval.checks.numbers import non_finite_numbers
from agenteval.checks.unknown_keys import evalset_unknown_keys, metrics_unknown_keys
from agenteval.errors import Problem

_NOT_EVALSET = frozenset(
    {FileKind.METRICS, FileKind.RESULT, FileKind.RUN, FileKind.ADK_EVALSET, FileKind.OTLP}
)
_NOT_METRICS = frozenset(
    {FileKind.EVALSET, FileKind.RESULT, FileKind.RUN, FileKind.ADK_EVALSET, FileKind.OTLP}
)


def parsed(text: str) -> Any:
    """The JSON data of ``text``, or None when it does not parse (the model reader says why)."""
    try:
        return pydantic_core.from_json(text)
    except ValueError:
        return None


def check_evalset_document(
    data: Any, file: str, *, strict: bool, text: str | None = None
) -> tuple[bool, list[Problem], list[Problem]]:
    """(readable as an eval set, problems, warnings) of a parsed eval set file (``text``: its JSON)."""
    kind = kind_of(data)
    if kind in _NOT_EVALSET:
        message, hint = wrong_kind_message("an eval set", kind)
        return False, [Problem(file, "", message, hint)], []
    problems = non_finite_numbers(data, file, text)
    unknown = evalset_unknown_keys(data, file)
    return True, problems + (unknown if strict else []), [] if strict else unknown


def check_metrics_document(
    data: Any, file: str, *, strict: bool, builtin: Callable[[str], bool], text: str | None = None
) -> tuple[bool, list[Problem], list[Problem]]:
    """(readable as a metric file, problems, warnings) of a parsed metric file (``text``: its JSON)."""
    kind = kind_of(data)
    if kind in _NOT_METRICS:
        message, hint = wrong_kind_message("a metric file", kind)
        return False, [Problem(file, "", message, hint)], []
    problems = non_finite_numbers(data, file, text)
    unknown = metrics_unknown_keys(data, file, builtin)
    return True, problems + (unknown if strict else []), [] if strict else unknown
