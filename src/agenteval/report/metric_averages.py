"""Running per-metric averages over metric results, fed one result at a time.

The same numbers as :func:`agenteval.results.aggregation.metric_summaries` (threshold
of the first result seen, not_evaluated results counted but not averaged,
sums in arrival order, sorted by name) without holding the results: the
console's and the Markdown report's metric averages and the averaged
shortfalls of a case that ran several times read them.
"""

from __future__ import annotations

from agenteval.schema.result import MetricSummary, StatusCounts
from agenteval.schema.status import EvalStatus, status_for


class MetricAverage:
    """Running mean and status counts of one metric."""

    __slots__ = (
        "addends",
        "evaluated",
        "failed",
        "name",
        "not_evaluated",
        "passed",
        "reason",
        "score_sum",
        "threshold",
        "upper_bound",
    )

    def __init__(
        self, threshold: float, name: str = "", upper_bound: bool = False, record: bool = False
    ) -> None:
        self.threshold = threshold
        self.name = name
        self.upper_bound = upper_bound  # a count metric (schema.status.is_upper_bound)
        self.evaluated = self.passed = self.failed = self.not_evaluated = 0
        self.score_sum = 0.0
        self.reason = ""  # the first failing result's reason
        # ``record``: the scores summed, in order, for :meth:`absorb`.
        self.addends: list[float] | None = [] if record else None

    def absorb(self, part: MetricAverage) -> None:
        """Count a recording average's results after this one's own, one by one: the sum
        adds ``part``'s scores again in their order, as a single pass would."""
        self.passed += part.passed
        self.failed += part.failed
        self.not_evaluated += part.not_evaluated
        self.evaluated += part.evaluated
        self.reason = self.reason or part.reason
        for score in part.addends or ():
            self.score_sum += score

    @property
    def status(self) -> EvalStatus:
        """``score >= threshold`` of the mean (a count metric: not above it); not_evaluated
        when nothing was evaluated."""
        if not self.evaluated:
            return EvalStatus.NOT_EVALUATED
        return status_for(self.mean, self.threshold, upper_bound=self.upper_bound)

    @property
    def mean(self) -> float:
        """The mean score of the evaluated results (0 when there is none)."""
        return self.score_sum / self.evaluated if self.evaluated else 0.0


class MetricAverages:
    """Per metric name, a :class:`MetricAverage` of every result added."""

    __slots__ = ("by_name", "record")

    def __init__(self, *, record: bool = False) -> None:
        """``record``: keep each average's addends for :meth:`absorb` (a worker's share)."""
        self.by_name: dict[str, MetricAverage] = {}
        self.record = record

    def absorb(self, part: MetricAverages) -> None:
        """Count ``part``'s results (a recording one, of later cases) after these."""
        for name, average in part.by_name.items():
            mine = self.by_name.get(name)
            if mine is None:
                mine = self.by_name[name] = MetricAverage(
                    average.threshold, name, average.upper_bound
                )
            mine.absorb(average)

    def add(
        self,
        name: str,
        status: EvalStatus,
        score: float,
        threshold: float,
        reason: str = "",
        upper_bound: bool = False,
    ) -> None:
        """Count one metric result (``reason`` kept when it is the first failing one;
        ``upper_bound``: a count metric, its threshold an upper bound; read from the first
        result, as the threshold)."""
        average = self.by_name.get(name)
        if average is None:
            average = self.by_name[name] = MetricAverage(threshold, name, upper_bound, self.record)
        if status is EvalStatus.PASSED:
            average.passed += 1
        elif status is EvalStatus.FAILED:
            average.failed += 1
            average.reason = average.reason or reason
        elif status is EvalStatus.NOT_EVALUATED:
            average.not_evaluated += 1
            # not_evaluated results would dilute the average: they are counted only.
            return
        else:
            raise ValueError(f"unexpected status {status.value!r} in aggregation")
        average.evaluated += 1
        average.score_sum += score
        if average.addends is not None:
            average.addends.append(score)

    def sorted(self) -> list[tuple[str, MetricAverage]]:
        """``(name, average)`` pairs sorted by name."""
        return [(name, self.by_name[name]) for name in sorted(self.by_name)]

    def summaries(self) -> list[MetricSummary]:
        """One :class:`MetricSummary` per metric, sorted by name."""
        return [_summary(name, average) for name, average in self.sorted()]


def _summary(name: str, average: MetricAverage) -> MetricSummary:
    counts = None
    if average.passed or average.failed or average.not_evaluated:
        counts = StatusCounts(
            passed=average.passed, failed=average.failed, not_evaluated=average.not_evaluated
        )
    return MetricSummary(
        metric_name=name,
        average_score=average.mean,
        eval_status=average.status,
        threshold=average.threshold,
        status_counts=counts,
    )


__all__ = ["MetricAverage", "MetricAverages"]
