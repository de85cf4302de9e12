"""Bounds on what an input file may hold, checked on its text before any parser sees it.

Python refuses to turn more than 4,300 digits into an int (``sys.int_info``): a
100,000-digit number crashed a run deep inside a parser or a writer.  It is found
here with one linear scan and reported with its line and column.  Nesting is bounded
where the JSON is parsed (:func:`nesting_problem`): scanning for it in Python took
seconds on a 20 MB eval set.

An input must be a regular file (:func:`input_file_problem`): a FIFO blocks its
reader until a writer comes (and reading it consumes it), ``/dev/zero`` never ends
and ``/dev/stdin`` belongs to the terminal; each is refused with one line before
anything opens it.

Tested in tests/inputs/test_input_limits.py.
"""

from __future__ import annotations

import json.decoder
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from agenteval.errors import Problem

# Python's own default limit on int <-> str conversion.
MAX_INTEGER_DIGITS = sys.int_info.default_max_str_digits or 4300

# A JSON number token starts after "[", ":" or "," (and blanks).
_LONG_INTEGER = re.compile(rf"[\[:,]\s*-?(\d{{{MAX_INTEGER_DIGITS + 1},}})")

# The stdlib decoder's string reader (C); typeshed does not declare it.
_scanstring = cast(Callable[[str, int, bool], tuple[str, int]], vars(json.decoder)["scanstring"])

_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")
_ZERO_RUN = "0" * (MAX_INTEGER_DIGITS + 1)


def _place(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line} column {column}"


def not_utf8_text(data: bytes, exc: UnicodeDecodeError, place: str = "") -> str:
    """The one wording of a byte that is no UTF-8, said where it is: ``not UTF-8 text: byte 0xff
    at line 2 column 5 (invalid start byte)``, the line and column (in bytes) of ``exc.start``
    in ``data``; or at ``place`` when the caller words it (the column of a line its location
    names, an offset in a binary file)."""
    if not place:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        place = f"line {line} column {column}"
    return f"not UTF-8 text: byte 0x{data[exc.start]:02x} at {place} ({exc.reason})"


def limit_problem(text: str) -> str | None:
    """Why ``text`` exceeds a bound (with its place), or None."""
    # Too short to hold such a number: every case of an eval set is checked alone, and
    # translating its text cost ~35 instructions a character.
    if len(text) <= MAX_INTEGER_DIGITS:
        return None
    # Fast path, C speed: no run of that many digits anywhere (strings included).
    if _ZERO_RUN not in text.translate(_DIGITS_TO_ZERO):
        return None
    found = _number_outside_strings(text)
    if found is not None:
        digits = len(found.group(1))
        return (
            f"a number with {digits:,} digits at {_place(text, found.start(1))} "
            f"(at most {MAX_INTEGER_DIGITS:,} are read)"
        )
    return None


def _number_outside_strings(text: str) -> re.Match[str] | None:
    """The first over-long number token that is not inside a JSON string, or None.

    A final answer may well say ``"total: 123…"`` with thousands of digits: that is text.
    Strings are skipped with the C string reader, only up to each candidate, so a file
    with no long digit run never gets here and one with some is walked once.
    """
    string_end = 0  # everything before this is known to be outside or inside a string
    for found in _LONG_INTEGER.finditer(text):
        start = found.start(1)
        if start < string_end:
            continue
        while True:
            quote = text.find('"', string_end, start)
            if quote < 0:
                return found
            try:
                _, string_end = _scanstring(text, quote + 1, False)
            except ValueError:
                return None  # not JSON past here: the parser names the problem
            if string_end > start:
                break  # the digits are inside this string
    return None


def nesting_problem(exc: RecursionError) -> str:
    """The message for JSON the stdlib decoder could not read for its depth."""
    return f"nesting too deep to read ({type(exc).__name__})"


# What a file that is not a regular one is, by its stat mode test.
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def input_file_problem(path: Path | str) -> Problem | None:
    """Why ``path`` cannot be read as an input file (missing, a directory, a FIFO, a device), or None.

    Only ``stat`` is called: opening a FIFO would block until something writes to it.
    """
    name = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return Problem(name, "", "file not found")
    except NotADirectoryError:
        return Problem(name, "", "file not found (a parent of it is not a directory)")
    except OSError as exc:
        return Problem(name, "", f"cannot read: {exc.strerror}")
    if stat.S_ISREG(info.st_mode):
        return None
    if stat.S_ISDIR(info.st_mode):
        return Problem(name, "", "is a directory, expected a file")
    kind = next((f"{words}, " for test, words in _SPECIAL_KINDS if test(info.st_mode)), "")
    return Problem(name, "", f"is {kind}not a regular file", "write it to a regular file first")


# The first bytes of compressed files, and what each is called.
_COMPRESSED = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip"),
)


def compressed_problem(file: str, head: bytes) -> Problem | None:
    """A problem naming the compression when ``head`` (a file's first bytes) starts a compressed file."""
    for magic, name in _COMPRESSED:
        if head.startswith(magic):
            return Problem(file, "", f"{name} file: decompress first")
    return None


def empty_problem(file: str, text: str | bytes) -> Problem | None:
    """The problem of a JSON document file whose whole ``text`` is empty or blanks, or None
    ("EOF while parsing a value at line 1 column 0" said nothing of it)."""
    if text.strip():
        return None
    what = "the file is empty" if not text else "the file holds only blanks"
    return Problem(file, "", what, "expected a JSON document")


UTF8_BOM = b"\xef\xbb\xbf"
# Byte order marks of the encodings JSON text may not be in (RFC 8259 §8.1), longest first:
# UTF-32's little-endian mark starts with UTF-16's.  Windows PowerShell 5 writes UTF-16 with
# `>`, so `agenteval ... > out.json` then reading it back meets these.
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def head_problem(file: str, head: bytes, *, allow_bom: bool = False) -> Problem | None:
    """What a file is when its first bytes (``head``, 8 are enough) say it is no UTF-8 JSON
    text: compressed, UTF-16 or UTF-32, or UTF-8 behind a byte order mark (refused unless
    ``allow_bom``, for a format that takes one); None otherwise.

    Every reader of a JSON input asks this before parsing, so each says the same thing
    ("invalid JSON: expected value at line 1 column 1" said nothing of a BOM or a gzip file).
    """
    compressed = compressed_problem(file, head)
    if compressed is not None:
        return compressed
    for mark, encoding in _WIDE_BOMS:
        if head.startswith(mark):
            message = f"{encoding} text (it starts with a {encoding} byte order mark), not UTF-8"
            return Problem(file, "", message, "save it as UTF-8")
    if head.startswith(UTF8_BOM) and not allow_bom:
        message = "starts with a byte order mark (U+FEFF), which JSON does not allow"
        return Problem(file, "", message, "save it as UTF-8 without a BOM")
    return None


__all__ = [
    "MAX_INTEGER_DIGITS",
    "UTF8_BOM",
    "compressed_problem",
    "empty_problem",
    "head_problem",
    "input_file_problem",
    "limit_problem",
    "nesting_problem",
    "not_utf8_text",
]
