"""The judge step of ``final_response_gate``: prompt, reply parsing and the sample vote.

text-metrics.md §4 step 3.  The prompt is ours; the reply must be one JSON
object ``{"score": 0..1, "pass": bool, "reasoning": str}``, possibly fenced or
surrounded by chatter.

Tested in tests/evaluators/llm/test_final_response_gate.py.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.errors import FormatError

_PROMPT = """\
You are grading an AI assistant's answer against a reference answer.

<question>
{question}
</question>

<reference_answer>
{reference}
</reference_answer>

<candidate_answer>
{candidate}
</candidate_answer>

Task: decide whether the candidate answer gives the user the same answer to the \
question as the reference answer. The reference is the ground truth, even where \
you would answer differently.

Scoring rubric:
- 1.0: the candidate states the same key facts as the reference, in any wording.
- 0.5: the candidate is partly correct: a material fact of the reference is \
missing or only half right.
- 0.0: the candidate is wrong, contradicts the reference, or is off-topic.
Ignore style, length, formatting and phrasing. Judge meaning only: words \
copied from the reference earn nothing unless the candidate really says what \
the reference says. Set "pass" to true only when the candidate conveys the \
reference's key facts.

Answer with exactly one JSON object and nothing else:
{{"score": <number from 0 to 1>, "pass": <true or false>, "reasoning": "<one sentence>"}}
"""


def judge_prompt(question: str, reference: str, candidate: str) -> str:
    """The gate's judge prompt for one turn."""
    return _PROMPT.format(question=question, reference=reference, candidate=candidate)


class JudgeReplyFormatError(FormatError):
    """The judge's reply is not a usable ``{"score", "pass", "reasoning"}`` object."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """One judge sample: its score in [0, 1], its pass flag and its one-sentence reasoning."""

    score: float
    passed: bool
    reasoning: str

    def to_json(self) -> dict[str, Any]:
        """The verdict as the ``judge`` detail object."""
        return {"score": self.score, "pass": self.passed, "reasoning": self.reasoning}


def _json_text(reply: str) -> str:
    """The reply cut down to its outermost ``{...}`` after removing a code fence."""
    text = reply.strip()
    if text.startswith("```"):
        text = text[3:]
        if text[:4].lower() == "json":
            text = text[4:]
    text = text.rstrip()
    if text.endswith("```"):
        text = text[:-3]
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise JudgeReplyFormatError(f"no JSON object in the judge reply: {_quote(reply)}")
    return text[start : end + 1]


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _field(data: dict[str, Any], name: str) -> Any:
    # Models sometimes capitalise keys ("Score"); an exact key wins over a case variant.
    if name in data:
        return data[name]
    for key, value in data.items():
        if key.lower() == name:
            return value
    return None


def parse_judge_reply(reply: str) -> JudgeVerdict:
    """Decode a judge reply; raise ``JudgeReplyFormatError`` when it is unusable."""
    try:
        data = json.loads(_json_text(reply))
    except json.JSONDecodeError as exc:
        raise JudgeReplyFormatError(
            f"judge reply is not valid JSON ({exc}): {_quote(reply)}"
        ) from None
    score = _field(data, "score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise JudgeReplyFormatError(f"judge reply has no numeric score: {_quote(reply)}")
    if not (math.isfinite(score) and 0.0 <= score <= 1.0):
        raise JudgeReplyFormatError(f"judge score {score!r} is outside [0, 1]")
    passed = _field(data, "pass")
    if not isinstance(passed, bool):
        raise JudgeReplyFormatError(f"judge reply has no boolean pass: {_quote(reply)}")
    reasoning = _field(data, "reasoning")
    if reasoning is None:
        reasoning = ""
    if not isinstance(reasoning, str):
        raise JudgeReplyFormatError(f"judge reasoning is not a string: {_quote(reply)}")
    return JudgeVerdict(float(score), passed, reasoning.strip())


def sample_passes(verdict: JudgeVerdict, threshold: float) -> bool:
    """A sample passes when the judge says pass and its score reaches the gate's threshold."""
    return verdict.passed and verdict.score >= threshold


@dataclass(frozen=True, slots=True)
class JudgeVote:
    """Several samples combined: the outcome, the vote counts and a representative sample."""

    passed: bool
    passes: int
    fails: int
    representative: JudgeVerdict


def majority_vote(verdicts: Sequence[JudgeVerdict], threshold: float) -> JudgeVote:
    """Majority vote on pass (a tie fails); the first sample on the winning side represents it."""
    if not verdicts:
        raise ValueError("no judge samples to vote on")
    flags = [sample_passes(v, threshold) for v in verdicts]
    passes = sum(flags)
    fails = len(flags) - passes
    outcome = passes > fails
    representative = verdicts[flags.index(outcome)]
    return JudgeVote(outcome, passes, fails, representative)
