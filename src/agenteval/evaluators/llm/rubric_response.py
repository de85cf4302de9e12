"""``llm_rubric_response``: does the final answer satisfy each rubric item? (llm-evaluators.md §5.5)

Required inputs, in Go's order: ``actuals is empty``, ``eval metric is nil``,
``llm judge criterion is required``, ``llm judge rubrics are required`` (and,
unlike Go, which would crash, ``actual invocation is nil``).  Expected turns
are ignored.  The judge reads the current turn's user prompt and final answer
and the rubric block; the reply is the rubric-scores JSON (schema
``rubric_response_scores``), scored by ``rubric_scores``.

How the prompt was designed (our own wording; it states every rule of §5.5):

- It starts with the task and the meaning of the two scores, so every later
  rule reads as a refinement of "1 = satisfied or clearly not applicable,
  0 = applicable and not satisfied, or not verifiable".
- The evidence rules come next and are deliberately narrow: only the user
  prompt and the final answer count; tool calls, intermediate steps, hidden
  reasoning and the judge's own knowledge do not.  A fact the answer asserts
  but the two inputs cannot confirm scores 0, which keeps the judge from
  rewarding confident but unverifiable answers.
- Equivalence is spelled out (paraphrase, reordering, equal numbers written
  differently, rounding that leaves the conclusion unchanged) because strict
  judges otherwise fail correct answers on formatting.
- Conditional items get their own rule: "not applicable" earns 1 only when
  the prompt or answer shows clearly that the condition does not hold, and the
  reason must say what shows it.
- The inputs follow in the fixed tag order of §5.5 (``<user_prompt>`` with
  ``<main_prompt>``, ``<response>`` with ``<final_answer>``, ``<rubric>``),
  and the shared JSON reply contract of :mod:`.rubric_judge` ends the prompt.

Tested in tests/evaluators/llm/test_rubric_judge.py.
"""

from __future__ import annotations

from agenteval.evaluators.base import UNIT_RANGE
from agenteval.evaluators.llm.rubric_judge import AnswerPrompt, RubricJudge
from agenteval.evaluators.registry import register_evaluator

INSTRUCTIONS = """\
You are the grader of an AI agent's final answer. For every item in <rubric>, \
decide whether the final answer in <final_answer> satisfies it.

# What the scores mean

- 1: the final answer satisfies the item, or the item is a conditional one \
whose condition clearly does not apply to this conversation.
- 0: the item applies and the final answer does not satisfy it, or satisfying \
it depends on a fact that cannot be confirmed without doubt from the user \
prompt and the final answer alone.

# Rules

1. Judge the content of the final answer only. Tool calls, intermediate steps \
and any reasoning that led to the answer are not part of what you grade.
2. Your only evidence is <user_prompt> and <final_answer>. Do not bring in \
outside knowledge, and do not assume facts that neither of them states.
3. Treat equivalent content as equal: paraphrases, a different order, \
numbers written another way, and small rounding differences that leave the \
conclusion unchanged all satisfy an item that asks for the same content.
4. Conditional items ("if ..., the answer must ..."): score 1 as not \
applicable only when the user prompt or the final answer makes it clear that \
the condition does not hold, and say in the reason what makes it clear. If \
you cannot tell, treat the item as applicable and grade it.
5. Grade each item on its own; one item's result must not influence another's.
"""


class RubricResponsePrompt(AnswerPrompt):
    """User prompt, final answer and rubrics of the current turn."""

    schema_name = "rubric_response_scores"
    schema_description = "Per-rubric binary scores and reasons for rubric response evaluation."
    instructions = INSTRUCTIONS
    evidence = "<response>\n<final_answer>\n{answer}\n</final_answer>\n</response>\n\n"
    sources = "User: from <user_prompt>; Answer: from <final_answer>"


@register_evaluator
class RubricResponseJudge(RubricJudge):
    """Per-rubric 0/1 verdicts on the final answer, averaged; majority vote over samples."""

    name = "llm_rubric_response"
    description = "LLM rubric response evaluator"
    # Each turn scores the share of its rubrics met (1 or 0 each); then the mean.
    score_range = UNIT_RANGE
    prompt_class = RubricResponsePrompt
