"""Lone UTF-16 surrogate escapes read as Go's ``encoding/json`` reads them: as U+FFFD.

A JSON string may hold ``\\ud800`` with no low surrogate after it (or ``\\udc00`` with no
high one before it).  Go's decoder accepts it: "invalid UTF-8 or invalid UTF-16 surrogate
pairs are not treated as an error; instead, they are replaced by the Unicode replacement
character U+FFFD" (``encoding/json.Unmarshal``).  pydantic-core, the parser of every reader
here, refuses it ("unexpected end of hex escape"), so a file trpc-agent-go reads was refused.

:func:`go_escapes` writes each lone surrogate escape as ``\\ufffd`` in the JSON text itself:
same length, so every byte offset, line and column the readers report stays the file's.
Readers of a whole document rewrite its text once (``loading.read_text``); the case-by-case
readers parse with :func:`from_json`, which rewrites a piece only when the parser refused it,
so the usual file pays nothing.

Tested in tests/inputs/test_go_escapes.py.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr

import pydantic_core

# An escaped backslash (so that "\\\\ud800" is no escape) or a \uD800-\uDFFF escape.
_ESCAPES_TEXT = re.compile(r"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_ESCAPES_BYTES = re.compile(rb"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# The quick test: most texts hold no surrogate escape at all (a regex search with a literal
# prefix: ~50 ms over 110 MB, where ``"\\ud" in text or "\\uD" in text`` took ~160 ms).
_ANY_TEXT = re.compile(r"\\u[dD][89a-fA-F]")
_ANY_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_LOW = 0xDC00


def _lone(matches: list[re.Match[str]] | list[re.Match[bytes]]) -> list[int]:
    """Start offsets of the lone surrogate escapes among ``matches`` (in text order)."""
    lone: list[int] = []
    high: re.Match[Any] | None = None  # a high surrogate waiting for its low one
    for match in matches:
        # -1: an escaped backslash.
        value = -1 if len(match.group()) == 2 else int(match.group()[2:], 16)
        if value >= _LOW and high is not None and high.end() == match.start():
            high = None  # a pair: one character
            continue
        if high is not None:
            lone.append(high.start())
            high = None
        if value >= _LOW:
            lone.append(match.start())
        elif value >= 0:
            high = match
    if high is not None:
        lone.append(high.start())
    return lone


def go_escapes(data: AnyStr) -> AnyStr:
    """``data`` (JSON text) with each lone surrogate escape written ``\\ufffd``, as Go reads
    it; ``data`` itself when it holds none."""
    if isinstance(data, str):
        if _ANY_TEXT.search(data) is None:
            return data
        starts = _lone(list(_ESCAPES_TEXT.finditer(data)))
        replacement: Any = "\\ufffd"
    else:
        if _ANY_BYTES.search(data) is None:
            return data
        starts = _lone(list(_ESCAPES_BYTES.finditer(data)))
        replacement = b"\\ufffd"
    if not starts:
        return data
    pieces: list[Any] = []
    last = 0
    for start in starts:
        pieces += [data[last:start], replacement]
        last = start + 6
    pieces.append(data[last:])
    result: AnyStr = data[:0].join(pieces)
    return result


def from_json(data: AnyStr, *, allow_inf_nan: bool = True) -> Any:
    """``pydantic_core.from_json(data)``, lone surrogate escapes read as U+FFFD (as Go does);
    ValueError when it refuses the JSON for another reason."""
    try:
        return pydantic_core.from_json(data, allow_inf_nan=allow_inf_nan)
    except ValueError:
        fixed = go_escapes(data)
        if fixed is data:
            raise
        return pydantic_core.from_json(fixed, allow_inf_nan=allow_inf_nan)


__all__ = ["from_json", "go_escapes"]
