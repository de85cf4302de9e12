"""agenteval.inputs.input_limits: oversized numbers found with their place, fast on large files."""

from __future__ import annotations

import gzip
import os
import socket
from pathlib import Path

import pytest

from agenteval.inputs.input_limits import (
    MAX_INTEGER_DIGITS,
    head_problem,
    input_file_problem,
    limit_problem,
    not_utf8_text,
)


def test_long_integer_located() -> None:
    text = '{\n  "a": [1, ' + "9" * 100_000 + "]}"
    assert limit_problem(text) == (
        "a number with 100,000 digits at line 2 column 12 (at most 4,300 are read)"
    )


def test_limits_that_hold() -> None:
    assert limit_problem('{"a": ' + "9" * MAX_INTEGER_DIGITS + "}") is None
    assert limit_problem('{"a": "' + "9" * 10_000 + '"}') is None  # digits in a string
    assert limit_problem("[" * 1000 + "]" * 1000) is None


def test_input_file_problem_names_what_the_path_is(tmp_path: Path) -> None:
    regular = tmp_path / "a.json"
    regular.write_text("{}")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "sock"))
        found = {
            str(p): str(input_file_problem(p))
            for p in (fifo, Path("/dev/zero"), tmp_path / "sock", tmp_path, tmp_path / "gone")
        }
    assert input_file_problem(regular) is None
    assert input_file_problem(tmp_path / "link") is not None  # nothing there yet
    (tmp_path / "link").symlink_to(regular)
    assert input_file_problem(tmp_path / "link") is None  # a link to a file is read
    hint = "(write it to a regular file first)"
    assert found == {
        str(fifo): f"{fifo}: is a named pipe (FIFO), not a regular file {hint}",
        "/dev/zero": f"/dev/zero: is a character device, not a regular file {hint}",
        str(tmp_path / "sock"): f"{tmp_path / 'sock'}: is a socket, not a regular file {hint}",
        str(tmp_path): f"{tmp_path}: is a directory, expected a file",
        str(tmp_path / "gone"): f"{tmp_path / 'gone'}: file not found",
    }


def test_digit_runs_inside_strings_are_text() -> None:
    run = "7" * 5000
    assert limit_problem('{"a": "total: ' + run + '"}') is None
    assert limit_problem('{"a": "x, ' + run + " and [" + run + '"}') is None
    escaped = '{"a": "say \\"' + ", " + run + '\\" ok", "b": [' + "8" * 5000 + "]}"
    assert limit_problem(escaped) == (
        "a number with 5,000 digits at line 1 column 5030 (at most 4,300 are read)"
    )


def test_number_after_a_string_with_digits_is_found() -> None:
    text = '{"s": "n: ' + "1" * 5000 + '", "n": ' + "2" * 4400 + "}"
    problem = limit_problem(text)
    assert problem is not None and "4,400 digits" in problem


def test_head_problem_names_what_the_first_bytes_say() -> None:
    text = '{"evalSetId": "s"}'
    found = {
        name: str(head_problem("f.json", data[:8]))
        for name, data in {
            "gzip": gzip.compress(text.encode()),
            "utf16": text.encode("utf-16"),
            "utf16be": b"\xfe\xff" + text.encode("utf-16-be"),
            "utf32": text.encode("utf-32"),
            "bom": b"\xef\xbb\xbf" + text.encode(),
        }.items()
    }
    assert found == {
        "gzip": "f.json: gzip file: decompress first",
        "utf16": "f.json: UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8 "
        "(save it as UTF-8)",
        "utf16be": "f.json: UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8 "
        "(save it as UTF-8)",
        "utf32": "f.json: UTF-32 text (it starts with a UTF-32 byte order mark), not UTF-8 "
        "(save it as UTF-8)",
        "bom": "f.json: starts with a byte order mark (U+FEFF), which JSON does not allow "
        "(save it as UTF-8 without a BOM)",
    }
    assert head_problem("f.json", b"\xef\xbb\xbf{", allow_bom=True) is None
    assert head_problem("f.json", text.encode()[:8]) is None
    assert head_problem("f.json", b"") is None


def test_a_byte_that_is_no_utf8_is_worded_once_with_its_place() -> None:
    data = b'{"a": 1,\n "b": "\xc3\xa9t\xe9"}'
    with pytest.raises(UnicodeDecodeError) as bad:
        data.decode("utf-8")
    assert not_utf8_text(data, bad.value) == (
        "not UTF-8 text: byte 0xe9 at line 2 column 11 (invalid continuation byte)"
    )
    assert not_utf8_text(data, bad.value, "offset 18") == (
        "not UTF-8 text: byte 0xe9 at offset 18 (invalid continuation byte)"
    )
