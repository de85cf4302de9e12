"""Test plugin: a custom response scorer and samples aggregator for ``llm_judge_template``.

``letter_grade`` reads a plain-text ``GRADE: <A|B|C|D|F>`` line (no JSON, so no
structured output is registered for it: the judge runs unconstrained) and
``mean_of_samples`` averages the scores of a turn's samples instead of
majority voting.  Both declare what they do to scores (grades are 0..1, a mean
stays within its samples'), so a template metric's threshold is checked up front.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenteval.evaluators.base import TurnResult
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.scorers import ScoreResult, numeric
from agenteval.judge import JudgeReply
from agenteval.plugins import register_response_scorer, register_samples_aggregator
from agenteval.schema import EvalMetric
from agenteval.schema.result import MetricDetails
from agenteval.schema.status import status_for

GRADES = {"A": 1.0, "B": 0.75, "C": 0.5, "D": 0.25, "F": 0.0}
_GRADE = re.compile(r"^GRADE:\s*([ABCDF])\s*$", re.MULTILINE)


@register_response_scorer("letter_grade", score_range=(0.0, 1.0))
def letter_grade(reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
    """``GRADE: B`` → 0.75; the text before the grade line is the reason."""
    text = reply.text if reply is not None else ""
    found = _GRADE.search(text)
    if found is None:
        raise OperatorError("no GRADE line in the judge reply")
    score = GRADES[found.group(1)]
    return ScoreResult(score=score, reason=text[: found.start()].strip(), value=numeric(score))


@register_samples_aggregator("mean_of_samples", keeps_score_range=True)
class MeanOfSamples:
    """The mean sample score, status against the metric threshold, reasons joined."""

    def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
        """Average the samples of one turn."""
        if not samples:
            raise OperatorError("no samples")
        score = sum(s.score for s in samples) / len(samples)
        reason = " | ".join(s.details.reason for s in samples)
        details = MetricDetails(reason=reason, score=score, value=numeric(score))
        return TurnResult(score, status_for(score, metric.threshold), details)
