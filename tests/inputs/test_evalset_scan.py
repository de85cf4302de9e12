"""The eval set scanner: every case's data and exact byte span, across window edges; refusals."""

from __future__ import annotations

import json
import struct
from typing import Any

import pydantic_core
import pytest

from agenteval.inputs.evalset_scan import EvalSetScan, NotStreamable


def scanned(data: bytes, window: int) -> tuple[list[tuple[int, Any, bytes]], EvalSetScan]:
    scan = EvalSetScan(data, window=window)
    found = [(c.index, c.data, data[c.start : c.end]) for c in scan.cases()]
    return found, scan


CASES: list[Any] = [
    {"evalId": "a", "conversation": [{"userContent": {"content": "Grüße, 東京 😀"}}]},
    None,
    {"evalId": "b", "n": 12345678901234567890, "x": 1.5e300, "t": True, "f": [False, None]},
    {"evalId": "ü" * 40, "deep": [[[{"k": '\\"quoted\\"'}]]]},
    {"evalId": "d", "esc": "\U0001f600 tab\t nl\n"},
]


@pytest.mark.parametrize("window", [1, 7, 64, 4096])
@pytest.mark.parametrize("ascii_only", [True, False])
def test_every_case_and_its_bytes_across_window_edges(window: int, ascii_only: bool) -> None:
    document = {"evalSetId": "s", "name": "ñ", "evalCases": CASES, "creationTimestamp": 17.25}
    data = json.dumps(document, ensure_ascii=ascii_only, indent=1).encode()
    found, scan = scanned(data, window)
    assert [index for index, _, _ in found] == list(range(len(CASES)))
    assert [value for _, value, _ in found] == CASES
    # Each span is exactly the case's JSON text: it parses alone to the same value.
    assert [json.loads(raw) for _, _, raw in found] == CASES
    assert scan.before == {"evalSetId": "s", "name": "ñ"}
    assert scan.after == {"creationTimestamp": 17.25}


def test_a_number_split_by_the_window_edge_is_read_whole() -> None:
    data = b'{"evalCases": [{"v": 123456789}], "creationTimestamp": 98765.4321}'
    for window in range(1, len(data)):
        found, scan = scanned(data, window)
        assert found[0][1] == {"v": 123456789}, window
        assert scan.after == {"creationTimestamp": 98765.4321}, window


def test_a_digit_run_inside_a_string_is_read() -> None:
    text = "x: " + "1" * 5000
    found, _ = scanned(b'{"evalCases": [{"s": "' + text.encode() + b'"}]}', 1024)
    assert found[0][1] == {"s": text}


def test_no_cases_and_null_entries() -> None:
    assert scanned(b' {"evalCases": [ ] } ', 3)[0] == []
    assert scanned(b'{"evalCases":[null,null]}', 4)[0] == [(0, None, b"null"), (1, None, b"null")]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"[]",
        b"{}",
        b'{"evalSetId": "s"}',  # no evalCases
        b'{"evalCases": null}',
        b'{"evalCases": [], "evalCases": []}',
        b'{"evalSetId": "a", "evalSetId": "b", "evalCases": []}',
        b'{"evalCases": [{"evalId": "a"},]}',
        b'{"evalCases": [{"evalId": "a"}] "x": 1}',
        b'{"evalCases": [{"evalId": "a"}]} trailing',
        b'{"evalCases": [{"evalId": "a"}',
        b'\xef\xbb\xbf{"evalCases": []}',  # a UTF-8 byte order mark
        b'{"evalCases": [{"evalId": "\xff"}]}',  # not UTF-8
        b'{"evalCases": [{"n": ' + b"1" * 5000 + b"}]}",  # more digits than Python reads
        b'{"evalCases": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}",
    ],
)
def test_what_is_not_read_exactly_is_refused(data: bytes) -> None:
    with pytest.raises(NotStreamable):
        scanned(data, 16)


def test_a_surrogate_pair_escape_is_read() -> None:
    found, _ = scanned(b'{"evalCases": [{"evalId": "\\ud83d\\ude00"}]}', 8)
    assert found[0][1] == {"evalId": "\U0001f600"}


def test_a_lone_surrogate_escape_reads_as_u_fffd_as_when_read_whole() -> None:
    # Go's decoder (and the whole-file path) reads it as U+FFFD; it was refused here.
    data = b'{"n\\udc00": "x\\ud800", "evalCases": [{"evalId": "a\\ud800b", "t": "\\\\ud800"}]}'
    found, scan = scanned(data, 8)
    assert found[0][1] == {"evalId": "a\ufffdb", "t": "\\ud800"}
    assert scan.before == {"n\ufffd": "x\ufffd"}


@pytest.mark.parametrize("depth", [150, 199, 200, 260])
def test_nesting_is_bounded_as_when_the_document_is_read_whole(depth: int) -> None:
    nested = "[" * depth + "]" * depth
    data = f'{{"evalCases": [{nested}], "x": {nested}}}'.encode()
    try:
        pydantic_core.from_json(data)
        whole_reads = True
    except ValueError:
        whole_reads = False
    if whole_reads:
        found, scan = scanned(data, 64)
        assert len(found) == 1 and scan.after.keys() == {"x"}
    else:
        with pytest.raises(NotStreamable):
            scanned(data, 64)
    assert whole_reads == (depth < 200)


def _bits(value: Any) -> Any:
    """``value`` with every float as its bytes: -0.0, NaN and rounding compared exactly."""
    if isinstance(value, float):
        return ("float", struct.pack("<d", value))
    if isinstance(value, list):
        return [_bits(item) for item in value]
    if isinstance(value, dict):
        return [(key, _bits(item)) for key, item in value.items()]
    return (type(value).__name__, value)


NUMBERS = (
    "[-0, -0.0, -0e0, 1e400, -1e400, 1e-400, -1e-400, NaN, Infinity, -Infinity, 1E+5, 0.1, "
    "2.2250738585072011e-308, 4.9e-324, 1.7976931348623159e308, 123456789012345678901234567890, "
    "0.1000000000000000055511151231257827, 9007199254740993, 1.0e2]"
)


@pytest.mark.parametrize(
    "case",
    [
        f'{{"evalId": "n", "numbers": {NUMBERS}}}',
        '{"evalId": "k", "a": 1, "b": 2, "a": 3}',  # a key given twice: its place, last value
        '{"evalId": "pair \\ud83d\\ude00", "e": "\\u00e9\\n\\/"}',  # read by pydantic-core
        '{"evalId": "wide", "x": [' + "[{}]," * 120 + "[]]}",  # many brackets, shallow
    ],
)
def test_a_case_reads_as_pydantic_core_reads_it(case: str) -> None:
    data = f'{{"evalCases": [{case}]}}'.encode()
    found, _ = scanned(data, 64)
    whole = pydantic_core.from_json(data)["evalCases"][0]
    assert _bits(found[0][1]) == _bits(whole)
