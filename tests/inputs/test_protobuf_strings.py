"""bad_string: the first string field of a protobuf message that is no UTF-8, found by
protobuf's own parser over a bytes twin of the schema."""

from __future__ import annotations

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, TracesData

from agenteval.inputs.protobuf_strings import bad_string


def _traces(*spans: Span) -> bytes:
    data = TracesData(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=spans)])])
    return data.SerializeToString()


def test_a_string_that_is_no_utf8_is_named_by_its_path_bytes_fields_are_not() -> None:
    # Span ids are bytes fields: 0xff in them is no fault of a string.
    ids = {"trace_id": b"\xff" * 16, "span_id": b"\xfe" * 8}
    nested = AnyValue(
        kvlist_value=KeyValueList(values=[KeyValue(key="city", value=AnyValue(string_value="Bx"))])
    )
    first = Span(name="ok", **ids)
    second = Span(name="tool", attributes=[KeyValue(key="a", value=nested)], **ids)
    good = _traces(first, second)
    assert bad_string(good, TracesData.DESCRIPTOR) is None
    bad = good.replace(b"Bx", b"B\xc3", 1)  # a lead byte with no continuation
    where, message = bad_string(bad, TracesData.DESCRIPTOR) or ("", "")
    assert where == (
        "resourceSpans[0].scopeSpans[0].spans[1].attributes[0].value.kvlistValue"
        ".values[0].value.stringValue"
    )
    assert message == "not UTF-8 text: byte 0xc3 at byte 2 of the string (unexpected end of data)"


def test_bytes_that_are_no_such_message_name_nothing() -> None:
    assert bad_string(b"\x0a\xff\xff\xff", TracesData.DESCRIPTOR) is None  # cut short
