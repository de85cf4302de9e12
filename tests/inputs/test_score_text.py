"""Numbers as every report and every evaluator's reason prints them."""

from __future__ import annotations

import pytest

from agenteval.inputs.score_text import (
    exact_number,
    format_score,
    reason_numbers,
    score_beside,
    threshold_beside,
)

NEAR_MEAN = (1 + 1 + 0.4) / 3


@pytest.mark.parametrize(
    ("value", "text"), [(1.0, "1"), (0.0, "0"), (0.631579, "0.6316"), (0.25, "0.25"), (-0.0, "0")]
)
def test_format_score(value: float, text: str) -> None:
    assert format_score(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1"), (15.0, "15"), (0.8, "0.8"), ((1 + 1 + 0.4) / 3, "0.7999999999999999")],
)
def test_exact_number_reads_back_as_the_same_float(value: float, text: str) -> None:
    assert exact_number(value) == text and float(text) == value


@pytest.mark.parametrize(
    ("score", "threshold", "texts"),
    [
        # 4 decimals would print the threshold's text for a score that fails (or passes) it.
        (NEAR_MEAN, 0.8, ("0.7999999999999999", "0.8")),
        (0.79996, 0.8, ("0.79996", "0.8")),
        (0.80004, 0.8, ("0.80004", "0.8")),
        # A threshold of more than 4 decimals is written whole when a score rounds onto it.
        (0.8, 0.80001, ("0.8", "0.80001")),
        (0.80002, 0.80001, ("0.80002", "0.80001")),
        # Otherwise both as every report prints numbers.
        (0.8, 0.8, ("0.8", "0.8")),
        (0.631579, 0.8, ("0.6316", "0.8")),
        (0.5, 1 / 3, ("0.5", "0.3333")),
        (3.00001, 3.0, ("3.00001", "3")),
    ],
)
def test_a_score_beside_its_threshold_differs_from_it_as_the_numbers_do(
    score: float, threshold: float, texts: tuple[str, str]
) -> None:
    shown = (score_beside(score, threshold), threshold_beside(threshold, score))
    assert shown == texts
    assert (shown[0] == shown[1]) == (score == threshold)


@pytest.mark.parametrize(
    ("score", "threshold", "texts"),
    [
        # 4 decimals and :g would read as the threshold for a score that fails it …
        (0.79996, 0.8, ("0.79996", "0.8")),
        (NEAR_MEAN, 0.8, ("0.7999999999999999", "0.8")),
        (2 / 3, 0.6667, ("0.6666666666666666", "0.6667")),
        (0.8, 0.80000001, ("0.8", "0.80000001")),
        # … or as a number below a threshold the score passes.
        (0.80004, 0.80001, ("0.80004", "0.80001")),
        # Otherwise the form the reasons have always had (4 decimals, the threshold short).
        (0.785714, 0.8, ("0.7857", "0.8")),
        (0.5, 0.8, ("0.5000", "0.8")),
        (5 / 6, 0.9, ("0.8333", "0.9")),
        (0.8, 0.8, ("0.8000", "0.8")),
        (0.9, 0.80001, ("0.9000", "0.80001")),
    ],
)
def test_a_reason_prints_score_and_threshold_in_the_order_the_numbers_are(
    score: float, threshold: float, texts: tuple[str, str]
) -> None:
    shown = reason_numbers(score, threshold)
    assert shown == texts
    read = float(shown[0]), float(shown[1])
    assert (read[0] < read[1], read[0] == read[1]) == (score < threshold, score == threshold)
