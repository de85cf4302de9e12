"""Google ADK's eval file format as pydantic models: what ``import adk`` checks before it converts.

The shapes follow google-adk's own models (``google.adk.evaluation.eval_set``,
``eval_case``, ``eval_result``, ``eval_metrics`` and the ``google.genai`` ``Content``
/ ``Part`` / ``FunctionCall`` / ``FunctionResponse`` they hold), reduced to the fields
the import reads; agenteval does not depend on google-adk at run time.  Both key styles
ADK writes are accepted (snake_case from ``model_dump_json()``, camelCase from its web
API).  Types are checked strictly (a number is not a string; a turn is not null).

ADK refuses keys its models do not define; the import reports them (``unknown_keys``):
a near miss of a field (``tool_use`` for ``tool_uses``, ``final_respons``) is an error,
since read as absent it drops the reference's tool calls or answer and an ``IN_ORDER``
trajectory then passes on nothing; any other key is a warning.  ADK's fields the import
does not read (``other_keys``) are no unknown keys.

Where agenteval has always been more lenient than ADK, it stays so: a case without
``eval_id`` is named ``case-N``, ``session_input`` fields may be missing, an eval result
needs no ids.  What ADK itself refuses and the conversion could only guess at is a
located error: a case with both or neither of ``conversation`` and
``conversation_scenario`` (ADK's own rule), a ``null`` turn, text that is not a string.

Tested in tests/importers/test_adk_format.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Annotated, Any, ClassVar

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
from agenteval.importers.adk_config import both_styles, key_problem
from agenteval.inputs import locations
from agenteval.inputs.loading import validation_problems
from agenteval.inputs.unknown_keys import UnknownKey

# The long lists of google-genai fields the import does not read (see AdkModel.other_keys).
_PART_OTHER_KEYS = (
    "audio_transcription",
    "code_execution_result",
    "executable_code",
    "file_data",
    "inline_data",
    "media_processing",
    "media_resolution",
    "part_metadata",
    "speech_metadata",
    "thought",
    "thought_signature",
    "tool_call",
    "tool_response",
    "video_metadata",
)
_USAGE_METADATA_OTHER_KEYS = (
    "cache_tokens_details",
    "candidates_tokens_details",
    "prompt_tokens_details",
    "tool_use_prompt_tokens_details",
    "total_token_count",
    "traffic_type",
)


class AdkModel(BaseModel):
    """Both key styles, strict JSON types, other keys kept (``unknown_keys`` reports them)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, strict=True, extra="allow"
    )
    # The fields google-adk (or google-genai) defines here that the import does not read.
    other_keys: ClassVar[tuple[str, ...]] = ()


class FunctionCall(AdkModel):
    """google.genai ``FunctionCall``: a tool call."""

    other_keys = ("partial_args", "will_continue")

    id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None


class FunctionResponse(AdkModel):
    """google.genai ``FunctionResponse``: a tool's result, paired to its call by id."""

    other_keys = ("parts", "scheduling", "will_continue")

    id: str | None = None
    name: str | None = None
    response: dict[str, Any] | None = None


class Part(AdkModel):
    """google.genai ``Part``: text, a function call or a function response (the rest ignored)."""

    other_keys = _PART_OTHER_KEYS

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

    other_keys = _USAGE_METADATA_OTHER_KEYS

    prompt_token_count: int | None = None
    tool_use_prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    thoughts_token_count: int | None = None
    cached_content_token_count: int | None = None


class InvocationEvent(AdkModel):
    """ADK ``InvocationEvent``: one event of an invocation (a model call's with its usage)."""

    other_keys = ("grounding_metadata",)

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

    other_keys = ("app_details", "duration", "model_duration", "rubrics", "tool_duration")

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

    other_keys = ("session_id",)

    app_name: str | None = None
    user_id: str | None = None
    state: dict[str, Any] | None = None


class ConversationScenario(AdkModel):
    """ADK ``ConversationScenario`` (a simulated user's start and plan)."""

    other_keys = ("user_persona",)

    starting_prompt: str
    conversation_plan: str


class EvalCase(AdkModel):
    """ADK ``EvalCase``."""

    other_keys = ("creation_timestamp", "final_session_state")

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

    other_keys = ("creation_timestamp",)

    eval_set_id: str | None = None
    name: str | None = None
    description: str | None = None
    eval_cases: list[EvalCase]


class EvalMetricResultPerInvocation(AdkModel):
    """ADK ``EvalMetricResultPerInvocation``: the actual turn and its reference."""

    other_keys = ("eval_metric_results",)

    actual_invocation: Invocation
    expected_invocation: Invocation | None = None


class EvalCaseResult(AdkModel):
    """ADK ``EvalCaseResult``."""

    other_keys = (
        "eval_metric_results",
        "eval_set_file",
        "eval_set_id",
        "final_eval_status",
        "overall_eval_metric_results",
        "session_details",
        "session_id",
    )

    eval_id: str | None = None
    user_id: str | None = None
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation]


class EvalSetResult(AdkModel):
    """ADK ``EvalSetResult``."""

    other_keys = ("creation_timestamp",)

    eval_set_result_id: str | None = None
    eval_set_result_name: str | None = None
    eval_set_id: str | None = None
    eval_case_results: list[EvalCaseResult] = []


class LegacyToolUse(AdkModel):
    """One expected tool use of a legacy ``*.test.json`` row."""

    other_keys = ("mock_tool_output",)

    tool_name: str
    tool_input: dict[str, Any] | None = None


class LegacyRow(AdkModel):
    """One row (turn) of a legacy ``*.test.json`` file."""

    other_keys = ("expected_intermediate_agent_responses", "response")

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


def _keys_of(model: AdkModel, data: Any, parts: list[int | str], file: str) -> Iterator[UnknownKey]:
    """The unknown keys of ``model`` (validated from ``data``, found at ``parts``) and below."""
    cls = type(model)
    known = (*cls.model_fields, *cls.other_keys)
    for key in model.model_extra or {}:
        if key not in both_styles(known):
            where = locations.render([*parts, key])
            yield key_problem(file, where, key, known, f"a field of ADK's {cls.__name__}")
    for name, info in cls.model_fields.items():
        key = name if name in data else info.alias or name
        if key in data:
            yield from _keys_below(getattr(model, name), data[key], [*parts, key], file)


def _keys_below(value: Any, data: Any, parts: list[int | str], file: str) -> Iterator[UnknownKey]:
    if isinstance(value, AdkModel) and isinstance(data, dict):
        yield from _keys_of(value, data, parts, file)
    elif isinstance(value, list) and isinstance(data, list):
        for index, (item, raw) in enumerate(zip(value, data, strict=False)):
            yield from _keys_below(item, raw, [*parts, index], file)


def unknown_keys(model: Any, data: Any, file: str) -> list[UnknownKey]:
    """Keys of ``data`` (validated as ``model`` by :func:`validate_adk`) that ADK does not
    define: ``near_miss`` ones are errors, the others warnings."""
    return list(_keys_below(model, data, [], file))


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
    "unknown_keys",
    "validate_adk",
]
