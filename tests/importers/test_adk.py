"""``agenteval import adk`` then ``run``, side by side with google-adk's own evaluators.

The ADK files are written by google-adk's own pydantic models (``model_dump_json``, in both
key styles, and string-wrapped as its local results manager stores results); ADK reads the
same ``test_config.json`` through its own config loader and scores the same invocations with
the evaluators its metric registry registers for those names (the registry module itself
imports pandas, which google-adk's core install lacks).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli

adk_eval = pytest.importorskip("google.adk.evaluation")

from google.adk.evaluation.eval_case import EvalCase as AdkCase  # noqa: E402
from google.adk.evaluation.eval_case import (  # noqa: E402
    IntermediateData,
    InvocationEvent,
    InvocationEvents,
)
from google.adk.evaluation.eval_case import Invocation as AdkInvocation  # noqa: E402
from google.adk.evaluation.eval_case import SessionInput as AdkSessionInput  # noqa: E402
from google.adk.evaluation.eval_config import (  # noqa: E402
    get_eval_metrics_from_config,
    get_evaluation_criteria_or_default,
)
from google.adk.evaluation.eval_metrics import (  # noqa: E402
    EvalMetricResultPerInvocation,
    EvalStatus,
)
from google.adk.evaluation.eval_result import EvalCaseResult, EvalSetResult  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator  # noqa: E402
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402
from google.genai import types  # noqa: E402

from agenteval.importers import adk  # noqa: E402


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def content(role: str, *texts: str) -> types.Content:
    """A Gemini ``Content`` of text parts."""
    return types.Content(role=role, parts=[types.Part(text=t) for t in texts])


def turn(
    user: str, answer: str, *calls: tuple[str, dict[str, Any], dict[str, Any]], events: bool = False
) -> AdkInvocation:
    """An ADK invocation with tool uses (and their responses) and a final answer.

    ``events``: the tools as ``invocation_events`` (ADK's other intermediate-data shape).
    """
    uses = [
        types.FunctionCall(id=f"c{i}", name=name, args=args)
        for i, (name, args, _) in enumerate(calls)
    ]
    responses = [
        types.FunctionResponse(id=f"c{i}", name=name, response=result)
        for i, (name, _, result) in enumerate(calls)
    ]
    intermediate: IntermediateData | InvocationEvents = IntermediateData(
        tool_uses=uses, tool_responses=responses
    )
    if events:
        intermediate = InvocationEvents(
            invocation_events=[
                InvocationEvent(
                    author="agent",
                    content=types.Content(
                        role="model", parts=[types.Part(function_call=u) for u in uses]
                    ),
                ),
                InvocationEvent(
                    author="agent",
                    content=types.Content(
                        role="user", parts=[types.Part(function_response=r) for r in responses]
                    ),
                ),
            ]
        )
    return AdkInvocation(
        user_content=content("user", user),
        final_response=content("model", answer),
        intermediate_data=intermediate,
    )


FORECAST = ("get_forecast", {"city": "Oslo", "days": 2}, {"rain": 0.7})
FORECAST_WRONG = ("get_forecast", {"city": "Oslo", "days": 3}, {"rain": 0.7})
RATE = ("get_rate", {"from": "NOK", "to": "EUR"}, {"rate": 0.086})
# ADK compares arguments with Python's ==: a number 1e-9 off is another argument.
RATE_CLOSE = ("get_rate", {"from": "NOK", "to": "EUR", "amount": 100.000000001}, {"rate": 0.086})
RATE_AMOUNT = ("get_rate", {"from": "NOK", "to": "EUR", "amount": 100}, {"rate": 0.086})

# evalId → (expected turns, actual turns)
CASES: dict[str, tuple[list[AdkInvocation], list[AdkInvocation]]] = {
    "oslo_rain": (
        [
            turn(
                "Will it rain in Oslo this weekend?",
                "Yes, rain is likely in Oslo this weekend.",
                FORECAST,
            )
        ],
        [
            turn(
                "Will it rain in Oslo this weekend?",
                "Rain is likely in Oslo over the weekend.",
                FORECAST,
            )
        ],
    ),
    "two_turns": (
        [
            turn("Rain in Oslo?", "Rain is likely.", FORECAST),
            turn("And the krone rate?", "One krone buys 0.086 euros.", RATE),
        ],
        [
            turn("Rain in Oslo?", "It will probably rain in Oslo.", FORECAST_WRONG),
            turn("And the krone rate?", "1 NOK is 0.086 EUR today.", RATE),
        ],
    ),
    "swapped_tools": (
        [turn("Oslo trip costs?", "Expect rain; 1 NOK = 0.086 EUR.", FORECAST, RATE)],
        [
            turn(
                "Oslo trip costs?",
                "Expect rain, and 1 NOK = 0.086 EUR.",
                RATE,
                FORECAST,
                events=True,
            )
        ],
    ),
    "close_amount": (
        [turn("Change 100 NOK?", "100 NOK is 8.60 EUR.", RATE_AMOUNT)],
        [turn("Change 100 NOK?", "100 NOK buys 8.60 EUR.", RATE_CLOSE)],
    ),
}

CONFIGS = {
    "floats": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.6}},
    "any_order": {
        "criteria": {
            "tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "ANY_ORDER"},
            "response_match_score": {"threshold": 0.4},
        }
    },
    "in_order": {
        "criteria": {
            "tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "IN_ORDER"},
            "response_match_score": {"threshold": 0.5},
        }
    },
    "ignore_args": {
        "criteria": {
            "tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": True},
            "response_match_score": 0.3,
        }
    },
}


ADK_EVALUATORS = {
    "tool_trajectory_avg_score": TrajectoryEvaluator,
    "response_match_score": RougeEvaluator,
}


def _adk_scores(config_path: Path) -> dict[tuple[str, str], tuple[float, str]]:
    """ADK's own overall score and status per (evalId, metric)."""
    metrics = get_eval_metrics_from_config(get_evaluation_criteria_or_default(str(config_path)))
    scores: dict[tuple[str, str], tuple[float, str]] = {}
    for eval_id, (expected, actual) in CASES.items():
        for metric in (m for m in metrics if m.metric_name in ADK_EVALUATORS):
            evaluator = ADK_EVALUATORS[metric.metric_name](eval_metric=metric)
            result = evaluator.evaluate_invocations(actual, expected)
            status = "passed" if result.overall_eval_status == EvalStatus.PASSED else "failed"
            scores[(eval_id, metric.metric_name)] = (result.overall_score, status)
    return scores


def _write_adk_files(directory: Path, config: dict[str, Any], *, camel: bool) -> Path:
    directory.mkdir(parents=True)
    (directory / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    results = EvalSetResult(
        eval_set_result_id="oslo_trip_run1",
        eval_set_id="oslo_trip",
        eval_case_results=[
            EvalCaseResult(
                eval_set_id="oslo_trip",
                eval_id=eval_id,
                final_eval_status=EvalStatus.NOT_EVALUATED,
                overall_eval_metric_results=[],
                eval_metric_result_per_invocation=[
                    EvalMetricResultPerInvocation(actual_invocation=a, expected_invocation=e)
                    for a, e in zip(actual, expected, strict=True)
                ],
                session_id=f"session-{eval_id}",
            )
            for eval_id, (expected, actual) in CASES.items()
        ],
    )
    path = directory / "oslo_trip_run1.evalset_result.json"
    if camel:
        path.write_text(results.model_dump_json(by_alias=True), encoding="utf-8")
    else:
        # ADK's LocalEvalSetResultsManager stores the JSON text as a JSON string.
        path.write_text(json.dumps(results.model_dump_json()), encoding="utf-8")
    return path


@pytest.mark.parametrize("camel", [True, False], ids=["camelCase", "snake_case"])
@pytest.mark.parametrize("config_name", sorted(CONFIGS))
def test_import_then_run_scores_like_adk(tmp_path: Path, config_name: str, camel: bool) -> None:
    results_file = _write_adk_files(tmp_path / "adk", CONFIGS[config_name], camel=camel)
    out = tmp_path / "imported"
    proc = agenteval("import", "adk", str(results_file), "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # google-adk dumps every field (null or not): none is an unknown key.
    assert "is not a field" not in proc.stderr
    report = tmp_path / "run.json"
    proc = agenteval(
        "run", "--evalset", str(out / "oslo_trip.evalset.json"), "--json", str(report), "--no-cache"
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    ours: dict[tuple[str, str], tuple[float, str]] = {}
    for case in json.loads(report.read_text(encoding="utf-8"))["evalSetResults"][0][
        "evalCaseResults"
    ]:
        for metric in case["overallEvalMetricResults"]:
            ours[(case["evalId"], metric["metricName"])] = (metric["score"], metric["evalStatus"])
    theirs = _adk_scores(tmp_path / "adk" / "test_config.json")
    assert set(ours) == set(theirs) and len(theirs) == 2 * len(CASES)
    for key, (score, status) in theirs.items():
        assert ours[key][0] == pytest.approx(score, abs=1e-9), key
        assert ours[key][1] == status, key
    # The data exercises both outcomes and partial ROUGE scores, not only 0 and 1.
    assert {s for _, s in theirs.values()} == {"passed", "failed"}
    assert any(0 < v < 1 for (_, name), (v, _) in theirs.items() if name == "response_match_score")


@pytest.mark.parametrize("camel", [True, False], ids=["camelCase", "snake_case"])
def test_evalset_import_keeps_tools_and_reference(tmp_path: Path, camel: bool) -> None:
    evalset = AdkEvalSet(
        eval_set_id="oslo_trip",
        eval_cases=[
            AdkCase(
                eval_id=eval_id,
                conversation=expected,
                session_input=AdkSessionInput(app_name="trip", user_id="u1"),
            )
            for eval_id, (expected, _) in CASES.items()
        ],
    )
    source = tmp_path / "oslo.evalset.json"
    source.write_text(evalset.model_dump_json(by_alias=camel), encoding="utf-8")
    # Before import, the ADK file is refused where a trpc-agent-go eval set is expected.
    proc = agenteval("validate", "--evalset", str(source))
    assert proc.returncode == 2
    assert "Google ADK eval set" in proc.stderr and "agenteval import adk" in proc.stderr
    out = tmp_path / "out"
    proc = agenteval("import", "adk", str(source), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "no test_config.json" in proc.stderr  # ADK's default criteria, said out loud
    data = json.loads((out / "oslo_trip.evalset.json").read_text(encoding="utf-8"))
    first = data["evalCases"][2]["conversation"][0]
    assert first["userContent"]["content"] == "Oslo trip costs?"
    assert first["finalResponse"]["content"] == "Expect rain; 1 NOK = 0.086 EUR."
    assert [(t["name"], t["arguments"], t["result"]) for t in first["tools"]] == [FORECAST, RATE]
    assert data["evalCases"][0]["sessionInput"] == {"appName": "trip", "userId": "u1"}
    metrics = json.loads((out / "oslo_trip.metrics.json").read_text(encoding="utf-8"))
    assert [(m["metricName"], m["threshold"]) for m in metrics] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
    ]
    assert agenteval("validate", "--evalset", str(out / "oslo_trip.evalset.json")).returncode == 0


@pytest.mark.parametrize("camel", [True, False], ids=["camelCase", "snake_case"])
def test_evalset_import_carries_the_turns_usage(tmp_path: Path, camel: bool) -> None:
    """``usage_metadata`` of ADK's model-call events → the turn's usage, read as ADK reads it."""
    from cli.test_agent_usage_sources import adk_turns

    evalset = AdkEvalSet(
        eval_set_id="trip",
        eval_cases=[
            AdkCase(
                eval_id="oslo",
                conversation=adk_turns(),
                session_input=AdkSessionInput(app_name="trip", user_id="u"),
            )
        ],
    )
    source = tmp_path / "trip.evalset.json"
    source.write_text(evalset.model_dump_json(by_alias=camel), encoding="utf-8")
    proc = agenteval("import", "adk", str(source), "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert "is not a field" not in proc.stderr  # every key of ADK's events is known
    data = json.loads((tmp_path / "out" / "trip.evalset.json").read_text(encoding="utf-8"))
    usages = [turn["usage"] for turn in data["evalCases"][0]["conversation"]]
    # Input: prompt + tool-use prompt tokens; output: candidates + thoughts (ADK's buckets).
    assert usages == [
        {"inputTokens": 2550, "outputTokens": 230, "inferenceCalls": 2,
         "model": "gemini:gemini-2.5-flash", "cachedInputTokens": 200},
        {"inputTokens": 700, "outputTokens": 60, "inferenceCalls": 1,
         "model": "gemini:gemini-2.5-flash", "cachedInputTokens": 0},
    ]  # fmt: skip
    assert (
        agenteval("validate", "--evalset", str(tmp_path / "out" / "trip.evalset.json")).returncode
        == 0
    )


def test_legacy_test_json(tmp_path: Path) -> None:
    rows = [
        {
            "query": "Roll a 6 sided die",
            "expected_tool_use": [{"tool_name": "roll_die", "tool_input": {"sides": 6}}],
            "reference": "I rolled a 4.",
        },
        {"query": "What can you do?", "expected_tool_use": [], "reference": "I can roll dice."},
    ]
    source = tmp_path / "dice.test.json"
    source.write_text(json.dumps(rows), encoding="utf-8")
    out = tmp_path / "out"
    proc = agenteval("import", "adk", str(source), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    (case,) = json.loads((out / "dice.evalset.json").read_text(encoding="utf-8"))["evalCases"]
    assert case["evalId"] == "dice"
    assert [t["userContent"]["content"] for t in case["conversation"]] == [
        "Roll a 6 sided die",
        "What can you do?",
    ]
    assert case["conversation"][0]["tools"] == [{"name": "roll_die", "arguments": {"sides": 6}}]


def test_criteria_without_equivalent_are_warned() -> None:
    config = {
        "criteria": {
            "tool_trajectory_avg_score": {
                "threshold": 0.8,
                "match_type": "IN_ORDER",
                "ignore_args": True,
            },
            "final_response_match_v2": {
                "threshold": 0.7,
                "judge_model_options": {"judge_model": "gemini-2.5-pro", "num_samples": 3},
            },
            "rubric_based_final_response_quality_v1": {
                "threshold": 0.9,
                "rubrics": [
                    {
                        "rubric_id": "polite",
                        "rubric_content": {"text_property": "The answer is polite."},
                    }
                ],
            },
            "safety_v1": 0.8,
        }
    }
    metrics, warnings = adk.metrics_from_config(config, "test_config.json")
    assert metrics[0]["criterion"]["toolTrajectory"] == {
        "orderSensitive": True,
        "subsetMatching": True,
        "defaultStrategy": {"name": {"matchStrategy": "exact"}},
    }
    assert metrics[1]["evaluatorName"] == "llm_final_response"
    assert metrics[1]["criterion"]["llmJudge"]["judgeModel"]["modelName"] == "gemini-2.5-pro"
    assert metrics[1]["criterion"]["llmJudge"]["judgeModel"]["numSamples"] == 3
    assert metrics[2]["criterion"]["llmJudge"]["rubrics"] == [
        {"id": "polite", "content": {"text": "The answer is polite."}}
    ]
    assert len(metrics) == 3
    assert [w.path for w in warnings if "no agenteval equivalent" in w.message] == [
        "criteria.safety_v1"
    ]


def test_import_refuses_to_replace_a_file_without_force(tmp_path: Path) -> None:
    """Issue 21 item 10: a hand-edited eval set in -o DIR was overwritten without a word."""
    shipped = Path(__file__).resolve().parents[2] / "evalsets" / "adk" / "travel.evalset.json"
    out = tmp_path / "out"
    out.mkdir()
    edited = out / "travel.evalset.json"
    edited.write_text('{"evalSetId": "travel", "evalCases": []}  // edited by hand\n')
    proc = agenteval("import", "adk", str(shipped), "-o", str(out))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"error: {edited}: already exists; not replaced (pass --force to replace it)\n"
        "1 problem found.\n"
    )
    assert edited.read_text().endswith("// edited by hand\n")
    assert not (out / "travel.metrics.json").exists()  # nothing is written when one is refused
    proc = agenteval("import", "adk", str(shipped), "-o", str(out), "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(edited.read_text())["evalSetId"] == "travel"
    assert (out / "travel.metrics.json").is_file()
    assert sorted(p.name for p in out.iterdir()) == ["travel.evalset.json", "travel.metrics.json"]


@pytest.mark.parametrize(
    "name",
    ["notalist.json", "turns.json", "camel_turns.json", "misspelt.json", "camel_misspelt.json"],
)
def test_what_import_refuses_google_adk_refuses_too(name: str) -> None:
    from pydantic import ValidationError

    from tests.importers.test_adk_format import MALFORMED

    text, errors = MALFORMED[name]
    with pytest.raises(ValidationError) as caught:
        AdkEvalSet.model_validate_json(text)
    # ADK reports each case's problem too (and more: the union's other branch).
    assert caught.value.error_count() >= len(errors)
