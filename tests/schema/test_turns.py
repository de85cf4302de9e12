"""Every case layout of formats.md §2.10 gives the right actual/expected turns or the right error."""

from __future__ import annotations

from typing import Any

import pytest

from agenteval.schema import EvalCase, Invocation
from agenteval.schema.turns import CaseLayoutError, case_turns


def turn(text: str, answer: str | None = None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "invocationId": f"id-{text}",
        "userContent": {"role": "user", "content": text},
    }
    if answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    data.update(extra)
    return data


SCENARIO = {"conversationPlan": "ask about weather"}


def case(**fields: Any) -> EvalCase:
    data = {"evalId": "c", "sessionInput": {"userId": "u"}}
    data.update(fields)
    return EvalCase.model_validate(data)


def texts(turns: list[Invocation]) -> list[str]:
    return [t.user_content.content if t.user_content else "" for t in turns]


def test_trace_with_both_conversations() -> None:
    actual, expected = case_turns(
        case(evalMode="trace", actualConversation=[turn("a", "x")], conversation=[turn("a", "y")])
    )
    assert [t.final_response.content for t in actual if t.final_response] == ["x"]
    assert [t.final_response.content for t in expected if t.final_response] == ["y"]


def test_trace_actual_only_gives_placeholders() -> None:
    actual, expected = case_turns(
        case(evalMode="trace", actualConversation=[turn("a", "x", tools=[{"name": "t"}])])
    )
    assert texts(expected) == ["a"]
    assert expected[0].final_response is None and not expected[0].tools
    assert expected[0].invocation_id == actual[0].invocation_id


def test_legacy_trace_conversation_is_the_actual_trace() -> None:
    actual, expected = case_turns(case(evalMode="trace", conversation=[turn("a", "x")]))
    assert actual[0].final_response is not None and actual[0].final_response.content == "x"
    assert expected[0].final_response is None


def test_default_mode_uses_supplied_traces() -> None:
    traces = {"c": [Invocation.model_validate(turn("a", "recorded"))]}
    actual, expected = case_turns(case(conversation=[turn("a", "ref")]), traces)
    assert actual[0].final_response is not None and actual[0].final_response.content == "recorded"
    assert expected[0].final_response is not None and expected[0].final_response.content == "ref"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"conversation": [turn("a")]}, "--traces"),
        ({"conversationScenario": SCENARIO}, "user simulator"),
        (
            {"conversation": [turn("a")], "conversationScenario": SCENARIO},
            "cannot both be configured",
        ),
        ({}, "invocations are empty"),
        ({"actualConversation": [turn("a")]}, "only supported in trace mode"),
        ({"evalMode": "trace"}, "invocations are empty"),
        (
            {
                "evalMode": "trace",
                "actualConversation": [turn("a")],
                "conversationScenario": SCENARIO,
            },
            "not supported in trace mode",
        ),
        (
            {
                "evalMode": "trace",
                "actualConversation": [turn("a"), turn("b")],
                "conversation": [turn("a")],
            },
            "length 2 does not match conversation length 1",
        ),
        (
            {"evalMode": "trace", "actualConversation": [turn("a"), None]},
            "actual invocation is nil at index 1",
        ),
        (
            {"evalMode": "trace", "actualConversation": [{"invocationId": "x"}]},
            "user content is nil at index 0",
        ),
        (
            {"evalMode": "trace", "actualConversation": [turn("a")], "expectedRunnerEnabled": True},
            "expectedRunnerEnabled",
        ),
        (
            {"evalMode": "trace", "actualConversation": [turn("a")], "sessionInput": None},
            "session input is nil",
        ),
    ],
)
def test_layout_errors(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(CaseLayoutError, match=message):
        case_turns(case(**fields))


def test_context_messages_are_attached_to_turns_without_them() -> None:
    system = {"role": "system", "content": "be brief"}
    own = {"role": "system", "content": "own"}
    actual, expected = case_turns(
        case(
            evalMode="trace",
            contextMessages=[system],
            actualConversation=[turn("a"), turn("b", contextMessages=[own])],
        )
    )
    assert [t.context_messages[0].content for t in actual if t.context_messages] == [
        "be brief",
        "own",
    ]
    assert [t.context_messages[0].content for t in expected if t.context_messages] == [
        "be brief",
        "be brief",
    ]


def test_trpc_execution_trace_usage_becomes_the_actual_turns_usage() -> None:
    from agenteval.schema.evalset import Usage, execution_trace_usage

    step = {"NodeType": "llm", "Usage": {"prompt_tokens": 100, "completion_tokens": 7,
            "prompt_tokens_details": {"cached_tokens": 40}}}  # fmt: skip
    # Go reads untagged fields in any letter case; a step without usage made no model call.
    lower = {"steps": [{"usage": {"prompt_tokens": 5, "completion_tokens": 1}}, {"usage": None}]}
    trace = {"Steps": [step, step, {"NodeType": "tool", "Usage": None}]}
    expected = Usage(input_tokens=200, output_tokens=14, inference_calls=2, cached_input_tokens=80)
    assert execution_trace_usage(trace) == expected
    assert execution_trace_usage(lower) == Usage(input_tokens=5, output_tokens=1, inference_calls=1)
    assert execution_trace_usage({"Steps": [{"NodeType": "tool"}]}) is None
    assert execution_trace_usage("not a trace") is None
    case = EvalCase.model_validate(
        {"evalId": "c", "evalMode": "trace", "sessionInput": {},
         "actualConversation": [{"userContent": {"content": "q"}, "executionTrace": trace}]}
    )  # fmt: skip
    actuals, _ = case_turns(case)
    assert actuals[0].usage == expected
    # A turn that says its usage itself keeps it.
    case.actual_conversation[0].usage = Usage(input_tokens=1)  # type: ignore[index]
    assert case_turns(case)[0][0].usage == Usage(input_tokens=1)


@pytest.mark.parametrize(
    "spent",
    [
        {"prompt_tokens": "x", "completion_tokens": 3},
        {"prompt_tokens": -5, "completion_tokens": 3},
        {"prompt_tokens": 5, "completion_tokens": 1e300},
        {"prompt_tokens": 5, "completion_tokens": 2.5},
        {"prompt_tokens": 5, "completion_tokens": True},
        {"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": "all"}},
    ],
)
def test_a_step_whose_count_is_no_count_leaves_the_turns_usage_unknown(
    spent: dict[str, Any],
) -> None:
    from agenteval.schema.evalset import Usage, execution_trace_usage

    # Never read as 0 tokens: a turn of unknown usage is not evaluated by token_usage.
    good = {"Usage": {"prompt_tokens": 10, "completion_tokens": 2}}
    assert execution_trace_usage({"Steps": [good]}) == Usage(
        input_tokens=10, output_tokens=2, inference_calls=1
    )
    assert execution_trace_usage({"Steps": [good, {"Usage": spent}]}) is None
    # Absent or null counts are Go's zero value.
    absent = {"Usage": {"prompt_tokens": None}}
    assert execution_trace_usage({"Steps": [absent]}) == Usage(inference_calls=1)


@pytest.mark.parametrize("trace", [5, "x", True, [1]])
def test_an_execution_trace_that_is_no_object_is_a_located_error(trace: Any) -> None:
    # Go decodes it into its trace struct and refuses anything else; it was read silently.
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as caught:
        Invocation.model_validate({"executionTrace": trace})
    (error,) = caught.value.errors()
    assert error["loc"] == ("executionTrace",)
