"""Text out of every message shape GenAI spans carry (semconv parts, trpc-agent-go, Gemini, events)."""

from __future__ import annotations

import json

import pytest

from agenteval.importers.genai_messages import (
    ASSISTANT_ROLES,
    USER_ROLES,
    last_text,
    message_role,
    message_text,
    messages_of,
    parse_json,
)

SEMCONV_INPUT = json.dumps(
    [
        {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
        {"role": "user", "parts": [{"type": "text", "content": "Old question"}]},
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": {}}],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "42"}]},
        {
            "role": "user",
            "parts": [{"type": "text", "content": "New"}, {"type": "text", "content": "question"}],
        },
    ]
)
TRPC_OUTPUT = json.dumps([{"index": 0, "message": {"role": "assistant", "content": "Answer."}}])
ADK_REQUEST = json.dumps(
    {
        "model": "gemini-2.5-flash",
        "contents": [
            {"role": "user", "parts": [{"text": "Roll a die"}]},
            {"role": "model", "parts": [{"function_call": {"name": "roll", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"function_response": {"name": "roll", "response": {"n": 4}}}],
            },
        ],
    }
)
ADK_RESPONSE = json.dumps(
    {"content": {"role": "model", "parts": [{"text": "You rolled"}, {"text": "a 4."}]}}
)


def test_semconv_parts_last_user_text_joins_text_parts() -> None:
    messages = messages_of(SEMCONV_INPUT)
    assert len(messages) == 5
    assert last_text(messages, USER_ROLES) == "New\nquestion"
    # A tool-call message has no text; the assistant side has none here.
    assert last_text(messages, ASSISTANT_ROLES) == ""


def test_trpc_choices_count_as_the_assistant() -> None:
    (choice,) = messages_of(TRPC_OUTPUT)
    assert message_role(choice) == "assistant"
    assert last_text(messages_of(TRPC_OUTPUT), ASSISTANT_ROLES) == "Answer."


def test_adk_request_contents_skip_function_responses_without_text() -> None:
    messages = messages_of(ADK_REQUEST)
    assert [message_role(m) for m in messages] == ["user", "model", "user"]
    assert last_text(messages, USER_ROLES) == "Roll a die"


def test_adk_response_content_parts_joined_by_newlines() -> None:
    (response,) = messages_of(ADK_RESPONSE)
    assert message_role(response) == "model"
    assert message_text(response) == "You rolled\na 4."
    assert last_text([response], ASSISTANT_ROLES) == "You rolled\na 4."


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("[1, 2]", [1, 2]),
        ('"quoted"', "quoted"),
        ("plain text", "plain text"),
        ("{not json", "{not json"),
        (7, 7),
        (None, None),
    ],
)
def test_parse_json_decodes_only_json_text(value: object, expected: object) -> None:
    assert parse_json(value) == expected


def test_plain_strings_and_empty_values() -> None:
    assert messages_of("just text") == ["just text"]
    assert last_text(messages_of("just text"), USER_ROLES) == "just text"
    assert messages_of(None) == [] and messages_of("") == []
    assert message_text(42) == "" and message_role("x") == ""
