"""The typed record ``agenteval explain`` returns: criterion, steps, statuses, judge use.

Tested in tests/explain/test_core.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenteval.errors import Problem
from agenteval.steps.record import Step


@dataclass(frozen=True, slots=True)
class CriterionField:
    """One field of the resolved criterion: its effective value and where that came from."""

    path: str
    value: Any
    # "metrics/x.metrics.json: [1].criterion.finalResponse.json.numberTolerance",
    # "default", "toolStrategy['issue_refund']", "saved result: ...".
    source: str
    # Why the value matters ("absent: not compared", "default 1e-6").
    note: str = ""


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """One turn's score against the threshold."""

    index: int  # 0-based
    score: float
    threshold: float
    status: str
    reason: str
    arithmetic: str


@dataclass(frozen=True, slots=True)
class MetricOutcome:
    """The metric's score: the turns aggregated, then compared with the threshold."""

    name: str
    evaluator: str
    score: float
    threshold: float
    status: str
    arithmetic: str
    error: str = ""
    # The evaluator said the metric could not be evaluated in full (a turn without the
    # usage it counts, an evaluator that raised): the case is incomplete, whatever
    # ``status`` says of the part that was scored (EvaluateResult.incomplete).
    incomplete: bool = False


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """The case's verdict, as far as explain knows it.

    From a saved result: the run's own verdict (its case aggregator over every metric).
    From an eval set: explain scores one metric, so the verdict is claimed only where that
    metric alone decides it (incomplete; or the case's only metric under the default
    aggregator); otherwise ``status`` is None: not computed.
    """

    status: str | None
    # (metric name, status, where the status comes from: "explained" / "saved result").
    metrics: list[tuple[str, str, str]]
    arithmetic: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class JudgeUse:
    """What the judge did for this explanation."""

    calls: int
    cache_hits: int
    # "sample N of turn T" lines the offline cache lacks.
    missing: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SavedScore:
    """What the saved result said, to compare with the explanation's score."""

    score: float
    status: str
    reason: str


def metric_incomplete(metric: MetricOutcome, judge: JudgeUse | None) -> bool:
    """The metric could not be evaluated in full: a turn (the evaluator says so), all of it,
    or a judge sample missing or failing. Its case is then incomplete, as in ``run``."""
    return (
        metric.incomplete
        or metric.status == "not_evaluated"
        or bool(judge and (judge.missing or judge.failures))
    )


@dataclass(slots=True)
class Explanation:
    """Every step that made one score of one case × metric × run."""

    source: str
    eval_set_id: str
    case_id: str
    run_id: int
    metric: MetricOutcome
    criterion: list[CriterionField]
    steps: list[Step]
    turns: list[TurnOutcome]
    case: CaseOutcome
    judge: JudgeUse | None = None
    saved: SavedScore | None = None
    # Only this turn is shown (1-based), None: every turn.
    turn: int | None = None
    notes: list[str] = field(default_factory=list)
    # What reading the inputs found that is no error (unknown keys): printed on stderr by
    # the command, listed in --json; never dropped.
    warnings: list[Problem] = field(default_factory=list)

    @property
    def incomplete(self) -> bool:
        """Some part could not be evaluated (:func:`metric_incomplete`)."""
        return metric_incomplete(self.metric, self.judge)

    def exit_code(self) -> int:
        """0 the metric passed, 1 it failed, 3 incomplete (as ``run`` would say)."""
        if self.incomplete:
            return 3
        return 0 if self.metric.status == "passed" else 1
