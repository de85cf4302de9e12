"""The evaluator contract and the per-turn → overall averaging every built-in shares.

Tested in tests/evaluators/test_deterministic_evaluators.py.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agenteval.errors import AgentEvalError, CaseError
from agenteval.registry import own_code
from agenteval.schema.base import builder
from agenteval.schema.evalset import EvalCase, Invocation
from agenteval.schema.metric import Criterion, EvalMetric
from agenteval.schema.result import DetailValue, EvalMetricResult, MetricDetails
from agenteval.schema.status import EvalStatus, status_for
from agenteval.steps.record import at_turn

# The turns of one case as an evaluator receives them, actual or expected, in order.
Turns = Sequence[Invocation]

# (lowest, highest) score an evaluator gives; a metric's threshold must lie within it.
ScoreRange = tuple[float, float]
# Every built-in evaluator scores in [0, 1], as trpc-agent-go's do (a mean of 0..1 turn scores).
UNIT_RANGE: ScoreRange = (0.0, 1.0)


class EvaluatorError(CaseError):
    """The evaluator cannot run on this case; the whole case fails (formats.md §4 step 7)."""


@dataclass(slots=True)
class TurnResult:
    """One turn's score, status and details for one metric."""

    score: float
    status: EvalStatus
    details: MetricDetails
    # The criterion echoed in this turn's result when it differs from the metric's
    # (llm_judge_template: the prompt as rendered for this turn, formats.md §6.3).
    criterion: Criterion | None = None


@dataclass(slots=True)
class EvaluateResult:
    """An evaluator's verdict on all turns of one case."""

    score: float
    status: EvalStatus
    turns: list[TurnResult]
    # Extra keys for the overall metric result (Go readers ignore them).
    extra: dict[str, Any] = field(default_factory=dict)
    # The metric could not be evaluated on this case -- the evaluator raised
    # (crashed_result) or a turn lacks what it needs (usage_counts): the case is incomplete.
    incomplete: bool = False


def raised_text(exc: BaseException) -> str:
    """``raised KeyError: 'x' (at plugin.py:12)``: what a plugin's code raised, and where.

    The file's name only: result files do not carry the machine's paths.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"raised {type(exc).__name__}: {exc}{where}"


def crashed_result(name: str, exc: Exception, turns: int) -> EvaluateResult:
    """What an evaluator that raised unexpectedly gives on a case: every turn not evaluated.

    A bug in an evaluator (a plugin's, or ours) must not take down the run and lose the
    cases already scored: the metric is not evaluated on this case, so the case is
    incomplete everywhere (exit 3), and the reason names the exception and the line that
    raised it (:func:`raised_text`).
    """
    return _unevaluated(f"evaluator {name} {raised_text(exc)}", turns)


def _unevaluated(reason: str, turns: int) -> EvaluateResult:
    return EvaluateResult(
        0.0,
        EvalStatus.NOT_EVALUATED,
        [
            TurnResult(0.0, EvalStatus.NOT_EVALUATED, MetricDetails(reason=reason, score=0.0))
            for _ in range(turns)
        ],
        incomplete=True,
    )


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """A metric configuration problem found before the run: path relative to the metric."""

    path: str
    message: str
    hint: str = ""
    # A warning is printed but does not stop the run.
    warning: bool = False


@dataclass(slots=True)
class EvalContext:
    """What an evaluator may know beyond the turns: the case, run and shared services."""

    eval_set_id: str
    case: EvalCase
    run_id: int
    # The run's judge client (agenteval.judge), None when no judge metric runs.
    judge: Any = None
    # The run's price table (agenteval.judge.prices.PriceTable); None: the built-in one.
    prices: Any = None


class Evaluator:
    """Base class of every evaluator; subclasses set ``name`` and ``description``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    # Judge evaluators are awaited by the runner; deterministic ones are called directly.
    is_async: ClassVar[bool] = False
    needs_judge: ClassVar[bool] = False
    # The scores it gives, (lowest, highest): a threshold outside is a configuration error
    # (``threshold: 80`` on a 0..1 score fails every case).  None: it does not say (a plugin's
    # evaluator that does not declare it), and no threshold is checked against it.
    score_range: ClassVar[ScoreRange | None] = None

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """Configuration problems of ``metric`` for this evaluator (none by default)."""
        return ()

    def metric_score_range(self, metric: EvalMetric) -> ScoreRange | None:
        """The scores this evaluator gives under ``metric`` (``score_range`` unless it depends)."""
        return self.score_range

    def check_case(self, metric: EvalMetric, case: EvalCase) -> Iterable[ConfigIssue]:
        """Problems of one case for ``metric`` (its effective copy, case rubrics merged).

        Issue paths are relative to the case (e.g. ``conversation[0].finalResponse``).
        """
        return ()

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Score the case's turns synchronously."""
        raise NotImplementedError

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Score the case's turns; judge evaluators override this."""
        return self.evaluate(metric, actuals, expecteds, context)


class TurnEvaluator(Evaluator):
    """An evaluator that scores each turn pair on its own, 0..1, and averages the turn scores."""

    score_range: ClassVar[ScoreRange | None] = UNIT_RANGE

    def score_turn(
        self, metric: EvalMetric, actual: Invocation, expected: Invocation
    ) -> TurnResult:
        """One turn pair's result under ``metric``."""
        raise NotImplementedError

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Score every turn pair (each marked for the step record), then average them."""
        # each_turn's loop written inline: on this hot path its generator measured ~0.4 us a
        # case slower (3% of one trajectory or response_match evaluation of a one-turn case).
        require_same_length(actuals, expecteds)
        score_turn = self.score_turn
        turns = []
        for index, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True)):
            at_turn(index)
            turns.append(score_turn(metric, actual, expected))
        return average_turns(turns, metric.threshold)


def require_same_length(actuals: Sequence[Invocation], expecteds: Sequence[Invocation]) -> None:
    """Evaluator error when the turn lists differ in length (formats.md §5.1)."""
    if len(actuals) != len(expecteds):
        raise EvaluatorError(
            f"actual invocations ({len(actuals)}) and expected invocations "
            f"({len(expecteds)}) count mismatch"
        )


def each_turn(actuals: Turns, expecteds: Turns) -> Iterator[tuple[int, Invocation, Invocation]]:
    """(index, actual, expected) of every turn pair, each marked for the step record when reached.

    The counts are checked at once (``require_same_length``), before the first pair.
    """
    require_same_length(actuals, expecteds)
    return _marked_turns(actuals, expecteds)


def _marked_turns(actuals: Turns, expecteds: Turns) -> Iterator[tuple[int, Invocation, Invocation]]:
    for index, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True)):
        at_turn(index)
        yield index, actual, expected


# Deterministic evaluators build two detail objects per turn; skip BaseModel.__init__ for them.
_new_details = builder(MetricDetails)
_new_value = builder(DetailValue)


def binary_turn(matched: bool, reason: str, threshold: float) -> TurnResult:
    """A deterministic 1/0 turn result with Go's details layout (formats.md §5.1)."""
    score = 1.0 if matched else 0.0
    details = _new_details(
        {
            "reason": reason,
            "score": score,
            "value": _new_value({"kind": "numeric", "numeric": score}),
        }
    )
    return TurnResult(score, status_for(score, threshold), details)


def average_turns(turns: list[TurnResult], threshold: float) -> EvaluateResult:
    """Overall = mean of the evaluated turn scores; no evaluated turn → not_evaluated, 0."""
    scored = [t.score for t in turns if t.status is not EvalStatus.NOT_EVALUATED]
    if not scored:
        return EvaluateResult(0.0, EvalStatus.NOT_EVALUATED, turns)
    score = sum(scored) / len(scored)
    return EvaluateResult(score, status_for(score, threshold), turns)


def scored(
    evaluator: Evaluator, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
) -> EvaluateResult:
    """``evaluator.evaluate`` on one case, as ``run`` and ``explain`` call it: agenteval's own
    errors (``EvaluatorError`` fails the case) go on up; any other exception is the
    evaluator's bug and gives :func:`crashed_result`."""
    try:
        result = evaluator.evaluate(metric, actuals, expecteds, context)
    except Exception as exc:
        return _crashed(evaluator, exc, len(actuals))
    return checked_result(evaluator, metric, result, len(actuals))


async def score_case(
    evaluator: Evaluator, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
) -> EvaluateResult:
    """:func:`scored` through ``aevaluate`` for an awaited evaluator (judges), else directly."""
    if not evaluator.is_async:
        return scored(evaluator, metric, actuals, expecteds, context)
    try:
        result = await evaluator.aevaluate(metric, actuals, expecteds, context)
    except Exception as exc:
        return _crashed(evaluator, exc, len(actuals))
    return checked_result(evaluator, metric, result, len(actuals))


def _crashed(evaluator: Evaluator, exc: Exception, turns: int) -> EvaluateResult:
    if isinstance(exc, AgentEvalError):
        raise exc  # ours (interrupted, budgets, a case the evaluator refuses): handled above
    return crashed_result(evaluator.name, exc, turns)


# What a result's ``extra`` may not hold: the keys the overall metric result sets itself.
_RESULT_FIELDS = frozenset(
    {name for name in EvalMetricResult.model_fields}
    | {f.alias for f in EvalMetricResult.model_fields.values() if f.alias}
)
_VERDICTS = (EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED)


def checked_result(
    evaluator: Evaluator, metric: EvalMetric, result: object, turns: int
) -> EvaluateResult:
    """``result`` of a plugin's evaluator when well formed, else its metric not evaluated
    on the case (incomplete, exit 3) with the fault as the reason.

    A NaN or infinite score with ``passed``, a score outside the evaluator's declared
    ``score_range``, no turn results at all left the case green; a string, ``None`` or an
    unknown status stopped the whole run with an internal error (exit 4).  agenteval's
    own evaluators are tested instead (this is their hot path).
    """
    if own_code(evaluator):
        return result  # type: ignore[return-value]  # ours: typed and tested
    fault = _result_fault(evaluator.metric_score_range(metric), result, turns)
    if fault is not None:
        return _unevaluated(f"evaluator {evaluator.name} returned {fault}", turns)
    checked: EvaluateResult = result  # type: ignore[assignment]  # checked just now
    # A status given as its text ("passed") is read as the status: the run compares members.
    checked.status = EvalStatus(checked.status)
    for turn in checked.turns:
        turn.status = EvalStatus(turn.status)
    return checked


def _result_fault(score_range: ScoreRange | None, result: object, turns: int) -> str | None:
    if not isinstance(result, EvaluateResult):
        return f"{type(result).__name__}, not an EvaluateResult"
    fault = _outcome_fault(score_range, result.score, result.status)
    if fault is not None:
        return fault
    if not isinstance(result.turns, list) or len(result.turns) != turns:
        count = len(result.turns) if isinstance(result.turns, list) else "no list of"
        return f"{count} turn results for {turns} turn{'s' if turns != 1 else ''} (one per turn)"
    for index, turn in enumerate(result.turns, 1):
        if not isinstance(turn, TurnResult) or not isinstance(turn.details, MetricDetails):
            return f"turn {index}: {type(turn).__name__}, not a TurnResult with MetricDetails"
        fault = _outcome_fault(score_range, turn.score, turn.status)
        if fault is not None:
            return f"turn {index}: {fault}"
    if not isinstance(result.extra, dict) or _RESULT_FIELDS.intersection(result.extra):
        return "an extra that is not a dict or sets a field of the metric result"
    return None


def _outcome_fault(score_range: ScoreRange | None, score: object, status: object) -> str | None:
    if isinstance(score, bool) or not isinstance(score, int | float):
        return f"score {score!r} (not a number)"
    if not math.isfinite(score):
        return f"score {score!r} (not a finite number)"
    if score_range is not None and not score_range[0] <= score <= score_range[1]:
        return f"score {score!r} outside its score_range {score_range[0]:g}..{score_range[1]:g}"
    if status not in _VERDICTS:
        return f"status {status!r} (not passed, failed or not_evaluated)"
    return None
