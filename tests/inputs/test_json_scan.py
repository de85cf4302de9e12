"""The windowed JSON cursor: values, keys and byte offsets across window edges, from bytes or a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenteval.inputs.json_scan import (
    JsonWindow,
    ScanError,
    bytes_reader,
    file_reader,
    line_and_column,
)


def walk(window: JsonWindow) -> list[tuple[str, Any, int, int]]:
    """Every top-level member of an object: key, value, and the value's byte span."""
    found = []
    assert window.next_char() == "{"
    while True:
        key, _ = window.key()
        value, start, end = window.value()
        found.append((key, value, window.byte(start), window.byte(end)))
        window.skip_to(end)
        if window.next_char() == "}":
            return found


DOCUMENT = {
    "ascii": [1, 2.5, "x" * 50],
    "é": "naïve — 雪 🎉",
    "number": 12345.678,
    "nested": {"a": [{"b": "ü" * 30}]},
}


@pytest.mark.parametrize("size", [5, 8, 13, 64, 4096])
def test_values_and_their_byte_spans_across_window_edges(size: int, tmp_path: Path) -> None:
    data = json.dumps(DOCUMENT, ensure_ascii=False, indent=1).encode("utf-8")
    path = tmp_path / "d.json"
    path.write_bytes(data)
    with path.open("rb") as handle:
        for read in (bytes_reader(data), file_reader(handle)):
            members = walk(JsonWindow(read, len(data), window=size))
            assert [(k, v) for k, v, _, _ in members] == list(DOCUMENT.items())
            for _, value, start, end in members:
                assert json.loads(data[start:end]) == value


def test_a_number_cut_by_the_window_edge_is_read_whole() -> None:
    data = b'{"n": 1234567.125, "m": 2}'
    for size in range(5, 12):
        members = walk(JsonWindow(bytes_reader(data), len(data), window=size))
        assert [v for _, v, _, _ in members] == [1234567.125, 2]


def test_errors_carry_their_byte_offset() -> None:
    data = b'{"a": 1, "b" 2}'
    window = JsonWindow(bytes_reader(data), len(data), window=4)
    window.next_char()
    window.key()
    _, _, end = window.value()
    window.skip_to(end)
    assert window.next_char() == ","
    with pytest.raises(ScanError) as caught:
        window.key()
    assert caught.value.offset == data.index(b"2")
    assert caught.value.message == "expected ':'"


def test_bytes_that_are_no_utf8_are_refused() -> None:
    data = b'{"a": "\xff"}'
    window = JsonWindow(bytes_reader(data), len(data))
    with pytest.raises(UnicodeDecodeError):
        window.peek()


def test_line_and_column_count_characters() -> None:
    data = 'ab\ncdé\n  "x"'.encode()
    read = bytes_reader(data)
    assert line_and_column(read, len(data), 0) == (1, 1)
    assert line_and_column(read, len(data), data.index(b"c")) == (2, 1)
    assert line_and_column(read, len(data), data.index(b'"')) == (3, 3)
    after_accent = data.index("é".encode()) + 2
    assert line_and_column(read, len(data), after_accent) == (2, 4)
