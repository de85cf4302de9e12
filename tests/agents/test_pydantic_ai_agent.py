"""A real third-party AG-UI agent: pydantic-ai's ``Agent`` with a ``FunctionModel`` (scripted, no
LLM) and its own tools, served by pydantic-ai's AG-UI adapter under uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_cli import EXACT_FINAL, case_results, echo_case, run_cli, write_evalset
from agui_server import LoopbackServer
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


class WeatherAgent:
    """The agent, its model script and a log of what its real tool and model did."""

    def __init__(self) -> None:
        self.real_weather_calls: list[str] = []
        self.model_turns: list[dict[str, Any]] = []
        self.agent = Agent(FunctionModel(stream_function=self.stream))
        self.agent.tool_plain(self.get_weather)

    def get_weather(self, city: str) -> dict[str, Any]:
        """The agent's own (server-side) weather tool."""
        self.real_weather_calls.append(city)
        return {"city": city, "condition": "sunny", "tempC": 21}

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1].parts[-1]
        if isinstance(last, UserPromptPart):
            text = str(last.content)
            if text.startswith("weather in "):
                city = text.removeprefix("weather in ")
                # Arguments streamed in two pieces, as a real model does.
                yield {
                    0: DeltaToolCall(
                        name="get_weather", json_args='{"city": ', tool_call_id=f"w-{city}"
                    )
                }
                yield {0: DeltaToolCall(json_args=json.dumps(city) + "}")}
                return
            if text.startswith("book "):
                people = int(text.split()[1])
                yield {
                    0: DeltaToolCall(
                        name="book_table",
                        json_args=json.dumps({"people": people}),
                        tool_call_id="b-1",
                    )
                }
                return
            yield "I can tell the weather or book a table."
            return
        if isinstance(last, ToolReturnPart):
            content = (
                last.content
                if isinstance(last.content, dict | list)
                else json.loads(str(last.content))
            )
            if last.tool_name == "get_weather":
                answer = f"{content['city']}: {content['condition']}, {content['tempC']} C"
            else:
                answer = f"Booked table {content['table']} for {content['people']}."
            self.model_turns.append(
                {
                    "tool": last.tool_name,
                    "id": last.tool_call_id,
                    "result": content,
                    "final": answer,
                }
            )
            yield answer


@pytest.fixture
def pydantic_agent() -> Iterator[tuple[WeatherAgent, str]]:
    weather = WeatherAgent()

    async def endpoint(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=weather.agent)

    app = Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])
    with LoopbackServer(app) as server:
        yield weather, server.url + "agent"


def test_pydantic_ai_agent_end_to_end(
    tmp_path: Path, pydantic_agent: tuple[WeatherAgent, str]
) -> None:
    weather, url = pydantic_agent
    case = echo_case("weather_then_booking", "weather in Oslo", "book 4 people")
    first, second = case["conversation"]
    first["finalResponse"]["content"] = "Oslo: sunny, 21 C"
    first["tools"] = [
        {
            "name": "get_weather",
            "arguments": {"city": "Oslo"},
            "result": {"city": "Oslo", "condition": "sunny", "tempC": 21},
        }
    ]
    second["finalResponse"]["content"] = "Booked table 7 for 4."
    second["tools"] = [
        {"name": "book_table", "arguments": {"people": 4}, "result": {"table": 7, "people": 4}}
    ]
    # book_table exists only on the client side: agenteval's mock answers it.
    second["toolMock"] = {
        "actual": [
            {
                "name": "book_table",
                "arguments": {"expected": {"people": 4}},
                "result": {"table": 7, "people": 4},
            }
        ]
    }
    evalset = write_evalset(
        tmp_path,
        "pydantic_ai",
        [case, echo_case("small_talk", "hello")],
        [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}, *EXACT_FINAL],
    )
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    results = case_results(out)
    assert results["weather_then_booking"]["finalEvalStatus"] == "passed", proc.stdout + proc.stderr
    assert results["small_talk"]["finalEvalStatus"] == "failed"  # its reference expects an echo
    turns = [
        t["actualInvocation"]
        for t in results["weather_then_booking"]["evalMetricResultPerInvocation"]
    ]
    # Captured tool calls and answers equal what the agent's model and tools did.
    assert [t["finalResponse"]["content"] for t in turns] == [
        m["final"] for m in weather.model_turns
    ]
    assert [(t["tools"][0]["id"], t["tools"][0]["result"]) for t in turns] == [
        (m["id"], m["result"]) for m in weather.model_turns
    ]
    assert turns[0]["tools"][0]["arguments"] == {"city": "Oslo"}
    assert weather.real_weather_calls == ["Oslo"]
    assert proc.returncode == 1


def test_mocking_a_tool_the_agent_owns_fails_the_case_with_its_run_error(
    tmp_path: Path, pydantic_agent: tuple[WeatherAgent, str]
) -> None:
    weather, url = pydantic_agent
    case = echo_case("mock_owned_tool", "weather in Rome")
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "get_weather", "result": {"city": "Rome"}}]
    }
    evalset = write_evalset(tmp_path, "owned", [case, echo_case("other", "hello")], EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 1
    results = case_results(out)
    message = results["mock_owned_tool"]["errorMessage"]
    assert message.startswith("agent turn 1 of 1: agent sent RUN_ERROR: ")
    assert "conflicts with existing tool" in message and "'get_weather'" in message
    assert weather.real_weather_calls == []
    assert (
        results["other"]["finalEvalStatus"] == "failed" and "errorMessage" not in results["other"]
    )
