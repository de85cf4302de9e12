"""Precision, recall and F1 of a turn's tool calls, in closed form, in both orders (issue 26 item 4)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.criteria.trajectory import check_tools
from agenteval.criteria.trajectory_f1 import ANY_ORDER, IN_ORDER, trajectory_f1
from agenteval.schema.evalset import Tool
from agenteval.schema.metric import ToolTrajectoryCriterion


def crit(**fields: Any) -> ToolTrajectoryCriterion:
    return ToolTrajectoryCriterion.model_validate(fields)


def letters(text: str) -> list[Tool]:
    """Calls A, B, C... that match only a call of the same letter under the default criterion."""
    return [Tool(id=f"id-{i}", name=letter) for i, letter in enumerate(text)]


ANY = crit()
ORDERED = crit(orderSensitive=True)


@pytest.mark.parametrize("criterion", [ANY, ORDERED], ids=["any-order", "in-order"])
def test_a_missing_call_costs_recall_only(criterion: ToolTrajectoryCriterion) -> None:
    scored = trajectory_f1(criterion, letters("AB"), letters("ABC"))
    assert (scored.precision, scored.recall) == (1.0, 2 / 3)
    assert scored.f1 == pytest.approx(0.8)  # 2·1·(2/3) / (1 + 2/3)
    assert scored.unmatched_expected() == [2]
    assert scored.unmatched_actual() == []


@pytest.mark.parametrize("criterion", [ANY, ORDERED], ids=["any-order", "in-order"])
def test_an_extra_call_costs_precision_only(criterion: ToolTrajectoryCriterion) -> None:
    scored = trajectory_f1(criterion, letters("ABC"), letters("AB"))
    assert (scored.precision, scored.recall) == (2 / 3, 1.0)
    assert scored.f1 == pytest.approx(0.8)
    assert scored.unmatched_actual() == [2]


def test_two_swapped_calls_are_perfect_in_any_order() -> None:
    scored = trajectory_f1(ANY, letters("BA"), letters("AB"))
    assert (scored.precision, scored.recall, scored.f1) == (1.0, 1.0, 1.0)
    assert scored.order == ANY_ORDER
    assert sorted(scored.pairs) == [(0, 1), (1, 0)]


def test_two_swapped_calls_keep_one_in_order() -> None:
    # The longest common subsequence of AB and BA has one call: P = R = F1 = 1/2.
    scored = trajectory_f1(ORDERED, letters("BA"), letters("AB"))
    assert (scored.precision, scored.recall, scored.f1) == (0.5, 0.5, 0.5)
    assert scored.order == IN_ORDER
    assert len(scored.pairs) == 1


def test_empty_turns() -> None:
    nothing = trajectory_f1(ANY, [], [])
    assert (nothing.precision, nothing.recall, nothing.f1) == (1.0, 1.0, 1.0)
    unexpected = trajectory_f1(ANY, letters("A"), [])
    assert (unexpected.precision, unexpected.recall, unexpected.f1) == (0.0, 1.0, 0.0)
    silent = trajectory_f1(ANY, [], letters("A"))
    assert (silent.precision, silent.recall, silent.f1) == (1.0, 0.0, 0.0)


def test_names_only_or_names_and_arguments() -> None:
    actual = [Tool(name="search", arguments={"q": "paris"}), Tool(name="book", arguments={"n": 2})]
    expected = [
        Tool(name="search", arguments={"q": "rome"}),
        Tool(name="book", arguments={"n": 2}),
    ]
    names = crit(defaultStrategy={"name": {}})
    with_arguments = crit(defaultStrategy={"name": {}, "arguments": {}})
    assert trajectory_f1(names, actual, expected).f1 == 1.0
    scored = trajectory_f1(with_arguments, actual, expected)
    assert (scored.precision, scored.recall, scored.f1) == (0.5, 0.5, 0.5)
    assert scored.pairs == ((1, 1),)


def test_repeated_calls_pair_once_each() -> None:
    # Two expected A's, three actual A's: two pairs, one extra call.
    scored = trajectory_f1(ANY, letters("AAA"), letters("AA"))
    assert (scored.precision, scored.recall) == (2 / 3, 1.0)


def test_the_any_order_pairing_is_a_maximum_matching() -> None:
    # Actual "a" has an empty strategy, so it matches any expected call; actual "b" matches
    # only expected "b". Pairing expected calls greedily in order gives expected "b" the "a"
    # call and leaves "c" alone; the maximum matching pairs both.
    criterion = crit(toolStrategy={"a": {}})
    scored = trajectory_f1(criterion, letters("ab"), letters("bc"))
    assert sorted(scored.pairs) == [(0, 1), (1, 0)]
    assert scored.f1 == 1.0


def brute_force_maximum(criterion: ToolTrajectoryCriterion, actual: str, expected: str) -> int:
    """The largest number of disjoint matching pairs, by trying every injection."""
    best = 0
    acts, exps = letters(actual), letters(expected)
    for size in range(min(len(acts), len(exps)), 0, -1):
        for chosen in itertools.combinations(range(len(exps)), size):
            for image in itertools.permutations(range(len(acts)), size):
                if all(
                    check_tools(criterion, [acts[j]], [exps[i]]).ok
                    for i, j in zip(chosen, image, strict=True)
                ):
                    return size
    return best


def brute_force_lcs(actual: str, expected: str) -> int:
    """The textbook LCS length of two strings."""
    table = [[0] * (len(actual) + 1) for _ in range(len(expected) + 1)]
    for i, e in enumerate(expected):
        for j, a in enumerate(actual):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if e == a else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


@settings(max_examples=150, deadline=None)
@given(st.text("ABC", max_size=6), st.text("ABC", max_size=6))
def test_pair_counts_equal_brute_force(actual: str, expected: str) -> None:
    assert len(trajectory_f1(ANY, letters(actual), letters(expected)).pairs) == (
        brute_force_maximum(ANY, actual, expected)
    )
    in_order = trajectory_f1(ORDERED, letters(actual), letters(expected))
    assert len(in_order.pairs) == brute_force_lcs(actual, expected)
    # The in-order pairs really are a common subsequence: both indexes increase.
    for (e1, a1), (e2, a2) in itertools.pairwise(in_order.pairs):
        assert e1 < e2 and a1 < a2
    for e, a in in_order.pairs:
        assert expected[e] == actual[a]
