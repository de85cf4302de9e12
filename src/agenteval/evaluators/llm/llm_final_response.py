"""``llm_final_response``: a judge decides whether each turn's final answer matches the reference.

llm-evaluators.md §5.1.  The judge reads the current turn only: the user
prompt, the agent's final response and the reference final response.  Missing
messages render as empty text (Go checks nothing else).  No structured output;
the reply is two plain-text lines, scored 1 for ``valid`` and 0 for any other
label; a reply without the two markers is an error.

How the prompt was designed (our own wording; it states every rule of §5.1):

- It opens with the single question being graded (agreement with the
  reference), then gives the rules as short bullets in order of precedence:
  the reference is the only ground truth (even when the judge disagrees with
  it, and a "more correct" answer is still invalid); non-answers
  (clarification, follow-up question, deflection, refusal) are invalid; the
  judge must not compute or verify anything (arithmetic, tables/CSV, dates,
  unit conversions) but compare with the reference; harmless differences
  (formatting, order, number notation, capitalisation, paraphrase) are
  accepted when key entities, numbers, units and conclusions agree; missing
  key information or any disagreeing number/unit/entity/conclusion is invalid,
  with a concrete example (miles vs kilometres).
- The three inputs come after the rules, each on its own line with the
  prefixes ``User prompt:``, ``Agent response:``, ``Reference response:``, so
  the rules are read before possibly long answers.
- The output contract comes last, closest to where the model starts writing:
  exactly two plain-text lines, reasoning first (the model explains before it
  commits to a label), then the label restricted to ``valid``/``invalid``.
  It forbids text around the two lines and asks for a decisive label, because
  the parser only accepts the lowercase markers and scores any label other
  than ``valid`` (``**valid**``, ``valid.``, ``partially``) as 0.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agenteval.evaluators.base import UNIT_RANGE
from agenteval.evaluators.llm.operators.constructors import (
    PromptConstructor,
    TurnPrefix,
    current_pair,
    message_text,
)
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.scorers import ScoreResult, numeric
from agenteval.evaluators.llm.pipeline import VotingJudge
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.metric import EvalMetric

if TYPE_CHECKING:
    from agenteval.judge import JudgeReply

PROMPT = """\
You are a strict grader. Your only task is to decide whether an AI agent's final \
answer agrees with a reference answer.

Rules, in order of importance:
- The reference answer is the only ground truth. Grade against it even if you \
believe it is wrong. An agent answer that differs from the reference is invalid, \
even if you think the agent's answer is more accurate.
- If the agent asks for clarification, asks a follow-up question, deflects, or \
refuses instead of answering, the answer is invalid.
- Do not work anything out yourself: no arithmetic, no reading of tables or CSV \
data, no date calculations, no unit conversions. Take the reference answer as \
given and only compare the two answers.
- Ignore differences that leave the content unchanged: formatting, ordering, how \
numbers are written (1000000 versus 1,000,000), capitalisation and paraphrasing, \
as long as the key entities, numbers, units and conclusions are the same.
- The answer is invalid if it leaves out key information that the reference \
contains, or if any number, unit, entity or conclusion disagrees with the \
reference (for example, a distance given in miles where the reference gives \
kilometres).

The turn to grade:
User prompt: {user}
Agent response: {agent}
Reference response: {reference}

Reply in plain text with exactly these two lines and nothing before or after them:
reasoning: <a brief explanation of your decision>
is_the_agent_response_valid: <valid or invalid>

Be decisive: the second line must say exactly valid or invalid.
"""

# Go's RE2 \s is ASCII-only; Python's \s would also match Unicode spaces.
_SPACE = r"[\t\n\f\r ]"
_VERDICT = re.compile(
    rf"reasoning:{_SPACE}*(.*?){_SPACE}*is_the_agent_response_valid:{_SPACE}*(.*?){_SPACE}*$",
    re.MULTILINE | re.DOTALL,
)


class FinalResponsePrompt(PromptConstructor):
    """User prompt, agent response and reference response of the current turn."""

    def prompt(self, turn: TurnPrefix) -> str:
        """The judge prompt for the last turn of the prefix."""
        actual, expected = current_pair(turn)
        return PROMPT.format(
            user=message_text(actual.user_content),
            agent=message_text(actual.final_response),
            reference=message_text(expected.final_response),
        )


class FinalResponseScorer:
    """``reasoning: ...`` / ``is_the_agent_response_valid: ...`` → 1 for valid, else 0."""

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """Parse the two-line verdict; only a missing block is an error (§5.1, §10.1)."""
        if reply is None:
            raise OperatorError("response is nil")
        # Not trimmed first: whitespace-only text fails below as "no blocks found".
        if reply.text == "":
            raise OperatorError("empty response text")
        found = _VERDICT.search(reply.text)
        if found is None:
            raise OperatorError(
                "extract reasoning and label: no final response blocks found in response"
            )
        label = found.group(2).strip().lower()
        score = 1.0 if label == "valid" else 0.0
        return ScoreResult(score=score, reason=found.group(1).strip(), value=numeric(score))


@register_evaluator
class FinalResponseJudge(VotingJudge):
    """Majority vote over samples of a valid/invalid verdict, averaged over turns."""

    name = "llm_final_response"
    description = "LLM judge for final responses"
    # Each sample scores 1 (valid) or 0 (invalid); majority vote per turn, then the mean.
    score_range = UNIT_RANGE
    prompt_class = FinalResponsePrompt
    scorer_class = FinalResponseScorer
