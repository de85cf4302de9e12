"""``final_response_avg_score``: compare each turn's final answer (formats.md §5.3).

Tested in tests/evaluators/test_deterministic_evaluators.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from agenteval.criteria import named
from agenteval.criteria.compare import run_named_compare
from agenteval.criteria.json_compare import check_json
from agenteval.criteria.rouge import check_rouge
from agenteval.criteria.text import check_text
from agenteval.criteria.verdict import MATCH, Verdict, mismatch
from agenteval.criteria.xml_check import check_xml
from agenteval.evaluators.base import (
    ConfigIssue,
    EvaluatorError,
    TurnEvaluator,
    TurnResult,
    binary_turn,
)
from agenteval.evaluators.checks.criteria import check_final_response_criterion
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric, FinalResponseCriterion
from agenteval.steps.record import listening

_NOTHING_CONFIGURED = "final response criterion must configure text, json, rouge, or xml"


def match_final_response(
    criterion: FinalResponseCriterion, actual: Invocation, expected: Invocation
) -> Verdict:
    """Apply every configured sub-criterion to one turn pair, collecting all failures."""
    if criterion.compare_name:
        failure = run_named_compare(named.turn_compares, criterion.compare_name, actual, expected)
        return MATCH if failure is None else mismatch(failure)
    if not (criterion.text or criterion.json_ or criterion.rouge or criterion.xml):
        return mismatch(_NOTHING_CONFIGURED)
    a, e = actual.final_response, expected.final_response
    if a is None and e is None:
        return MATCH
    if a is None:
        return mismatch("actual or expected final response is nil")
    ac = a.content
    ec = e.content if e is not None else ""
    failures: list[str] = []
    if criterion.json_ is not None and not criterion.json_.ignore:
        verdict = check_json(criterion.json_, ac, ec, raw_text=True)
        if not verdict.ok:
            failures.append(f"json mismatch: {verdict.reason}")
    if criterion.text is not None and not criterion.text.ignore:
        verdict = check_text(criterion.text, ac, ec)
        if not verdict.ok:
            failures.append(f"text mismatch: {verdict.reason}")
    if criterion.rouge is not None and not criterion.rouge.ignore:
        tokenizer = (
            named.tokenizers.get(criterion.rouge.tokenizer_name)
            if criterion.rouge.tokenizer_name
            else None
        )
        verdict, _ = check_rouge(criterion.rouge, ec, ac, tokenizer)
        if not verdict.ok:
            failures.append(f"rouge mismatch: {verdict.reason}")
    if criterion.xml is not None and not criterion.xml.ignore:
        verdict = check_xml(criterion.xml, ac)
        if not verdict.ok:
            failures.append(f"xml mismatch: {verdict.reason}")
    return mismatch("; ".join(failures)) if failures else MATCH


def _compared(
    criterion: FinalResponseCriterion, actual: Invocation, expected: Invocation
) -> dict[str, object]:
    """Which checks run on this turn and the two texts they read (for explain)."""
    configured = [
        name
        for name, part in (
            ("json", criterion.json_),
            ("text", criterion.text),
            ("rouge", criterion.rouge),
            ("xml", criterion.xml),
        )
        if part is not None and not part.ignore
    ]
    a, e = actual.final_response, expected.final_response
    return {
        "compareName": criterion.compare_name or None,
        "checks": configured,
        "actual": None if a is None else a.content,
        "expected": None if e is None else e.content,
    }


@register_evaluator
class FinalResponseEvaluator(TurnEvaluator):
    """Score 1 per turn whose final answer satisfies every configured check, else 0."""

    name = "final_response_avg_score"
    description = "Final-response match (text, JSON, ROUGE, XML, length), averaged over turns"

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """A final-response criterion is required (ARCHITECTURE §5.2) and must be valid."""
        criterion = metric.criterion.final_response if metric.criterion else None
        if criterion is None:
            return [
                ConfigIssue(
                    "criterion.finalResponse",
                    "final_response_avg_score needs criterion.finalResponse",
                    'e.g. {"finalResponse": {"text": {"matchStrategy": "exact"}}}',
                )
            ]
        return check_final_response_criterion(criterion, "criterion.finalResponse")

    def score_turn(
        self, metric: EvalMetric, actual: Invocation, expected: Invocation
    ) -> TurnResult:
        """1 when the turn's final answer passes every configured check."""
        criterion = metric.criterion.final_response if metric.criterion else None
        if criterion is None:
            raise EvaluatorError("final response criterion not configured")
        recorder = listening()
        if recorder is not None:
            recorder.add("final_response", _compared(criterion, actual, expected))
        verdict = match_final_response(criterion, actual, expected)
        reason = f"final response mismatch: {verdict.reason}" if not verdict.ok else ""
        return binary_turn(verdict.ok, reason, metric.threshold)
