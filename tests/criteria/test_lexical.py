"""Vectors of text-metrics.md §2–§4 for the pure text-matching functions."""

from __future__ import annotations

import doctest
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.criteria import lexical
from agenteval.criteria.lexical import (
    adk_tokenize,
    gate_rouge1,
    normalize,
    response_match,
    rouge1,
)

# ---------------------------------------------------------------- §2 normalize


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("The answer is 42.", "the answer is 42"),
        ("Hello,World", "hello world"),
        ("Café!", "café"),
    ],
)
def test_normalize_equivalent_vectors(left: str, right: str) -> None:
    assert normalize(left) == normalize(right)


def test_normalize_forty_two_is_not_42() -> None:
    assert normalize("forty-two") != normalize("42")
    assert normalize("forty-two") == "forty two"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  The answer is 42.  ", "the answer is 42"),
        ("Hello,World", "hello world"),
        ("a\t\n b", "a b"),
        ("snake_case_name", "snake case name"),
        ("—!?…", ""),
        ("", ""),
        ("ÉCOLE № 5", "école 5"),
        ("北京，欢迎你！", "北京 欢迎你"),
        ("x² + ½", "x² ½"),
        ("a\u00a0\u2003b", "a b"),
    ],
)
def test_normalize_values(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_normalize_on_every_code_point() -> None:
    """Agrees with a regex formulation of §2 (``\\w`` is L*, N* and "_") across Unicode."""
    everything = "".join(chr(code) for code in range(sys.maxunicode + 1))
    for text in (everything, "".join(f"x{c}" for c in everything[::7])):
        expected = re.sub(r"[\W_]+", " ", text.lower()).strip()
        assert normalize(text) == expected


# ------------------------------------------------- §3 response_match_score

GOLDEN = [
    ("The cats are running quickly!", "the cat runs quick", 0.6, 0.75, 0.666667),
    ("Hello, World", "hello world", 1.0, 1.0, 1.0),
    ("", "", 0.0, 0.0, 0.0),
    ("The weather in Paris is 20°C.", "Paris weather: 20 C", 0.571429, 1.0, 0.727273),
    ("run running runs ran", "run", 0.25, 1.0, 0.4),
    ("The cat sat", "the cat sat on the mat", 1.0, 0.5, 0.666667),
    ("北京欢迎你", "北京欢迎您", 0.8, 0.8, 0.8),
]


@pytest.mark.parametrize(("candidate", "reference", "p", "r", "f"), GOLDEN)
def test_response_match_golden_table(
    candidate: str, reference: str, p: float, r: float, f: float
) -> None:
    score = rouge1(candidate, reference)
    assert score.precision == pytest.approx(p, abs=5e-7)
    assert score.recall == pytest.approx(r, abs=5e-7)
    assert score.fmeasure == pytest.approx(f, abs=5e-7)
    assert response_match(candidate, reference) == score.fmeasure


def test_response_match_cat_sat_fails_at_0_8() -> None:
    assert not response_match("The cat sat", "the cat sat on the mat") >= 0.8


def test_rouge1_is_a_plain_triple() -> None:
    p, r, f = rouge1("The cat sat", "the cat sat on the mat")
    assert (p, r) == (1.0, 0.5)
    assert f == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # Porter stemming only for ASCII words longer than 3 characters.
        ("The cats are running quickly!", ["the", "cat", "are", "run", "quickli"]),
        ("runs ran", ["run", "ran"]),
        # NLTK's default mode (what rouge-score uses), not the 1980 original:
        # its irregular forms map "dying" to "die" and "skies" to "sky".
        ("dying skies", ["die", "sky"]),
        # Non-ASCII words are single, unstemmed tokens.
        ("Cafés running", ["cafés", "run"]),
        # NFKC first: ligature, fullwidth letters, circled digit, Kelvin sign.
        ("ﬁnding ＲＵＮＳ ① \u212a", ["find", "run", "1", "k"]),
        # A degree sign is punctuation; "℃" NFKC-decomposes to "°C".
        ("20°C 21℃", ["20", "c", "21", "c"]),
        # Decomposed accents are combining marks and stay in the word.
        ("cafe\u0301 q\u0301x", ["café", "q\u0301x"]),
        # CJK characters are tokens of their own, Latin runs stay whole.
        ("iPhone是最好的", ["iphon", "是", "最", "好", "的"]),
        ("한국어 テスト ひらがな", ["한", "국", "어", "テ", "ス", "ト", "ひ", "ら", "が", "な"]),
        # Thai: marks join the cluster, other characters open a new one.
        ("ก่อน", ["ก่", "อ", "น"]),
        ("กิน ข้าว", ["กิ", "น", "ข้", "า", "ว"]),
        # A cluster is never closed: following Latin letters join it.
        ("ไทยabc", ["ไ", "ท", "ยabc"]),
        ("", []),
        ("!!! ...", []),
    ],
)
def test_adk_tokenize_rules(text: str, tokens: list[str]) -> None:
    assert adk_tokenize(text) == tokens


def test_adk_tokenize_lower_cases_after_nfkc() -> None:
    # "İ" lower-cases to "i" + U+0307 (a combining mark, kept): the word is
    # no longer ASCII, so it is neither split by rouge-score nor stemmed.
    assert adk_tokenize("İstanbul") == ["i\u0307stanbul"]


@settings(max_examples=200, derandomize=True)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_ascii_fast_path_equals_unicode_walk(text: str) -> None:
    # A trailing non-ASCII token forces the general path on the same words.
    assert adk_tokenize(text + " é") == [*adk_tokenize(text), "é"]


def test_response_match_is_zero_when_one_side_is_empty() -> None:
    assert rouge1("", "hello") == (0.0, 0.0, 0.0)
    assert rouge1("hello", "...") == (0.0, 0.0, 0.0)


def test_counts_are_clipped() -> None:
    p, r, f = rouge1("the the the the", "the mat")
    assert (p, r) == (0.25, 0.5)
    assert f == pytest.approx(1 / 3)


# ------------------------------------------------------------- §4 gate ROUGE


def test_gate_near_miss_passes_by_rouge_at_0_8() -> None:
    score = gate_rouge1("the cat sat on a mat", "the cat sat on the mat")
    assert score.precision == pytest.approx(0.833333, abs=5e-7)
    assert score.recall == pytest.approx(0.833333, abs=5e-7)
    assert score.fmeasure == pytest.approx(0.833333, abs=5e-7)
    assert score.fmeasure >= 0.8


def test_gate_counts_are_clipped() -> None:
    score = gate_rouge1("the the the the", "the mat")
    assert score.precision == 0.25
    assert score.recall == 0.5


def test_gate_paraphrase_fails_rouge() -> None:
    score = gate_rouge1("Try rebooting the daemon.", "You should restart the service.")
    assert score.fmeasure == pytest.approx(0.22, abs=0.005)
    assert score.fmeasure < 0.8


def test_gate_does_not_stem_and_uses_normalised_words() -> None:
    # ADK stems "cats"/"running"; the gate compares the normalised words as-is.
    assert gate_rouge1("cats running", "cat run") == (0.0, 0.0, 0.0)
    assert gate_rouge1("Hello,World!", "hello world") == (1.0, 1.0, 1.0)
    # Unlike ADK, the gate keeps CJK runs as single space-separated words.
    assert gate_rouge1("北京欢迎你", "北京欢迎您") == (0.0, 0.0, 0.0)


def test_gate_empty_texts_score_zero() -> None:
    assert gate_rouge1("", "") == (0.0, 0.0, 0.0)
    assert gate_rouge1("?!", "the mat") == (0.0, 0.0, 0.0)


# ----------------------------------------------------------------- examples


def test_module_docstring_examples() -> None:
    failures, tried = doctest.testmod(lexical, optionflags=doctest.ELLIPSIS)
    assert tried >= 6
    assert failures == 0
