"""Read OTLP trace files (JSON lines, one JSON document, or protobuf) into flat span records.

``opentelemetry-proto`` does the decoding: JSON goes through ``google.protobuf.json_format``
into ``TracesData``, protobuf through ``TracesData.FromString``.  A protobuf file is either one
message or the collector file exporter's sequence of messages, each behind a 4-byte big-endian
length.

Tested in tests/importers/test_otel.py (JSON lines with hex ids, one JSON document with
base64 ids, protobuf, length-prefixed protobuf, a located error for a broken line).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, TracesData

from agenteval.errors import ConfigError, Problem
from agenteval.input_limits import input_file_problem


@dataclass(slots=True)
class SpanEvent:
    """One span event: its name and attributes."""

    name: str
    attributes: dict[str, Any]


@dataclass(slots=True)
class SpanRecord:
    """One span, decoded: ids as text, times in nanoseconds, attributes as Python values."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    events: list[SpanEvent] = field(default_factory=list)


def any_value(value: AnyValue) -> Any:
    """The Python value an OTLP ``AnyValue`` holds (arrays → lists, key-value lists → dicts)."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "int_value":
        return value.int_value
    if kind == "double_value":
        return value.double_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None


def attributes(items: Any) -> dict[str, Any]:
    """OTLP key-value pairs as a dict (a repeated key keeps its last value)."""
    out: dict[str, Any] = {}
    item: KeyValue
    for item in items:
        out[item.key] = any_value(item.value)
    return out


def _records(data: TracesData, id_text: Any) -> Iterator[SpanRecord]:
    span: Span
    for resource_spans in data.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield SpanRecord(
                    trace_id=id_text(span.trace_id),
                    span_id=id_text(span.span_id),
                    parent_id=id_text(span.parent_span_id),
                    name=span.name,
                    start=span.start_time_unix_nano,
                    end=span.end_time_unix_nano,
                    attributes=attributes(span.attributes),
                    events=[SpanEvent(e.name, attributes(e.attributes)) for e in span.events],
                )


def _hex(raw: bytes) -> str:
    return raw.hex()


def _json_id(raw: bytes) -> str:
    # OTLP JSON writes ids as hex, which json_format decodes as base64 (16 hex characters
    # become 12 bytes, 32 become 24): encoding them again gives back the hex text.  Files
    # written by json_format itself hold real base64 (8 or 16 bytes): shown as hex too.
    if len(raw) in (8, 16):
        return raw.hex()
    return base64.b64encode(raw).decode("ascii")


# The span fields turned into records; the rest (resource, scope, kind, status, links …) is
# left out before json_format converts the document, which costs time per field.
SPAN_FIELDS = frozenset(
    {
        "traceId",
        "spanId",
        "parentSpanId",
        "name",
        "startTimeUnixNano",
        "endTimeUnixNano",
        "attributes",
        "events",
    }
    | {"trace_id", "span_id", "parent_span_id", "start_time_unix_nano", "end_time_unix_nano"}
)


def _spans_only(document: Any) -> Any:
    """The document with only what records need; anything unexpected is left for json_format to judge."""
    if not isinstance(document, dict):
        return document
    resources = document.get("resourceSpans", document.get("resource_spans"))
    if not isinstance(resources, list):
        return document
    kept: list[Any] = []
    for resource in resources:
        if not isinstance(resource, dict):
            return document
        scopes = resource.get("scopeSpans", resource.get("scope_spans", []))
        if not isinstance(scopes, list) or not all(isinstance(x, dict) for x in scopes):
            return document
        kept.append({"scopeSpans": [_scope_spans(scope) for scope in scopes]})
    return {"resourceSpans": kept}


def _scope_spans(scope: dict[str, Any]) -> Any:
    spans = scope.get("spans", [])
    if not isinstance(spans, list):
        return scope
    return {
        "spans": [
            {k: v for k, v in span.items() if k in SPAN_FIELDS} if isinstance(span, dict) else span
            for span in spans
        ]
    }


def _json_documents(text: str, file: str) -> list[tuple[str, Any]]:
    """One document per non-empty line (JSON lines), else the whole text as one document."""
    documents: list[tuple[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            documents.append((f"line {lineno}", orjson.loads(line)))
        except orjson.JSONDecodeError as exc:
            if documents:
                raise ConfigError(
                    [Problem(file, f"line {lineno}", f"invalid JSON: {exc}")]
                ) from None
            break
    else:
        return documents
    try:
        return [("", orjson.loads(text))]
    except orjson.JSONDecodeError as exc:
        raise ConfigError([Problem(file, "", f"invalid JSON: {exc}")]) from None


def read_json_spans(text: str, file: str) -> list[SpanRecord]:
    """Spans of an OTLP JSON file: one ``TracesData`` document, or one per line."""
    spans: list[SpanRecord] = []
    problems: list[Problem] = []
    for where, document in _json_documents(text, file):
        message = TracesData()
        try:
            json_format.ParseDict(_spans_only(document), message, ignore_unknown_fields=True)
        except json_format.ParseError as exc:
            problems.append(
                Problem(file, where, f"not OTLP trace JSON: {exc}", "expected {resourceSpans: …}")
            )
            continue
        spans.extend(_records(message, _json_id))
    if problems:
        raise ConfigError(problems)
    return spans


def _length_prefixed(data: bytes) -> list[bytes] | None:
    """The messages of a 4-byte big-endian length-prefixed stream, or None if it is not one."""
    chunks: list[bytes] = []
    offset = 0
    while offset < len(data):
        if offset + 4 > len(data):
            return None
        size = int.from_bytes(data[offset : offset + 4], "big")
        offset += 4
        if offset + size > len(data):
            return None
        chunks.append(data[offset : offset + size])
        offset += size
    return chunks or None


def read_protobuf_spans(data: bytes, file: str) -> list[SpanRecord]:
    """Spans of an OTLP protobuf file: one ``TracesData`` message or a length-prefixed stream."""
    chunks = _length_prefixed(data) or [data]
    spans: list[SpanRecord] = []
    for index, chunk in enumerate(chunks):
        try:
            message = TracesData.FromString(chunk)
        except DecodeError as exc:
            where = f"message {index + 1}" if len(chunks) > 1 else ""
            raise ConfigError(
                [Problem(file, where, f"not an OTLP protobuf trace message ({exc})")]
            ) from None
        spans.extend(_records(message, _hex))
    return spans


def read_spans(path: Path) -> list[SpanRecord]:
    """Every span of an OTLP trace file, JSON or protobuf, or ConfigError."""
    refused = input_file_problem(path)
    if refused is not None:
        raise ConfigError([refused])
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError([Problem(str(path), "", f"cannot read: {exc.strerror}")]) from None
    if looks_like_json(data):
        return read_json_spans(data.decode("utf-8"), str(path))
    return read_protobuf_spans(data, str(path))


def looks_like_json(data: bytes) -> bool:
    """True when the bytes are UTF-8 text starting with a JSON object."""
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"{"):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
