"""Offline English sentence splitter for splitSummaries (formats.md §5.4, §5.5, §11-3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenteval.criteria.sentences import split_sentences

# formats.md §5.5 "Sentence splitter" (the trpc-agent-go test table).
SPEC_TABLE = [
    ("this is a test. . new sentence.", ["this is a test.", ".", "new sentence."]),
    ("This. . . That", ["This.", ".", ".", "That"]),
    ("This..... That", ["This..... That"]),
    ("This... That", ["This... That"]),
    ("This.. . That", ["This.. .", "That"]),
    ("This. .. That", ["This.", ".. That"]),
    ("This. ,. That", ["This.", ",.", "That"]),
    ("This!!! That", ["This!!!", "That"]),
    ("This! That", ["This!", "That"]),
    (
        "1. This is R .\n2. This is A .\n3. That's all",
        ["1.", "This is R .", "2.", "This is A .", "3.", "That's all"],
    ),
    (
        "1. This is R .\t2. This is A .\t3. That's all",
        ["1.", "This is R .", "2.", "This is A .", "3.", "That's all"],
    ),
    ("Hello.\tThere", ["Hello.", "There"]),
]


@pytest.mark.parametrize(("text", "expected"), SPEC_TABLE)
def test_spec_table(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith went to the U.S. on Monday. He left on Tuesday.",
            ["Dr. Smith went to the U.S. on Monday.", "He left on Tuesday."],
        ),
        (
            "I met Mr. Brown and Mrs. Green at 5 p.m. yesterday. It was fun.",
            ["I met Mr. Brown and Mrs. Green at 5 p.m. yesterday.", "It was fun."],
        ),
        (
            "It costs $3.50 today. Is that OK? Yes!",
            ["It costs $3.50 today.", "Is that OK?", "Yes!"],
        ),
        ("See p. 5 for details.", ["See p. 5 for details."]),
        ("Prof. Jones arrived at 9 a.m. sharp.", ["Prof. Jones arrived at 9 a.m. sharp."]),
        ("First sentence.\nSecond Sentence.", ["First sentence.", "Second Sentence."]),
        # NLTK's (and Go's) English model does not list "e.g." as an abbreviation.
        ("Eat fruit, e.g. an apple.", ["Eat fruit, e.g.", "an apple."]),
    ],
)
def test_ordinary_english(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_sentences_are_trimmed_and_empty_ones_dropped() -> None:
    assert split_sentences("") == []
    assert split_sentences("   \n\t ") == []
    assert split_sentences("  Hello there.   General Kenobi.  ") == [
        "Hello there.",
        "General Kenobi.",
    ]


def test_leading_stand_alone_periods_become_sentences() -> None:
    assert split_sentences(". . Hello.") == [".", ".", "Hello."]
    # A period glued to a word is not stand-alone.
    assert split_sentences(".NET is a framework.") == [".NET is a framework."]


def test_text_without_terminal_punctuation_is_one_sentence() -> None:
    text = "a list of words with no full stop at all"
    assert split_sentences(text) == [text]


def test_works_without_any_nltk_data(tmp_path: Path) -> None:
    # A fresh interpreter whose NLTK data path is an empty directory: nothing
    # may be looked up or downloaded, the model ships with agenteval.
    env = {**os.environ, "NLTK_DATA": str(tmp_path), "HOME": str(tmp_path)}
    code = (
        "import json, nltk\n"
        "from agenteval.criteria.sentences import split_sentences\n"
        "nltk.data.path[:] = [" + repr(str(tmp_path)) + "]\n"
        "print(json.dumps(split_sentences('Dr. Who left. She came back.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == ["Dr. Who left.", "She came back."]
    assert list(tmp_path.iterdir()) == []
