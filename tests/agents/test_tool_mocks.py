"""toolMock rules (formats.md §2.9): parsing, first match wins, JSON-criterion argument rules."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agenteval.agents.tool_mocks import ToolMockError, parse_tool_mocks


def answer(raw: Any, name: str, arguments: Any, generate: Any = None) -> Any:
    return asyncio.run(parse_tool_mocks(raw).answer(name, arguments, generate))


RULES = {
    "actual": [
        {"name": "weather", "arguments": {"expected": {"city": "Paris"}}, "result": "rain"},
        {
            "name": "weather",
            "arguments": {"expected": {"city": "Oslo", "day": 1}, "onlyTree": {"city": True}},
            "result": "snow",
        },
        {"name": "weather", "arguments": {"ignore": True}, "result": "unknown"},
        {
            "name": "price",
            "arguments": {"expected": {"amount": 10}, "numberTolerance": 0.5},
            "result": 1,
        },
    ],
    "expected": [{"name": "weather", "result": "expected side"}],
}


def test_first_matching_rule_wins() -> None:
    assert answer(RULES, "weather", {"city": "Paris"}) == "rain"
    assert answer(RULES, "weather", {"city": "Oslo", "day": 5}) == "snow"  # only the city counts
    assert answer(RULES, "weather", {"city": "Rome"}) == "unknown"
    assert parse_tool_mocks(RULES).names == ["price", "weather"]
    assert (
        asyncio.run(parse_tool_mocks(RULES, "expected").answer("weather", {}, None))
        == "expected side"
    )


def test_number_tolerance_defaults_to_exact_and_can_be_set() -> None:
    assert answer(RULES, "price", {"amount": 10.4}) == 1
    with pytest.raises(
        ToolMockError, match=r"tool 'price' configured for mock but no rule matched"
    ):
        answer(RULES, "price", {"amount": 10.6})
    exact = {"actual": [{"name": "p", "arguments": {"expected": {"a": 1}}, "result": 0}]}
    with pytest.raises(ToolMockError):
        answer(exact, "p", {"a": 1.000001})


def test_rule_without_arguments_matches_by_name() -> None:
    assert answer({"actual": [{"name": "t", "result": {"ok": True}}]}, "t", "raw text") == {
        "ok": True
    }


def test_llm_generator_gets_the_prompt_and_the_arguments() -> None:
    seen: list[tuple[str, str]] = []

    async def generate(prompt: str, arguments: str) -> Any:
        seen.append((prompt, arguments))
        return {"generated": True}

    raw = {"actual": [{"name": "t", "llmGenerator": {"prompt": "Make one up."}}]}
    assert answer(raw, "t", {"q": "é"}, generate) == {"generated": True}
    assert seen == [("Make one up.", '{"q": "é"}')]
    with pytest.raises(ToolMockError, match="llmGenerator needs a judge model"):
        answer(raw, "t", {})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"actual": [{"arguments": {"ignore": True}, "result": 1}]},
            r"actual\[0\]\.name: a non-empty",
        ),
        ({"actual": [{"name": "t"}]}, "needs result"),
        (
            {"actual": [{"name": "t", "result": 1, "llmGenerator": {"prompt": "x"}}]},
            "cannot be configured with result",
        ),
        (
            {"actual": [{"name": "t", "llmGenerator": {"prompt": " "}}]},
            "prompt: must be a non-empty",
        ),
        (
            {"actual": [{"name": "t", "arguments": {"ignore": True, "expected": 1}, "result": 1}]},
            "ignore cannot",
        ),
        (
            {"actual": [{"name": "t", "arguments": {"onlyTree": {"a": True}}, "result": 1}]},
            "expected is required",
        ),
        (
            {
                "actual": [
                    {
                        "name": "t",
                        "arguments": {
                            "expected": {},
                            "onlyTree": {"a": True},
                            "ignoreTree": {"b": True},
                        },
                        "result": 1,
                    }
                ]
            },
            "onlyTree and ignoreTree",
        ),
        (
            {
                "actual": [
                    {"name": "t", "arguments": {"expected": {}, "numberTolerance": -1}, "result": 1}
                ]
            },
            ">= 0",
        ),
        ({"actual": [{"name": "t", "result": 1, "reslt": 2}]}, "unknown key 'reslt'"),
        ({"actuals": []}, "unknown key 'actuals'"),
        ({"actual": {"name": "t"}}, "expected an array"),
    ],
)
def test_malformed_rules_are_located(raw: Any, message: str) -> None:
    with pytest.raises(ToolMockError, match=message):
        parse_tool_mocks(raw)
