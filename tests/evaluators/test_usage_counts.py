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

Each source is run again with 50 more of the first call's 100 input tokens written to
the prompt cache (``cacheWriteInputTokens``, AG-UI's ``cache_write_input_tokens``,
``gen_ai.usage.cache_creation.input_tokens``; the model is kept so that only the writes
differ): the table has no price for them, so the turn has no cost, its ``costUsd`` is
left out and the reports say it is unpriced, never $0.000625 or less.
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
# Of the first call's input, those written to the prompt cache in the second run of a source.
WRITTEN = [0, 50]
SPENT = "2 model calls, 150 input + 30 output tokens · "
# What every report says of the turn's cost, without and with cache writes.
COST_TEXT = {
    0: "$0.000625",
    50: "cost unknown: no price for 1 turn (openai:gpt-4o) (give --prices FILE)",
}


def calls(written: int) -> list[tuple[int, int, int, int]]:
    """(input, output, cached, written to the cache) of each model call."""
    return [(*call, written if index == 0 else 0) for index, call in enumerate(CALLS)]


def cmd_usage(tokens_in: int, tokens_out: int, cached: int, written: int) -> dict[str, Any]:
    """A ``cmd:`` line's ``usage`` (an explicit 0 writes nothing, as an absent key)."""
    return {
        "inputTokens": tokens_in,
        "outputTokens": tokens_out,
        "cachedInputTokens": cached,
        "cacheWriteInputTokens": written,
        "model": "openai:gpt-4o",
    }


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
    send({"type": "message", "content": "checking", "usage": FIRST})
    send({"type": "final", "content": "sunny in both", "usage": SECOND})
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


def check(run_json: Path, written: int = 0) -> None:
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
    assert "180 tokens (above the upper bound 100)" in details["reason"]
    actual = turn["actualInvocation"]["usage"]
    spent = result["agentUsage"]
    if not written:
        assert details["costUsd"] == pytest.approx(COST, rel=1e-12)
        # No cache writes: the turn's usage is written as before, without the key.
        assert "cacheWriteInputTokens" not in actual
        assert (spent["costUsd"], spent["unpricedTurns"]) == (pytest.approx(COST, rel=1e-12), 0)
        return
    assert actual["cacheWriteInputTokens"] == written
    assert "costUsd" not in details  # unknown: never a number, never 0
    assert (spent["costUsd"], spent["unpricedTurns"]) == (0, 1)
    assert spent["unpricedModels"] == ["openai:gpt-4o"]


@pytest.mark.parametrize("written", WRITTEN)
def test_usage_from_a_cmd_agent(tmp_path: Path, written: int) -> None:
    first, second = (json.dumps(cmd_usage(*call)) for call in calls(written))
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER.replace("FIRST", first).replace("SECOND", second))
    evalset = write_evalset(tmp_path, "trip", [case()], METRICS)
    run = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{sys.executable} {worker}",
        "--json", str(tmp_path / "run.json"), "--markdown", str(tmp_path / "run.md"),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    check(tmp_path / "run.json", written)
    # The Markdown summary's cost table says what the console says (cached tokens priced;
    # with cache writes, that the cost is unknown).
    spent = SPENT + COST_TEXT[written]
    assert f"| trip | — | {spent} |" in (tmp_path / "run.md").read_text()
    assert f"agent usage: {spent}" in run.stdout


def test_a_prices_file_with_a_cache_write_price_prices_the_writes(tmp_path: Path) -> None:
    first, second = (json.dumps(cmd_usage(*call)) for call in calls(50))
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER.replace("FIRST", first).replace("SECOND", second))
    evalset = write_evalset(tmp_path, "trip", [case()], METRICS)
    prices = tmp_path / "agent.prices.json"
    entry = {"inputPerMillion": 2.5, "outputPerMillion": 10, "cachedInputPerMillion": 1.25}
    prices.write_text(json.dumps({"openai:gpt-4o": {**entry, "cacheWriteInputPerMillion": 3.125}}))
    run = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{sys.executable} {worker}",
        "--prices", str(prices), "--json", str(tmp_path / "run.json"),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    (result,) = case_results(tmp_path / "run.json").values()
    # 60 fresh, 40 cached and 50 written input tokens, 30 output.
    cost = (60 * 2.5 + 40 * 1.25 + 50 * 3.125 + 30 * 10) / 1_000_000
    assert result["agentUsage"]["costUsd"] == pytest.approx(cost, rel=1e-12)
    assert result["agentUsage"]["unpricedTurns"] == 0
    assert f"agent usage: {SPENT}$0.000656" in run.stdout


def agui_events(data: RunAgentInput, written: int) -> Iterator[Any]:
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
            cache_write_input_tokens=w,
        )
        for i, o, c, w in calls(written)
    ]
    yield RunFinishedEvent(thread_id=data.thread_id, run_id=data.run_id, usage=usage)


async def endpoint(request: Request) -> StreamingResponse:
    data = RunAgentInput.model_validate(await request.json())
    encoder = EventEncoder()
    written = int(request.query_params.get("written", "0"))

    async def stream() -> AsyncIterator[str]:
        for event in agui_events(data, written):
            yield encoder.encode(event)

    return StreamingResponse(stream(), media_type="text/event-stream")


@pytest.mark.parametrize("written", WRITTEN)
def test_usage_from_an_agui_server(tmp_path: Path, written: int) -> None:
    assert EventType.RUN_FINISHED  # the events above are ag-ui-protocol's own models
    evalset = write_evalset(tmp_path, "trip", [case()], METRICS)
    with LoopbackServer(Starlette(routes=[Route("/", endpoint, methods=["POST"])])) as server:
        run = run_cli(
            "run", "--evalset", str(evalset), "--agent", f"agui:{server.url}?written={written}",
            "--json", str(tmp_path / "run.json"),
        )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    check(tmp_path / "run.json", written)
    assert f"agent usage: {SPENT}{COST_TEXT[written]}" in run.stdout


@pytest.mark.parametrize("written", WRITTEN)
def test_usage_from_an_otlp_file(tmp_path: Path, written: int) -> None:
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
        for (tokens_in, tokens_out, cached, wrote), text in zip(
            calls(written), ["checking", "sunny in both"], strict=True
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
                    "gen_ai.usage.cache_creation.input_tokens": wrote,
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
    check(tmp_path / "run.json", written)
    assert f"agent usage: {SPENT}{COST_TEXT[written]}" in run.stdout


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
    # Not evaluated is never passed: the case is incomplete everywhere (exit 3).
    assert run.returncode == 3, run.stdout + run.stderr
    assert "● trip  INCOMPLETE" in run.stdout
    document = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert document["overallStatus"] == "incomplete"
    assert document["evalSetResults"][0]["judgeFailures"] == ["trip"]


def test_a_case_with_one_turn_without_usage_is_incomplete_not_passed(tmp_path: Path) -> None:
    # Turn 1 spent 50 + 10 tokens, turn 2 reports nothing: the counted 60 is under the
    # bound of 100, but the case spent an unknown amount more, so it cannot pass.
    first = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "weather in paris?"},
        "finalResponse": {"role": "assistant", "content": "sunny"},
        "usage": {"inputTokens": 50, "outputTokens": 10, "inferenceCalls": 1},
    }
    second = {
        "invocationId": "t2",
        "userContent": {"role": "user", "content": "and rome?"},
        "finalResponse": {"role": "assistant", "content": "sunny too"},
    }
    turns = {**case("trace"), "conversation": [first, second]}
    turns["actualConversation"] = turns["conversation"]
    metrics = [{"metricName": "token_usage", "threshold": 100}]
    evalset = write_evalset(tmp_path, "trip", [turns], metrics)
    run = run_cli("run", "--evalset", str(evalset), "--json", str(tmp_path / "run.json"))
    (result,) = case_results(tmp_path / "run.json").values()
    (usage,) = result["overallEvalMetricResults"]
    assert (usage["score"], usage["evalStatus"]) == (60, "passed")
    statuses = [
        m["evalStatus"]
        for t in result["evalMetricResultPerInvocation"]
        for m in t["evalMetricResults"]
    ]
    assert statuses == ["passed", "not_evaluated"]
    assert run.returncode == 3, run.stdout + run.stderr
    assert "● trip  INCOMPLETE" in run.stdout
    assert "INCOMPLETE: 0 of 1 cases passed (1 incomplete)" in run.stdout


def _calls_case(eval_id: str, calls: int) -> dict[str, Any]:
    turn = {
        "userContent": {"role": "user", "content": "how many?"},
        "finalResponse": {"role": "assistant", "content": "done"},
        "tools": [{"id": f"c{i}", "name": "lookup", "arguments": {}} for i in range(calls)],
    }
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "sessionInput": {"appName": "app", "userId": "u"},
        "conversation": [turn],
        "actualConversation": [turn],
    }


def test_a_count_metric_named_apart_from_its_evaluator_averages_against_an_upper_bound(
    tmp_path: Path,
) -> None:
    # "calls_max" counts tool calls (evaluatorName) with the bound 2. Over two runs the
    # averages are 1 (few: within the bound) and 3 (many: above it); read as score >= 2
    # the file's summary passed "many" and failed "few", and the average 2 read backwards.
    metrics = [{"metricName": "calls_max", "evaluatorName": "tool_call_count", "threshold": 2}]
    cases = [_calls_case("few", 1), _calls_case("many", 3), _calls_case("four", 4)]
    evalset = write_evalset(tmp_path, "calls", cases, metrics)
    out = tmp_path / "out"
    run = run_cli("run", "--evalset", str(evalset), "-n", "2", "--output", str(out))
    assert run.returncode == 1, run.stdout + run.stderr
    (written,) = out.glob("*.evalset_result.json")
    result = json.loads(written.read_text(encoding="utf-8"))
    overall = result["evalCaseResults"][0]["overallEvalMetricResults"][0]
    assert overall["upperBound"] is True  # the result says its threshold bounds
    summary = result["summary"]
    assert {s["evalId"]: s["overallStatus"] for s in summary["evalCaseSummaries"]} == {
        "few": "passed",
        "four": "failed",
        "many": "failed",
    }
    # The run's metric average: (1 + 3 + 4) / 3 = 8/3 > 2, failed (it read as passed).
    (average,) = summary["runSummaries"][0]["metricSummaries"]
    assert (average["averageScore"], average["evalStatus"]) == (8 / 3, "failed")
    assert "calls_max    2.6667           2   failed        2        4" in run.stdout
    # A count metric under its own name needs no such key: the name says it.
    own = write_evalset(tmp_path, "own", [_calls_case("few", 1)], [
        {"metricName": "tool_call_count", "threshold": 2}
    ])  # fmt: skip
    run = run_cli("run", "--evalset", str(own), "--json", str(tmp_path / "own.json"))
    (case,) = case_results(tmp_path / "own.json").values()
    assert "upperBound" not in case["overallEvalMetricResults"][0]


def test_a_count_just_above_its_bound_is_not_printed_as_the_bound() -> None:
    """2 tool calls fail the bound 1.9999999; the reason said ``above the upper bound 2``."""
    import agenteval.evaluators.builtins  # noqa: F401  (registers the built-ins)
    from agenteval.evaluators.base import EvalContext
    from agenteval.evaluators.registry import evaluators
    from agenteval.schema.evalset import EvalCase, Invocation
    from agenteval.schema.metric import EvalMetric

    turn = Invocation.model_validate(_calls_case("two", 2)["conversation"][0])
    evaluator = evaluators.get("tool_call_count")
    assert evaluator is not None
    metric = EvalMetric.model_validate({"metricName": "tool_call_count", "threshold": 1.9999999})
    result = evaluator.evaluate(
        metric, [turn], [turn], EvalContext("s", EvalCase(eval_id="two"), 1)
    )
    assert result.status.value == "failed"
    assert result.turns[0].details.reason == "2 tool calls (above the upper bound 1.9999999)"
