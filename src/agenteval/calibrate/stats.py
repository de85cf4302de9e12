"""Agreement statistics of a judge against people: Cohen's κ, its bootstrap interval, Spearman.

Hand-written rather than taken from scikit-learn / SciPy: neither is a dependency,
and each statistic is a few lines of its textbook formula (κ = (pₒ − pₑ)/(1 − pₑ)
over the confusion matrix; Spearman's ρ = Pearson's r of average ranks; a
percentile bootstrap).  They are tested against closed forms in
tests/calibrate/test_stats.py.  Nothing here reads files or prints.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from agenteval.schema.status import passes

# Bootstrap resamples and the interval's coverage.
BOOTSTRAP_RESAMPLES = 1000
INTERVAL = 0.95


def confusion(
    judge: Sequence[Hashable], people: Sequence[Hashable]
) -> Counter[tuple[Hashable, Hashable]]:
    """Counts of (judge's verdict, people's label) pairs."""
    return Counter(zip(judge, people, strict=True))


def accuracy(judge: Sequence[Hashable], people: Sequence[Hashable]) -> float | None:
    """Share of items where the judge agrees with people (None without items)."""
    if not judge:
        return None
    return sum(1 for a, b in zip(judge, people, strict=True) if a == b) / len(judge)


def cohen_kappa(judge: Sequence[Hashable], people: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters over the same items; None when chance agreement is total."""
    n = len(judge)
    if n == 0:
        return None
    observed = sum(1 for a, b in zip(judge, people, strict=True) if a == b) / n
    judge_counts, people_counts = Counter(judge), Counter(people)
    expected = sum(judge_counts[k] * people_counts[k] for k in judge_counts) / (n * n)
    if expected >= 1.0:
        return None  # both raters gave one and the same label to every item: κ is undefined
    return (observed - expected) / (1.0 - expected)


@dataclass(frozen=True, slots=True)
class Interval:
    """A percentile bootstrap interval: ``low``..``high`` from ``resamples`` (seeded)."""

    low: float
    high: float
    resamples: int
    seed: int


def _kappa_of_cells(
    cells: Sequence[tuple[Hashable, Hashable]], counts: Sequence[int]
) -> float | None:
    """Cohen's κ from the counts of (judge, people) cells."""
    n = sum(counts)
    judge: Counter[Hashable] = Counter()
    people: Counter[Hashable] = Counter()
    agree = 0
    for (a, b), count in zip(cells, counts, strict=True):
        judge[a] += count
        people[b] += count
        if a == b:
            agree += count
    expected = sum(judge[k] * people[k] for k in judge) / (n * n)
    if expected >= 1.0:
        return None
    return (agree / n - expected) / (1.0 - expected)


def bootstrap_kappa(
    judge: Sequence[Hashable],
    people: Sequence[Hashable],
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> Interval | None:
    """The 95 % percentile interval of κ over item resamples; None when κ is never defined.

    A resample of the items is a draw of n items from the confusion matrix's cells with
    the cells' shares as weights (the same distribution), drawn by ``random.choices``
    and counted: 3.6× faster than rebuilding both label lists per resample (1,000
    items, 1,000 resamples: 1.9 s instead of 6.7 s; 100 items 0.33 s; measured on the
    shared 2-core build machine).  Label sets are tens to hundreds of items.
    """
    n = len(judge)
    if n == 0:
        return None
    table = confusion(judge, people)
    cells = list(table)
    weights = [table[c] for c in cells]
    rng = random.Random(seed)
    values: list[float] = []
    positions = range(len(cells))
    for _ in range(resamples):
        drawn = Counter(rng.choices(positions, weights=weights, k=n))
        kappa = _kappa_of_cells(cells, [drawn[i] for i in positions])
        if kappa is not None:
            values.append(kappa)
    if not values:
        return None
    values.sort()
    tail = (1.0 - INTERVAL) / 2
    return Interval(_quantile(values, tail), _quantile(values, 1.0 - tail), resamples, seed)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values (NumPy's default method)."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the average of the ranks they span."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        average = (start + end) / 2 + 1
        for k in range(start, end + 1):
            result[order[k]] = average
        start = end + 1
    return result


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ (Pearson's r of average ranks); None with < 2 items or a constant side."""
    if len(x) < 2:
        return None
    rx, ry = ranks(x), ranks(y)
    mean_x, mean_y = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mean_x) * (b - mean_y) for a, b in zip(rx, ry, strict=True))
    var_x = sum((a - mean_x) ** 2 for a in rx)
    var_y = sum((b - mean_y) ** 2 for b in ry)
    if var_x == 0 or var_y == 0:
        return None
    return cov / math.sqrt(var_x * var_y)


@dataclass(frozen=True, slots=True)
class Threshold:
    """The threshold that maximises κ, and that κ (None: every item, judge and people alike,
    has one and the same label — perfect agreement, κ undefined)."""

    value: float
    kappa: float | None


def _candidates(distinct: Sequence[float], current: float | None, upper_bound: bool) -> list[float]:
    """One threshold per way of splitting the (sorted, distinct) scores into pass and fail.

    Every split is an interval of thresholds; its candidate is the current threshold when
    that lies in it (the current split is always tried), else the interval's end nearest
    the current threshold: a real score, or the midpoint of two adjacent scores when that
    end is open.  The split in which nothing passes is tried only when the current
    threshold makes it: a threshold beyond every score fails all of them, and a 0..1
    score cannot take one (the threshold check refuses it).
    """
    if upper_bound:
        return _upper_candidates(distinct, current)
    # Pass iff score >= t: the split passing s[k] and up is t in (s[k-1], s[k]].
    found: list[float] = []
    for k, high in enumerate(distinct):
        low = distinct[k - 1] if k > 0 else -math.inf
        if current is not None and low < current <= high:
            found.append(current)
        elif current is not None and current <= low:
            found.append((low + high) / 2)
        else:
            found.append(high)
    if current is not None and current > distinct[-1]:
        found.append(current)
    return found


def _upper_candidates(distinct: Sequence[float], current: float | None) -> list[float]:
    """:func:`_candidates` of an upper bound: pass iff score <= t, and every score passes
    t <= 0 (a count metric without a threshold is informational)."""
    found: list[float] = []
    for k, low in enumerate(distinct):
        # The split passing s[k] and down is t in [s[k], s[k+1]), t > 0 unless it is the top.
        high = distinct[k + 1] if k + 1 < len(distinct) else math.inf
        top = high == math.inf
        if current is not None and _upper_split_has(low, high, current):
            found.append(current)
        elif not top and ((current is not None and current >= high) or low <= 0):
            found.append((max(low, 0.0) + high) / 2)
        else:
            found.append(low)
    if current is not None and 0 < current < distinct[0]:
        found.append(current)
    return found


def _upper_split_has(low: float, high: float, threshold: float) -> bool:
    """Whether ``threshold``, an upper bound, passes the scores up to ``low`` and no more
    (``high``: the next score; the top split, passing everything, is also t <= 0)."""
    if high == math.inf:
        return threshold >= low or threshold <= 0
    return threshold > 0 and low <= threshold < high


def best_threshold(
    scores: Sequence[float],
    passed: Sequence[bool],
    current: float | None = None,
    *,
    upper_bound: bool = False,
) -> Threshold | None:
    """The score threshold with the largest κ against ``passed`` (people's pass labels).

    A score passes as :func:`agenteval.schema.status.passes` says (``upper_bound``: the
    threshold bounds a count from above).  The candidates are :func:`_candidates`; the
    current threshold's split is among them, so the suggestion never lowers κ.  An
    undefined κ (judge and people give every item one same label) counts as perfect
    agreement.  Ties go to the candidate nearest ``current``, then the lowest.
    """
    if not scores:
        return None
    best: tuple[float, float, float, float | None] | None = None  # (-κ, distance, value, κ)
    for value in _candidates(sorted(set(scores)), current, upper_bound):
        verdicts = [passes(s, value, upper_bound=upper_bound) for s in scores]
        kappa = cohen_kappa(verdicts, list(passed))
        distance = abs(value - current) if current is not None else 0.0
        key = (-(1.0 if kappa is None else kappa), distance, value, kappa)
        if best is None or key[:3] < best[:3]:
            best = key
    assert best is not None  # one candidate per distinct score at least
    return Threshold(best[2], best[3])


def precision_recall(
    judge: Sequence[Hashable], people: Sequence[Hashable], positive: Hashable
) -> tuple[float | None, float | None]:
    """Precision and recall of the judge for ``positive`` (``"fail"``), None when undefined."""
    pairs = list(zip(judge, people, strict=True))
    both = sum(1 for a, b in pairs if a == positive and b == positive)
    said = sum(1 for a, _ in pairs if a == positive)
    real = sum(1 for _, b in pairs if b == positive)
    return (both / said if said else None, both / real if real else None)


__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "Interval",
    "Threshold",
    "accuracy",
    "best_threshold",
    "bootstrap_kappa",
    "cohen_kappa",
    "confusion",
    "precision_recall",
    "ranks",
    "spearman",
]
