"""``tool_call_count``, ``inference_call_count``, ``token_usage`` from three sources, end to end.

The same turn — two tool calls, two model calls of ``openai:gpt-4o`` spending 100 + 20
(40 of the 100 served by the provider's prompt cache) and 50 + 10 tokens — reaches
agenteval three ways: a ``cmd:`` agent's ``usage`` on its ``message`` and ``final`` lines
(``cachedInputTokens``), an AG-UI server's ``RUN_FINISHED.usage`` entries
(``cachedInputTokens``), and an OTLP file's ``chat`` spans with ``gen_ai.usage.*``
(``cache_read.input_tokens``).  Each gives 2 tool calls, 2 inference calls, 180 tokens
(150 in, 30 out) and, at the built-in $2.50 / $1.25 cached / $10 per million, $0.000625
($0.000675 if the cached tokens were priced as fresh input).  ``token_usage`` has threshold 100, an upper bound: it fails;
``tool_call_count`` has 3: it passes; ``inference_call_count`` none: informational.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from agents.agent_cli import case_results, run_cli, write_evalset
from agents.agui_server import LoopbackServer
from importers.otel_spans import OP, Recorder

METRICS = [
    {"metricName": "tool_call_count", "threshold": 3},
    {"metricName": "inference_call_count"},
    {"metricName": "token_usage", "threshold": 100},
]
# (input, output, of the input those the prompt cache served) of each model call
CALLS = [(100, 20, 40), (50, 10, 0)]
COST = (110 * 2.5 + 40 * 1.25 + 30 * 10) / 1_000_000

WORKER = r"""
import json, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "user_turn":
        continue
    for i, city in enumerate(["paris", "rome"]):
        send({"type": "tool_call", "id": f"c{i}", "name": "weather", "arguments": {"city": city}})
        send({"type": "tool_result", "id": f"c{i}", "result": "sunny"})
    send({"type": "message", "content": "checking", "usage": {"inputTokens": 100, "outputTokens": 20, "cachedInputTokens": 40, "model": "openai:gpt-4o"}})
    send({"type": "final", "content": "sunny in both", "usage": {"inputTokens": 50, "outputTokens": 10, "model": "openai:gpt-4o"}})
"""


def case(mode: str | None = None) -> dict[str, Any]:
    turn = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "weather in paris and rome?"},
        "finalResponse": {"role": "assistant", "content": "sunny in both"},
    }
    found: dict[str, Any] = {
        "evalId": "trip",
        "conversation": [turn],
        "sessionInput": {"appName": "app", "userId": "u"},
    }
    if mode:
        found["evalMode"] = mode
    return found


def check(run_json: Path) -> None:
    (result,) = case_results(run_json).values()
    metrics = {m["metricName"]: m for m in result["overallEvalMetricResults"]}
    assert {name: (m["score"], m["evalStatus"]) for name, m in metrics.items()} == {
        "tool_call_count": (2, "passed"),
        "inference_call_count": (2, "passed"),
        "token_usage": (180, "failed"),
    }
    (turn,) = result["evalMetricResultPerInvocation"]
    usage = next(m for m in turn["evalMetricResults"] if m["metricName"] == "token_usage")
    details = usage["details"]
    assert (details["inputTokens"], details["outputTokens"], details["model"]) == (
        150,
        30,
        "openai:gpt-4o",
    )
    assert details["costUsd"] == pytest.approx(COST, rel=1e-12)
    assert "180 tokens (above the upper bound 100)" in details["reason"]


def test_usage_from_a_cmd_agent(tmp_path: Path) -> None:
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    evalset = write_evalset(tmp_path, "trip", [case()], METRICS)
    run = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{sys.executable} {worker}",
        "--json", str(tmp_path / "run.json"), "--markdown", str(tmp_path / "run.md"),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    check(tmp_path / "run.json")
    # The Markdown summary's cost table says what the console says (cached tokens priced).
    spent = "2 model calls, 150 input + 30 output tokens · $0.000625"
    assert f"| trip | — | {spent} |" in (tmp_path / "run.md").read_text()
    assert f"agent usage: {spent}" in run.stdout


def agui_events(data: RunAgentInput) -> Iterator[Any]:
    yield RunStartedEvent(thread_id=data.thread_id, run_id=data.run_id)
    for i, city in enumerate(["paris", "rome"]):
        yield ToolCallStartEvent(tool_call_id=f"c{i}", tool_call_name="weather")
        yield ToolCallArgsEvent(tool_call_id=f"c{i}", delta=json.dumps({"city": city}))
        yield ToolCallEndEvent(tool_call_id=f"c{i}")
        yield ToolCallResultEvent(message_id=f"r{i}", tool_call_id=f"c{i}", content="sunny")
    yield TextMessageStartEvent(message_id="m1", role="assistant")
    yield TextMessageContentEvent(message_id="m1", delta="sunny in both")
    yield TextMessageEndEvent(message_id="m1")
    usage = [
        TokenUsage(
            provider="openai",
            model="gpt-4o",
            input_tokens=i,
            output_tokens=o,
            cached_input_tokens=c,
        )
        for i, o, c in CALLS
    ]
    yield RunFinishedEvent(thread_id=data.thread_id, run_id=data.run_id, usage=usage)


async def endpoint(request: Request) -> StreamingResponse:
    data = RunAgentInput.model_validate(await request.json())
    encoder = EventEncoder()

    async def stream() -> AsyncIterator[str]:
        for event in agui_events(data):
            yield encoder.encode(event)

    return StreamingResponse(stream(), media_type="text/event-stream")


def test_usage_from_an_agui_server(tmp_path: Path) -> None:
    assert EventType.RUN_FINISHED  # the events above are ag-ui-protocol's own models
    evalset = write_evalset(tmp_path, "trip", [case()], METRICS)
    with LoopbackServer(Starlette(routes=[Route("/", endpoint, methods=["POST"])])) as server:
        run = run_cli(
            "run", "--evalset", str(evalset), "--agent", f"agui:{server.url}",
            "--json", str(tmp_path / "run.json"),
        )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    check(tmp_path / "run.json")


def test_usage_from_an_otlp_file(tmp_path: Path) -> None:
    recorder = Recorder()
    tracer = recorder.tracer
    with tracer.start_as_current_span(
        "invoke_agent trip",
        attributes={
            OP: "invoke_agent",
            "gen_ai.conversation.id": "trip",
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "weather?"}]}]
            ),
        },
    ):
        for (tokens_in, tokens_out, cached), text in zip(
            CALLS, ["checking", "sunny in both"], strict=True
        ):
            out = [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]
            with tracer.start_as_current_span(
                "chat gpt-4o",
                attributes={
                    OP: "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.usage.input_tokens": tokens_in,
                    "gen_ai.usage.output_tokens": tokens_out,
                    "gen_ai.usage.cache_read.input_tokens": cached,
                    "gen_ai.output.messages": json.dumps(out),
                },
            ):
                pass
            if text == "checking":
                for city in ("paris", "rome"):
                    with tracer.start_as_current_span(
                        "execute_tool weather",
                        attributes={
                            OP: "execute_tool",
                            "gen_ai.tool.name": "weather",
                            "gen_ai.tool.call.arguments": json.dumps({"city": city}),
                        },
                    ):
                        pass
    traces = recorder.write_json(tmp_path / "trip.otlp.json")
    evalset = write_evalset(tmp_path, "trip", [case()], METRICS)
    run = run_cli(
        "run", "--evalset", str(evalset), "--traces", str(traces),
        "--json", str(tmp_path / "run.json"),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    check(tmp_path / "run.json")


def test_a_turn_without_usage_is_not_evaluated_and_tool_calls_still_count(tmp_path: Path) -> None:
    turn = case("trace")
    turn["conversation"][0]["tools"] = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    turn["actualConversation"] = turn["conversation"]
    evalset = write_evalset(tmp_path, "trip", [turn], METRICS)
    run = run_cli("run", "--evalset", str(evalset), "--json", str(tmp_path / "run.json"))
    (result,) = case_results(tmp_path / "run.json").values()
    metrics = {m["metricName"]: m for m in result["overallEvalMetricResults"]}
    assert (metrics["tool_call_count"]["score"], metrics["tool_call_count"]["evalStatus"]) == (
        3,
        "passed",
    )
    assert metrics["token_usage"]["evalStatus"] == "not_evaluated"
    assert metrics["inference_call_count"]["evalStatus"] == "not_evaluated"
    assert "the trace carries no usage" in run.stdout
