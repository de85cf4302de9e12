"""Change points of a metric's series: steps found, noise and single odd runs ignored."""

from __future__ import annotations

import random

from agenteval.store.changepoints import change_points, noise, segment_means


def test_a_clean_step_is_one_change_point() -> None:
    values = [0.9] * 15 + [0.6] * 15
    assert change_points(values) == [15]
    assert segment_means(values, [15]) == [0.9, 0.6]


def test_two_steps_are_found() -> None:
    values = [0.9] * 10 + [0.6] * 10 + [0.8] * 10
    assert change_points(values) == [10, 20]


def test_noise_alone_is_not_a_change() -> None:
    rng = random.Random(3)
    values = [0.8 + rng.uniform(-0.03, 0.03) for _ in range(40)]
    assert noise(values) > 0
    assert change_points(values) == []


def test_a_shift_within_noise_is_found_when_it_is_large_enough() -> None:
    rng = random.Random(5)
    values = [0.85 + rng.uniform(-0.02, 0.02) for _ in range(20)]
    values += [0.65 + rng.uniform(-0.02, 0.02) for _ in range(20)]
    assert change_points(values) == [20]


def test_one_odd_run_is_not_a_change_and_tiny_steps_are_ignored() -> None:
    assert change_points([0.9] * 10 + [0.2] + [0.9] * 10) == []
    assert change_points([0.90] * 10 + [0.89] * 10) == []  # below min_shift 0.02
    assert change_points([0.90] * 10 + [0.89] * 10, min_shift=0.005) == [10]


def test_short_series() -> None:
    assert change_points([]) == []
    assert change_points([0.5]) == []
    # Fewer than three runs on a side: no shift yet, however large the step.
    assert change_points([0.5, 0.9]) == []
    assert change_points([0.5, 0.5, 0.5, 0.9, 0.9]) == []
    assert change_points([0.5, 0.5, 0.5, 0.9, 0.9, 0.9]) == [3]


def test_one_odd_run_in_a_short_series_is_not_a_change() -> None:
    # Two-run segments took [0, 1] (median 0.5) for a shift from 1; one-run segments [0].
    assert change_points([1.0, 1.0, 1.0, 1.0, 0.0, 1.0]) == []
    assert change_points([1.0, 1.0, 1.0, 1.0, 0.0]) == []
    assert change_points([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]) == []
    # Three runs after the step: a shift, its means 1 and 0.
    values = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert change_points(values) == [4]
    assert segment_means(values, [4]) == [1.0, 0.0]
