"""Text criterion: formats.md §3.3 and the §5.5 vectors, with RE2 regex semantics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenteval.criteria import named
from agenteval.criteria.text import (
    check_text,
    compile_regex,
    go_lower,
    text_matches,
)
from agenteval.schema.metric import TEXT_STRATEGIES, TextCriterion


def text(**fields: object) -> TextCriterion:
    return TextCriterion.model_validate(fields)


def test_contains_case_insensitive() -> None:
    assert check_text(
        text(matchStrategy="contains", caseInsensitive=True), "Hello World", "hello"
    ).ok
    assert not check_text(text(matchStrategy="contains"), "Hello World", "hello").ok


def test_contains_empty_expected_always_matches() -> None:
    assert check_text(text(matchStrategy="contains"), "anything", "").ok
    assert check_text(text(matchStrategy="contains"), "", "").ok


def test_contains_mismatch_reason() -> None:
    verdict = check_text(text(matchStrategy="contains"), "hello", "missing")
    assert not verdict.ok
    assert verdict.reason == 'actual "hello" does not contain expected "missing"'


def test_length_with_default_exact() -> None:
    criterion = text(length={"min": 2, "max": 4})
    assert check_text(criterion, "你好", "你好").ok
    assert not check_text(criterion, "你好", "").ok
    verdict = check_text(criterion, "a", "")
    assert not verdict.ok
    assert verdict.reason.startswith("length mismatch: ")
    assert "less than min 2" in verdict.reason


def test_length_then_contains() -> None:
    criterion = text(length={"max": 10}, matchStrategy="contains")
    verdict = check_text(criterion, "hello world", "hello")
    assert not verdict.ok
    assert "actual length 11 is greater than max 10" in verdict.reason
    assert check_text(criterion, "hello", "ell").ok


def test_length_with_skip() -> None:
    criterion = text(length={"min": 2, "max": 4}, matchStrategy="skip")
    assert check_text(criterion, "abcd", "not checked").ok
    verdict = check_text(criterion, "a", "not checked")
    assert not verdict.ok
    assert "length mismatch" in verdict.reason


def test_unusable_length_is_a_mismatch() -> None:
    verdict = check_text(text(length={}), "same", "same")
    assert not verdict.ok
    assert verdict.reason == "length mismatch: length criterion must configure min or max"


def test_skip_matches_anything() -> None:
    assert check_text(text(matchStrategy="skip"), "anything", "value").ok


def test_exact_is_the_default() -> None:
    for criterion in (text(), text(matchStrategy="exact")):
        assert check_text(criterion, "same", "same").ok
        verdict = check_text(criterion, "same", "diff")
        assert not verdict.ok
        assert verdict.reason == 'actual "same" and expected "diff" do not match'


def test_exact_case_insensitive() -> None:
    assert check_text(text(caseInsensitive=True), "GET_Weather", "get_weather").ok
    assert not check_text(text(), "GET_Weather", "get_weather").ok


def test_regex_search_is_unanchored() -> None:
    criterion = text(matchStrategy="regex")
    assert check_text(criterion, "abc123", "abc[0-9]+").ok
    assert check_text(criterion, "xx abc1 yy", "abc[0-9]+").ok
    verdict = check_text(criterion, "xyz", "abc[0-9]+")
    assert not verdict.ok
    assert "does not match regex" in verdict.reason


def test_invalid_regex_is_a_mismatch() -> None:
    verdict = check_text(text(matchStrategy="regex"), "source", "[invalid(")
    assert not verdict.ok
    assert verdict.reason.startswith('invalid regex "[invalid(": ')
    assert "missing ]" in verdict.reason


def test_unknown_strategy() -> None:
    verdict = check_text(text(matchStrategy="unknown"), "a", "b")
    assert not verdict.ok
    assert verdict.reason == "invalid match strategy unknown"
    # Even equal strings fail: the strategy itself is unusable.
    assert not check_text(text(matchStrategy="fuzzy"), "a", "a").ok


def test_ignore_and_absent_criterion() -> None:
    assert check_text(text(ignore=True, matchStrategy="unknown"), "a", "b").ok
    assert check_text(text(ignore=True, length={"min": 9}), "a", "b").ok
    assert check_text(None, "a", "b").ok


def test_strategy_set() -> None:
    assert frozenset({"", "exact", "contains", "regex", "skip"}) == TEXT_STRATEGIES


# RE2 semantics (ARCHITECTURE §5.6): the Go dialect, not Python's re.


def test_regex_classes_are_ascii_only() -> None:
    criterion = text(matchStrategy="regex")
    assert not check_text(criterion, "٣", r"\d").ok  # Arabic-Indic digit three
    assert not check_text(criterion, "é", r"^\w$").ok
    assert check_text(criterion, "7", r"\d").ok


def test_dollar_matches_only_at_the_very_end() -> None:
    criterion = text(matchStrategy="regex")
    assert not check_text(criterion, "abc\n", "abc$").ok
    assert check_text(criterion, "abc", "abc$").ok
    assert check_text(criterion, "abc\nx", "(?m)abc$").ok


def test_python_only_syntax_is_rejected() -> None:
    criterion = text(matchStrategy="regex")
    for pattern in ("a(?=b)", r"(a)\1", "(?<!x)a"):
        verdict = check_text(criterion, "ab", pattern)
        assert not verdict.ok
        assert verdict.reason.startswith("invalid regex")


def test_any_byte_escape_is_an_invalid_regex_as_in_go() -> None:
    """Go's regexp/syntax ``Parse`` (parse.go, the ``case 'C'`` of its ``\\`` switch: "any
    byte; not supported") refuses ``\\C`` with ErrInvalidEscape, so text.go's ``Match``
    reports "invalid regex" (score 0); RE2 in C++ reads it as any byte and matched "x".
    Inside ``\\Q...\\E`` it is literal text in both."""
    criterion = text(matchStrategy="regex")
    for pattern in (r"\C", r"a\Cb", r"\\\C", r"\Qx\E\C"):
        verdict = check_text(criterion, "xa-b", pattern)
        assert not verdict.ok, pattern
        assert verdict.reason.endswith(": invalid escape sequence: \\C"), verdict.reason
    with pytest.raises(ValueError, match=r"invalid escape sequence: \\C"):
        compile_regex(r"\C")
    assert check_text(criterion, r"a\Cb", r"a\Q\C\Eb").ok
    assert check_text(criterion, r"a\Cb", r"a\\Cb").ok  # an escaped backslash, then C
    assert check_text(criterion, r"\C", r"\Q\C").ok  # \Q without \E runs to the end


def test_group_names_are_ascii_words_as_in_go() -> None:
    """Go's regexp/syntax ``isValidCaptureName`` (parse.go) allows only [A-Za-z0-9_]+, so
    ``(?P<é>x)`` is ErrInvalidNamedCapture and text.go reports "invalid regex" (score 0);
    RE2 in C++ accepts any Unicode word as a name and matched."""
    criterion = text(matchStrategy="regex")
    for pattern in ("(?P<é>x)", "(?<名前>x)", "(?P<ok>a)(?P<ö>x)"):
        verdict = check_text(criterion, "ax", pattern)
        assert not verdict.ok, pattern
        assert "invalid named capture group" in verdict.reason
    for pattern in ("(?P<_a1>x)", "(?<B2>x)", "(?P<9>x)"):
        assert check_text(criterion, "x", pattern).ok, pattern
    assert check_text(criterion, "é", "[(?P<é>]").ok  # in a class: literal characters


def test_case_insensitive_lowercases_the_pattern_text() -> None:
    # Go lower-cases the pattern too, so \D (non-digit) becomes \d (digit).
    criterion = text(matchStrategy="regex", caseInsensitive=True)
    assert check_text(criterion, "123", r"^\D+$").ok
    assert not check_text(text(matchStrategy="regex"), "123", r"^\D+$").ok
    assert check_text(criterion, "HELLO", "^hel+o$").ok
    assert check_text(criterion, "hello", "^HEL+O$").ok


def test_compile_regex_reports_a_clean_message(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError) as info:
        compile_regex("[invalid(")
    assert str(info.value) == "missing ]: [invalid("
    with pytest.raises(ValueError, match="no argument for repetition operator"):
        compile_regex("*a")
    assert compile_regex("a+b").search("xaab") is not None
    # RE2 logs compile errors to stderr unless told not to.
    assert capfd.readouterr().err == ""


def test_go_lower_uses_simple_case_mapping() -> None:
    assert go_lower("İstanbul") == "istanbul"  # Python's full mapping gives "i̇stanbul"
    assert go_lower("ΟΔΟΣ") == "οδοσ"  # no final-sigma rule
    assert go_lower("HeLLo") == "hello"
    assert go_lower("ÀÉ") == "àé"


# Named compare functions (formats.md §3.11).


def test_named_compare_decides_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []

    def same_initial(actual: str, expected: str) -> bool:
        calls.append((actual, expected))
        return actual[:1] == expected[:1]

    monkeypatch.setitem(named.text_compares, "same_initial", same_initial)
    # compareName replaces length and strategy checks completely.
    criterion = text(compareName="same_initial", length={"min": 3}, matchStrategy="unknown")
    assert check_text(criterion, "ab", "axe").ok
    verdict = check_text(criterion, "ab", "bxe")
    assert not verdict.ok
    assert "returned false" in verdict.reason
    assert calls == [("ab", "axe"), ("ab", "bxe")]


@pytest.mark.parametrize("answer", ["no", [], None, 0.5])
def test_a_named_compare_answering_no_truth_value_is_a_mismatch(
    monkeypatch: pytest.MonkeyPatch, answer: object
) -> None:
    # "no" was read as a truth value: every case matched (green).
    monkeypatch.setitem(named.text_compares, "vague", lambda actual, expected: answer)
    verdict = check_text(text(compareName="vague"), "a", "a")
    assert not verdict.ok
    assert verdict.reason.endswith(
        f"text compare function 'vague' returned {answer!r}, not True or False"
    )


@pytest.mark.parametrize("answer", [True, 1])
def test_a_named_compare_may_answer_one_for_true(
    monkeypatch: pytest.MonkeyPatch, answer: object
) -> None:
    monkeypatch.setitem(named.text_compares, "numeric", lambda actual, expected: answer)
    assert check_text(text(compareName="numeric"), "a", "b").ok


def test_named_compare_that_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(actual: str, expected: str) -> bool:
        raise RuntimeError("boom")

    monkeypatch.setitem(named.text_compares, "boom", boom)
    verdict = check_text(text(compareName="boom"), "a", "a")
    assert not verdict.ok
    assert verdict.reason == "boom"


def test_named_compare_missing_at_call_time() -> None:
    verdict = check_text(text(compareName="nobody_registered_this"), "a", "a")
    assert not verdict.ok
    assert "nobody_registered_this" in verdict.reason


def test_text_matches_agrees_with_check_text() -> None:
    criterion = text(matchStrategy="regex")
    assert text_matches(criterion, "abc1", "c[0-9]")
    assert not text_matches(criterion, "abc", "c[0-9]")


@given(
    st.sampled_from([*sorted(TEXT_STRATEGIES), "bogus"]),
    st.booleans(),
    st.booleans(),
    st.text(alphabet="aAb.*", max_size=4),
    st.text(alphabet="aAb.*", max_size=4),
)
def test_text_matches_fast_path_agrees_with_reasons(
    strategy: str, ignore: bool, fold: bool, actual: str, expected: str
) -> None:
    criterion = text(matchStrategy=strategy, ignore=ignore, caseInsensitive=fold)
    assert text_matches(criterion, actual, expected) is check_text(criterion, actual, expected).ok
