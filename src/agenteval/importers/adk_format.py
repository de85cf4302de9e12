"""Google ADK's eval file format as pydantic models: what ``import adk`` checks before it converts.

The shapes follow google-adk's own models (``google.adk.evaluation.eval_set``,
``eval_case``, ``eval_result``, ``eval_metrics`` and the ``google.genai`` ``Content``
/ ``Part`` / ``FunctionCall`` / ``FunctionResponse`` they hold), reduced to the fields
the import reads; agenteval does not depend on google-adk at run time.  Both key styles
ADK writes are accepted (snake_case from ``model_dump_json()``, camelCase from its web
API).  Types are checked strictly (a number is not a string; a turn is not null),
other keys are ignored: ADK and google-genai add fields from release to release.

Where agenteval has always been more lenient than ADK, it stays so: a case without
``eval_id`` is named ``case-N``, ``session_input`` fields may be missing, an eval result
needs no ids.  What ADK itself refuses and the conversion could only guess at is a
located error: a case with both or neither of ``conversation`` and
``conversation_scenario`` (ADK's own rule), a ``null`` turn, text that is not a string.

Tested in tests/importers/test_adk_format.py.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Tag,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel, to_snake
from pydantic_core import PydanticCustomError

from agenteval.errors import Problem
from agenteval.inputs.loading import validation_problems


class AdkModel(BaseModel):
    """Both key styles, strict JSON types, other keys ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, strict=True, extra="ignore"
    )


class FunctionCall(AdkModel):
    """google.genai ``FunctionCall``: a tool call."""

    id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None


class FunctionResponse(AdkModel):
    """google.genai ``FunctionResponse``: a tool's result, paired to its call by id."""

    id: str | None = None
    name: str | None = None
    response: dict[str, Any] | None = None


class Part(AdkModel):
    """google.genai ``Part``: text, a function call or a function response (the rest ignored)."""

    text: str | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None


class Content(AdkModel):
    """google.genai ``Content``: a role and its parts."""

    role: str | None = None
    parts: list[Part] | None = None


class IntermediateData(AdkModel):
    """ADK ``IntermediateData``: tool uses and responses in order."""

    tool_uses: list[FunctionCall] = []
    tool_responses: list[FunctionResponse] = []
    intermediate_responses: list[Any] = []


class UsageMetadata(AdkModel):
    """google.genai ``GenerateContentResponseUsageMetadata``: what one model call used."""

    prompt_token_count: int | None = None
    tool_use_prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    thoughts_token_count: int | None = None
    cached_content_token_count: int | None = None


class InvocationEvent(AdkModel):
    """ADK ``InvocationEvent``: one event of an invocation (a model call's with its usage)."""

    author: str | None = None
    content: Content | None = None
    usage_metadata: UsageMetadata | None = None
    model_version: str | None = None


class InvocationEvents(AdkModel):
    """ADK ``InvocationEvents``: the other intermediate-data shape, events in order."""

    invocation_events: list[InvocationEvent] = []


# The tags of the two intermediate-data shapes (pydantic puts them in error locations).
_TAGS = frozenset({"IntermediateData", "InvocationEvents"})


def _intermediate_kind(value: Any) -> str:
    if isinstance(value, dict) and ("invocation_events" in value or "invocationEvents" in value):
        return "InvocationEvents"
    return "IntermediateData"


class Invocation(AdkModel):
    """ADK ``Invocation``: one turn."""

    invocation_id: str | None = None
    user_content: Content
    final_response: Content | None = None
    intermediate_data: (
        Annotated[
            Annotated[IntermediateData, Tag("IntermediateData")]
            | Annotated[InvocationEvents, Tag("InvocationEvents")],
            Discriminator(_intermediate_kind),
        ]
        | None
    ) = None
    creation_timestamp: float | None = None


class SessionInput(AdkModel):
    """ADK ``SessionInput``."""

    app_name: str | None = None
    user_id: str | None = None
    state: dict[str, Any] | None = None


class ConversationScenario(AdkModel):
    """ADK ``ConversationScenario`` (a simulated user's start and plan)."""

    starting_prompt: str
    conversation_plan: str


class EvalCase(AdkModel):
    """ADK ``EvalCase``."""

    eval_id: str | None = None
    conversation: list[Invocation] | None = None
    conversation_scenario: ConversationScenario | None = None
    session_input: SessionInput | None = None
    rubrics: list[Any] | None = None

    @model_validator(mode="after")
    def _one_source_of_turns(self) -> EvalCase:
        if (self.conversation is None) == (self.conversation_scenario is None):
            raise PydanticCustomError(
                "adk_case_turns",
                "needs exactly one of conversation and conversation_scenario (as ADK does)",
            )
        return self


class EvalSet(AdkModel):
    """ADK ``EvalSet``."""

    eval_set_id: str | None = None
    name: str | None = None
    description: str | None = None
    eval_cases: list[EvalCase]


class EvalMetricResultPerInvocation(AdkModel):
    """ADK ``EvalMetricResultPerInvocation``: the actual turn and its reference."""

    actual_invocation: Invocation
    expected_invocation: Invocation | None = None


class EvalCaseResult(AdkModel):
    """ADK ``EvalCaseResult``."""

    eval_id: str | None = None
    user_id: str | None = None
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation]


class EvalSetResult(AdkModel):
    """ADK ``EvalSetResult``."""

    eval_set_result_id: str | None = None
    eval_set_result_name: str | None = None
    eval_set_id: str | None = None
    eval_case_results: list[EvalCaseResult] = []


class LegacyToolUse(AdkModel):
    """One expected tool use of a legacy ``*.test.json`` row."""

    tool_name: str
    tool_input: dict[str, Any] | None = None


class LegacyRow(AdkModel):
    """One row (turn) of a legacy ``*.test.json`` file."""

    query: str
    expected_tool_use: list[LegacyToolUse] = []
    reference: str | None = None


_LEGACY: TypeAdapter[list[LegacyRow]] = TypeAdapter(list[LegacyRow])

# What each kind detect.py names is validated as.
_MODELS: dict[str, type[AdkModel]] = {"adk-evalset": EvalSet, "adk-result": EvalSetResult}


def _file_keys(data: Any, loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """``loc`` in the file's own key style (each key spelt as it is there), union tags left out."""
    out: list[int | str] = []
    for part in loc:
        if isinstance(part, int):
            out.append(part)
            data = data[part] if isinstance(data, list) and 0 <= part < len(data) else None
            continue
        if part in _TAGS:
            continue
        if isinstance(data, dict) and part not in data and to_snake(part) in data:
            part = to_snake(part)
        out.append(part)
        data = data.get(part) if isinstance(data, dict) else None
    return tuple(out)


def validate_adk(data: Any, kind: str, file: str) -> tuple[Any, list[Problem]]:
    """``data`` as the ADK model of ``kind`` (a list of rows for ``adk-legacy``), or its problems."""
    try:
        if kind == "adk-legacy":
            return _LEGACY.validate_python(data), []
        return _MODELS[kind].model_validate(data), []
    except ValidationError as exc:
        return None, validation_problems(file, exc, rename=partial(_file_keys, data))


__all__ = [
    "Content",
    "EvalCase",
    "EvalCaseResult",
    "EvalSet",
    "EvalSetResult",
    "FunctionCall",
    "IntermediateData",
    "Invocation",
    "InvocationEvents",
    "LegacyRow",
    "validate_adk",
]
