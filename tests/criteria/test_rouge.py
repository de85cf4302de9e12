"""ROUGE scores and the ROUGE criterion: the vectors of formats.md §3.7, §5.4-§5.6."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.criteria.rouge import (
    RougeScore,
    RougeType,
    check_rouge,
    lcs_length,
    parse_rouge_type,
    rouge_l,
    rouge_lsum,
    rouge_n,
    score,
    tokenize,
)
from agenteval.schema.metric import RougeCriterion
from trpc_fixtures import ROUGE_TESTDATA


def criterion(**fields: Any) -> RougeCriterion:
    """A RougeCriterion parsed from metric-file JSON keys."""
    return RougeCriterion.model_validate(fields)


# ---------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    ("text", "use_stemmer", "expected"),
    [
        ("Hello, WORLD!", False, ["hello", "world"]),
        ("a-b", False, ["a", "b"]),
        (
            "trpc-agent-go is a Go framework for building AI agents by Tencent.",
            False,
            [
                "trpc",
                "agent",
                "go",
                "is",
                "a",
                "go",
                "framework",
                "for",
                "building",
                "ai",
                "agents",
                "by",
                "tencent",
            ],
        ),
        (
            "skies dying lying tying innings outings cannings",
            True,
            ["sky", "die", "lie", "tie", "inning", "outing", "canning"],
        ),
        ("dies died spied enjoy", True, ["die", "die", "spi", "enjoy"]),
        ("the friends had a meeting", True, ["the", "friend", "had", "a", "meet"]),
        ("天气不错，一起去公园散步吧", False, []),
        ("Café naïve 3.14 x_y", False, ["caf", "na", "ve", "3", "14", "x", "y"]),
        # Words of three characters or fewer are never stemmed.
        ("was has its ties", True, ["was", "has", "its", "tie"]),
    ],
)
def test_tokenize(text: str, use_stemmer: bool, expected: list[str]) -> None:
    assert tokenize(text, use_stemmer) == expected


def test_tokenize_lower_cases_like_go() -> None:
    """Go's tokenizer lower-cases with ``strings.ToLower`` (simple case mapping), so the
    capital dotted I (U+0130) becomes a plain "i" and the word stays one token.

    Provenance: trpc-agent-go evaluation/internal/rouge/tokenizer.go, ``Tokenize``
    (``strings.ToLower`` before replacing ``[^a-z0-9]+`` with a space).  Python's
    ``str.lower()`` maps U+0130 to "i" + U+0307, and the combining dot split the word.
    """
    assert tokenize("İSTANBUL") == ["istanbul"]
    assert tokenize("İstanbul is big") == ["istanbul", "is", "big"]
    # The one other capital that lower-cases to ASCII, the Kelvin sign, is the same in both.
    assert tokenize("\u212aelvin") == ["kelvin"]
    found = score("rouge1", "istanbul", "İSTANBUL")
    assert (found.precision, found.recall, found.fmeasure) == (1.0, 1.0, 1.0)


# ------------------------------------------------------------- rouge types


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("rouge1", RougeType("rouge1", "n", 1)),
        ("rouge2", RougeType("rouge2", "n", 2)),
        ("rouge10", RougeType("rouge10", "n", 10)),
        # Go's strconv.Atoi accepts these spellings of N too.
        ("rouge01", RougeType("rouge01", "n", 1)),
        ("rouge+2", RougeType("rouge+2", "n", 2)),
        ("rougeL", RougeType("rougeL", "L")),
        ("rougeLsum", RougeType("rougeLsum", "Lsum")),
    ],
)
def test_parse_valid_rouge_types(name: str, expected: RougeType) -> None:
    assert parse_rouge_type(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "rouge",
        "rougen",
        "rouge0",
        "rouge-1",
        "",
        "Rouge1",
        "rougel",
        "rougeLSum",
        "rouge1 ",
        "rouge1.5",
        "rouge99999999999999999999",
    ],
)
def test_parse_invalid_rouge_types(name: str) -> None:
    with pytest.raises(ValueError, match="invalid rouge type"):
        parse_rouge_type(name)
    with pytest.raises(ValueError, match="invalid rouge type"):
        score(name, "a", "a")


# ---------------------------------------------------------- score vectors


@pytest.mark.parametrize(
    ("rouge_type", "target", "prediction", "expected"),
    [
        ("rouge1", "testing one two", "testing", (1, 1 / 3, 0.5)),
        ("rouge2", "testing one two", "testing one", (1, 0.5, 2 / 3)),
        ("rougeL", "testing one two", "testing two", (1, 2 / 3, 0.8)),
        ("rouge10", "a b c d e f g h i j", "a b c d e f g h i j", (1, 1, 1)),
        ("rougeLsum", "w1 w2 w3 w4 w5", "", (0, 0, 0)),
        ("rougeLsum", "", "w1", (0, 0, 0)),
        ("rougeLsum", "w1 w2 w3 w4 w5", "/", (0, 0, 0)),
    ],
)
def test_spec_score_vectors(
    rouge_type: str, target: str, prediction: str, expected: tuple[float, float, float]
) -> None:
    result = score(rouge_type, target, prediction)
    assert (result.precision, result.recall, result.fmeasure) == pytest.approx(expected, abs=1e-12)


def test_rouge_lsum_union_of_sentence_lcs() -> None:
    result = score("rougeLsum", "w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5")
    assert result.precision == pytest.approx(0.4, abs=1e-12)
    assert result.recall == pytest.approx(0.8, abs=1e-12)
    assert result.fmeasure == pytest.approx(0.5333, abs=1e-4)


def test_rouge_lsum_sentence_order() -> None:
    target = "First sentence.\nSecond Sentence."
    prediction = "Second sentence.\nFirst Sentence."
    assert score("rougeLsum", target, prediction, use_stemmer=True).fmeasure == pytest.approx(
        1.0, abs=1e-12
    )
    flat_target, flat_prediction = target.replace("\n", " "), prediction.replace("\n", " ")
    assert score(
        "rougeLsum", flat_target, flat_prediction, use_stemmer=True
    ).fmeasure == pytest.approx(0.5, abs=1e-12)
    assert score(
        "rougeLsum", flat_target, flat_prediction, use_stemmer=True, split_summaries=True
    ).fmeasure == pytest.approx(1.0, abs=1e-12)


def test_split_summaries_only_affects_rouge_lsum() -> None:
    target, prediction = "One. Two three.", "Two three. One."
    for rouge_type in ("rouge1", "rouge2", "rougeL"):
        assert score(rouge_type, target, prediction, split_summaries=True) == score(
            rouge_type, target, prediction
        )


def test_tokenizer_and_stemmer_vectors() -> None:
    assert score("rouge1", "a-b", "a").fmeasure > 0
    assert score("rouge1", "a-b", "a", tokenizer=str.split).fmeasure == 0
    assert score("rouge1", "the friends", "friend").fmeasure == 0
    assert score("rouge1", "the friends", "friend", use_stemmer=True).fmeasure > 0


def test_named_tokenizer_ignores_use_stemmer() -> None:
    with_stemmer = score("rouge1", "the friends", "friend", use_stemmer=True, tokenizer=str.split)
    assert with_stemmer == RougeScore(0.0, 0.0, 0.0)


def test_named_tokenizer_is_applied_per_sentence_in_rouge_lsum() -> None:
    def whole_sentence(text: str) -> list[str]:
        return [text]

    # Each sentence is one token: the two sentences match in swapped order.
    result = score("rougeLsum", "x y\nz", "z\nx y", tokenizer=whole_sentence)
    assert result == RougeScore(1.0, 1.0, 1.0)
    # On the whole text, the single tokens differ.
    assert score("rougeL", "x y\nz", "z\nx y", tokenizer=whole_sentence).fmeasure == 0


def test_ngram_counts_are_clipped() -> None:
    result = rouge_n(["a", "a", "b"], ["a", "a", "a", "a"], 1)
    assert result.precision == 2 / 4
    assert result.recall == 2 / 3
    # Texts shorter than n have no n-grams.
    assert rouge_n(["a"], ["a"], 2) == RougeScore(0.0, 0.0, 0.0)
    assert score("rouge1000000000000", "a b", "a b") == RougeScore(0.0, 0.0, 0.0)
    assert score("rouge3", "a b c", "x a b c") == RougeScore(0.5, 1.0, 2 / 3)


def test_lsum_token_budgets_prevent_double_counting() -> None:
    # Both target sentences reach the single 'a' of the prediction; it counts once.
    result = rouge_lsum([["a"], ["a"]], [["a"]])
    assert result.precision == 1.0
    assert result.recall == 0.5


def test_empty_inputs_score_zero() -> None:
    zero = RougeScore(0.0, 0.0, 0.0)
    assert rouge_n([], ["a"], 1) == zero
    assert rouge_l(["a"], []) == zero
    assert rouge_lsum([], [["a"]]) == zero
    assert rouge_lsum([[]], [["a"]]) == zero


def _lcs_table_length(first: list[str], second: list[str]) -> int:
    """The textbook quadratic LCS, as an independent reference."""
    previous = [0] * (len(second) + 1)
    for token in first:
        current = [0]
        for j, other in enumerate(second):
            current.append(previous[j] + 1 if token == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@settings(deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from("abcd"), max_size=70),
    st.lists(st.sampled_from("abcd"), max_size=70),
)
def test_bit_parallel_lcs_equals_table(first: list[str], second: list[str]) -> None:
    assert lcs_length(first, second) == _lcs_table_length(first, second)


# ------------------------------------------------------- ROUGE-1.5.5 files


def _fixture_lines(name: str) -> list[str]:
    return (ROUGE_TESTDATA / name).read_text(encoding="utf-8").rstrip("\n").split("\n")


@pytest.mark.parametrize(
    ("line", "rouge_type", "use_stemmer", "expected"),
    [
        (0, "rouge1", False, (0.40741, 0.68750, 0.51163)),
        (0, "rouge2", False, (0.30769, 0.53333, 0.39024)),
        (0, "rougeL", False, (0.40741, 0.68750, 0.51163)),
        (1, "rouge1", False, (0.40476, 0.65385, 0.50000)),
        (1, "rouge2", False, (0.29268, 0.48000, 0.36364)),
        (1, "rougeL", False, (0.40476, 0.65385, 0.50000)),
        (0, "rouge1", True, (0.40741, 0.68750, 0.51163)),
        (0, "rouge2", True, (0.30769, 0.53333, 0.39024)),
        (1, "rouge1", True, (0.42857, 0.69231, 0.52941)),
        (1, "rouge2", True, (0.29268, 0.48000, 0.36364)),
    ],
)
def test_rouge155_vectors(
    line: int, rouge_type: str, use_stemmer: bool, expected: tuple[float, float, float]
) -> None:
    targets, predictions = _fixture_lines("target.txt"), _fixture_lines("prediction.txt")
    assert len(targets) == len(predictions) == 2
    result = score(rouge_type, targets[line], predictions[line], use_stemmer=use_stemmer)
    assert (result.recall, result.precision, result.fmeasure) == pytest.approx(expected, abs=1e-5)


def test_rouge155_multi_sentence_lsum() -> None:
    multi = ROUGE_TESTDATA / "rouge155"
    target = (multi / "target_multi.0.txt").read_text(encoding="utf-8")
    prediction = (multi / "prediction_multi.0.txt").read_text(encoding="utf-8")
    result = score("rougeLsum", target, prediction, use_stemmer=True)
    assert (result.recall, result.precision, result.fmeasure) == pytest.approx(
        (0.36538, 0.66667, 0.47205), abs=1e-5
    )


# --------------------------------------------------------------- criterion


def test_criterion_default_measure_is_f1() -> None:
    verdict, result = check_rouge(criterion(rougeType="rouge1"), "testing one two", "testing", None)
    assert verdict.ok
    assert result.fmeasure == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize(
    ("measure", "reason"),
    [
        ("", "rouge1 f1=0.500000 precision=1.000000 recall=0.333333"),
        ("f1", "rouge1 f1=0.500000 precision=1.000000 recall=0.333333"),
        ("precision", "rouge1 precision=1.000000 recall=0.333333 f1=0.500000"),
        ("recall", "rouge1 recall=0.333333 precision=1.000000 f1=0.500000"),
    ],
)
def test_criterion_measure_chooses_reported_value(measure: str, reason: str) -> None:
    rule = criterion(rougeType="rouge1", measure=measure, threshold={"f1": 0.9})
    verdict, _ = check_rouge(rule, "testing one two", "testing", None)
    assert not verdict.ok
    assert verdict.reason == reason


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"rougeType": "rouge1", "measure": "p"}, "unsupported rouge measure: p"),
        ({"rougeType": ""}, "rouge criterion requires rougeType"),
        ({}, "rouge criterion requires rougeType"),
        ({"rougeType": "rouge0"}, "invalid rouge type: rouge0"),
        ({"rougeType": "rouge-1"}, "invalid rouge type: rouge-1"),
    ],
)
def test_criterion_configuration_errors_mismatch(fields: dict[str, Any], reason: str) -> None:
    verdict, result = check_rouge(criterion(**fields), "testing one two", "testing", None)
    assert not verdict.ok
    assert verdict.reason == reason
    assert result == RougeScore(0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("threshold", "passes"),
    [
        ({"f1": 0.6}, False),
        ({"precision": 0.9}, True),
        ({"precision": 0.9, "f1": 0.6}, False),
        ({"recall": 0.3}, True),
        ({"recall": 0.34}, False),
        ({"precision": 1.0, "recall": 1 / 3, "f1": 0.5}, True),
        ({}, True),
    ],
)
def test_criterion_all_thresholds_must_hold(threshold: dict[str, float], passes: bool) -> None:
    rule = criterion(rougeType="rouge1", threshold=threshold)
    verdict, _ = check_rouge(rule, "testing one two", "testing", None)
    assert verdict.ok is passes


def test_criterion_ignore_passes_with_perfect_scores() -> None:
    rule = criterion(ignore=True, rougeType="nonsense", measure="p", threshold={"f1": 1})
    verdict, result = check_rouge(rule, "testing one two", "something else", None)
    assert verdict.ok
    assert result == RougeScore(1.0, 1.0, 1.0)


def test_criterion_with_zero_thresholds_always_passes() -> None:
    verdict, result = check_rouge(criterion(rougeType="rougeL"), "abc", "xyz", None)
    assert verdict.ok
    assert result == RougeScore(0.0, 0.0, 0.0)


def test_criterion_derived_vector_d10() -> None:
    expected = "trpc-agent-go is a Go framework for building AI agents by Tencent."
    actual = (
        "trpc-agent-go is a Go library for building AI agents on top of Tencent’s tRPC framework,"
        " providing agent orchestration and tool-calling capabilities."
    )
    verdict, result = check_rouge(criterion(rougeType="rouge1"), expected, actual, None)
    assert verdict.ok
    assert result.precision == pytest.approx(12 / 25, abs=1e-12)
    assert result.recall == pytest.approx(12 / 13, abs=1e-12)
    assert result.fmeasure == pytest.approx(0.631579, abs=1e-6)


def test_criterion_with_jieba_tokenizer_d11() -> None:
    jieba = pytest.importorskip("jieba")

    def jieba_tokens(text: str) -> list[str]:
        return [piece.strip() for piece in jieba.cut(text, HMM=True) if piece.strip()]

    verdict, result = check_rouge(
        criterion(rougeType="rouge1", useStemmer=True, threshold={"f1": 0.6}),
        "天气不错，一起去公园散步吧",
        "今天天气不错，我们一起去公园走走吧。",
        jieba_tokens,
    )
    assert verdict.ok
    assert (result.precision, result.recall, result.fmeasure) == pytest.approx(
        (0.6, 0.75, 2 / 3), abs=1e-6
    )


def test_criterion_failing_tokenizer_is_a_mismatch() -> None:
    def broken(text: str) -> list[str]:
        raise RuntimeError("tokenizer exploded")

    verdict, result = check_rouge(criterion(rougeType="rouge1"), "a", "a", broken)
    assert not verdict.ok
    assert verdict.reason == "tokenizer exploded"
    assert result == RougeScore(0.0, 0.0, 0.0)
