"""Checks on the raw JSON of an eval set or metric file, before its models are trusted.

A file of another kind (a result file, a run document, an ADK eval set, an
OTLP export, a labels or prices file, a metric file given as an eval set and vice
versa) is named and refused; non-finite numbers are errors; keys given twice
(:mod:`agenteval.inputs.duplicate_keys`) and unknown keys are sorted into errors and
warnings by ``unknown_keys.sort_unknown`` (near misses are errors unless
``lenient``; other keys are errors with ``strict``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.duplicate_keys import duplicate_keys
from agenteval.inputs.file_kind import FileKind, first_line_kind, kind_of, wrong_kind_message
from agenteval.inputs.finite_numbers import non_finite_numbers
from agenteval.inputs.go_escapes import from_json
from agenteval.inputs.unknown_keys import (
    Strictness,
    evalset_unknown_keys,
    metrics_unknown_keys,
    sort_unknown,
)

if TYPE_CHECKING:
    from agenteval.schema.evalset import EvalSet

# Kinds no run input is: each input also refuses the other input's kind.
_NOT_INPUT = frozenset(
    {
        FileKind.RESULT,
        FileKind.RUN,
        FileKind.ADK_EVALSET,
        FileKind.ADK_CONFIG,
        FileKind.OTLP,
        FileKind.TRACES,
        FileKind.LABELS,
        FileKind.PRICES,
    }
)
_NOT_EVALSET = _NOT_INPUT | {FileKind.METRICS}
_NOT_METRICS = _NOT_INPUT | {FileKind.EVALSET}
# What a reader expects: the kinds it refuses, and its own name for the error message.
_EVALSET = (_NOT_EVALSET, "an eval set")
_METRICS = (_NOT_METRICS, "a metric file")


def parsed(text: str) -> Any:
    """The JSON data of ``text``, or None when it does not parse (the model reader says why)."""
    try:
        return from_json(text)
    except ValueError:
        return None


Outcome = tuple[bool, list[Problem], list[Problem]]


def json_lines_problem(text: str, file: str, metrics: bool) -> Problem | None:
    """A text that is no JSON document because it is JSON lines of another kind (a traces
    file given as an eval set or metric file), named as any file of another kind is."""
    refused, noun = _METRICS if metrics else _EVALSET
    kind = first_line_kind(text)
    if kind is None or kind not in refused:
        return None
    message, hint = wrong_kind_message(noun, kind)
    return Problem(file, "", message, hint)


def check_evalset_document(
    data: Any, file: str, strictness: Strictness, *, text: str | None = None
) -> Outcome:
    """(readable as an eval set, problems, warnings) of a parsed eval set file (``text``: its JSON)."""
    unknown_keys = partial(evalset_unknown_keys, data, file)
    return _checked(_EVALSET, data, file, text, strictness, unknown_keys)


def check_metrics_document(
    data: Any,
    file: str,
    strictness: Strictness,
    *,
    builtin: Callable[[str], bool],
    text: str | None = None,
) -> Outcome:
    """(readable as a metric file, problems, warnings) of a parsed metric file (``text``: its JSON)."""
    unknown_keys = partial(metrics_unknown_keys, data, file, builtin)
    return _checked(_METRICS, data, file, text, strictness, unknown_keys)


def _checked(
    expected: tuple[frozenset[FileKind], str],
    data: Any,
    file: str,
    text: str | None,
    strictness: Strictness,
    unknown_keys: Callable[[], list[Problem]],
) -> Outcome:
    """Refuse a file of a kind in ``expected[0]``; else non-finite numbers, then unknown keys."""
    refused, noun = expected
    kind = kind_of(data)
    if kind in refused:
        message, hint = wrong_kind_message(noun, kind)
        return False, [Problem(file, "", message, hint)], []
    problems = non_finite_numbers(data, file, text)
    # A key given twice is read as Go reads it (the last value), and said like an unknown key.
    repeated = duplicate_keys(text, file, value=data) if text is not None else []
    errors, warnings = sort_unknown([*repeated, *unknown_keys()], strictness)
    return True, problems + errors, warnings


def check_evalset_text(
    text: str, file: str, strictness: Strictness
) -> tuple[bool, EvalSet | None, list[Problem], list[Problem]]:
    """(readable as an eval set, the eval set when valid, problems, warnings) of an eval set
    file's text read whole: every check ``validate`` makes of the file itself (another kind
    of file, JSON lines, non-finite numbers, unknown keys, the model and its case rules)."""
    from agenteval.inputs.loading import parse_evalset

    data = parsed(text)
    problems: list[Problem] = []
    warnings: list[Problem] = []
    if data is None:
        lines = json_lines_problem(text, file, metrics=False)
        if lines is not None:
            return False, None, [lines], []
    else:
        readable, problems, warnings = check_evalset_document(data, file, strictness, text=text)
        if not readable:
            return False, None, problems, warnings
    evalset, model_problems = parse_evalset(text, file, data)
    return True, evalset, problems + model_problems, warnings


def load_checked_evalset(
    path: Path, strictness: Strictness = Strictness.DEFAULT
) -> tuple[EvalSet, list[Problem]]:
    """One eval set file checked as ``validate`` checks it, and its warnings; ConfigError with
    every problem (and the warnings found beside them).

    ``merge --evalset`` read its eval sets with ``loading.load_evalset`` alone: a result
    file, a near-miss key (``EvalCases``) or ``NaN`` went through unremarked.
    """
    from agenteval.inputs.loading import read_text

    read: list[Problem] = []  # invalid UTF-8 read as U+FFFD, as Go reads it
    text = read_text(path, warnings=read)
    _, evalset, problems, warnings = check_evalset_text(text, str(path), strictness)
    warnings = read + warnings
    if problems or evalset is None:
        raise ConfigError(problems, warnings)
    return evalset, warnings
