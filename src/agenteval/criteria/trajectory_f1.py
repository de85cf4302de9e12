"""Partial credit for one turn's tool calls: precision, recall and F1 against the expected calls.

A pair of calls matches under the same criterion as ``tool_trajectory_avg_score``
(:mod:`agenteval.criteria.trajectory`: the tool strategies' name, argument and result
criteria).  Which pairs count:

* any order: a maximum matching of the multisets — each expected call paired with at
  most one actual call, as many pairs as possible (the unordered trajectory
  comparison's own assignment, :func:`~agenteval.criteria.trajectory.maximum_matching`);
* in order: a longest common subsequence of the two call lists under the pair predicate.

With ``k`` pairs, ``a`` actual and ``e`` expected calls: precision ``k/a`` (1 when
``a`` is 0), recall ``k/e`` (1 when ``e`` is 0) and F1 their harmonic mean (0 when
both are 0), so a turn with nothing expected and nothing called scores 1, and any
extra call when nothing was expected scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agenteval.criteria.trajectory import PairTable, maximum_matching, pair_table
from agenteval.schema.evalset import Tool
from agenteval.schema.metric import ToolTrajectoryCriterion

ANY_ORDER = "any order"
IN_ORDER = "in order"


@dataclass(frozen=True, slots=True)
class TrajectoryF1:
    """Precision, recall and F1 of one turn, with the pairs they were counted from."""

    precision: float
    recall: float
    f1: float
    # (expected index, actual index) of every matched pair, in expected order.
    pairs: tuple[tuple[int, int], ...]
    actual_calls: int
    expected_calls: int
    order: str
    # Why each missing call did not pair with an extra call of the same name (the trajectory
    # criterion's own mismatch reason), in expected order.
    near_misses: tuple[str, ...] = ()

    def unmatched_actual(self) -> list[int]:
        """Indexes of actual calls no expected call was paired with (extra calls)."""
        used = {right for _, right in self.pairs}
        return [i for i in range(self.actual_calls) if i not in used]

    def unmatched_expected(self) -> list[int]:
        """Indexes of expected calls left without a partner (missing calls)."""
        used = {left for left, _ in self.pairs}
        return [i for i in range(self.expected_calls) if i not in used]


def trajectory_f1(
    criterion: ToolTrajectoryCriterion, actual: Sequence[Tool], expected: Sequence[Tool]
) -> TrajectoryF1:
    """Score one turn's calls: ``criterion.orderSensitive`` picks in order (LCS) or any order."""
    table = pair_table(criterion, actual, expected)
    if criterion.order_sensitive:
        pairs, order = longest_common_pairs(table), IN_ORDER
    else:
        pairs, order = maximum_matching(table), ANY_ORDER
    matched = len(pairs)
    precision = matched / len(actual) if actual else 1.0
    recall = matched / len(expected) if expected else 1.0
    total = precision + recall
    f1 = 2 * precision * recall / total if total else 0.0
    return TrajectoryF1(
        precision,
        recall,
        f1,
        tuple(pairs),
        len(actual),
        len(expected),
        order,
        _near_misses(table, pairs),
    )


def _near_misses(table: PairTable, pairs: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """For each unpaired expected call, why the first unpaired actual call of its name differs.

    Either the trajectory criterion's mismatch reason, or, when the two calls do match, that
    the call came out of order.
    """
    free = [right for right in range(len(table.actual)) if right not in {r for _, r in pairs}]
    paired = {left for left, _ in pairs}
    reasons: list[str] = []
    for left, expected in enumerate(table.expected):
        if left in paired:
            continue
        for position, right in enumerate(free):
            if table.actual[right].name == expected.name:
                if table(left, right):
                    # The calls match; only the order kept them apart (in-order scoring).
                    reasons.append(f"{expected.name} was called out of order")
                else:
                    reasons.append(table.reason(left, right))
                del free[position]
                break
    return tuple(reasons)


def longest_common_pairs(pairs: PairTable) -> list[tuple[int, int]]:
    """(expected, actual) pairs of a longest common subsequence under the pair predicate.

    The textbook O(e·a) table; each pair is judged once (the table memoises it).
    """
    n_expected, n_actual = len(pairs.expected), len(pairs.actual)
    # length[i][j]: LCS length of expected[i:] and actual[j:].
    length = [[0] * (n_actual + 1) for _ in range(n_expected + 1)]
    for i in range(n_expected - 1, -1, -1):
        row, below = length[i], length[i + 1]
        for j in range(n_actual - 1, -1, -1):
            if pairs(i, j):
                row[j] = below[j + 1] + 1
            else:
                row[j] = max(below[j], row[j + 1])
    found: list[tuple[int, int]] = []
    i = j = 0
    while i < n_expected and j < n_actual:
        if pairs(i, j) and length[i][j] == length[i + 1][j + 1] + 1:
            found.append((i, j))
            i, j = i + 1, j + 1
        elif length[i + 1][j] >= length[i][j + 1]:
            i += 1
        else:
            j += 1
    return found


__all__ = ["ANY_ORDER", "IN_ORDER", "TrajectoryF1", "longest_common_pairs", "trajectory_f1"]
