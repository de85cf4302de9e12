"""Numbers as every report and every evaluator's reason prints them."""

from __future__ import annotations

import pytest

from agenteval.inputs.score_text import (
    exact_number,
    format_score,
    pass_percent,
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


def test_a_pass_percent_reads_all_or_none_only_when_it_is() -> None:
    # 9,999 of 10,000 rounded to "100%" (and 199 of 200 with no decimals), 1 of 10,000 to "0%".
    assert pass_percent(9_999, 10_000, decimals=1) == "99.9%"
    assert pass_percent(1, 10_000, decimals=1) == "0.1%"
    assert pass_percent(199, 200) == "99%" and pass_percent(1, 200) == "1%"
    assert pass_percent(10_000, 10_000, decimals=1) == "100%" and pass_percent(0, 7) == "0%"
    # Elsewhere rounded as ever; whole numbers without a trailing ".0".
    assert pass_percent(2, 3) == "67%" and pass_percent(1, 3, decimals=1) == "33.3%"
    assert (
        pass_percent(1, 2, decimals=1) == "50%"
        and pass_percent(9_994, 10_000, decimals=1) == "99.9%"
    )
