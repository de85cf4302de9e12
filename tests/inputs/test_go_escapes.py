"""Lone UTF-16 surrogate escapes read as Go's encoding/json reads them: U+FFFD.

Go's Unmarshal: "invalid UTF-8 or invalid UTF-16 surrogate pairs are not treated as an
error; instead, they are replaced by the Unicode replacement character U+FFFD".  Go pairs a
high surrogate escape with the escape right after it when that is a low one; any other
surrogate escape is one U+FFFD.  The standard library's decoder pairs the same way and keeps
the rest as lone surrogates, so ``clean_text(json.loads(s))`` is Go's string.
"""

from __future__ import annotations

import json

import pydantic_core
import pytest

from agenteval.inputs.go_escapes import from_json, go_escapes
from agenteval.schema.gojson import clean_text

STRINGS = [
    r'"a\ud800b"',  # a lone high surrogate
    r'"a\udc00b"',  # a lone low surrogate
    r'"\ud800"',  # at the end of the string
    r'"\ud83d\ude00"',  # a pair: one character
    r'"\ud800\ud83d\ude00"',  # a lone high, then a pair
    r'"\ude00\ud83d"',  # low then high: two lone ones
    r'"\ud800\u0041"',  # a high, then no surrogate
    r'"\\ud800"',  # an escaped backslash and the letters ud800: no escape
    r'"\\\ud800"',  # an escaped backslash, then a lone surrogate
    r'"\uD800\uDC00 \uDBFF"',  # upper case
    r'"\ud7ff \ue000"',  # just outside the range
]


@pytest.mark.parametrize("text", STRINGS)
def test_each_string_reads_as_go_reads_it(text: str) -> None:
    go = clean_text(json.loads(text))
    assert from_json(text) == go
    assert from_json(text.encode()) == go
    assert json.loads(go_escapes(text)) == go
    assert len(go_escapes(text)) == len(text)  # offsets, lines and columns stay the file's


def test_the_replacement_is_named_and_the_rest_kept() -> None:
    assert from_json(r'{"k\udc00": ["x\ud800y", 1.5, "\ud83d\ude00"]}') == {
        "k\ufffd": ["x\ufffdy", 1.5, "\U0001f600"]
    }


def test_a_text_without_lone_surrogates_is_returned_as_it_is() -> None:
    for text in (r'"\ud83d\ude00"', '"plain"', r'"\\ud800"'):
        assert go_escapes(text) is text
        data = text.encode()
        assert go_escapes(data) is data


def test_other_invalid_json_is_still_refused_with_the_parser_words() -> None:
    with pytest.raises(ValueError) as refused:
        from_json(r'{"a": "\ud800",}')
    with pytest.raises(ValueError) as reference:
        pydantic_core.from_json(r'{"a": "\ufffd",}')
    assert str(refused.value) == str(reference.value)
