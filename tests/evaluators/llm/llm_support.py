"""Builders shared by the judge-evaluator tests: metrics, turns and one-case runs over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.evaluators.base import EvalContext, EvaluateResult, EvaluatorError
from agenteval.evaluators.llm.pipeline import JudgeEvaluator
from agenteval.judge import JudgeBackend, JudgeClient, JudgeOptions
from agenteval.judge.session import JudgeSession
from agenteval.schema import EvalCase, EvalMetric, Invocation
from judge_server import JudgeServer, Reply

CASE = EvalCase(eval_id="case-1")


def verdict(label: str, reason: str = "compared with the reference") -> Reply:
    """A scripted two-line final-response verdict."""
    return Reply(content=f"reasoning: {reason}\nis_the_agent_response_valid: {label}")


def judge_model(server: JudgeServer | None, **fields: Any) -> dict[str, Any]:
    """A judgeModel block pointing at the loopback server."""
    data: dict[str, Any] = {
        "providerName": "openai",
        "modelName": "judge-model",
        "baseURL": server.base_url if server is not None else "http://127.0.0.1:9/v1",
        "apiKey": "sk-test-llm-evaluators",
    }
    data.update(fields)
    return data


def metric(
    server: JudgeServer | None,
    *,
    threshold: float = 0.5,
    name: str = "llm_final_response",
    llm_judge: dict[str, Any] | None = None,
    **model_fields: Any,
) -> EvalMetric:
    """A judge metric; ``llm_judge`` replaces the whole llmJudge block when given."""
    block = (
        llm_judge if llm_judge is not None else {"judgeModel": judge_model(server, **model_fields)}
    )
    return EvalMetric.model_validate(
        {"metricName": name, "threshold": threshold, "criterion": {"llmJudge": block}}
    )


def turn(user: str = "q", answer: str | None = "a") -> Invocation:
    """One invocation with a user prompt and (optionally) a final response."""
    data: dict[str, Any] = {"userContent": {"role": "user", "content": user}}
    if answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    return Invocation.model_validate(data)


@dataclass
class Outcome:
    """The evaluator's result (or error) and the session it ran with."""

    result: EvaluateResult | None
    error: EvaluatorError | None
    session: JudgeSession


def options(**overrides: Any) -> JudgeOptions:
    """Client options for tests: no cache, tiny backoffs."""
    values: dict[str, Any] = {
        "cache_path": None,
        "retries": 1,
        "backoff_base": 0.01,
        "backoff_max": 0.02,
        "timeout": 5.0,
    }
    values.update(overrides)
    return JudgeOptions(**values)


def run(
    evaluator: JudgeEvaluator,
    metric_: EvalMetric,
    actuals: Sequence[Invocation],
    expecteds: Sequence[Invocation],
    *,
    judge_options: JudgeOptions | None = None,
    backend: JudgeBackend | None = None,
    backend_num_samples: int | None = None,
    run_id: int = 1,
) -> Outcome:
    """Evaluate one case through a real ``JudgeClient`` and capture result or error."""

    async def go() -> Outcome:
        client = JudgeClient(judge_options or options(), backend=backend)
        async with client:
            session = JudgeSession(
                client=client,
                injected_backend=backend is not None,
                backend_num_samples=backend_num_samples,
            )
            context = EvalContext("set-1", CASE, run_id, judge=session)
            try:
                result = await evaluator.aevaluate(metric_, actuals, expecteds, context)
            except EvaluatorError as exc:
                return Outcome(None, exc, session)
            return Outcome(result, None, session)

    return asyncio.run(go())


def ok(outcome: Outcome) -> EvaluateResult:
    """The result of a run that must not have failed."""
    assert outcome.error is None, str(outcome.error)
    assert outcome.result is not None
    return outcome.result


def error(outcome: Outcome) -> str:
    """The error message of a run that must have failed."""
    assert outcome.error is not None, "the evaluation did not fail"
    return str(outcome.error)
