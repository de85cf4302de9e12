"""Messages constructors: what the judge reads for one turn (llm-evaluators.md §2, §4.1).

A constructor receives the turn *prefix* (every turn up to and including the
current one) and returns the judge messages; it may also return a
structured-output schema.  Most constructors read only the last turn.  A
constructor that needs a judge call of its own (the hallucination evaluator's
segmentation step) makes it through the ``ask`` callable it is given, and lets
any ``JudgeError`` propagate: the pipeline turns it into a ``not_evaluated``
turn like a failed sample call.

Tested in tests/evaluators/llm/test_pipeline.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.schema.evalset import Invocation, Message
from agenteval.schema.metric import EvalMetric, LLMCriterion, Rubric

if TYPE_CHECKING:
    from agenteval.judge import ChatMessage, JudgeReply, StructuredOutput


@dataclass(frozen=True, slots=True)
class TurnPrefix:
    """The turns up to the current one (index-aligned) and the metric being scored."""

    actuals: Sequence[Invocation]
    expecteds: Sequence[Invocation]
    metric: EvalMetric

    @property
    def index(self) -> int:
        """0-based index of the current turn."""
        return len(self.actuals) - 1

    @property
    def llm_judge(self) -> LLMCriterion | None:
        """The metric's ``criterion.llmJudge``, if any."""
        criterion = self.metric.criterion
        return criterion.llm_judge if criterion is not None else None


class JudgeAsk(Protocol):
    """One extra judge call with the metric's judge settings (raises ``JudgeError``)."""

    async def __call__(
        self, messages: Sequence[ChatMessage], schema: StructuredOutput | None = None
    ) -> JudgeReply:
        """Ask the judge once and return its reply."""
        ...


class MessagesConstructor(Protocol):
    """Builds the judge input of one turn."""

    async def construct(self, turn: TurnPrefix, ask: JudgeAsk) -> Sequence[ChatMessage]:
        """The judge messages for ``turn``; raise ``OperatorError`` when inputs are missing."""
        ...

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        """The reply schema for ``turn`` (``None``: unconstrained); called after ``construct``."""
        ...


class PromptConstructor:
    """A constructor whose judge input is one user message built from the turn prefix."""

    def prompt(self, turn: TurnPrefix) -> str:
        """The text of the single user message."""
        raise NotImplementedError

    async def construct(self, turn: TurnPrefix, ask: JudgeAsk) -> Sequence[ChatMessage]:
        """``[user: prompt(turn)]``."""
        from agenteval.judge import ChatMessage

        return (ChatMessage("user", self.prompt(turn)),)

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        """No schema unless a subclass provides one."""
        return None


def message_text(message: Message | None) -> str:
    """A message's ``content`` as the judge sees it, ``""`` when absent (never trimmed)."""
    return message.content if message is not None else ""


def current_pair(turn: TurnPrefix) -> tuple[Invocation, Invocation]:
    """The current (actual, expected) turn, with Go's errors for missing inputs."""
    if not turn.actuals:
        raise OperatorError("actuals is empty")
    if not turn.expecteds:
        raise OperatorError("expecteds is empty")
    actual, expected = turn.actuals[-1], turn.expecteds[-1]
    # Lists from files never hold None, but a plugin runner might pass them.
    if actual is None:
        raise OperatorError("actual invocation is nil")
    if expected is None:
        raise OperatorError("expected invocation is nil")
    return actual, expected


def rubric_text(rubric: Rubric) -> str:
    """``content.text`` of a rubric (``""`` when not a string)."""
    text = (rubric.content or {}).get("text")
    return text if isinstance(text, str) else ""


def rubric_block(metric: EvalMetric) -> str:
    """``<id>: <text>\\n`` per rubric with content, ids untrimmed (§4.1)."""
    criterion = metric.criterion.llm_judge if metric.criterion else None
    rubrics = criterion.rubrics if criterion else None
    return "".join(
        f"{r.id}: {rubric_text(r)}\n"
        for r in rubrics or ()
        if r is not None and r.content is not None
    )
