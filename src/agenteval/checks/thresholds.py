"""A metric's ``threshold`` against the scores its evaluator gives (issue 21 item 1).

A turn passes when ``score >= threshold``.  A metric without a threshold reads 0
(formats.md §3.1), so under an evaluator that never scores below 0 it passes
whatever the answers: a warning says so.  A threshold outside the evaluator's
declared score range (``Evaluator.metric_score_range``) either fails every case
(``threshold: 80`` on a 0..1 score) or passes every one: an error located at the
threshold.  An evaluator that declares no range (a plugin's) is not checked.
"""

from __future__ import annotations

import math

from agenteval.evaluators.base import ConfigIssue, Evaluator, ScoreRange
from agenteval.schema.metric import EvalMetric
from agenteval.schema.status import UPPER_BOUND_METRICS


def threshold_issues(metric: EvalMetric, evaluator: Evaluator) -> list[ConfigIssue]:
    """A missing threshold (warning) or one outside the evaluator's score range (error)."""
    if evaluator.name in UPPER_BOUND_METRICS:
        return []  # a count: informational without a threshold, else bounded above by it
    scores = evaluator.metric_score_range(metric)
    if "threshold" not in metric.model_fields_set:
        return [_missing(scores)]
    if scores is None:
        return []
    low, high = scores
    threshold = metric.threshold
    if low <= threshold <= high or not math.isfinite(threshold):
        return []  # NaN and infinities are the non-finite check's error, said once
    return [_outside(threshold, scores, evaluator.name)]


def _missing(scores: ScoreRange | None) -> ConfigIssue:
    if scores is None:
        message = "no threshold: 0 is used, so every score of 0 or more passes"
        return ConfigIssue("threshold", message, "set one", warning=True)
    message = "no threshold, so this metric always passes (a missing threshold is 0)"
    return ConfigIssue("threshold", message, f"set one within {_span(scores)}", warning=True)


def _outside(threshold: float, scores: ScoreRange, evaluator: str) -> ConfigIssue:
    low, high = scores
    effect = "no score reaches it: every case fails" if threshold > high else "every score passes"
    hint = effect
    if low == 0 and high == 1 and 1 < threshold <= 100:
        hint += f"; for {threshold:g}% write {threshold / 100:g}"
    message = f"{threshold:g} is outside the scores of {evaluator} ({_span(scores)})"
    return ConfigIssue("threshold", message, hint)


def _span(scores: ScoreRange) -> str:
    return f"{scores[0]:g} to {scores[1]:g}"
