"""Our ROUGE side by side with Google's rouge-score 0.1.2 (ARCHITECTURE.md §6)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.criteria import rouge, sentences

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

TOLERANCE = 1e-9
ROUGE_TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]

STEMS = [
    "connect",
    "relate",
    "hope",
    "run",
    "agent",
    "tool",
    "call",
    "model",
    "answer",
    "city",
    "weather",
    "happy",
    "plan",
    "study",
    "try",
    "control",
    "general",
    "nation",
    "form",
    "use",
    "evaluate",
    "response",
    "score",
    "travel",
    "book",
    "fly",
    "sky",
    "die",
    "lie",
    "news",
]
ENDINGS = [
    "",
    "",
    "",
    "s",
    "es",
    "ed",
    "ing",
    "er",
    "ly",
    "ness",
    "ation",
    "ional",
    "ies",
    "ful",
    "ive",
    "ize",
    "ment",
]
FUNCTION_WORDS = [
    "the",
    "a",
    "an",
    "of",
    "to",
    "in",
    "and",
    "or",
    "is",
    "was",
    "it",
    "for",
    "on",
    "with",
    "as",
    "by",
    "at",
    "not",
    "Dr.",
    "U.S.",
    "e.g.",
    "Mr.",
]
ODD_TOKENS = [
    "3.5",
    "2024",
    "42",
    "x-ray",
    "don't",
    "café",
    "naïve",
    "天气",
    "C++",
    "(see",
    "ok)",
    '"quoted"',
    "--",
    "...",
    "e-mail",
    "AI",
    "GO",
]


def _word(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(FUNCTION_WORDS)
    if roll < 0.9:
        word = rng.choice(STEMS) + rng.choice(ENDINGS)
        return word.capitalize() if rng.random() < 0.1 else word
    return rng.choice(ODD_TOKENS)


def _sentence(rng: random.Random) -> str:
    words = [_word(rng) for _ in range(rng.randint(0, 18))]
    if words:
        words[0] = words[0].capitalize()
    text = " ".join(words)
    return text + rng.choice([".", ".", "!", "?", "", ",", " ."])


def _text(rng: random.Random) -> str:
    separators = ["\n", " ", "\n\n", "\n  ", " \n"]
    parts = [_sentence(rng) for _ in range(rng.randint(1, 5))]
    text = parts[0]
    for part in parts[1:]:
        text += rng.choice(separators) + part
    return text


def _edit(rng: random.Random, text: str) -> str:
    """A prediction that overlaps the target: drop, swap, and insert some words."""
    words = text.split(" ")
    edited = [w for w in words if rng.random() > 0.25]
    for _ in range(rng.randint(0, 4)):
        edited.insert(rng.randint(0, len(edited)), _word(rng))
    if len(edited) > 3 and rng.random() < 0.5:
        i, j = rng.randrange(len(edited)), rng.randrange(len(edited))
        edited[i], edited[j] = edited[j], edited[i]
    return " ".join(edited)


def text_pairs(count: int, seed: int) -> Iterator[tuple[str, str]]:
    """Seeded (target, prediction) pairs: related ones, unrelated ones and edge cases."""
    rng = random.Random(seed)
    yield from [("", ""), ("", "a"), ("a", ""), ("\n\n", "x"), ("。", "。"), ("...", ". . .")]
    for _ in range(count):
        target = _text(rng)
        prediction = _edit(rng, target) if rng.random() < 0.7 else _text(rng)
        yield target, prediction


PAIRS = list(text_pairs(300, seed=7))


def _assert_same(ours: rouge.RougeScore, theirs: object, context: object) -> None:
    expected = (theirs.precision, theirs.recall, theirs.fmeasure)  # type: ignore[attr-defined]
    actual = (ours.precision, ours.recall, ours.fmeasure)
    assert actual == pytest.approx(expected, abs=TOLERANCE, rel=0), context


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_generated_english_pairs(use_stemmer: bool) -> None:
    scorer = rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=use_stemmer)
    for target, prediction in PAIRS:
        expected = scorer.score(target, prediction)
        for rouge_type in ROUGE_TYPES:
            ours = rouge.score(rouge_type, target, prediction, use_stemmer=use_stemmer)
            _assert_same(ours, expected[rouge_type], (rouge_type, target, prediction))


def test_generated_pairs_reach_a_spread_of_scores() -> None:
    # Guards the generator: the comparison above means little on all-zero scores.
    values = {round(rouge.score("rougeL", t, p).fmeasure, 1) for t, p in PAIRS}
    assert len(values) >= 8


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_split_summaries(use_stemmer: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # rouge-score calls nltk.sent_tokenize, whose model is a download; give it
    # NLTK's Punkt with the English model we ship, which is what it would load.
    monkeypatch.setattr(
        rouge_scorer.nltk, "sent_tokenize", lambda text: sentences._tokenizer().tokenize(text)
    )
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=use_stemmer, split_summaries=True)
    for target, prediction in PAIRS[:150]:
        flat_target, flat_prediction = target.replace("\n", " "), prediction.replace("\n", " ")
        ours = rouge.score(
            "rougeLsum", flat_target, flat_prediction, use_stemmer=use_stemmer, split_summaries=True
        )
        _assert_same(ours, scorer.score(flat_target, flat_prediction)["rougeLsum"], target)


def test_named_tokenizer() -> None:
    class WhitespaceTokenizer:
        def tokenize(self, text: str) -> list[str]:
            return text.split()

    scorer = rouge_scorer.RougeScorer(ROUGE_TYPES, tokenizer=WhitespaceTokenizer())
    for target, prediction in PAIRS[:100]:
        expected = scorer.score(target, prediction)
        for rouge_type in ROUGE_TYPES:
            ours = rouge.score(rouge_type, target, prediction, tokenizer=str.split)
            _assert_same(ours, expected[rouge_type], (rouge_type, target, prediction))


# Token lists over a tiny alphabet: many ties, which is where LCS backtracking
# choices (and so ROUGE-Lsum's union) could differ.
sentence_lists = st.lists(st.lists(st.sampled_from("abcde"), max_size=12), max_size=5)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(sentence_lists, sentence_lists)
def test_summary_level_lcs_matches_on_tied_inputs(
    target: list[list[str]], prediction: list[list[str]]
) -> None:
    expected = rouge_scorer._summary_level_lcs(target, prediction)
    _assert_same(rouge.rouge_lsum(target, prediction), expected, (target, prediction))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from("abcde"), max_size=40),
    st.lists(st.sampled_from("abcde"), max_size=40),
    st.integers(min_value=1, max_value=4),
)
def test_ngram_and_lcs_scores_match(target: list[str], prediction: list[str], n: int) -> None:
    _assert_same(rouge.rouge_l(target, prediction), rouge_scorer._score_lcs(target, prediction), 0)
    expected = rouge_scorer._score_ngrams(
        rouge_scorer._create_ngrams(target, n), rouge_scorer._create_ngrams(prediction, n)
    )
    _assert_same(rouge.rouge_n(target, prediction, n), expected, n)
