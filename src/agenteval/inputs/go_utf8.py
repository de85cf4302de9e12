"""Invalid UTF-8 inside a JSON string read as Go's ``encoding/json`` reads it: as U+FFFD.

Go's decoder replaces each byte of an ill-formed UTF-8 sequence inside a string with
U+FFFD ("invalid UTF-8 ... replaced by the Unicode replacement character",
``encoding/json.Unmarshal``); agenteval refused the whole file ("not UTF-8 text"), so an
eval set or result file trpc-agent-go reads and writes could not move to agenteval.
:func:`go_utf8` reads such bytes as Go does, and says so in a located warning: nothing
is changed silently.  A file that is not text (invalid bytes outside any string: binary
data, Latin-1 JSON punctuation; compressed or UTF-16 files, named by
:func:`~agenteval.inputs.input_limits.head_problem`) is still refused.

The readers call it only when decoding the bytes failed, so a valid file pays nothing:
``loading.read_text`` (eval sets, metric files, whole documents) and the result reader
(``result_inputs``), whose window scanner refuses such bytes.

Tested in tests/inputs/test_go_utf8.py (and through tests/inputs/test_loading.py and
tests/inputs/test_result_inputs.py).
"""

from __future__ import annotations

import re

from agenteval.errors import Problem
from agenteval.inputs.json_scan import bytes_reader, line_and_column

# With ``surrogateescape`` each byte Python cannot decode is one of these, one per byte:
# one U+FFFD each, as Go writes one per byte (utf8.DecodeRune's width-1 RuneError).
_ESCAPED = re.compile("[\udc80-\udcff]")
# From the start: everything that is no escaped byte, JSON strings skipped whole (a quote
# opens a string outside one only).  It stops at the first escaped byte outside a string.
# (The string is "unrolled": runs of plain characters, each escape between them.)
_OUTSIDE = re.compile('(?:[^"\udc80-\udcff]+|"[^"\\\\]*(?:\\\\.[^"\\\\]*)*")*', re.DOTALL)


def go_utf8(data: bytes, file: str) -> tuple[str, Problem] | None:
    """``data`` decoded with every invalid UTF-8 byte as U+FFFD, and the warning that says so;
    None when a byte lies outside a JSON string (the file is no UTF-8 JSON text: refuse it)."""
    text = data.decode("utf-8", "surrogateescape")
    first = _ESCAPED.search(text)
    if first is None:
        return None  # decoded after all: not what the caller met
    skipped = _OUTSIDE.match(text)
    if skipped is not None and _ESCAPED.match(text, skipped.end()):
        return None
    count = len(_ESCAPED.findall(text))
    offset = len(text[: first.start()].encode("utf-8", "surrogateescape"))
    line, column = line_and_column(bytes_reader(data), len(data), offset)
    more = f" (and {count - 1:,} more)" if count > 1 else ""
    message = (
        f"invalid UTF-8 read as U+FFFD, as trpc-agent-go reads it: byte 0x{data[offset]:02x} "
        f"at byte offset {offset:,}, line {line} column {column}{more}"
    )
    hint = "save the file as UTF-8 to keep the original characters"
    return _ESCAPED.sub("\ufffd", text), Problem(file, "", message, hint)


__all__ = ["go_utf8"]
