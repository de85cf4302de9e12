"""Numbers as every report prints them: a score (at most 4 decimals, no trailing zeros),
a score beside its threshold (as many digits as it takes to differ from it), one to its
last digit (explain's arithmetic), a count of something (``1 call``, ``2 calls``) and a
pass percentage that never reads as all or none when it is not.

A module of its own, importing nothing, so that the views that only print numbers
(``agenteval trend`` and its page) do not load the result models with
``report.console_tables`` (0.3 s of CPU at start-up).  In ``inputs/`` (beside
``safe_text``; ``schema/``'s front would load the models) so that the evaluators, which
write a score against its threshold into a result's reasons, print it by the reports'
rule (:func:`reason_numbers`).

Tested in tests/inputs/test_score_text.py.
"""

from __future__ import annotations


def format_score(value: float) -> str:
    """A score with at most 4 decimals and no trailing zeros (``1``, ``0.6316``)."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def exact_number(value: float) -> str:
    """``value`` to its last digit (the shortest text that reads back as the same float):
    ``1``, ``0.8``, ``0.7999999999999999``.  Where a comparison is shown, rounding would
    print ``0.8 < threshold 0.8`` for the mean of 1, 1 and 0.4 that fails 0.8."""
    text = repr(float(value))
    return text.removesuffix(".0")


def _rounds_onto(score: float, threshold: float) -> bool:
    """True when 4 decimals print ``score`` as ``threshold`` although the two differ: the
    mean of 1, 1 and 0.4 (0.7999999999999999) failing 0.8 would read ``0.8 < 0.8``."""
    return score != threshold and format_score(score) == format_score(threshold)


def score_beside(score: float, threshold: float) -> str:
    """``score`` where its threshold is printed or compared with it (a table row with a
    threshold column, ``score … < threshold …``, an average beside its threshold): as
    :func:`format_score`, or to its last digit when 4 decimals would print the threshold's
    text for a different number (``0.7999999999999999`` beside ``0.8``)."""
    return exact_number(score) if _rounds_onto(score, threshold) else format_score(score)


def threshold_beside(threshold: float, *scores: float) -> str:
    """``threshold`` printed beside ``scores`` (each written by :func:`score_beside`): as
    :func:`format_score`, or to its last digit when one of them rounds onto it, so that a
    threshold of more than 4 decimals still differs from them (``0.80001`` beside ``0.8``)."""
    if any(_rounds_onto(score, threshold) for score in scores):
        return exact_number(threshold)
    return format_score(threshold)


def failed_against(score: float, threshold: float, *, upper_bound: bool = False) -> str:
    """A failing score against its threshold, each as above: ``0.7999999999999999 <
    threshold 0.8``; ``2 > threshold 1`` for an upper bound (a count metric)."""
    sign = ">" if upper_bound else "<"
    return f"{score_beside(score, threshold)} {sign} threshold {threshold_beside(threshold, score)}"


def _order(a: float, b: float) -> int:
    return (a > b) - (a < b)


def reason_numbers(score: float, threshold: float) -> tuple[str, str]:
    """A score and its threshold as an evaluator's reason writes them (``ROUGE-1 F1 0.7857
    < threshold 0.8``, stored in results): the score to 4 decimals, the threshold as ``:g``
    writes it; or both to their last digit when those texts would read as numbers in
    another order than the two are — 0.79996 failing 0.8 would read ``0.8000 < threshold
    0.8``, and 0.80004 passing 0.80001 ``0.8000 >= 0.80001``."""
    score_text, threshold_text = f"{score:.4f}", f"{threshold:g}"
    if _order(float(score_text), float(threshold_text)) == _order(score, threshold):
        return score_text, threshold_text
    return exact_number(score), exact_number(threshold)


def counted(count: int, noun: str, plural: str = "", *, grouped: bool = False) -> str:
    """``1 call``, ``2 calls`` (``plural`` when not ``noun`` + "s": ``1 retry``, ``2 retries``);
    ``grouped``: thousands separated (``12,000 spans``)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {noun if count == 1 else plural or noun + 's'}"


def pass_percent(passed: int, total: int, *, decimals: int = 0) -> str:
    """``passed`` of ``total`` (> 0) as a percentage with up to ``decimals`` decimals
    (``67%``, ``33.3%``, ``50%``): rounded, but never onto 100 % when a case did not pass
    nor onto 0 % when one did — 9,999 of 10,000 read "100%" beside 10,000 of 10,000."""
    step = 10.0**-decimals
    value = 100 * passed / total
    if passed < total:
        value = min(value, 100 - step)
    if passed:
        value = max(value, step)
    # Bounded before rounding, so that 99.96 % of the cases reads 99.9 %, not 100.0 %.
    text = f"{value:.{decimals}f}"
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return f"{text}%"


__all__ = [
    "counted",
    "exact_number",
    "failed_against",
    "format_score",
    "pass_percent",
    "reason_numbers",
    "score_beside",
    "threshold_beside",
]
