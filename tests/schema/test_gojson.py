"""Go ``encoding/json`` output (agenteval.schema.gojson): each writer against texts Go itself produces.

The expected strings are what Go 1.22's ``json.Marshal`` / ``json.MarshalIndent`` /
an encoder with ``SetEscapeHTML(false)`` print for the same values.
"""

from __future__ import annotations

import json

import pytest

from agenteval.schema.gojson import (
    GoJSONError,
    JSONNumber,
    Struct,
    encode,
    format_float,
    go_quote,
    indent_json,
    json_kind,
    marshal,
    marshal_indent,
    model_to_go_json,
    model_to_go_json_bytes,
    to_go_json,
    to_go_json_bytes,
)
from agenteval.schema.result import MetricDetails, go_number
from sample_results import case_result, eval_set_result, metric


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (18.0, "18"),
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (123456789.0, "123456789"),
        (0.0, "0"),
    ],
)
def test_floats_in_go_shortest_form(value: float, text: str) -> None:
    assert format_float(value) == text


@pytest.mark.parametrize(("value", "name"), [(float("nan"), "NaN"), (float("-inf"), "-Inf")])
def test_unsupported_floats_are_refused_with_go_text(value: float, name: str) -> None:
    with pytest.raises(GoJSONError, match=f"^json: unsupported value: {name}$"):
        encode({"x": value})


def test_encode_sorts_map_keys_keeps_struct_order_and_html() -> None:
    value = {"b": 1, "a": [True, None, "<x&y>"], "c": Struct([("z", 2), ("y", JSONNumber("1.0"))])}
    assert encode(value) == '{"a":[true,null,"<x&y>"],"b":1,"c":{"z":2,"y":1.0}}'


def test_encode_numbers_as_float64_like_go() -> None:
    # 2**53 + 1 has no float64; Go decodes it into float64 and writes 9007199254740992.
    assert encode([9007199254740993, 3]) == "[9007199254740992,3]"
    with pytest.raises(GoJSONError, match="overflows float64"):
        encode(10**400)


def test_encode_escapes_line_separators_and_replaces_lone_surrogates() -> None:
    assert encode("a\u2028b\u2029") == '"a\\u2028b\\u2029"'
    assert encode({"\ud800k": "v\udfff"}) == '{"\ufffdk":"v\ufffd"}'


def test_encode_has_no_recursion_limit() -> None:
    deep: object = "leaf"
    for _ in range(5000):
        deep = [deep]
    assert encode(deep) == "[" * 5000 + '"leaf"' + "]" * 5000


def test_marshal_escapes_html_like_go_default() -> None:
    assert marshal({"q": "<a&b>"}) == '{"q":"\\u003ca\\u0026b\\u003e"}'


def test_marshal_indent_matches_go_indent() -> None:
    value = {"a": [], "b": {"c": 1, "d": "x:{,}"}, "e": {}}
    assert marshal_indent(value) == (
        '{\n  "a": [],\n  "b": {\n    "c": 1,\n    "d": "x:{,}"\n  },\n  "e": {}\n}'
    )
    assert indent_json('["\\"]",1]', "\t") == '[\n\t"\\"]",\n\t1\n]'


def test_to_go_json_is_marshal_indent_of_plain_data() -> None:
    data = {"name": "<b>", "scores": [1, 0.5], "empty": [], "nested": {"k": None}}
    assert to_go_json(data) == (
        '{\n  "name": "\\u003cb\\u003e",\n  "scores": [\n    1,\n    0.5\n  ],\n'
        '  "empty": [],\n  "nested": {\n    "k": null\n  }\n}\n'
    )


def test_model_writers_agree_with_the_plain_data_writer() -> None:
    reason = "a<b & c>d \u2028 é"
    result = eval_set_result("set", [case_result("set", "c1", [metric("m", 0.5, reason=reason)])])
    text = model_to_go_json(result)
    assert model_to_go_json_bytes(result) == text.encode("utf-8")
    assert to_go_json(json.loads(text)) == text
    assert "a\\u003cb \\u0026 c\\u003ed \\u2028 é" in text


@pytest.mark.parametrize(
    "value",
    [
        0.1,
        1 / 3,
        0.9666666666666667,
        1e-7,
        1.5e-5,
        1e15,
        1e15 + 0.5,
        1e16,
        1e21,
        1e22,
        5e-324,
        1.7976931348623157e308,
        -2.5e-300,
        123456789012345678.0,
    ],
)
def test_plain_data_writer_writes_floats_as_the_model_writer(value: float) -> None:
    # Case summaries are written as plain data into files whose other parts the models write.
    details = MetricDetails(reason="r", score=value)
    details.raw = value  # an extra key: written as the float it is, never as a score
    data = {"reason": "r", "score": go_number(value), "raw": value}
    assert to_go_json_bytes(data) == model_to_go_json_bytes(details)


def test_plain_data_writer_replaces_lone_surrogates_like_the_model_writer() -> None:
    details = MetricDetails(reason="x\ud800<", score=0.5)
    data = {"reason": "x\ud800<", "score": 0.5}
    assert to_go_json_bytes(data) == model_to_go_json_bytes(details)
    assert to_go_json_bytes(data).decode("utf-8") == to_go_json(data)


def test_model_writers_replace_lone_surrogates() -> None:
    result = eval_set_result("set", [case_result("set", "c1", [metric("m", 1, reason="x\ud800")])])
    data = model_to_go_json_bytes(result)
    assert b'"reason": "x\\ufffd"' in data
    assert data.decode("utf-8") == model_to_go_json(result)


def test_go_quote_for_error_messages() -> None:
    assert go_quote('a"\\\n\x01é\u200b\U0001f600') == '"a\\"\\\\\\n\\x01é\\u200b😀"'


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "null"),
        (True, "boolean"),
        (0, "number"),
        (2.5, "number"),
        ("", "string"),
        ([], "array"),
        ({}, "object"),
        (Struct([]), "object"),
        (b"x", "bytes"),
    ],
)
def test_json_kind_names_decoded_values(value: object, kind: str) -> None:
    assert json_kind(value) == kind
