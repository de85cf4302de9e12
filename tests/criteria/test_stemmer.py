"""Porter stemmer: spec vectors (formats.md §5.4, §5.5) and NLTK's PorterStemmer side by side."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer

from agenteval.criteria.stemmer import PorterMode, stem

SPEC_STEMS = {
    "hoping": "hope",
    "hopping": "hop",
    "falling": "fall",
    "controlling": "control",
    "automatically": "automat",
    "geology": "geolog",
    "relational": "relat",
    "triplicate": "triplic",
    "hopefulness": "hope",
    "callousness": "callous",
    "electricity": "electr",
}

IRREGULAR = {
    "sky": "sky",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}

# Suffixes that exercise every step of the algorithm, and roots that end in
# the letters the conditions look at (y after vowels and consonants, doubled
# consonants, short cvc stems).
SUFFIXES = [
    "",
    "s",
    "es",
    "ies",
    "ied",
    "ed",
    "ing",
    "eed",
    "ly",
    "ness",
    "ful",
    "fulness",
    "ational",
    "tional",
    "ization",
    "ation",
    "ator",
    "alism",
    "iveness",
    "ousness",
    "aliti",
    "iviti",
    "biliti",
    "alli",
    "entli",
    "eli",
    "ousli",
    "enci",
    "anci",
    "izer",
    "bli",
    "abli",
    "logi",
    "fulli",
    "icate",
    "ative",
    "alize",
    "iciti",
    "ical",
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "sion",
    "tion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "e",
    "ll",
    "y",
    "yy",
    "ying",
    "ys",
]
ROOTS = [
    "hop",
    "hope",
    "fall",
    "control",
    "geolog",
    "relat",
    "tripl",
    "electr",
    "sky",
    "ti",
    "yay",
    "syzyg",
    "toy",
    "play",
    "cry",
    "happ",
    "agree",
    "feed",
    "plaster",
    "bat",
    "siz",
    "fil",
    "tann",
    "hiss",
    "fizz",
    "conflat",
    "y",
    "ay",
    "by",
    "abl",
    "sens",
    "format",
    "radic",
    "digit",
    "analog",
    "hypnot",
    "rate",
    "sensibil",
    "formal",
    "adopt",
    "depend",
    "homolog",
    "activ",
    "angul",
    "gener",
    "feud",
    "a",
    "oo",
    "zz",
    "b",
]


def english_like_words() -> list[str]:
    """Root x suffix x suffix combinations plus seeded random letter strings."""
    words = {
        root + first + second for root in ROOTS for first in SUFFIXES for second in SUFFIXES[:8]
    }
    rng = random.Random(20240611)
    letters = "abcdefghijklmnopqrstuvwxyz"
    # Roughly English letter frequencies, so that vowels and 'y' are common.
    weights = [8, 2, 3, 4, 12, 2, 2, 6, 7, 1, 1, 4, 2, 7, 8, 2, 1, 6, 6, 9, 3, 1, 2, 1, 6, 1]
    for _ in range(8_000):
        words.add("".join(rng.choices(letters, weights, k=rng.randint(1, 12))))
    return sorted(words)


@pytest.mark.parametrize(("word", "expected"), sorted(SPEC_STEMS.items()))
def test_spec_stems(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(("word", "expected"), sorted(IRREGULAR.items()))
def test_irregular_forms_come_first(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_nltk_rules_for_ies_and_ied() -> None:
    # A four-letter ...ies/...ied keeps its e; longer ones end in i.
    assert [stem(w) for w in ("dies", "died", "spied", "ties", "ponies")] == [
        "die",
        "die",
        "spi",
        "tie",
        "poni",
    ]


def test_short_words_are_only_lower_cased() -> None:
    assert [stem(w) for w in ("as", "is", "Us", "y")] == ["as", "is", "us", "y"]
    # The original algorithm has no such guard.
    assert stem("is", PorterMode.ORIGINAL_ALGORITHM) == "i"


def test_upper_case_is_folded() -> None:
    assert stem("MEETING") == "meet"
    assert stem("Relational") == "relat"


def test_mode_can_be_named_by_string() -> None:
    assert stem("skies", "ORIGINAL_ALGORITHM") == "ski"
    with pytest.raises(ValueError):
        stem("skies", "PORTER2")


@pytest.mark.parametrize("mode", list(PorterMode))
def test_equal_to_nltk_on_generated_vocabulary(mode: PorterMode) -> None:
    reference = PorterStemmer(mode.value)
    words = english_like_words()
    if mode is not PorterMode.NLTK_EXTENSIONS:
        words = words[::3]  # the secondary modes share most code; a third of the words will do
    expected = {word: reference.stem(word) for word in words}
    assert {word: stem(word, mode) for word in expected} == expected


def test_equal_to_nltk_on_system_dictionary() -> None:
    words_file = Path("/usr/share/dict/words")
    if not words_file.exists():
        pytest.skip("no system word list (Debian package wamerican)")
    reference = PorterStemmer()
    # Every third word keeps the test quick; the whole list was checked once by hand.
    words = words_file.read_text(encoding="utf-8", errors="replace").split()[::3]
    assert len(words) > 1000
    expected = {word: reference.stem(word) for word in words}
    assert {word: stem(word) for word in expected} == expected


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.text(alphabet="abcdeiloprstuyz", min_size=1, max_size=14))
def test_equal_to_nltk_on_random_strings(word: str) -> None:
    for mode in PorterMode:
        assert stem(word, mode) == PorterStemmer(mode.value).stem(word)
