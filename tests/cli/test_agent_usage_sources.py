"""The agent's usage from every trace source reaches ``token_usage`` with the same numbers.

One case of two turns, written three ways:

* an ADK eval result written by google-adk's own models (``usage_metadata`` on its
  ``invocation_events``), imported with ``agenteval import adk``; ADK's own
  ``token_usage_v1`` / ``inference_call_count_v1`` evaluators score the same turns;
* a trpc-agent-go ``--traces`` record whose turns carry the ``executionTrace`` trpc-agent-go
  records (``agent/trace.Trace``: a ``model.Usage`` per step that called a model);
* agenteval's own ``usage`` key on the turns (what ``cmd:``, AG-UI and OTLP fill in).

Turn 1: a tool call and two model calls, (prompt 1000 of which 200 cached, tool-use prompt
50, candidates 120, thoughts 30) and (prompt 1500, candidates 80): 2,550 input tokens, 230
output.  Turn 2: one call, prompt 700, candidates 60.
"""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli

pytest.importorskip("google.adk.evaluation")

from google.adk.evaluation._efficiency_evaluators import (
    _InferenceCallCountV1Evaluator,
    _TokenUsageV1Evaluator,
)
from google.adk.evaluation.eval_case import Invocation as AdkInvocation
from google.adk.evaluation.eval_case import InvocationEvent, InvocationEvents
from google.adk.evaluation.eval_metrics import EvalMetricResultPerInvocation
from google.adk.evaluation.eval_result import EvalCaseResult, EvalSetResult
from google.adk.evaluation.evaluator import EvalStatus
from google.genai import types

MODEL = "gemini-2.5-flash"
# (input, output, cached, model calls, tool calls) per turn, as each source must give them.
EXPECTED = [(2550, 230, 200, 2, 1), (700, 60, 0, 1, 0)]
# USD per million: input, output, cached input (the --prices file, over the built-in entry).
PRICES = {"inputPerMillion": 0.3, "outputPerMillion": 2.5, "cachedInputPerMillion": 0.03}
USER = ["Weather and rate for Oslo?", "Thanks!"]
ANSWER = ["Rain; 1 NOK = 0.086 EUR.", "You're welcome."]
METRICS = [
    {"metricName": name, "threshold": 0}
    for name in ("token_usage", "inference_call_count", "tool_call_count")
]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180)


def text(role: str, value: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=value)])


def adk_turns() -> list[AdkInvocation]:
    """The two turns as ADK records them: events, the model calls with their usage."""
    call = types.FunctionCall(id="c1", name="get_forecast", args={"city": "Oslo"})
    reply = types.FunctionResponse(id="c1", name="get_forecast", response={"rain": 0.7})
    first = [
        InvocationEvent(
            author="trip_agent",
            content=types.Content(role="model", parts=[types.Part(function_call=call)]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=1000,
                cached_content_token_count=200,
                tool_use_prompt_token_count=50,
                candidates_token_count=120,
                thoughts_token_count=30,
                total_token_count=1200,
            ),
            model_version=MODEL,
        ),
        InvocationEvent(
            author="trip_agent",
            content=types.Content(role="user", parts=[types.Part(function_response=reply)]),
        ),
        InvocationEvent(
            author="trip_agent",
            content=text("model", ANSWER[0]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=1500, candidates_token_count=80, total_token_count=1580
            ),
            model_version=MODEL,
        ),
    ]
    second = [
        InvocationEvent(
            author="trip_agent",
            content=text("model", ANSWER[1]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=700, candidates_token_count=60, total_token_count=760
            ),
            model_version=MODEL,
        )
    ]
    return [
        AdkInvocation(
            invocation_id=f"turn-{index}",
            user_content=text("user", USER[index]),
            final_response=text("model", ANSWER[index]),
            intermediate_data=InvocationEvents(invocation_events=events),
        )
        for index, events in enumerate((first, second))
    ]


def go_usage(prompt: int, completion: int, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    """trpc-agent-go's ``model.Usage`` as encoding/json writes it."""
    details: dict[str, Any] = {"reasoning_tokens": reasoning} if reasoning else {}
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": details,
    }


def go_step(step_id: str, node_type: str, usage: dict[str, Any] | None) -> dict[str, Any]:
    """One ``agent/trace.Step`` (no JSON tags: Go's field names)."""
    return {
        "StepID": step_id, "InvocationID": "inv-1", "ParentInvocationID": "",
        "AgentName": "trip_agent", "Branch": "trip_agent", "NodeID": step_id,
        "NodeType": node_type, "StartedAt": "2026-12-02T08:00:00Z",
        "EndedAt": "2026-12-02T08:00:01Z", "PredecessorStepIDs": None,
        "AppliedSurfaceIDs": None, "Input": None, "Output": None, "Usage": usage,
        "Tools": None, "Skills": None, "Error": "",
    }  # fmt: skip


def trpc_turns() -> list[dict[str, Any]]:
    """The two turns as trpc-agent-go records them, ``executionTrace`` included."""
    steps = [
        [
            go_step("llm-1", "llm", go_usage(1050, 150, cached=200, reasoning=30)),
            go_step("tool-1", "tool", None),
            go_step("llm-2", "llm", go_usage(1500, 80)),
        ],
        [go_step("llm-1", "llm", go_usage(700, 60))],
    ]
    turns = []
    for index, turn_steps in enumerate(steps):
        usages = [s["Usage"] for s in turn_steps if s["Usage"]]
        total = go_usage(
            sum(u["prompt_tokens"] for u in usages),
            sum(u["completion_tokens"] for u in usages),
            cached=sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages),
        )
        trace = {
            "RootAgentName": "trip_agent", "RootInvocationID": f"inv-{index}",
            "SessionID": "s-1", "StartedAt": "2026-12-02T08:00:00Z",
            "EndedAt": "2026-12-02T08:00:02Z", "Status": "completed",
            "Input": {"Text": USER[index]}, "Output": {"Text": ANSWER[index]},
            "Usage": total, "Steps": turn_steps,
        }  # fmt: skip
        turns.append(
            {
                "invocationId": f"turn-{index}",
                "userContent": {"role": "user", "content": USER[index]},
                "finalResponse": {"role": "assistant", "content": ANSWER[index]},
                "tools": [{"id": "c1", "name": "get_forecast", "arguments": {"city": "Oslo"}}]
                if index == 0
                else [],
                "executionTrace": trace,
            }
        )
    return turns


def own_turns() -> list[dict[str, Any]]:
    """The two turns with agenteval's own ``usage`` key."""
    turns = trpc_turns()
    for turn, (inp, out, cached, calls, _) in zip(turns, EXPECTED, strict=True):
        del turn["executionTrace"]
        turn["usage"] = {
            "inputTokens": inp, "outputTokens": out, "cachedInputTokens": cached,
            "inferenceCalls": calls, "model": f"gemini:{MODEL}",
        }  # fmt: skip
    return turns


def write_adk(tmp_path: Path) -> Path:
    """ADK's eval result file (as its local results manager stores it) → ``import adk``."""
    turns = adk_turns()
    result = EvalSetResult(
        eval_set_result_id="trip_run1",
        eval_set_id="trip",
        eval_case_results=[
            EvalCaseResult(
                eval_set_id="trip",
                eval_id="oslo",
                final_eval_status=EvalStatus.NOT_EVALUATED,
                overall_eval_metric_results=[],
                eval_metric_result_per_invocation=[
                    EvalMetricResultPerInvocation(actual_invocation=t) for t in turns
                ],
                session_id="s-1",
            )
        ],
    )
    path = tmp_path / "trip_run1.evalset_result.json"
    path.write_text(json.dumps(result.model_dump_json()), encoding="utf-8")
    out = tmp_path / "imported"
    imported = cli("import", "adk", str(path), "-o", str(out))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    return out / "trip.evalset.json"


def write_recorded(tmp_path: Path, turns: list[dict[str, Any]], name: str) -> list[str]:
    """A default-mode eval set and a ``--traces`` record of its actual turns."""
    expected = [
        {"userContent": t["userContent"], "finalResponse": t["finalResponse"]} for t in turns
    ]
    case = {"evalId": "oslo", "conversation": expected, "sessionInput": {"appName": "trip",
            "userId": "u"}}  # fmt: skip
    evalset = tmp_path / f"{name}.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "trip", "evalCases": [case]}))
    traces = tmp_path / f"{name}.traces.jsonl"
    traces.write_text(json.dumps({"evalId": "oslo", "actualConversation": turns}) + "\n")
    return [str(evalset), "--traces", str(traces)]


def scored(tmp_path: Path, name: str, evalset: list[str]) -> dict[str, Any]:
    """The case result of a run over ``evalset`` with the three usage metrics."""
    metrics = tmp_path / "usage.metrics.json"
    metrics.write_text(json.dumps(METRICS))
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({f"gemini:{MODEL}": PRICES}))
    out = tmp_path / f"out-{name}"
    run = cli(
        "run", "--evalset", *evalset, "--metrics", str(metrics), "--prices", str(prices),
        "--no-cache", "--no-progress", "--output", str(out),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    (path,) = out.glob("*.evalset_result.json")
    (case,) = json.loads(path.read_text())["evalCaseResults"]
    result: dict[str, Any] = case
    return result


def per_turn(case: dict[str, Any], metric: str) -> list[float]:
    return [
        next(m["score"] for m in turn["evalMetricResults"] if m["metricName"] == metric)
        for turn in case["evalMetricResultPerInvocation"]
    ]


def test_adk_trpc_and_own_usage_reach_token_usage_alike(tmp_path: Path) -> None:
    sources = {
        "adk": scored(tmp_path, "adk", [str(write_adk(tmp_path))]),
        "trpc": scored(tmp_path, "trpc", write_recorded(tmp_path, trpc_turns(), "trpc")),
        "own": scored(tmp_path, "own", write_recorded(tmp_path, own_turns(), "own")),
    }
    tokens = [float(i + o) for i, o, *_ in EXPECTED]
    calls = [float(c) for *_, c, _ in EXPECTED]
    tools = [float(t) for *_, t in EXPECTED]
    for name, case in sources.items():
        assert per_turn(case, "token_usage") == tokens, name
        assert per_turn(case, "inference_call_count") == calls, name
        assert per_turn(case, "tool_call_count") == tools, name
        spent = case["agentUsage"]
        assert (spent["inputTokens"], spent["outputTokens"], spent["inferenceCalls"]) == (
            3250,
            290,
            3,
        ), name
    # ADK's own evaluators read the same turns the same way.
    adk = adk_turns()
    theirs = _TokenUsageV1Evaluator().evaluate_invocations(adk, None)
    assert [r.score for r in theirs.per_invocation_results] == tokens
    theirs = _InferenceCallCountV1Evaluator().evaluate_invocations(adk, None)
    assert [r.score for r in theirs.per_invocation_results] == calls
    # Priced where the model is named: (2350 × 0.3 + 200 × 0.03 + 230 × 2.5) + (700 × 0.3 +
    # 60 × 2.5) per million, cached tokens at the cached price.
    cost = (
        Decimal(2350) * Decimal("0.3") + Decimal(200) * Decimal("0.03") + Decimal(230) *
        Decimal("2.5") + Decimal(700) * Decimal("0.3") + Decimal(60) * Decimal("2.5")
    ) / Decimal(1_000_000)  # fmt: skip
    for name in ("adk", "own"):
        assert Decimal(repr(sources[name]["agentUsage"]["costUsd"])) == cost, name
    # trpc-agent-go's trace names no model: tokens counted, the cost said to be unknown.
    trpc = sources["trpc"]["agentUsage"]
    assert (trpc["costUsd"], trpc["unpricedTurns"]) == (0.0, 2)
    assert trpc["unpricedModels"] == ["(no single model named)"]
