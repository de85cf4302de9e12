"""Eval set file format (formats.md §2): cases, turns, messages and tool calls.

Tested in tests/inputs/test_loading.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field
from pydantic.alias_generators import to_camel

from agenteval.schema.base import Bool, Model, Str, none_as

# The evalMode values (formats.md §2.2; agenteval refuses others: the DECISION there).
EVAL_MODES = ("", "trace")

_camel = ConfigDict(alias_generator=to_camel)


class Message(Model):
    """A model message; keys are snake_case in files (formats.md §2.5)."""

    role: Str = ""
    content: Str = ""
    content_parts: list[dict[str, Any]] | None = None
    tool_id: Str = ""
    tool_name: Str = ""
    tool_calls: list[dict[str, Any]] | None = None
    reasoning_content: Str = ""
    reasoning_signature: Str = ""


class Tool(Model):
    """One tool call with its result (formats.md §2.4)."""

    model_config = _camel

    id: Str = ""
    name: Str = ""
    arguments: Any = None
    result: Any = None


class Usage(Model):
    """What the agent under test spent on one turn (agenteval's own key ``usage``).

    ``inferenceCalls`` model calls using ``inputTokens`` + ``outputTokens`` tokens;
    ``model`` is ``"<providerName>:<modelName>"`` when every call used that one model
    (its price gives the turn's cost), else "".  ``cachedInputTokens`` and
    ``cacheWriteInputTokens`` are parts of ``inputTokens``: read from and written to the
    provider's prompt cache.  trpc-agent-go readers ignore the key.
    """

    model_config = _camel

    input_tokens: Annotated[int, none_as(0)] = 0
    output_tokens: Annotated[int, none_as(0)] = 0
    inference_calls: Annotated[int, none_as(0)] = 0
    model: Str = ""
    # Of inputTokens, those the provider's prompt cache served (priced at the cached rate).
    cached_input_tokens: Annotated[int, none_as(0)] = 0
    # Of inputTokens (apart from the cached ones), those written to the provider's prompt
    # cache: billed above the input price (Anthropic), which the price table has no column
    # for, so a turn with any has no known cost.  Set only when non-zero: a turn without
    # cache writes is written as before.
    cache_write_input_tokens: Annotated[int, none_as(0)] = 0


def _go_field(data: dict[str, Any], name: str) -> Any:
    """``data[name]`` as Go's encoding/json reads a field without a tag: any letter case."""
    if name in data:
        return data[name]
    folded = name.casefold()
    return next((v for k, v in data.items() if k.casefold() == folded), None)


def _count(data: dict[str, Any], key: str) -> int | None:
    """A token count of a Go ``model.Usage``: absent or null is 0 (Go's zero value); None
    for anything Go could not have written (a string, a fraction, a negative number)."""
    value = data.get(key)
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def execution_trace_usage(trace: Any) -> Usage | None:
    """What a trpc-agent-go turn's ``executionTrace`` says its model calls spent, or None.

    trpc-agent-go records a ``model.Usage`` (``prompt_tokens``, ``completion_tokens``,
    ``prompt_tokens_details.cached_tokens``) on each step that called a model and their
    sum on the trace (``agent/trace``: fields without JSON tags, so ``Steps`` and
    ``Usage``).  Each step with usage is one inference call; the trace names no model,
    so such a turn has no price.  None when no step reports usage, or when a step's count
    is not a count (a string, a fraction, a negative number).  ``model.Usage`` has no
    count of prompt-cache writes, so none is read.
    """
    steps = _go_field(trace, "Steps") if isinstance(trace, dict) else None
    usage: Usage | None = None
    for step in steps if isinstance(steps, list) else ():
        spent = _go_field(step, "Usage") if isinstance(step, dict) else None
        if not isinstance(spent, dict):
            continue
        details = spent.get("prompt_tokens_details")
        tokens_in = _count(spent, "prompt_tokens")
        tokens_out = _count(spent, "completion_tokens")
        cached = _count(details, "cached_tokens") if isinstance(details, dict) else 0
        if tokens_in is None or tokens_out is None or cached is None:
            # A count that is no token count: what the turn spent is unknown, never 0.
            return None
        if usage is None:
            usage = Usage()
        usage.inference_calls += 1
        usage.input_tokens += tokens_in
        usage.output_tokens += tokens_out
        usage.cached_input_tokens += cached
    return usage


class Invocation(Model):
    """One conversation turn (formats.md §2.3)."""

    model_config = _camel

    invocation_id: Str = ""
    context_messages: list[Message] | None = None
    user_content: Message | None = None
    final_response: Message | None = None
    tools: list[Tool] | None = None
    tool_mock: Any = None
    intermediate_responses: list[Message] | None = None
    creation_timestamp: float | None = None
    execution_trace: dict[str, Any] | None = None
    # What the agent spent on the turn, when its traces or protocol said (agenteval's own).
    usage: Usage | None = None


class SessionInput(Model):
    """Initial session data of a case (formats.md §2.6)."""

    model_config = _camel

    app_name: Str = ""
    user_id: Str = ""
    state: dict[str, Any] | None = None


class ConversationScenario(Model):
    """Dynamic user simulation (formats.md §2.7); kept and re-written, never run offline."""

    model_config = _camel

    driver: Str = ""
    starting_prompt: Str = ""
    conversation_plan: Str = ""
    stop_signal: Str = ""
    max_allowed_invocations: int | None = None


class RubricContent(Model):
    """The text of a rubric."""

    text: Str = ""


class EvalCaseRubric(Model):
    """A case-level rubric targeting one LLM metric (formats.md §2.8)."""

    model_config = _camel

    metric_name: Str = ""
    id: Str = ""
    content: RubricContent | None = None
    description: Str = ""
    type: Str = ""


class EvalCase(Model):
    """One eval case (formats.md §2.2)."""

    model_config = _camel

    eval_id: Str = ""
    eval_mode: Str = ""
    expected_runner_enabled: Bool = False
    context_messages: list[Message] | None = None
    conversation: list[Invocation | None] | None = None
    conversation_scenario: ConversationScenario | None = None
    actual_conversation: list[Invocation | None] | None = None
    session_input: SessionInput | None = None
    rubrics: list[EvalCaseRubric] | None = None
    creation_timestamp: float | None = None


class EvalSet(Model):
    """An eval set file (formats.md §2.1)."""

    model_config = _camel

    eval_set_id: Str = ""
    name: Str = ""
    description: Str = ""
    eval_cases: Annotated[list[EvalCase | None], none_as(list)] = Field(default_factory=list)
    creation_timestamp: float | None = None

    def cases(self) -> list[EvalCase]:
        """The cases in file order, with null entries skipped."""
        return [case for case in self.eval_cases if case is not None]
