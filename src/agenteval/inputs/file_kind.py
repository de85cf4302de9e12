"""What kind of file a parsed JSON document is, so a reader given the wrong kind says so.

agenteval reads trpc-agent-go eval sets, metric files and result files, its own
``--prices`` and ``--labels`` files, and writes a ``--json`` run document.  Files of other tools that users hand it by
mistake (an ADK eval set, an OpenTelemetry OTLP/JSON export) are recognised
by their top-level shape and named, with the command that converts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

import pydantic_core

from agenteval.inputs.go_escapes import from_json, go_escapes


class FileKind(StrEnum):
    """The kinds of JSON document agenteval can tell apart."""

    EVALSET = "evalset"
    METRICS = "metrics"
    RESULT = "result"
    RUN = "run"
    ADK_EVALSET = "adk"
    ADK_CONFIG = "adk-config"
    OTLP = "otel"
    TRACES = "traces"
    LABELS = "labels"
    PRICES = "prices"
    EMPTY = "empty"
    OTHER = "other"


DESCRIPTIONS = {
    FileKind.EVALSET: "an eval set",
    FileKind.METRICS: "a metric file",
    FileKind.RESULT: "a result file",
    FileKind.RUN: "an agenteval --json run document",
    FileKind.ADK_EVALSET: "a Google ADK eval set",
    FileKind.ADK_CONFIG: "a Google ADK test_config.json",
    FileKind.OTLP: "an OpenTelemetry (OTLP/JSON) export",
    FileKind.TRACES: "a traces file",
    FileKind.LABELS: "a labels file",
    FileKind.PRICES: "a prices file",
    FileKind.EMPTY: "an empty document",
    FileKind.OTHER: "none of the known file kinds",
}

HINTS = {
    FileKind.ADK_EVALSET: "convert it with `agenteval import adk FILE -o DIR`",
    # import adk reads the test_config.json beside the eval set it converts.
    FileKind.ADK_CONFIG: "`agenteval import adk EVALSET -o DIR` converts it with the eval set "
    "beside it",
    FileKind.OTLP: "convert it with `agenteval import otel FILE -o DIR`",
    FileKind.RESULT: "pass it to show, diff, merge, --resume or --traces",
    FileKind.RUN: "pass it to show, diff, merge or --resume",
    FileKind.METRICS: "pass it with --metrics",
    FileKind.TRACES: "pass it with --traces",
    FileKind.EVALSET: "pass it with --evalset",
    FileKind.LABELS: "pass it with --labels",
    FileKind.PRICES: "pass it with --prices",
}

_RESULT_KEYS = ("evalCaseResults", "evalSetResultId", "evalSetResultName")
_GENAI_KEYS = ("parts",)
_SAMPLED_CASES = 20  # google.genai Content: ADK turns hold parts, trpc turns content


def _adk_turns(cases: Any) -> bool:
    """True when a case list's turns carry google.genai ``parts`` (ADK) rather than content."""
    if not isinstance(cases, list):
        return False
    # Every case of an ADK file has them: a few cases tell, a large eval set is not walked.
    for case in cases[:_SAMPLED_CASES]:
        if not isinstance(case, Mapping):
            continue
        turns = case.get("conversation")
        # The kind is told from the shape alone: a malformed value is the checks' to report.
        for turn in turns if isinstance(turns, list) else ():
            if not isinstance(turn, Mapping):
                continue
            for key in ("userContent", "user_content", "finalResponse", "final_response"):
                message = turn.get(key)
                if isinstance(message, Mapping) and any(k in message for k in _GENAI_KEYS):
                    return True
            if "intermediateData" in turn or "intermediate_data" in turn:
                return True
    return False


def _adk_results(results: Any) -> bool:
    """True when a result list's recorded turns are ADK invocations (issue 17)."""
    if not isinstance(results, list):
        return False
    turns = [
        {"conversation": [p.get("actualInvocation") for p in _mappings(r.get(_PER_TURN))]}
        for r in results[:_SAMPLED_CASES]
        if isinstance(r, Mapping)
    ]
    return _adk_turns(turns)


_PER_TURN = "evalMetricResultPerInvocation"


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    """The objects of ``value`` when it is a list (anything else holds none)."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


# The keys of a --traces record (inputs/trace_records.py), as --record writes them.
_RECORD_KEYS = frozenset(
    {"evalId", "runId", "actualConversation", "expectedConversation", "errorMessage", "incomplete"}
)


def _is_record(entry: Mapping[str, Any]) -> bool:
    """A --traces record: an evalId and its turns, nothing an eval case has besides."""
    return "evalId" in entry and "actualConversation" in entry and entry.keys() <= _RECORD_KEYS


# The verdict keys only a label line has (calibrate --labels, schema/labels.py).
_VERDICTS = frozenset({"label", "score", "category"})


def is_label(data: Any) -> bool:
    """A label line, however wrong (its evalSetId alone reads as an eval set): a verdict key,
    or a case named with its metric or eval set (a metric file, an eval set and a traces
    record name no more than one of them)."""
    return isinstance(data, Mapping) and (
        not _VERDICTS.isdisjoint(data)
        or ("evalId" in data and ("metricName" in data or "evalSetId" in data))
    )


def _is_prices(data: Mapping[str, Any]) -> bool:
    """A ``--prices`` file: ``{"provider:model": {"inputPerMillion": ..., ...}}``."""
    entries = list(data.values())
    return all(isinstance(e, Mapping) for e in entries) and any(
        "PerMillion" in key for e in entries for key in e
    )


def _kind_of_object(data: Mapping[str, Any]) -> FileKind:
    if not data:
        return FileKind.EMPTY
    if "agentevalVersion" in data or isinstance(data.get("evalSetResults"), list):
        return FileKind.RUN
    if any(key in data for key in _RESULT_KEYS):
        # ADK's result files share these camelCase keys; their turns hold google.genai parts.
        return (
            FileKind.ADK_EVALSET if _adk_results(data.get("evalCaseResults")) else FileKind.RESULT
        )
    if "resourceSpans" in data:
        return FileKind.OTLP
    if isinstance(data.get("criteria"), Mapping):
        return FileKind.ADK_CONFIG
    if "eval_cases" in data or "eval_set_id" in data:
        return FileKind.ADK_EVALSET
    if "evalCases" in data:
        return FileKind.ADK_EVALSET if _adk_turns(data["evalCases"]) else FileKind.EVALSET
    if is_label(data):
        return FileKind.LABELS
    if _is_prices(data):
        return FileKind.PRICES
    if "evalSetId" in data and "summary" not in data:
        return FileKind.EVALSET
    if "summary" in data and "evalSetId" in data:
        return FileKind.RESULT
    return FileKind.TRACES if _is_record(data) else FileKind.OTHER


def _kind_of_list(data: list[Any]) -> FileKind:
    entries = [e for e in data if e is not None]
    if not entries:
        return FileKind.EMPTY
    if all(isinstance(e, Mapping) for e in entries):
        if all(is_label(e) for e in entries):  # labels name a metricName too
            return FileKind.LABELS
        if any("metricName" in e or "evaluatorName" in e for e in entries):
            return FileKind.METRICS
        # ADK's oldest format: a list of {"query", "expected_tool_use", "reference"} records.
        if any("query" in e and ("reference" in e or "expected_tool_use" in e) for e in entries):
            return FileKind.ADK_EVALSET
        if all(_is_record(e) for e in entries):
            return FileKind.TRACES
    return FileKind.OTHER


def kind_of(data: Any) -> FileKind:
    """The kind of a parsed JSON document, judged by its top-level shape."""
    if isinstance(data, Mapping):
        return _kind_of_object(data)
    if isinstance(data, list):
        return _kind_of_list(data)
    return FileKind.OTHER


def first_line_kind(text: str) -> FileKind | None:
    """The kind of a JSON-lines text's first line: one that is a JSON document alone, of a
    known kind, with more text after it (``extra data`` to a reader of one document)."""
    head, newline, rest = text.lstrip().partition("\n")
    if not newline or not rest.strip():
        return None
    try:
        data = from_json(head)
    except ValueError:
        return None
    kind = kind_of(data)
    return None if kind in (FileKind.OTHER, FileKind.EMPTY) else kind


def kind_of_head(head: bytes) -> FileKind | None:
    """The kind of a file from its first bytes (a JSON document, perhaps cut short there, or
    JSON lines); None when it is no kind agenteval knows.  For a file given where no JSON
    is read at all (a ``--store`` SQLite file): what it is, without reading it whole."""
    text = head.decode("utf-8", "ignore")
    kind = first_line_kind(text)
    if kind is None:
        try:
            kind = kind_of(pydantic_core.from_json(go_escapes(text), allow_partial=True))
        except ValueError:
            return None
    return None if kind in (FileKind.OTHER, FileKind.EMPTY) else kind


def describe(kind: FileKind) -> str:
    """``kind`` in words, e.g. "an eval set"."""
    return DESCRIPTIONS[kind]


def wrong_kind_message(expected: str, found: FileKind) -> tuple[str, str]:
    """(message, hint) for a file of kind ``found`` given where ``expected`` was needed."""
    return f"not {expected} (looks like {describe(found)})", HINTS.get(found, "")
