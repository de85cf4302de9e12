"""Length criterion: formats.md §3.4 and the §5.5 vectors."""

from __future__ import annotations

import pytest

from agenteval.criteria.length import check_length, length_config_error
from agenteval.schema.metric import LengthCriterion


def bounds(**fields: object) -> LengthCriterion:
    return LengthCriterion.model_validate(fields)


@pytest.mark.parametrize("text", ["你好", "abcd", "abc"])
def test_within_two_to_four_code_points(text: str) -> None:
    assert check_length(bounds(min=2, max=4), text).ok


def test_below_min_names_min_and_range() -> None:
    verdict = check_length(bounds(min=2, max=4), "a")
    assert not verdict.ok
    assert "less than min 2" in verdict.reason
    assert "expected range [2, 4]" in verdict.reason
    assert verdict.reason == "actual length 1 is less than min 2, expected range [2, 4]"


def test_above_max_names_max_and_range() -> None:
    verdict = check_length(bounds(min=2, max=4), "abcde")
    assert not verdict.ok
    assert "greater than max 4" in verdict.reason
    assert "expected range [2, 4]" in verdict.reason


def test_min_only_prints_open_upper_bound() -> None:
    verdict = check_length(bounds(min=2), "a")
    assert not verdict.ok
    assert "expected range [2, +inf)" in verdict.reason
    assert check_length(bounds(min=1), "a").ok


def test_max_only_prints_zero_lower_bound() -> None:
    verdict = check_length(bounds(max=1), "ab")
    assert not verdict.ok
    assert "greater than max 1" in verdict.reason
    assert "expected range [0, 1]" in verdict.reason
    assert check_length(bounds(max=2), "ab").ok


def test_code_points_not_bytes_or_utf16_units() -> None:
    # "你好" is 6 UTF-8 bytes; "😀" is 2 UTF-16 units; both count as code points.
    assert check_length(bounds(max=2), "你好").ok
    assert check_length(bounds(min=1, max=1), "😀").ok


def test_zero_bounds_are_real_values() -> None:
    assert check_length(bounds(max=0), "").ok
    assert not check_length(bounds(max=0), "x").ok
    assert check_length(bounds(min=0), "").ok


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "must configure min or max"),
        ({"min": -1}, "min length must be non-negative"),
        ({"max": -1}, "max length must be non-negative"),
        ({"min": 3, "max": 2}, "min length must be less than or equal to max length"),
    ],
)
def test_unusable_bounds_are_mismatches(fields: dict[str, int], message: str) -> None:
    criterion = bounds(**fields)
    verdict = check_length(criterion, "abc")
    assert not verdict.ok
    assert message in verdict.reason
    assert length_config_error(criterion) == verdict.reason


def test_ignore_and_absent_pass() -> None:
    assert check_length(bounds(ignore=True), "").ok
    assert check_length(bounds(ignore=True, min=5), "").ok
    assert check_length(None, "").ok
    assert length_config_error(bounds(min=1, max=1)) is None
