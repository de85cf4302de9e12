"""``llm_rubric_reference_critic``: rubric items judged with the reference as a quality anchor (§5.4).

Same required inputs and order as ``llm_rubric_critic`` (the last error reads
``expected final response is required for llm_rubric_reference_critic``);
schema ``rubric_reference_critic_scores``; scorer ``rubric_scores``.

How the prompt was designed (our own wording; it states every rule of §5.4):

- It keeps the critic's skeleton (identity, "score only the listed items",
  narrow evidence, independent items, equivalence, no nitpicking, the
  conditional rule, a silent per-item procedure), so the two critics differ
  only where §5.4 differs.
- The difference is the role of the reference answer, stated early and in
  concrete terms: it is a *quality anchor*, not a text to match.  It sets the
  expected level of grounding, specificity, completeness and fidelity; the
  wording and structure may differ, but the decisive facts, the constraints
  and the useful grounded detail that the user's request supports must be
  there too.
- The material-defect list adds "specific detail that the allowed evidence
  cannot back up" (a reference-anchored judge otherwise rewards invented
  precision) and makes a contradiction of the reference *or* of the user
  request a defect.
- The inputs follow §5.4's order, which differs from the critic's: the
  reference comes before the answer, and the answer sits inside
  ``<response>``; evidence labels are Reference/Actual/User.

Tested in tests/evaluators/llm/test_rubric_judge.py.
"""

from __future__ import annotations

from agenteval.evaluators.base import UNIT_RANGE
from agenteval.evaluators.llm.rubric_critic import CriticPrompt, critic_closing
from agenteval.evaluators.llm.rubric_judge import RubricJudge
from agenteval.evaluators.registry import register_evaluator

REFERENCE_CRITIC = "llm_rubric_reference_critic"

INSTRUCTIONS = """\
You are llm_rubric_reference_critic, an evaluator that executes a scoring \
procedure. You do not give advice and you do not rewrite answers: for each \
item in <rubric> you decide whether the agent's final answer in \
<final_answer> meets it.

# How to use the reference answer

The reference answer in <reference_answer> is a quality anchor, not a text to \
copy. It shows the level of grounding, specificity, completeness and fidelity \
that a good answer reaches. The final answer does not need the same wording \
or structure, but it must contain the same decisive facts, respect the same \
constraints, and offer the useful, grounded detail that the reference offers \
where the user's request calls for it.

# Rules

1. Score only the items listed in <rubric>. Do not add items of your own.
2. Your only evidence is <user_prompt>, <reference_answer> and \
<final_answer>. Do not use tool traces, hidden reasoning, facts from outside \
these inputs, or guesses.
""" + critic_closing(
    3,
    "substance",
    "the reference answer or the user's request",
    "   - the answer gives specific details that the allowed evidence cannot back up;\n",
    """\
2. Find how the reference answer meets that requirement.
3. Find what the final answer offers for it.
4. Compare the substance and check for a material defect.
""",
)


class RubricReferenceCriticPrompt(CriticPrompt):
    """User prompt, reference answer, final answer and rubrics of the current turn."""

    schema_name = "rubric_reference_critic_scores"
    schema_description = (
        "Per-rubric binary scores and reasons for rubric reference critic evaluation."
    )
    evaluator = REFERENCE_CRITIC
    instructions = INSTRUCTIONS
    # §5.4 puts the reference before the answer, and the answer inside <response>.
    evidence = (
        "<reference_answer>\n{reference}\n</reference_answer>\n\n"
        "<response>\n<final_answer>\n{answer}\n</final_answer>\n</response>\n\n"
    )
    sources = (
        "Reference: from <reference_answer>; Actual: from <final_answer>; User: from <user_prompt>"
    )


@register_evaluator
class RubricReferenceCriticJudge(RubricJudge):
    """Per-rubric 0/1 verdicts anchored on the reference's quality, averaged; majority vote."""

    name = REFERENCE_CRITIC
    description = "LLM rubric critic evaluator against reference answers"
    # Each turn scores the mean of its rubric scores, each 0..1 (Go accepts fractions); then the mean.
    score_range = UNIT_RANGE
    prompt_class = RubricReferenceCriticPrompt
