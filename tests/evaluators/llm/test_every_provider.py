"""Every judge evaluator through every judge provider: the same case scores the same.

One parametrised test runs each judge evaluator (``llm_final_response``, the
four ``llm_rubric_*``, ``llm_hallucinations``, ``llm_judge_template``, the
judge step of ``final_response_gate`` and, where the provider returns token
logprobs, ``llm_verifier_pairwise``) against a loopback server speaking
``openai``, ``anthropic``, ``gemini``, ``ollama`` and ``hunyuan`` in turn.
The scripted judge answers are the same text for all five; the expected
scores are fixed numbers, so every provider must reproduce them.  The
request's structured-output schema is checked in each provider's field.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from judge_support import PROVIDERS
from llm_support import ok, run, turn

import agenteval.evaluators.builtins  # noqa: F401  (registers the built-ins)
from agenteval.evaluators.base import EvaluateResult
from agenteval.evaluators.llm.hallucinations import HallucinationsJudge
from agenteval.evaluators.llm.judge_template import TemplateJudge
from agenteval.evaluators.llm.knowledge_recall import KnowledgeRecallJudge
from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.evaluators.llm.rubric_critic import RubricCriticJudge
from agenteval.evaluators.llm.rubric_reference_critic import RubricReferenceCriticJudge
from agenteval.evaluators.llm.rubric_response import RubricResponseJudge
from agenteval.evaluators.llm.verifier_pairwise import PairwiseVerifier
from agenteval.evaluators.registry import evaluators
from agenteval.judge.provider import LOGPROBS, judge_providers
from agenteval.schema import EvalMetric, Invocation
from judge_server import JudgeServer, Reply

KEY = "sk-test-every-provider-0123456789"
HUNYUAN = ("AKIDeveryProviderTest0001", "everyProviderTestSecretKey0001")


@pytest.fixture(params=list(PROVIDERS))
def server(request: pytest.FixtureRequest) -> Iterator[JudgeServer]:
    """A loopback judge speaking each provider in turn."""
    with JudgeServer(provider=request.param, tc3_keys={HUNYUAN[0]: HUNYUAN[1]}) as started:
        yield started


def judge_model(server: JudgeServer, **fields: Any) -> dict[str, Any]:
    """A judgeModel block for ``server``'s provider."""
    key = ":".join(HUNYUAN) if server.provider == "hunyuan" else KEY
    data: dict[str, Any] = {
        "providerName": server.provider,
        "modelName": "judge-model",
        "baseURL": server.base_url,
        "apiKey": key,
    }
    data.update(fields)
    return data


def metric_of(name: str, block: dict[str, Any], evaluator: str = "") -> EvalMetric:
    data: dict[str, Any] = {"metricName": name, "threshold": 0.5, "criterion": {"llmJudge": block}}
    if evaluator:
        data["evaluatorName"] = evaluator
    return EvalMetric.model_validate(data)


def schema_sent(body: dict[str, Any], provider: str) -> Any:
    """The JSON schema a request carries, read from the provider's own field."""
    if provider == "openai":
        return body.get("response_format", {}).get("json_schema", {}).get("schema")
    if provider == "anthropic":
        return body.get("output_config", {}).get("format", {}).get("schema")
    if provider == "gemini":
        return body.get("generationConfig", {}).get("responseJsonSchema")
    if provider == "ollama":
        return body.get("format")
    return None


@dataclass(frozen=True)
class Scenario:
    """One evaluator on one case: how to script the judge and run it."""

    run: Callable[[JudgeServer], EvaluateResult]
    score: float
    passed: bool
    requests: int
    # The schema's top-level property the scorer asks for (None: the scorer has no schema).
    schema_key: str | None = None


def _rubric(judge: Any, name: str) -> Callable[[JudgeServer], EvaluateResult]:
    def go(server: JudgeServer) -> EvaluateResult:
        payload = {
            "rubricScores": [
                {"id": "1", "score": 1, "reason": "names the city"},
                {"id": "2", "score": 0, "reason": "two sentences"},
            ]
        }
        server.default = Reply(content=json.dumps(payload))
        rubrics = [
            {"id": "1", "content": {"text": "The answer names the correct city."}},
            {"id": "2", "content": {"text": "The answer is one word."}},
        ]
        block = {"judgeModel": judge_model(server), "rubrics": rubrics}
        return ok(run(judge, metric_of(name, block), [turn("q", "Paris.")], [turn("q", "Paris.")]))

    return go


def _final_response(server: JudgeServer) -> EvaluateResult:
    server.default = Reply(content="reasoning: same city\nis_the_agent_response_valid: valid")
    block = {"judgeModel": judge_model(server, numSamples=3)}
    return ok(
        run(
            FinalResponseJudge(),
            metric_of("llm_final_response", block),
            [turn("Capital of France?", "Paris")],
            [turn("Capital of France?", "Paris")],
        )
    )


def _hallucinations(server: JudgeServer) -> EvaluateResult:
    server.when(
        "Split the answer below into its individual claims",
        Reply(content="<sentence>Paris is cloudy.</sentence>\n<sentence>It is 18C.</sentence>"),
    )
    server.when(
        "<segmented_sentences>",
        Reply(
            content=(
                "ID: 1\nReason: The tool says Cloudy.\nLabel: supported\nVerdict: yes\n\n"
                "ID: 2\nReason: The tool says 17C.\nLabel: contradictory\nVerdict: no"
            )
        ),
    )
    actual = Invocation.model_validate(
        {
            "userContent": {"role": "user", "content": "Weather in Paris?"},
            "finalResponse": {"role": "assistant", "content": "Paris is cloudy and 18C."},
            "tools": [
                {
                    "id": "t1",
                    "name": "weather",
                    "arguments": {"city": "Paris"},
                    "result": {"condition": "Cloudy", "temperatureC": 17},
                }
            ],
        }
    )
    block = {"judgeModel": judge_model(server)}
    return ok(
        run(HallucinationsJudge(), metric_of("llm_hallucinations", block), [actual], [Invocation()])
    )


def _template(server: JudgeServer) -> EvaluateResult:
    server.default = Reply(content='{"score":1,"reason":"matched"}')
    template = {
        "prompt": "Question: {{question}}\nAnswer: {{answer}}",
        "responseScorerName": "single_score",
        "variableBindings": [
            {"templateVariable": "question", "source": {"scope": "actual", "field": "userContent"}},
            {"templateVariable": "answer", "source": {"scope": "actual", "field": "finalResponse"}},
        ],
    }
    block = {"judgeModel": judge_model(server), "template": template}
    metric = metric_of("graded", block, "llm_judge_template")
    return ok(
        run(TemplateJudge(), metric, [turn("Capital?", "Paris")], [turn("Capital?", "Paris")])
    )


def _gate(server: JudgeServer) -> EvaluateResult:
    server.default = Reply(content=json.dumps({"score": 1.0, "pass": True, "reasoning": "same"}))
    gate = evaluators.get("final_response_gate")
    assert gate is not None
    metric = EvalMetric.model_validate(
        {
            "metricName": "final_response_gate",
            "threshold": 1.0,
            "criterion": {"llmJudge": {"judgeModel": judge_model(server)}},
        }
    )
    question = "The web server ignores my new config. What should I do?"
    return ok(
        run(
            gate,  # type: ignore[arg-type]
            metric,
            [turn(question, "Reload nginx so that it picks up the changed settings.")],
            [turn(question, "Restart the nginx service to apply the new configuration.")],
        )
    )


def _tok(text: str, logprob: float = 0.0, *tops: tuple[str, float]) -> dict[str, Any]:
    return {
        "token": text,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in tops],
    }


def _verifier(server: JudgeServer) -> EvaluateResult:
    stream = [
        _tok("analysis\n<score_A>"),
        _tok("A", math.log(0.7), ("A", math.log(0.7)), ("T", math.log(0.3))),
        _tok("</score_A>\n<score_B>"),
        _tok("T", math.log(0.8), ("T", math.log(0.8)), ("A", math.log(0.2))),
    ]
    server.default = Reply(content="".join(t["token"] for t in stream), logprobs=stream)
    block = {
        "rubrics": [{"id": "accuracy", "content": {"text": "Prefer the more accurate answer."}}],
        "judgeModel": judge_model(
            server, generationConfig={"logprobs": True, "top_logprobs": 20, "temperature": 0}
        ),
    }
    metric = metric_of("pairwise_preference", block, "llm_verifier_pairwise")
    return ok(run(PairwiseVerifier(), metric, [turn("q", "a")], [turn("q", "b")]))


SCENARIOS: dict[str, Scenario] = {
    "llm_final_response": Scenario(_final_response, 1.0, True, 3),
    "llm_rubric_response": Scenario(
        _rubric(RubricResponseJudge(), "llm_rubric_response"), 0.5, True, 1, "rubricScores"
    ),
    "llm_rubric_critic": Scenario(
        _rubric(RubricCriticJudge(), "llm_rubric_critic"), 0.5, True, 1, "rubricScores"
    ),
    "llm_rubric_reference_critic": Scenario(
        _rubric(RubricReferenceCriticJudge(), "llm_rubric_reference_critic"),
        0.5,
        True,
        1,
        "rubricScores",
    ),
    "llm_rubric_knowledge_recall": Scenario(
        _rubric(KnowledgeRecallJudge(), "llm_rubric_knowledge_recall"), 0.5, True, 1, "rubricScores"
    ),
    "llm_hallucinations": Scenario(_hallucinations, 0.5, True, 2),
    "llm_judge_template": Scenario(_template, 1.0, True, 1, "score"),
    "final_response_gate": Scenario(_gate, 1.0, True, 1),
    "llm_verifier_pairwise": Scenario(_verifier, 0.75, True, 1),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_judge_evaluator_scores_the_same_through_every_provider(
    server: JudgeServer, name: str
) -> None:
    scenario = SCENARIOS[name]
    if (
        name == "llm_verifier_pairwise"
        and LOGPROBS not in judge_providers[server.provider].capabilities
    ):
        pytest.skip("no token logprobs: a config error at validate (test_verifier_capability)")
    result = scenario.run(server)
    only = result.turns[0]
    assert only.score == pytest.approx(scenario.score, abs=1e-9)
    assert result.score == pytest.approx(scenario.score, abs=1e-9)
    assert only.status.value == ("passed" if scenario.passed else "failed")
    assert server.count == scenario.requests
    for recorded in server.recorded():
        body = recorded.body
        schema = schema_sent(body, server.provider)
        if scenario.schema_key is not None and server.provider != "hunyuan":
            assert schema is not None and scenario.schema_key in schema["properties"]
        else:
            assert schema is None
        for secret in (KEY, *HUNYUAN):
            assert secret.encode() not in recorded.raw


def _verifier_metric_file(tmp_path: Path, provider: str) -> Path:
    metric = {
        "metricName": "pairwise_preference",
        "evaluatorName": "llm_verifier_pairwise",
        "threshold": 0.5,
        "criterion": {
            "llmJudge": {
                "rubrics": [{"id": "accuracy", "content": {"text": "Prefer the accurate one."}}],
                "judgeModel": {
                    "providerName": provider,
                    "modelName": "judge-model",
                    "baseURL": "http://127.0.0.1:9",
                    "apiKey": "k:k" if provider == "hunyuan" else "k",
                    "generationConfig": {"logprobs": True, "top_logprobs": 20},
                },
            }
        },
    }
    path = tmp_path / f"{provider}.metrics.json"
    path.write_text(json.dumps([metric]))
    return path


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_verifier_capability_is_checked_at_validate(tmp_path: Path, provider: str) -> None:
    evalset = tmp_path / "one.evalset.json"
    # A case validate accepts (sessionInput set: validate checks layouts too, issue 12).
    case = {
        "evalId": "c1",
        "sessionInput": {"appName": "a", "userId": "u"},
        "conversation": [
            {
                "userContent": {"role": "user", "content": "q"},
                "finalResponse": {"role": "assistant", "content": "a"},
            }
        ],
    }
    evalset.write_text(json.dumps({"evalSetId": "one", "evalCases": [case]}))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agenteval",
            "validate",
            "--evalset",
            str(evalset),
            "--metrics",
            str(_verifier_metric_file(tmp_path, provider)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = " ".join((done.stdout + done.stderr).split())
    if LOGPROBS in judge_providers[provider].capabilities:
        assert done.returncode == 0, output
        assert "cannot return" not in output
    else:
        assert done.returncode == 2, output
        assert (
            f"criterion.llmJudge.judgeModel.providerName: metric 'pairwise_preference' "
            f"(llm_verifier_pairwise) needs token logprobs, which judge provider '{provider}' "
            "cannot return"
        ) in output
