"""What the four built-in rubric evaluators share (llm-evaluators.md §4.1–§4.5, §5.3–§5.6).

Each of ``llm_rubric_response``, ``llm_rubric_critic``,
``llm_rubric_reference_critic`` and ``llm_rubric_knowledge_recall`` is a
:class:`RubricJudge`: a :class:`RubricPrompt` (one user message plus the strict
rubric-scores schema of §4.3 under an evaluator-specific name), the
``rubric_scores`` scorer (§4.5), majority vote over samples and the average
over turns.

The reply contract (:func:`output_contract`) is one paragraph of our own
wording shared by the four prompts, because §5.3–§5.6 give them the same JSON
contract: one item per rubric in the given order with the exact id, a binary
score, and a short reason that cites its evidence.  It is the last thing in
every prompt, right before the model starts writing, and it says that the
example values are placeholders, since a model tends to copy an example's
score.  The id is the text before the first ``": "`` of a rubric line, which
is how §4.1 renders rubrics (``<id>: <text>``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from agenteval.evaluators.base import ConfigIssue
from agenteval.evaluators.checks.judge_config import LLM_JUDGE
from agenteval.evaluators.llm.operators.constructors import (
    PromptConstructor,
    TurnPrefix,
    message_text,
    rubric_block,
)
from agenteval.evaluators.llm.operators.registry import OperatorError, quoted
from agenteval.evaluators.llm.operators.rubrics import rubric_scores_schema, visible_rubrics
from agenteval.evaluators.llm.operators.scorers import response_scorers
from agenteval.evaluators.llm.pipeline import JudgeEvaluator, Operators
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric, LLMCriterion

if TYPE_CHECKING:
    from agenteval.judge import StructuredOutput

RUBRICS_PATH = f"{LLM_JUDGE}.rubrics"

_OUTPUT_CONTRACT = """\
# Reply format

Reply with one JSON object and nothing else: no Markdown code fence, no \
comments, no text before or after it, no trailing commas, no extra fields. \
Its shape is:

{"rubricScores": [{"id": "<rubric id>", "score": <1 or 0>, "reason": "<one short note>"}]}

- Give exactly one item per rubric line in <rubric>, in the same order.
- "id" is the text before the first ": " of that rubric line, copied exactly.
- "score" is the number 1 (the item is satisfied) or 0 (it is not); never a \
string, never a value in between.
- "reason" is one or two sentences: the evidence you relied on, labelled with \
where it comes from (<SOURCES>), then your judgment.
- When you score 1 because an item does not apply, the reason says what in \
the input shows that it does not apply.
- The placeholders in the shape above are not defaults. Decide every score \
from the evidence.
"""


def output_contract(sources: str) -> str:
    """The shared reply contract; ``sources`` names the evidence labels the reason may use."""
    return _OUTPUT_CONTRACT.replace("<SOURCES>", sources)


def rubric_prompt(instructions: str, user: str, evidence: str, rubrics: str, sources: str) -> str:
    """A rubric prompt: instructions, user prompt, the evaluator's evidence, rubrics, reply contract."""
    return (
        f"{instructions}\n# Input\n\n<user_prompt>\n<main_prompt>\n{user}\n</main_prompt>\n</user_prompt>\n\n"
        f"{evidence}<rubric>\n{rubrics}</rubric>\n\n{output_contract(sources)}"
    )


def check_rubric_metric(turn: TurnPrefix) -> LLMCriterion:
    """The metric checks every rubric constructor runs: metric, criterion, visible rubrics."""
    metric: EvalMetric | None = turn.metric
    if metric is None:
        raise OperatorError("eval metric is nil")
    llm_judge = metric.criterion.llm_judge if metric.criterion is not None else None
    if llm_judge is None:
        raise OperatorError("llm judge criterion is required")
    if not visible_rubrics(metric):
        raise OperatorError("llm judge rubrics are required")
    return llm_judge


def last_actual(turn: TurnPrefix) -> Invocation:
    """The current actual turn (``actuals is empty`` / ``actual invocation is nil`` otherwise)."""
    if not turn.actuals:
        raise OperatorError("actuals is empty")
    actual: Invocation | None = turn.actuals[-1]
    if actual is None:
        raise OperatorError("actual invocation is nil")
    return actual


def checked_actual(turn: TurnPrefix) -> Invocation:
    """The current actual turn after the checks of the evaluators that ignore expected turns."""
    if not turn.actuals:
        raise OperatorError("actuals is empty")
    check_rubric_metric(turn)
    return last_actual(turn)


class RubricPrompt(PromptConstructor):
    """A rubric judge input: one user message and the strict rubric-scores schema.

    The built-in prompts are ``instructions``, the user prompt, the evaluator's
    evidence section (from :meth:`inputs`), the rubrics and the reply contract
    naming ``sources``.
    """

    schema_name: ClassVar[str]
    schema_description: ClassVar[str]
    instructions: ClassVar[str]
    sources: ClassVar[str]

    def inputs(self, turn: TurnPrefix) -> tuple[Invocation, str]:
        """The checked current actual turn and the evidence section, raising Go's input errors."""
        raise NotImplementedError

    def prompt(self, turn: TurnPrefix) -> str:
        """The judge prompt for the last turn of the prefix."""
        actual, evidence = self.inputs(turn)
        user = message_text(actual.user_content)
        return rubric_prompt(
            self.instructions, user, evidence, rubric_block(turn.metric), self.sources
        )

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        """§4.3's schema under this evaluator's name; raises §4.2's rubric id errors."""
        return rubric_scores_schema(turn.metric, self.schema_name, self.schema_description)


class AnswerPrompt(RubricPrompt):
    """Evidence from the current turn's final answer, laid out by ``evidence`` (``{answer}``)."""

    evidence: ClassVar[str]

    def inputs(self, turn: TurnPrefix) -> tuple[Invocation, str]:
        """The checked current turn and its final answer in the evidence layout."""
        actual = checked_actual(turn)
        return actual, self.evidence.format(answer=message_text(actual.final_response))


class RubricJudge(JudgeEvaluator):
    """A rubric evaluator: its prompt, ``rubric_scores``, majority vote, average."""

    prompt_class: ClassVar[type[RubricPrompt]]

    def prompt_constructor(self) -> RubricPrompt:
        """The evaluator's messages constructor."""
        return self.prompt_class()

    def default_operators(self) -> Operators:
        """The rubric prompt, the ``rubric_scores`` scorer, majority vote and average."""
        return Operators.voting(
            self.prompt_constructor(), response_scorers.resolve("rubric_scores")
        )

    def check_llm_judge(self, metric: EvalMetric, llm_judge: LLMCriterion) -> Iterable[ConfigIssue]:
        """Rubric ids that no case could fix are errors; no rubrics at all is a warning."""
        return rubric_issues(metric)


def rubric_issues(metric: EvalMetric) -> list[ConfigIssue]:
    """Problems of ``criterion.llmJudge.rubrics`` a rubric evaluator would hit on every case."""
    llm_judge = metric.criterion.llm_judge if metric.criterion is not None else None
    rubrics = (llm_judge.rubrics if llm_judge is not None else None) or []
    visible = [(i, r) for i, r in enumerate(rubrics) if r.content is not None]
    if not visible:
        # Case-level rubrics (llm-evaluators.md §7) may still supply every rubric.
        return [
            ConfigIssue(
                RUBRICS_PATH,
                "llm judge rubrics are required",
                f"{metric.evaluator} scores rubrics; cases without case-level rubrics "
                "for this metric will fail",
                warning=True,
            )
        ]
    issues: list[ConfigIssue] = []
    seen: set[str] = set()
    for index, rubric in visible:
        rubric_id = rubric.id.strip()
        where = f"{RUBRICS_PATH}[{index}].id"
        if not rubric_id:
            issues.append(
                ConfigIssue(
                    where,
                    "llm judge rubric id is required for structured output",
                    "give every rubric a unique id",
                )
            )
        elif rubric_id in seen:
            issues.append(ConfigIssue(where, f"duplicate llm judge rubric id {quoted(rubric_id)}"))
        seen.add(rubric_id)
    return issues
