"""Read OTLP trace files (JSON lines, one JSON document, or protobuf) into flat span records.

``opentelemetry-proto`` does the decoding: JSON goes through ``google.protobuf.json_format``
one span at a time into ``Span`` messages (as fast per span as the whole ``TracesData`` at
once, measured on bench/otel_import.py's 10,000 spans: 1.33 s against 1.36 s CPU, and an
error is located at its span), protobuf through ``TracesData.FromString``.  A protobuf file is
either one message or the collector file exporter's sequence of messages, each behind a
4-byte big-endian length.

The format is told by the first bytes: a JSON object (``{``) is JSON, a compressed file is
named ("gzip file: decompress first"), anything else is protobuf, so a JSON file with one bad
byte says where that byte is and a truncated ``.pb`` gives its protobuf error.  JSON lines are
read one line at a time; a span without a span id (OTLP requires one, it is how spans find
their parents) becomes no record, only a count: a flood of ``{}`` spans costs no memory.

Tested in tests/inputs/test_otlp_file.py and tests/importers/test_otel.py.
"""

from __future__ import annotations

import base64
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, TracesData

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.file_kind import HINTS, kind_of, wrong_kind_message
from agenteval.inputs.go_escapes import go_escapes
from agenteval.inputs.input_limits import head_problem, input_file_problem, not_utf8_text
from agenteval.schema.gojson import json_kind

# A JSON object may start after a UTF-8 byte order mark and blanks.
_BOM = b"\xef\xbb\xbf"
_BLANKS = b" \t\r\n"
JSON_HINT = "expected {resourceSpans: [{scopeSpans: [{spans: [...]}]}]}"


@dataclass(slots=True)
class SpanEvent:
    """One span event: its name and attributes."""

    name: str
    attributes: dict[str, Any]


@dataclass(slots=True)
class SpanRecord:
    """One span, decoded: ids as text, times in nanoseconds, attributes as Python values.

    Read-only once made: a span without attributes or events shares one empty mapping and
    the empty tuple (a flood of bare spans costs ~120 bytes less each).
    """

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: Mapping[str, Any]
    events: Sequence[SpanEvent] = ()


_NO_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True)
class SpanFile:
    """The spans of one OTLP file, and the spans left out for having no span id."""

    spans: list[SpanRecord] = field(default_factory=list)
    without_id: int = 0
    # Where the first span without an id is (``line 3: resourceSpans[0]…spans[2]``).
    first_without_id: str = ""
    # (span id, name, keys) of the spans giving an attribute twice with different values.
    conflicting: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)

    def skip(self, where: str) -> None:
        """Count one span without a span id, found at ``where``."""
        self.without_id += 1
        if not self.first_without_id:
            self.first_without_id = where


def any_value(value: AnyValue) -> Any:
    """The Python value an OTLP ``AnyValue`` holds (arrays → lists, key-value lists → dicts).

    Nesting is bounded by protobuf itself (100 levels, for JSON and binary alike).
    """
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "int_value":
        return value.int_value
    if kind == "double_value":
        number = value.double_value
        # JSON has no NaN or Infinity (written out they would become null): kept as text.
        return number if math.isfinite(number) else str(number)
    if kind == "bool_value":
        return value.bool_value
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None


def attributes(items: Any, conflicts: list[str] | None = None) -> dict[str, Any]:
    """OTLP key-value pairs as a dict.

    A key given twice with different values (OTLP allows one) keeps its last value, or,
    with ``conflicts``, is left out and named there: which value won depended on the order
    the exporter wrote them in, and a session key that did picked another case's turns.
    """
    out: dict[str, Any] = {}
    clashing: set[str] = set()
    item: KeyValue
    for item in items:
        value = any_value(item.value)
        if conflicts is not None and item.key in out and out[item.key] != value:
            clashing.add(item.key)
        out[item.key] = value
    if conflicts is not None:
        for key in sorted(clashing):
            conflicts.append(key)
            del out[key]
    return out


def _record(span: Span, id_text: Callable[[bytes], str], out: SpanFile) -> SpanRecord:
    # Trace ids and names repeat across many spans: one string each (sys.intern).
    conflicts: list[str] = []
    record = SpanRecord(
        trace_id=sys.intern(id_text(span.trace_id)),
        span_id=id_text(span.span_id),
        parent_id=id_text(span.parent_span_id),
        name=sys.intern(span.name),
        start=span.start_time_unix_nano,
        end=span.end_time_unix_nano,
        attributes=attributes(span.attributes, conflicts) if span.attributes else _NO_ATTRIBUTES,
        events=tuple(SpanEvent(e.name, attributes(e.attributes)) for e in span.events),
    )
    if conflicts:
        out.conflicting.append((record.span_id, record.name, tuple(conflicts)))
    return record


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
# left out before json_format converts a span, which costs time per field.
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

# json_format words a nested failure as "Failed to parse a field: Failed to parse b field: …".
_FIELD_FAILURE = re.compile(r"Failed to parse (\w+) field: ")
_SHOWN_DEPTH = 6


def _parse_error(exc: json_format.ParseError) -> tuple[str, str]:
    """A json_format error as (the path below the span, what is wrong), nesting cut short."""
    text = str(exc)
    path = _FIELD_FAILURE.findall(text)
    message = _FIELD_FAILURE.sub("", text).rstrip(".")
    if message.startswith("Message too deep"):
        message = "nesting too deep to read (protobuf reads at most 100 levels)"
    shown = ".".join(path[:_SHOWN_DEPTH]) + (".…" if len(path) > _SHOWN_DEPTH else "")
    return shown, message


def _json_type(value: Any) -> str:
    kind = json_kind(value)
    return kind if kind == "null" else f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _listed(container: dict[str, Any], camel: str, snake: str) -> Any:
    return container.get(camel, container.get(snake, []))


def _document_spans(document: Any, where: str, file: str, out: SpanFile) -> None:
    """Add the spans of one ``TracesData`` JSON document; ConfigError located at the bad part."""
    prefix = f"{where}: " if where else ""

    def refuse(path: str, message: str, hint: str = JSON_HINT) -> ConfigError:
        return ConfigError(
            [Problem(file, f"{prefix}{path}", f"not OTLP trace JSON: {message}", hint)]
        )

    if not isinstance(document, dict) or (
        document and "resourceSpans" not in document and "resource_spans" not in document
    ):
        # An empty export is {}; anything else without spans is another file (an eval set
        # given to import otel wrote an empty eval set).
        kind = kind_of(document)
        if kind in HINTS:
            message, hint = wrong_kind_message("OTLP trace JSON", kind)
            raise ConfigError([Problem(file, prefix.removesuffix(": "), message, hint)])
        if not isinstance(document, dict):
            raise refuse("$", f"expected an object, got {_json_type(document)}")
        raise refuse("$", "no resourceSpans")
    resources = _listed(document, "resourceSpans", "resource_spans")
    if not isinstance(resources, list):
        raise refuse("resourceSpans", f"expected an array, got {_json_type(resources)}")
    for r, resource in enumerate(resources):
        if not isinstance(resource, dict):
            raise refuse(f"resourceSpans[{r}]", f"expected an object, got {_json_type(resource)}")
        scopes = _listed(resource, "scopeSpans", "scope_spans")
        if not isinstance(scopes, list):
            raise refuse(
                f"resourceSpans[{r}].scopeSpans", f"expected an array, got {_json_type(scopes)}"
            )
        for s, scope in enumerate(scopes):
            at = f"resourceSpans[{r}].scopeSpans[{s}]"
            if not isinstance(scope, dict):
                raise refuse(at, f"expected an object, got {_json_type(scope)}")
            spans = scope.get("spans", [])
            if not isinstance(spans, list):
                raise refuse(f"{at}.spans", f"expected an array, got {_json_type(spans)}")
            for index, span in enumerate(spans):
                _json_span(span, f"{at}.spans[{index}]", refuse, out, prefix)
                spans[index] = None  # its record is made: the parsed span can go


# An OTLP AnyValue's fields in JSON (both spellings json_format reads).  json_format reads
# any other value (a bare "text", a misspelt {"stringVal": …}) as an empty value, without a
# word: the attribute, a tool's arguments or a session id, was lost.
_ANY_VALUE_KEYS = frozenset(
    form
    for name in ("string", "bool", "int", "double", "array", "kvlist", "bytes")
    for form in (f"{name}Value", f"{name}_value")
)
_ANY_VALUE_HINT = 'expected {"stringValue": …}, or intValue, doubleValue, boolValue, arrayValue…'


def _value_problem(items: Any) -> tuple[str, str] | None:
    """(where, what) of the first attribute whose value is no AnyValue; None when all are.

    An absent or empty value is OTLP's empty value; a list that is no list of key-value
    objects is left to json_format, which words it.
    """
    if not isinstance(items, list):
        return None
    for index, item in enumerate(items):
        value = item.get("value") if isinstance(item, dict) else None
        if value is None or (
            isinstance(value, dict) and (not value or value.keys() & _ANY_VALUE_KEYS)
        ):
            continue
        what = (
            f"no AnyValue field (got {', '.join(map(repr, value))})"
            if isinstance(value, dict)
            else f"expected an AnyValue object, got {_json_type(value)}"
        )
        return f"attributes[{index}].value", what
    return None


def _attribute_values(span: dict[str, Any], at: str, refuse: Callable[..., ConfigError]) -> None:
    """Refuse a span whose attribute (or event attribute) values are no AnyValues, located."""
    found = _value_problem(span.get("attributes"))
    where = at
    events = span.get("events")
    for index, event in enumerate(events if isinstance(events, list) else ()):
        if found is not None:
            break
        if isinstance(event, dict):
            found = _value_problem(event.get("attributes"))
            where = f"{at}.events[{index}]"
    if found is not None:
        raise refuse(f"{where}.{found[0]}", found[1], _ANY_VALUE_HINT)


def _json_span(
    span: Any,
    at: str,
    refuse: Callable[..., ConfigError],
    out: SpanFile,
    prefix: str,
) -> None:
    if not isinstance(span, dict):
        raise refuse(at, f"expected an object, got {_json_type(span)}")
    if not span.get("spanId", span.get("span_id")):
        out.skip(f"{prefix}{at}")
        return
    _attribute_values(span, at, refuse)
    message = Span()
    try:
        json_format.ParseDict(
            {k: v for k, v in span.items() if k in SPAN_FIELDS}, message, ignore_unknown_fields=True
        )
    except json_format.ParseError as exc:
        below, what = _parse_error(exc)
        raise refuse(f"{at}.{below}" if below else at, what, "") from None
    out.spans.append(_record(message, _json_id, out))


def _invalid_json(text: bytes, exc: orjson.JSONDecodeError) -> str:
    """What is wrong with JSON text orjson refused: a byte that is not UTF-8 is located exactly."""
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as bad:
        return not_utf8_text(text, bad)
    return f"invalid JSON: {exc}"


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for lineno, line in enumerate(handle, start=1):
        if lineno == 1:
            line = line.removeprefix(_BOM)
        if line.strip(_BLANKS):
            yield lineno, line


def _read_json(handle: IO[bytes], file: str, out: SpanFile) -> None:
    """JSON lines one at a time; a first line that is no document means one pretty-printed document."""
    first = True
    for lineno, line in _lines(handle):
        try:
            document = orjson.loads(go_escapes(line))  # a lone surrogate: U+FFFD, as in Go
        except orjson.JSONDecodeError as exc:
            if first:
                break
            raise ConfigError([Problem(file, f"line {lineno}", _invalid_json(line, exc))]) from None
        first = False
        _document_spans(document, f"line {lineno}", file, out)
    else:
        return
    handle.seek(0)
    whole = handle.read().removeprefix(_BOM)
    try:
        document = orjson.loads(go_escapes(whole))
    except orjson.JSONDecodeError as exc:
        raise ConfigError([Problem(file, "", _invalid_json(whole, exc))]) from None
    _document_spans(document, "", file, out)


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


def read_protobuf_spans(data: bytes, file: str) -> SpanFile:
    """Spans of an OTLP protobuf file: one ``TracesData`` message or a length-prefixed stream."""
    prefixed = _length_prefixed(data)
    chunks = prefixed or [data]
    out = SpanFile()
    base = 4 if prefixed else 0  # where the message starts in the file
    for index, chunk in enumerate(chunks):
        try:
            message = TracesData.FromString(chunk)
        except (DecodeError, UnicodeDecodeError) as exc:
            lead = f"message {index + 1}" if len(chunks) > 1 else ""
            raise ConfigError([_protobuf_problem(chunk, base, exc, file, lead)]) from None
        for at, span in _protobuf_spans(message, index):
            if span.span_id:
                out.spans.append(_record(span, _hex, out))
            else:
                out.skip(at)
        base += len(chunk) + 4
    return out


def _protobuf_problem(chunk: bytes, base: int, exc: Exception, file: str, lead: str) -> Problem:
    """Why protobuf refused a message: a string field that is no UTF-8 is named, with the place
    of its byte in the string (upb said only "String field had bad UTF-8", the pure-Python
    decoder raised the codec's error); anything else is protobuf's own error."""
    if isinstance(exc, UnicodeDecodeError) or "UTF-8" in str(exc):
        from agenteval.inputs.protobuf_strings import bad_string

        found = bad_string(chunk, TracesData.DESCRIPTOR)
        if found is None:  # not found by the walk: still no cut-short file
            return Problem(file, lead, f"not UTF-8 text in a string field ({exc})")
        where, message = found
        return Problem(file, f"{lead}: {where}" if lead else where, message)
    message = f"not a readable OTLP protobuf trace message ({exc})"
    return Problem(file, lead, message, "is the file cut short, or not OTLP?")


def _protobuf_spans(message: TracesData, chunk: int) -> Iterable[tuple[str, Span]]:
    lead = f"message {chunk + 1}: " if chunk else ""
    for r, resource in enumerate(message.resource_spans):
        for s, scope in enumerate(resource.scope_spans):
            for index, span in enumerate(scope.spans):
                yield f"{lead}resourceSpans[{r}].scopeSpans[{s}].spans[{index}]", span


def is_json_head(head: bytes) -> bool:
    """True when a file's first bytes start a JSON object (after a byte order mark and blanks)."""
    return head.removeprefix(_BOM).lstrip(_BLANKS)[:1] == b"{"


def read_spans(path: Path) -> SpanFile:
    """Every span of an OTLP trace file, JSON or protobuf, or ConfigError."""
    file = str(path)
    refused = input_file_problem(path)
    if refused is not None:
        raise ConfigError([refused])
    out = SpanFile()
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
            # OTLP/JSON may start with a UTF-8 byte order mark (is_json_head skips it).
            known = head_problem(file, head, allow_bom=True)
            if known is not None:
                raise ConfigError([known])
            handle.seek(0)
            # A JSON array is no OTLP document, but _read_json names what it is (a metric file).
            if is_json_head(head) or head.removeprefix(_BOM).lstrip(_BLANKS)[:1] == b"[":
                _read_json(handle, file, out)
                return out
            data = handle.read()
    except OSError as exc:
        raise ConfigError([Problem(file, "", f"cannot read: {exc.strerror}")]) from None
    return read_protobuf_spans(data, file)
