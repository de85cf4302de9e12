"""``llm_rubric_critic``: rubric items judged against an authoritative reference answer (§5.3).

Required inputs, in Go's order: ``actuals is empty``, ``expecteds is empty``,
``eval metric is nil``, ``llm judge criterion is required``, ``llm judge
rubrics are required``, ``actual invocation is nil``, ``expected invocation
is nil``, ``expected final response is required for llm_rubric_critic`` (an
empty reference text is allowed; a missing actual answer reads as empty).
Rubric ids are checked by the structured-output step, not here.  The reply is
the rubric-scores JSON (schema ``rubric_critic_scores``).

How the prompt was designed (our own wording; it states every rule of §5.3):

- The judge is told who it is (``llm_rubric_critic``) and that it runs a
  scoring procedure rather than giving advice, so it produces verdicts, not
  suggestions for improving the answer.
- The reference answer comes first among the rules and is called
  authoritative: the judge may not correct it or replace it with its own
  view.  Evidence is limited to the user prompt, the final answer and the
  reference; tool traces, hidden reasoning, outside facts and guesses are out.
- The core of the prompt is the line between a material defect (score 0) and
  a harmless difference (score 1).  Both sides are listed explicitly, because
  critics drift to nitpicking: the material list is §5.3's (missing required
  information; a wrong entity, number, unit, condition or conclusion; a
  contradiction of the reference; weaker or incomplete content that matters;
  asking back, refusing or deflecting when the reference shows the task can
  be done; fulfilment that cannot be verified), the harmless list covers
  style, tone, length, format, order, paraphrase and extra detail that does
  not contradict, weaken or obscure anything.
- Conditional items may be scored 1 as not applicable only when the condition
  is clearly unmet.  A short per-item procedure (read the item, find the
  reference's requirement, find the answer's content, compare, decide) is
  given for the judge to follow silently.
- Inputs follow in §5.3's order (``<user_prompt>``/``<main_prompt>``,
  ``<final_answer>``, ``<reference_answer>``, ``<rubric>``); the shared JSON
  contract ends the prompt, with evidence labels Golden/Actual/User.

Tested in tests/evaluators/llm/test_rubric_judge.py.
"""

from __future__ import annotations

from typing import ClassVar

from agenteval.evaluators.base import UNIT_RANGE
from agenteval.evaluators.llm.operators.constructors import (
    TurnPrefix,
    current_pair,
    message_text,
)
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.rubric_judge import (
    RubricJudge,
    RubricPrompt,
    check_rubric_metric,
)
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.evalset import Invocation

CRITIC = "llm_rubric_critic"


# Both critics end on the same rules (independent items, equivalence, material defects,
# no nitpicking, conditional items) and the same frame of a per-item procedure (§5.4 keeps
# §5.3's skeleton); the words for what must match, what may not be contradicted, §5.4's
# extra defect and the middle steps differ.
_CLOSING = """\
{independent}. Judge every item independently of the others.
{equivalence}. Accept semantic equivalence: a paraphrase, a different order, a more \
concise wording or harmless formatting differences meet an item as long as \
the {same} is the same.
{defects}. Score 0 only for a material defect, that is:
   - required information is missing;
   - an entity, number, unit, condition or conclusion is wrong;
   - the answer contradicts {contradicted};
   - the content is weaker or less complete than the reference in a way that \
matters for the item;
{extra_defect}   - the answer asks for clarification, refuses or deflects although the \
reference answer shows the task can be done;
   - whether the item is met cannot be verified from the evidence.
{nitpick}. Do not nitpick. Style, tone, length, format and ordering are not defects, \
and you must not invent requirements that the item does not state. Extra \
detail in the answer only matters when it contradicts, weakens or obscures \
the required content.
{conditional}. A conditional item may be scored 1 as not applicable only when its \
condition is clearly not met. If that is not clear, treat the item as \
applicable.

# Procedure for each item (follow it silently; do not write it out)

1. Read the item and decide what it requires.
{steps}5. Decide the score and write a short reason.
"""


def critic_closing(first: int, same: str, contradicted: str, extra_defect: str, steps: str) -> str:
    """The critics' last five rules (numbered from ``first``) and their silent procedure.

    ``same``: what must be the same for equivalence; ``contradicted``: what the answer may
    not contradict; ``extra_defect``: a defect line of one critic's own (``""`` for none);
    ``steps``: the procedure's lines 2 to 4.
    """
    return _CLOSING.format(
        independent=first,
        equivalence=first + 1,
        same=same,
        defects=first + 2,
        contradicted=contradicted,
        extra_defect=extra_defect,
        nitpick=first + 3,
        conditional=first + 4,
        steps=steps,
    )


# The procedure's middle: the reference's requirement, the answer's content, compared.
_STEPS = """\
2. Find what the reference answer says about that requirement.
3. Find what the final answer says about it.
4. Compare the two and check for a material defect.
"""

INSTRUCTIONS = """\
You are llm_rubric_critic, an evaluator that executes a scoring procedure. You \
do not give advice and you do not rewrite answers: for each item in <rubric> \
you decide whether the agent's final answer in <final_answer> meets it, using \
the reference answer in <reference_answer> as the target.

# Rules

1. Score only the items listed in <rubric>. Do not add items of your own.
2. The reference answer is authoritative. It defines what the correct content \
is. Never correct it, question it or replace it with what you believe.
3. Your only evidence is <user_prompt>, <final_answer> and <reference_answer>. \
Do not use tool traces, hidden reasoning, facts from outside these inputs, or \
guesses.
""" + critic_closing(4, "content", "the reference answer", "", _STEPS)


def critic_inputs(turn: TurnPrefix, evaluator: str) -> tuple[Invocation, Invocation]:
    """The current (actual, expected) pair after §5.3's checks, in Go's order."""
    if not turn.actuals:
        raise OperatorError("actuals is empty")
    if not turn.expecteds:
        raise OperatorError("expecteds is empty")
    check_rubric_metric(turn)
    actual, expected = current_pair(turn)
    if expected.final_response is None:
        raise OperatorError(f"expected final response is required for {evaluator}")
    return actual, expected


class CriticPrompt(RubricPrompt):
    """A critic's input (§5.3, §5.4): the checked current pair; ``evidence`` lays out its answers."""

    evaluator: ClassVar[str]
    evidence: ClassVar[str]

    def inputs(self, turn: TurnPrefix) -> tuple[Invocation, str]:
        """The current turn and the evidence section holding its answer and the reference."""
        actual, expected = critic_inputs(turn, self.evaluator)
        answer = message_text(actual.final_response)
        reference = message_text(expected.final_response)
        return actual, self.evidence.format(answer=answer, reference=reference)


class RubricCriticPrompt(CriticPrompt):
    """User prompt, final answer, reference answer and rubrics of the current turn."""

    schema_name = "rubric_critic_scores"
    schema_description = "Per-rubric binary scores and reasons for rubric critic evaluation."
    evaluator = CRITIC
    instructions = INSTRUCTIONS
    evidence = "<final_answer>\n{answer}\n</final_answer>\n\n<reference_answer>\n{reference}\n</reference_answer>\n\n"
    sources = (
        "Golden: from <reference_answer>; Actual: from <final_answer>; User: from <user_prompt>"
    )


@register_evaluator
class RubricCriticJudge(RubricJudge):
    """Per-rubric 0/1 verdicts against the reference answer, averaged; majority vote."""

    name = CRITIC
    description = "LLM rubric critic evaluator"
    # Each turn scores the mean of its rubric scores, each 0..1 (Go accepts fractions); then the mean.
    score_range = UNIT_RANGE
    prompt_class = RubricCriticPrompt
