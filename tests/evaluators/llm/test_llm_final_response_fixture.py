"""The trpc-agent-go ``llm/finalresponse`` example replayed through ``llm_final_response``.

The stored actual turns and the eval set's reference turns are scored again by
the evaluator directly (the CLI-level version comes with the runner
integration), against the loopback judge scripted to reply with the stored
verdicts.  The stored per-turn and overall scores, statuses and reasons must
come out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_support import ok, run

from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.inputs.loading import load_metrics
from agenteval.schema import EvalCase
from agenteval.schema.turns import case_turns
from judge_server import JudgeServer, Reply
from trpc_fixtures import FIXTURES

EXAMPLE = FIXTURES / "llm" / "finalresponse"

API_KEY = "sk-test-fixture-7f3a"


def _one(pattern: str) -> Path:
    matches = sorted(EXAMPLE.glob(pattern))
    assert len(matches) == 1, pattern
    return matches[0]


def _replayed_cases() -> list[tuple[EvalCase, dict[str, Any]]]:
    """(trace-mode case built from the stored actual turns, stored case result)."""
    evalset = json.loads(_one("data/*/*.evalset.json").read_text())
    stored = json.loads(_one("output/*/*.evalset_result.json").read_text())
    sources = {c["evalId"]: c for c in evalset["evalCases"]}
    cases = []
    for result in stored["evalCaseResults"]:
        source = sources[result["evalId"]]
        case = {
            "evalId": result["evalId"],
            "evalMode": "trace",
            "actualConversation": [
                p["actualInvocation"] for p in result["evalMetricResultPerInvocation"]
            ],
            "conversation": source["conversation"],
            "sessionInput": source["sessionInput"],
        }
        cases.append((EvalCase.model_validate(case), result))
    return cases


def _stored_turns(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    turns = []
    for per_invocation in result["evalMetricResultPerInvocation"]:
        by_name = {r["metricName"]: r for r in per_invocation["evalMetricResults"]}
        turns.append(by_name[name])
    return turns


def _replay(server: JudgeServer, *, flip: bool = False) -> list[tuple[Any, Any, Any]]:
    """Score every stored case; returns (our result, stored overall, stored turns) per metric."""
    environ = {"JUDGE_MODEL_BASE_URL": server.base_url, "JUDGE_MODEL_API_KEY": API_KEY}
    metrics = load_metrics(_one("data/*/*.metrics.json"), environ=environ)
    judge = FinalResponseJudge()
    compared = []
    for case, stored in _replayed_cases():
        actuals, expecteds = case_turns(case)
        for m in metrics:
            assert m.evaluator == judge.name
            stored_turns = _stored_turns(stored, m.metric_name)
            server.reset()
            for actual, turn in zip(actuals, stored_turns, strict=True):
                passed = turn["score"] >= 1
                label = "valid" if passed != flip else "invalid"
                reply = (
                    f"reasoning: {turn['details']['reason']}\nis_the_agent_response_valid: {label}"
                )
                answer = actual.final_response.content if actual.final_response else ""
                server.when(f"Agent response: {answer}", Reply(content=reply))
            result = ok(run(judge, m, actuals, expecteds))
            overall = next(
                r for r in stored["overallEvalMetricResults"] if r["metricName"] == m.metric_name
            )
            compared.append((result, overall, stored_turns))
            samples = m.criterion.llm_judge.judge_model.num_samples  # type: ignore[union-attr]
            assert server.count == len(actuals) * (samples or 1)
    return compared


def test_stored_scores_statuses_and_reasons_are_reproduced(judge_server: JudgeServer) -> None:
    compared = _replay(judge_server)
    assert compared
    for result, overall, stored_turns in compared:
        assert len(result.turns) == len(stored_turns)
        for ours, theirs in zip(result.turns, stored_turns, strict=True):
            assert ours.score == pytest.approx(theirs["score"], abs=1e-9)
            assert ours.status.value == theirs["evalStatus"]
            assert ours.details.reason == theirs["details"]["reason"]
            assert ours.details.score == pytest.approx(theirs["details"]["score"], abs=1e-9)
        assert result.score == pytest.approx(overall["score"], abs=1e-9)
        assert result.status.value == overall["evalStatus"]
        # The runner joins per-turn reasons with ";" for the overall details (formats.md §6.3).
        assert ";".join(t.details.reason for t in result.turns) == overall["details"]["reason"]


def test_request_follows_the_stored_judge_config(judge_server: JudgeServer) -> None:
    _replay(judge_server)
    for request in judge_server.recorded():
        body = request.body
        assert body["model"] == "deepseek-chat"
        assert body["max_completion_tokens"] == 512
        assert body["temperature"] == 1.0
        assert "stream" not in body and "response_format" not in body
        assert request.headers["authorization"] == f"Bearer {API_KEY}"


def test_flipped_verdicts_do_not_reproduce_the_oracle(judge_server: JudgeServer) -> None:
    # Negative control: the comparison above can fail.
    for result, overall, _ in _replay(judge_server, flip=True):
        assert result.status.value != overall["evalStatus"]
