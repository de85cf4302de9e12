"""Keys given twice in one object: located at their depth, the last value named, never missed."""

from __future__ import annotations

import json

import pytest

from agenteval.inputs.duplicate_keys import duplicate_keys, may_repeat


def said(text: str, base: tuple[int | str, ...] = ()) -> list[str]:
    return [str(p) for p in duplicate_keys(text, "f.json", base)]


def test_a_repeated_key_is_located_at_its_depth_with_the_last_value() -> None:
    text = (
        '[{"metricName": "m", "threshold": 0.9, "threshold": 0,'
        ' "criterion": {"finalResponse": {"text": {"matchStrategy": "exact",'
        ' "matchStrategy": "regex"}}}}]'
    )
    assert said(text) == [
        'f.json: [0].threshold: key "threshold" given twice; the last value (0) is used'
        " (Go's encoding/json reads the last one too; remove the other)",
        'f.json: [0].criterion.finalResponse.text.matchStrategy: key "matchStrategy" given'
        ' twice; the last value ("regex") is used'
        " (Go's encoding/json reads the last one too; remove the other)",
    ]


def test_a_piece_is_located_under_its_base_and_three_times_is_said_once() -> None:
    text = '{"turns": [{"a": 1}, {"b": [], "b": {}, "b": 2}]}'
    (line,) = said(text, ("evalCases", 4))
    assert line.startswith('f.json: evalCases[4].turns[1].b: key "b" given twice;')
    assert "the last value (2) is used" in line


def test_a_secret_is_never_shown_and_control_characters_are_escaped() -> None:
    text = '{"apiKey": "sk-first", "apiKey": "sk-second", "n\\u001bx": 1, "n\\u001bx": "a\\u0007"}'
    first, second = duplicate_keys(text, "f.json")
    assert "sk-" not in first.message
    assert "the last value (a string) is used" in first.message
    # The message escapes them (the path is escaped where it is printed, as for every key).
    assert "\x1b" not in second.message and "\x07" not in second.message


def test_no_repeated_key_no_problem_and_broken_json_is_left_to_the_reader() -> None:
    assert said('{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}') == []
    assert said('{"a": 1, "a": ') == []


CASES = [
    '{"a": "12:00", "a": "13:00"}',  # colons inside the strings
    '{"t": "x", "t": "\\u003a"}',  # a colon written as an escape
    '{"k" : 1, "k"\n:\t2}',  # blanks before the colons
    '{"o": {"p": 1}, "o": {"p": 1}}',  # the same value twice
    '{"s": "a\\":b", "s": "a\\":b"}',  # a quote and a colon inside the strings
    '{"k\\\\": 1, "k\\\\": 1}',  # a key ending in a backslash
]


@pytest.mark.parametrize("text", CASES)
def test_the_pre_check_never_says_no_when_a_key_repeats(text: str) -> None:
    value = json.loads(text)
    assert may_repeat(text, value)
    assert may_repeat(text.encode(), value)  # a result file's case, read as bytes
    assert len(duplicate_keys(text, "f", value=value)) == 1
    assert len(duplicate_keys(text.encode(), "f", value=value)) == 1


def test_the_pre_check_clears_an_ordinary_case() -> None:
    case = {
        "evalId": "c1",
        "conversation": [{"userContent": {"role": "user", "content": 'at 12:00 {"a": 1}'}}],
        "sessionInput": {"appName": "a", "userId": "u"},
    }
    for text in (
        json.dumps(case),
        json.dumps(case, indent=2),
        json.dumps(case, separators=(",", ":")),
    ):
        assert not may_repeat(text, json.loads(text))
