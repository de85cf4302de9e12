"""Where a metric's per-run average shifts: binary segmentation of its series.

A series of run averages is split where splitting explains the most variance (least
squares), recursively, as long as a split lowers the squared error by more than a
penalty of ``2·σ²·ln(n)`` (σ estimated from the run-to-run differences, robustly: the
median absolute difference / 0.6745 / √2) and moves the median of the runs on each side
by at least ``min_shift``.  Segments are at least three runs long, so one odd run is not
a change (the median of three runs holding it does not move) and a step shows after three
runs: two-run segments called ``1 1 1 1 0 1`` a change to 0.5 (the median of [0, 1]), and
one-run segments ``1 1 1 1 0`` a change to 0.  Deterministic metrics (σ = 0) split at every
step of at least ``min_shift`` that lasted three runs.

Why not a library: ``ruptures`` implements the same binary segmentation but needs numpy
and scipy at run time for series of at most a few hundred points; this is 40 lines.

Tested in tests/store/test_changepoints.py.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence

DEFAULT_MIN_SHIFT = 0.02


def _sse(prefix: Sequence[float], squares: Sequence[float], start: int, end: int) -> float:
    """Sum of squared deviations from the mean of values[start:end] (prefix sums)."""
    n = end - start
    if n <= 0:
        return 0.0
    total = prefix[end] - prefix[start]
    return max(0.0, (squares[end] - squares[start]) - total * total / n)


def noise(values: Sequence[float]) -> float:
    """A robust estimate of the run-to-run noise σ (0 for fewer than three values)."""
    if len(values) < 3:
        return 0.0
    steps = [abs(b - a) for a, b in itertools.pairwise(values)]
    return statistics.median(steps) / 0.6745 / math.sqrt(2)


# The shortest segment (module docstring): a shift shows after three runs.
MIN_SEGMENT = 3


def change_points(values: Sequence[float], *, min_shift: float = DEFAULT_MIN_SHIFT) -> list[int]:
    """Indexes where a new segment starts (sorted; never 0)."""
    n = len(values)
    if n < 2:
        return []
    prefix = [0.0]
    squares = [0.0]
    for value in values:
        prefix.append(prefix[-1] + value)
        squares.append(squares[-1] + value * value)
    sigma = noise(values)
    penalty = 2 * sigma * sigma * math.log(n)
    min_size = MIN_SEGMENT
    found: list[int] = []
    pending = [(0, n)]
    while pending:
        start, end = pending.pop()
        whole = _sse(prefix, squares, start, end)
        best, best_gain = -1, 0.0
        for split in range(start + min_size, end - min_size + 1):
            # The medians must move: one odd run inside a segment does not move its median.
            left = statistics.median(values[start:split])
            right = statistics.median(values[split:end])
            if abs(right - left) < min_shift:
                continue
            gain = whole - _sse(prefix, squares, start, split) - _sse(prefix, squares, split, end)
            if gain > best_gain + 1e-12:
                best, best_gain = split, gain
        if best > 0 and best_gain > penalty:
            found.append(best)
            pending.extend([(start, best), (best, end)])
    return sorted(found)


def segment_means(values: Sequence[float], points: Sequence[int]) -> list[float]:
    """The mean of each segment between change points."""
    bounds = [0, *points, len(values)]
    return [statistics.fmean(values[a:b]) for a, b in itertools.pairwise(bounds) if b > a]


__all__ = ["DEFAULT_MIN_SHIFT", "MIN_SEGMENT", "change_points", "noise", "segment_means"]
