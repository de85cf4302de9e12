"""κ, its bootstrap, Spearman and the κ-maximising threshold against closed forms."""

from __future__ import annotations

import math

import pytest

from agenteval.calibrate.stats import (
    Threshold,
    accuracy,
    best_threshold,
    bootstrap_kappa,
    cohen_kappa,
    precision_recall,
    ranks,
    spearman,
)


def test_kappa_of_a_two_by_two_table() -> None:
    # a=20 both yes, b=5, c=10, d=15 (Cohen's classic layout): po = .7, pe = .5·.6 + .5·.4 = .5
    judge = ["y"] * 25 + ["n"] * 25
    people = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert accuracy(judge, people) == pytest.approx(0.7)
    assert cohen_kappa(judge, people) == pytest.approx(0.4)


def test_kappa_of_three_categories() -> None:
    # Diagonal 4, 3, 2 of 12; row totals 5, 4, 3; column totals 5, 4, 3.
    pairs = (
        [("a", "a")] * 4
        + [("a", "b")]
        + [("b", "b")] * 3
        + [("b", "c")]
        + [("c", "c")] * 2
        + [("c", "a")]
    )
    judge, people = zip(*pairs, strict=True)
    po = 9 / 12
    pe = (5 * 5 + 4 * 4 + 3 * 3) / 144
    assert cohen_kappa(list(judge), list(people)) == pytest.approx((po - pe) / (1 - pe))


def test_kappa_is_one_on_perfect_agreement_and_undefined_on_one_shared_label() -> None:
    assert cohen_kappa(["p", "f", "p"], ["p", "f", "p"]) == 1.0
    assert cohen_kappa(["p", "p"], ["p", "p"]) is None
    assert cohen_kappa([], []) is None


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    judge = ["p"] * 6 + ["f"] * 4 + ["p", "f"] * 5
    people = ["p"] * 6 + ["f"] * 4 + ["f", "p"] * 5
    first = bootstrap_kappa(judge, people, seed=7)
    assert first == bootstrap_kappa(judge, people, seed=7)
    assert first != bootstrap_kappa(judge, people, seed=8)
    assert first is not None and first.low < (cohen_kappa(judge, people) or 0) < first.high
    # Perfect agreement in every resample: the interval is the point.
    perfect = bootstrap_kappa(["p", "f"] * 10, ["p", "f"] * 10)
    assert perfect is not None and (perfect.low, perfect.high) == (1.0, 1.0)


def test_spearman_without_ties_is_the_closed_form() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    y = [2.0, 1.0, 4.0, 3.0, 5.0]
    d2 = sum((a - b) ** 2 for a, b in zip(ranks(x), ranks(y), strict=True))
    assert spearman(x, y) == pytest.approx(1 - 6 * d2 / (5 * (25 - 1)))  # 0.8
    assert spearman(x, [5.0, 4.0, 3.0, 2.0, 1.0]) == pytest.approx(-1.0)
    assert spearman([1.0, 1.0], [1.0, 2.0]) is None


def test_ranks_average_ties() -> None:
    assert ranks([10.0, 20.0, 20.0, 5.0]) == [2.0, 3.5, 3.5, 1.0]


def test_best_threshold_maximises_kappa() -> None:
    scores = [1, 1, 1, 1, 1, 0.5, 0.5, 0, 0, 0]
    passed = [True, True, True, True, False, True, True, False, False, False]
    best = best_threshold([float(s) for s in scores], passed, current=1.0)
    assert best is not None and best.value == 0.5
    assert best.kappa == pytest.approx(18 / 23)
    for candidate in (0.0, 1.0, math.nextafter(1.0, 2.0)):
        kappa = cohen_kappa([s >= candidate for s in scores], passed) or 0.0
        assert kappa < best.kappa


def test_precision_and_recall_of_fail() -> None:
    judge = ["f", "f", "p", "p"]
    people = ["f", "p", "f", "p"]
    assert precision_recall(judge, people, "f") == (0.5, 0.5)
    assert precision_recall(["p"], ["p"], "f") == (None, None)


def test_an_upper_bound_passes_the_counts_up_to_it() -> None:
    # few (1 call) passes, many (3 calls) fails, as people say: threshold 2 splits them.
    best = best_threshold([1.0, 3.0], [True, False], current=2.0, upper_bound=True)
    assert best == Threshold(2.0, 1.0)
    # From threshold 3 (both pass, κ 0) the split is offered at the midpoint of 1 and 3.
    assert best_threshold([1.0, 3.0], [True, False], 3.0, upper_bound=True) == Threshold(2.0, 1.0)


def test_the_suggestion_never_lowers_kappa_and_never_fails_everything() -> None:
    # Scores 1, 0, 1; people fail, pass, fail.  At threshold 1 the judge says pass, fail,
    # pass: po = 0, pe = (2/3)(1/3) + (1/3)(2/3) = 4/9, κ = -(4/9)/(5/9) = -0.8.
    scores, passed = [1.0, 0.0, 1.0], [False, True, False]
    assert cohen_kappa([s >= 1.0 for s in scores], passed) == pytest.approx(-0.8)
    # Threshold 0 passes all three: po = 1/3 = pe, κ 0.  (A threshold above 1 fails all
    # three, κ 0 too, but no 0..1 score can take it: it is not offered.)
    assert best_threshold(scores, passed, current=1.0) == Threshold(0.0, 0.0)


def test_perfect_agreement_on_one_label_keeps_the_current_threshold() -> None:
    # Both items pass for judge and people: κ undefined, accuracy 1; failing them is worse.
    assert best_threshold([1.0, 1.0], [True, True], current=1.0) == Threshold(1.0, None)


def test_ties_go_to_the_current_threshold_then_the_nearest_split() -> None:
    # Scores 0, 1, 2, 3; people fail, pass, fail, pass.  Passing from 1 up: po = 3/4,
    # pe = (3·2 + 1·2)/16 = 1/2, κ = 0.5; from 3 up: po = 3/4, pe = (1·2 + 3·2)/16, κ = 0.5;
    # from 2 up: po = 1/2 = pe, κ 0; everything: κ 0.
    scores, passed = [0.0, 1.0, 2.0, 3.0], [False, True, False, True]
    assert best_threshold(scores, passed, current=2.5) == Threshold(2.5, 0.5)
    assert best_threshold(scores, passed, current=0.2) == Threshold(0.2, 0.5)
    # From 1.5 (κ 0): the split at 1 is 0.5 away, the one from 3 (midpoint 2.5) 1 away.
    assert best_threshold(scores, passed, current=1.5) == Threshold(1.0, 0.5)
    assert best_threshold(scores, passed, current=1.9) == Threshold(2.5, 0.5)
