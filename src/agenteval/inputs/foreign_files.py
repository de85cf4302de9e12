"""Recognise the files ``agenteval import`` reads, so readers can name them when they are misplaced.

Kinds: ``adk-evalset``, ``adk-legacy`` (``*.test.json``), ``adk-result``, ``otlp-json``,
``otlp-protobuf``; None for anything else (a trpc-agent-go file among them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agenteval.errors import Problem
from agenteval.inputs.go_escapes import from_json
from agenteval.inputs.input_limits import input_file_problem

KIND_NAMES = {
    "adk-evalset": "a Google ADK eval set",
    "adk-legacy": "a Google ADK legacy *.test.json file",
    "adk-result": "a Google ADK eval result file",
    "otlp-json": "an OpenTelemetry OTLP JSON trace export",
    "otlp-protobuf": "an OpenTelemetry OTLP protobuf trace export",
}
# Substrings one of which every recognised JSON kind contains; others skip the JSON parse.
_MARKERS = (
    '"parts"',
    "eval_cases",
    "eval_set_id",
    "esourceSpans",
    "esource_spans",
    '"query"',
    "evalSetResultId",
    "eval_case_results",
    "ntermediateData",
    "ntermediate_data",
)


def import_command(kind: str) -> str:
    """The command that converts a file of this kind."""
    return (
        "agenteval import otel FILE -o DIR"
        if kind.startswith("otlp")
        else "agenteval import adk FILE -o DIR"
    )


def _invocations(cases: Any) -> list[Any]:
    found: list[Any] = []
    for case in cases if isinstance(cases, list) else []:
        if isinstance(case, dict):
            turns = case.get("conversation")
            if isinstance(turns, list):
                found.extend(t for t in turns if isinstance(t, dict))
    return found


def adk_case(case: Any) -> bool:
    """Whether one entry of ``evalCases`` holds an ADK turn (:func:`kind_of_data` of an eval
    set with only this case says ``adk-evalset``); the eval set read case by case asks it
    of each case, without building a one-case document to classify."""
    if not isinstance(case, dict):
        return False
    turns = case.get("conversation")
    if not isinstance(turns, list):
        return False
    return any(isinstance(t, dict) and _adk_invocation(t) for t in turns)


def _adk_invocation(turn: dict[str, Any]) -> bool:
    """An ADK invocation: Gemini ``Content`` (``parts``) or ``intermediateData``."""
    if "intermediateData" in turn or "intermediate_data" in turn or "user_content" in turn:
        return True
    content = turn.get("userContent")
    return isinstance(content, dict) and "parts" in content


def _parsed(text: str) -> Any:
    """JSON text parsed, or ValueError; nesting is bounded as where the loaders parse (no
    RecursionError from 5,000 nested ``[``), and so are numbers."""
    return from_json(text)


def kind_of_data(data: Any) -> str | None:
    """The kind of parsed JSON data, or None."""
    if isinstance(data, str):
        try:
            data = _parsed(data)
        except ValueError:
            return None
    if isinstance(data, list):
        rows = [r for r in data if isinstance(r, dict)]
        if rows and all("query" in r for r in rows):
            return "adk-legacy"
        return None
    if not isinstance(data, dict):
        return None
    if "resourceSpans" in data or "resource_spans" in data:
        return "otlp-json"
    if "eval_case_results" in data or "eval_set_result_id" in data:
        return "adk-result"
    results = data.get("evalCaseResults")
    if isinstance(results, list):
        # trpc-agent-go result files share ADK's camelCase keys; ADK turns hold Gemini parts.
        turns = [
            p.get("actualInvocation")
            for r in results
            if isinstance(r, dict)
            for p in (r.get("evalMetricResultPerInvocation") or [])
            if isinstance(p, dict)
        ]
        if any(isinstance(t, dict) and _adk_invocation(t) for t in turns):
            return "adk-result"
        return None
    if "eval_cases" in data or "eval_set_id" in data:
        return "adk-evalset"
    if any(_adk_invocation(t) for t in _invocations(data.get("evalCases"))):
        return "adk-evalset"
    return None


def kind_of_text(text: str) -> str | None:
    """The kind of a JSON (or JSON-lines) text, or None."""
    if not any(marker in text for marker in _MARKERS):
        return None
    try:
        return kind_of_data(_parsed(text))
    except ValueError:
        first = text.lstrip().split("\n", 1)[0]
        try:
            return "otlp-json" if kind_of_data(_parsed(first)) == "otlp-json" else None
        except ValueError:
            return None


def kind_of_bytes(data: bytes) -> str | None:
    """The kind of a file's bytes: JSON kinds, or OTLP protobuf with at least one span."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text.lstrip()[:1] in ("{", "[", '"'):
        return kind_of_text(text)
    # protobuf loads only for a file that is not JSON text (never on a run's eval sets).
    from google.protobuf.message import DecodeError

    from agenteval.errors import ConfigError
    from agenteval.inputs.otlp_file import read_protobuf_spans

    try:
        read = read_protobuf_spans(data, "")
    except (ConfigError, DecodeError):
        return None
    return "otlp-protobuf" if read.spans and not read.without_id else None


def kind_of_file(path: Path) -> str | None:
    """The kind of a file on disk, or None (also when it cannot be read, or is no regular file)."""
    if input_file_problem(path) is not None:
        return None
    try:
        return kind_of_bytes(path.read_bytes())
    except OSError:
        return None


def foreign_evalset_problem(text: str, file: str) -> Problem | None:
    """A problem naming the format when an eval set file is really an ADK or OTLP file."""
    kind = kind_of_text(text)
    if kind is None:
        return None
    return Problem(
        file,
        "$",
        f"this is {KIND_NAMES[kind]}, not a trpc-agent-go eval set",
        f"convert it first: {import_command(kind)}",
    )


def binary_file_hint(path: Path) -> str:
    """A hint for a file that is not UTF-8 text: the import command when it is OTLP protobuf."""
    kind = kind_of_file(path)
    if kind is None:
        return ""
    return f"it is {KIND_NAMES[kind]}; convert it first: {import_command(kind)}"
