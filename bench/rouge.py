"""Benchmark: agenteval's ROUGE-L / ROUGE-Lsum against Google's rouge-score, same process.

Run as ``python bench/rouge.py [--pairs 500] [--tokens 400] [--seed 1]``.  It
generates seeded pairs of multi-sentence English-like texts, scores each pair
with both implementations (stemmer off and on), asserts the scores agree to
1e-9 and prints the speed ratio (rouge-score time / agenteval time); then the
Porter stemmer alone against NLTK's on every distinct word (same stems asserted).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from rouge_score import rouge_scorer

from agenteval.criteria import rouge
from agenteval.criteria.stemmer import stem

TOLERANCE = 1e-9

_STEMS = [
    "agent",
    "tool",
    "call",
    "model",
    "answer",
    "city",
    "weather",
    "plan",
    "study",
    "control",
    "nation",
    "form",
    "use",
    "evaluate",
    "response",
    "score",
    "travel",
    "book",
    "flight",
    "hotel",
    "price",
    "order",
    "customer",
    "account",
    "report",
    "result",
    "system",
    "user",
    "request",
    "search",
    "query",
    "data",
    "value",
    "time",
    "number",
    "service",
    "support",
    "product",
]
_ENDINGS = ["", "", "", "s", "es", "ed", "ing", "er", "ly", "ness", "ation", "ional", "ful", "ment"]
_FILLERS = [
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
    "this",
    "that",
    "which",
    "be",
    "has",
    "have",
    "we",
    "you",
    "they",
    "can",
    "will",
    "would",
    "should",
    "may",
    "2024",
    "3.5",
    "42",
    "e.g.",
    "Dr.",
    "U.S.",
]


def _word(rng: random.Random) -> str:
    if rng.random() < 0.45:
        return rng.choice(_FILLERS)
    return rng.choice(_STEMS) + rng.choice(_ENDINGS)


def _text(rng: random.Random, tokens: int) -> str:
    """About ``tokens`` words in sentences of 8-30 words, one sentence per line."""
    lines: list[str] = []
    remaining = tokens
    while remaining > 0:
        size = min(remaining, rng.randint(8, 30))
        words = [_word(rng) for _ in range(size)]
        lines.append(" ".join(words).capitalize() + rng.choice([".", ".", "!", "?"]))
        remaining -= size
    return "\n".join(lines)


def _prediction(rng: random.Random, target: str) -> str:
    """A paraphrase-like prediction: per line, drop and insert words, sometimes new lines."""
    lines = []
    for line in target.split("\n"):
        if rng.random() < 0.2:
            lines.append(_text(rng, len(line.split())))
            continue
        words = [w for w in line.split(" ") if rng.random() > 0.25]
        for _ in range(rng.randint(0, 5)):
            words.insert(rng.randint(0, len(words)), _word(rng))
        lines.append(" ".join(words))
    rng.shuffle(lines)
    return "\n".join(lines)


def make_pairs(count: int, tokens: int, seed: int) -> list[tuple[str, str]]:
    """Seeded (target, prediction) pairs of about ``tokens`` tokens each."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        target = _text(rng, tokens)
        pairs.append((target, _prediction(rng, target)))
    return pairs


Scores = list[tuple[float, float, float]]


def _timed(run: Callable[[], Scores]) -> tuple[float, Scores]:
    start = time.perf_counter()
    scores = run()
    return time.perf_counter() - start, scores


def compare(
    rouge_type: str, pairs: list[tuple[str, str]], use_stemmer: bool
) -> tuple[float, float]:
    """Time both implementations on ``pairs``, assert equal scores, return (theirs, ours) in s."""
    scorer = rouge_scorer.RougeScorer([rouge_type], use_stemmer=use_stemmer)

    def theirs() -> Scores:
        results = []
        for target, prediction in pairs:
            s = scorer.score(target, prediction)[rouge_type]
            results.append((s.precision, s.recall, s.fmeasure))
        return results

    def ours() -> Scores:
        results = []
        for target, prediction in pairs:
            s = rouge.score(rouge_type, target, prediction, use_stemmer=use_stemmer)
            results.append((s.precision, s.recall, s.fmeasure))
        return results

    stem.cache_clear()  # include the cost of stemming each distinct word once
    our_time, our_scores = _timed(ours)
    their_time, their_scores = _timed(theirs)
    for index, (mine, reference) in enumerate(zip(our_scores, their_scores, strict=True)):
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(mine, reference, strict=True)), (
            rouge_type,
            use_stemmer,
            index,
            mine,
            reference,
        )
    return their_time, our_time


def compare_stemmers(pairs: list[tuple[str, str]]) -> tuple[int, float, float]:
    """Stem every distinct token once with NLTK's PorterStemmer and ours; assert equal stems."""
    from nltk.stem import porter

    words = sorted({w for pair in pairs for text in pair for w in rouge.tokenize(text)})
    nltk_stemmer = porter.PorterStemmer()
    start = time.perf_counter()
    theirs = [nltk_stemmer.stem(w) for w in words]
    their_time = time.perf_counter() - start
    stem.cache_clear()  # each distinct word stemmed for the first time, as in a fresh run
    start = time.perf_counter()
    ours = [stem(w) for w in words]
    our_time = time.perf_counter() - start
    assert ours == theirs, next(
        (w, a, b) for w, a, b in zip(words, ours, theirs, strict=True) if a != b
    )
    return len(words), their_time, our_time


def main() -> None:
    """Run the comparison and print one line per (type, stemmer) with the speed ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pairs = make_pairs(args.pairs, args.tokens, args.seed)
    mean_tokens = sum(len(rouge.tokenize(t)) for t, _ in pairs) / len(pairs)
    print(f"{len(pairs)} pairs, {mean_tokens:.0f} target tokens on average; scores equal to 1e-9")
    print(f"{'type':<10} {'stemmer':<8} {'rouge-score s':>14} {'agenteval s':>12} {'ratio':>8}")
    for rouge_type in ("rougeL", "rougeLsum"):
        for use_stemmer in (False, True):
            theirs, ours = compare(rouge_type, pairs, use_stemmer)
            print(
                f"{rouge_type:<10} {'on' if use_stemmer else 'off':<8} {theirs:>14.3f}"
                f" {ours:>12.3f} {theirs / ours:>7.1f}x"
            )
    count, theirs, ours = compare_stemmers(pairs)
    print(
        f"Porter stemmer, {count} distinct words (same stems): NLTK {theirs:.4f} s, "
        f"agenteval {ours:.4f} s, {theirs / ours:.1f}x"
    )


if __name__ == "__main__":
    main()
